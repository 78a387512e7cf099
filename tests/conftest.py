"""Shared fixtures: where the reference data lives (and skipping when it is absent), and tasks of
our own in Verina's layout, written for the tests."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from veriscale.task import LeanFile, Parameter, RejectInput, Signature, Task, TestCase, load_task, write_task

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = PROJECT_ROOT / "examples"


def reference_data_dir() -> Path:
    """``$VERISCALE_DATA`` if set, else ``shared/data`` beside the project checkout."""
    env = os.environ.get("VERISCALE_DATA")
    return Path(env) if env else PROJECT_ROOT.parent / "shared" / "data"


DATA_DIR = reference_data_dir()
SUITES = ("verina", "verinaplus", "verinalite")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not (DATA_DIR / "verina").is_dir():
        pytest.skip(f"reference data not found at {DATA_DIR} (set VERISCALE_DATA)")
    return DATA_DIR


# ---------------------------------------------------------------------------------------------
# Tasks of our own in Verina's layout


def _body(text: str) -> str:
    """A definition's section body: its first line indented by two spaces unless it already is;
    later lines as given (so ``"unfold f\\n  rfl"`` and ``"  a\\n  b"`` both read as written)."""
    return text if text[:1].isspace() else f"  {text}"


def verina_lean(
    name: str,
    params: Sequence[tuple[str, str]],
    ret: str,
    *,
    code: str,
    precond: str = "True",
    postcond: str = "True",
    imports: str = "",
    task_aux: str | None = None,
    code_aux: str = "",
    proof_aux: str = "",
    proof: str | None = None,
) -> str:
    """``task.lean`` of a Verina task ``name`` over ``params`` (name, type) returning ``ret``: the
    precondition, code and postcondition (``@[reducible, simp]``, as Verina writes them), the aux
    sections, and the ``_spec_satisfied`` theorem when a ``proof`` is given. An empty section
    holds one blank line, as in Verina; a ``task_aux`` section is written only when given."""
    binders = " ".join(f"({p} : {t})" for p, t in params)
    args = " ".join(f"({p})" for p, _ in params)
    task_aux_section = (
        "" if task_aux is None else f"-- !benchmark @start task_aux\n{task_aux}\n-- !benchmark @end task_aux\n\n"
    )
    theorem = "" if proof is None else f"""
theorem {name}_spec_satisfied {binders} (h_precond : {name}_precond {args}) :
    {name}_postcond {args} ({name} {args} h_precond) h_precond := by
  -- !benchmark @start proof
{_body(proof)}
  -- !benchmark @end proof
"""
    return f"""-- !benchmark @start import type=solution
{imports}
-- !benchmark @end import

{task_aux_section}-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def {name}_precond {binders} : Prop :=
  -- !benchmark @start precond
{_body(precond)}
  -- !benchmark @end precond

-- !benchmark @start code_aux
{code_aux}
-- !benchmark @end code_aux

def {name} {binders} (h_precond : {name}_precond {args}) : {ret} :=
  -- !benchmark @start code
{_body(code)}
  -- !benchmark @end code

-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux

@[reducible, simp]
def {name}_postcond {binders} (result : {ret}) (h_precond : {name}_precond {args}) : Prop :=
  -- !benchmark @start postcond
{_body(postcond)}
  -- !benchmark @end postcond

-- !benchmark @start proof_aux
{proof_aux}
-- !benchmark @end proof_aux
{theorem}"""


def verina_task(
    task_id: str,
    name: str,
    params: Sequence[tuple[str, str]],
    ret: str,
    *,
    description: str = "A task of our own.\n",
    tests: Sequence[TestCase] = (),
    rejects: Sequence[RejectInput] = (),
    **sections: Any,
) -> Task:
    """A task of our own in memory; ``sections`` are :func:`verina_lean`'s (``code`` at least)."""
    return Task(
        id=task_id,
        signature=Signature(name=name, parameters=[Parameter(name=p, type=t) for p, t in params], return_type=ret),
        description=description,
        tests=list(tests),
        reject_inputs=list(rejects),
        lean=LeanFile.parse(verina_lean(name, params, ret, **sections)),
    )


def write_verina_task(root: Path, task_id: str, name: str, params: Sequence[tuple[str, str]], ret: str,
                      **options: Any) -> Task:
    """:func:`verina_task` written to ``root/task_id`` as a task directory, and loaded from it."""
    task = verina_task(task_id, name, params, ret, **options)
    return load_task(write_task(task, root / task_id))


def run_with_postcond(task: Task, aux: str, postcond: str, checks: list[Any], max_steps: int = 500_000) -> list[Any]:
    """The embedded engine's answers to ``checks`` on ``task`` with its postcondition sections
    replaced, compiled afresh: the program cache is emptied before and after, so a compiler patched
    by the caller (say, with an optimisation switched off) takes effect and leaves nothing behind."""
    from veriscale.backends.embedded import program as program_module
    from veriscale.backends.embedded.backend import EmbeddedBackend

    program_module._CACHE.clear()
    try:
        changed = task.with_sections(postcond_aux=aux, postcond="  " + postcond)
        return EmbeddedBackend(max_steps=max_steps).run(changed, checks)
    finally:
        program_module._CACHE.clear()


def load_benchmark_script(name: str) -> Any:
    """``benchmarks/<name>.py`` imported as the module ``name`` (the scripts are not a package)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def elab_report(src: str) -> Any:
    """The embedded elaborator's report on a Lean file's text."""
    from veriscale.backends.embedded.elab import elaborate
    from veriscale.backends.embedded.program import Program

    return elaborate(Program(src).env)


def elab_errors(src: str) -> list[str]:
    """The rules of the errors the elaborator reports on ``src`` (Lean rejects the file)."""
    return [d.rule for d in elab_report(src).errors]


def elab_gaps(src: str) -> list[str]:
    """The rules of the places in ``src`` the elaborator cannot judge."""
    return [d.rule for d in elab_report(src).gaps]


def elab_clean(src: str) -> bool:
    """Neither an error nor a gap: a well-typed control."""
    return not elab_report(src).diagnostics


def elab_diagnostics(src: str) -> list[tuple[str, str]]:
    """Every diagnostic of the elaborator on ``src`` as (kind, rule)."""
    return [(d.kind, d.rule) for d in elab_report(src).diagnostics]


def run_elaborated(src: str, name: str = "f", **args: Any) -> Any:
    """The value of ``name`` on ``args``, after checking the elaborator accepts ``src`` cleanly."""
    from veriscale.backends.embedded.backend import call_entry
    from veriscale.backends.embedded.elab import elaborate
    from veriscale.backends.embedded.program import Program

    program = Program(src)
    assert elaborate(program.env).diagnostics == []
    return call_entry(program, name, args, None)


def engine_answers(task: Task, checks: Sequence[Any], codegen: bool, **limits: int) -> tuple[list[Any], Any]:
    """The embedded engine's answers on ``checks`` with generated code on or off (``codegen``),
    from a fresh program of the task's text (not the cached one), and that program."""
    from veriscale.backends.embedded.backend import EmbeddedBackend
    from veriscale.backends.embedded.program import Program

    program = Program(task.lean_text())
    program.compiler.gen.enabled = codegen
    saved = Program.__dict__["from_task"]
    Program.from_task = classmethod(lambda cls, t: program)  # type: ignore[method-assign,assignment]
    try:
        answers = EmbeddedBackend(**limits).run(task, checks)
    finally:
        Program.from_task = saved  # type: ignore[method-assign]
    return answers, program


def answer_fields(answers: Sequence[Any]) -> list[tuple[object, ...]]:
    """What two evaluation paths must agree on, answer by answer."""
    return [(a.status, repr(a.value), a.reason, a.detail, a.steps) for a in answers]

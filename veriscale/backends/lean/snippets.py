"""The Lean text the backend sends, rendered from ``templates/lean/*.lean.j2``.

Every argument is rendered by the value codec (``veriscale.lean.codec.render_value``) and ascribed its
declared type, ``(v : T)``, so that numerals, lists and structures elaborate at exactly the
signature's types. Generated code never reaches these templates except as the task's
definitions; the options set here (``maxHeartbeats``, ``eval.pp``) belong to the wrapper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from veriscale.backends.base import Check, CheckKind
from veriscale.backends.lean.config import LeanBackendConfig
from veriscale.resources import lean_templates_dir, template_environment

if TYPE_CHECKING:
    from veriscale.task import Task

DEFAULT_TEMPLATES_DIR = lean_templates_dir()
SNIPPET_MARKER = "-- veriscale check"
"""First line of every check snippet (a Lean comment; the stand-in REPL splits batches on it)."""


class UnsupportedCheck(Exception):
    """The check cannot be expressed in Lean text (missing argument, unrenderable value)."""


class ValueCodec(Protocol):
    """Turns runtime values into Lean terms and printed Lean values back into runtime values."""

    def render(self, value: Any, type_text: str) -> str: ...

    def parse(self, text: str, type_text: str) -> Any: ...


class LeanValueCodec:
    """The project's codec (``veriscale.lean.codec``), aware of the task's own structures."""

    def __init__(self, task: Task) -> None:
        from veriscale.lean.types import parse_structures

        try:
            self._structs: Mapping[str, Any] = parse_structures(task.lean_text())
        except ValueError:
            self._structs = {}

    def render(self, value: Any, type_text: str) -> str:
        from veriscale.lean.codec import render_value

        return render_value(value, type_text, self._structs)

    def parse(self, text: str, type_text: str) -> Any:
        from veriscale.lean.codec import parse_lean

        return parse_lean(text, type_text, self._structs)


CodecFactory = Callable[["Task"], ValueCodec]


class Templates:
    """The Lean templates of one directory."""

    def __init__(self, templates_dir: Path | None = None) -> None:
        self.directory = (templates_dir or DEFAULT_TEMPLATES_DIR).resolve()
        if not (self.directory / "check_eval.lean.j2").is_file():
            raise FileNotFoundError(f"Lean templates not found in {self.directory}")
        self._env = template_environment(self.directory)

    def render(self, name: str, **values: Any) -> str:
        return self._env.get_template(name).render(**values).strip("\n")

    def header(self, imports: tuple[str, ...]) -> str:
        return self.render("header.lean.j2", imports=imports)

    def print_axioms(self, body: str, theorem_name: str) -> str:
        return self.render("print_axioms.lean.j2", body=body, theorem_name=theorem_name)


@dataclass(frozen=True)
class Snippet:
    """One check's Lean text, and which of its lines carries the result."""

    check_index: int
    role: str
    """``"eval"``, ``"probe"`` (proves the proposition) or ``"probe_neg"`` (proves its negation)."""
    text: str
    result_line: int
    """1-based line within ``text``: the ``#eval`` line, or the ``#print axioms`` line."""
    theorem: str | None = None

    @property
    def line_count(self) -> int:
        return self.text.count("\n") + 1


def _line_of(text: str, prefix: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(prefix):
            return number
    raise ValueError(f"template output has no line starting with {prefix!r}")


class CheckRenderer:
    """Renders the snippets of one task's checks."""

    def __init__(self, task: Task, config: LeanBackendConfig, codec: ValueCodec, templates: Templates, nonce: str):
        self.task = task
        self.config = config
        self.codec = codec
        self.templates = templates
        self.nonce = nonce
        self.name = task.signature.name
        if config.precond_proof not in ("lcProof", "sorry"):
            raise ValueError(f"precond_proof must be 'lcProof' or 'sorry', not {config.precond_proof!r}")
        self._bang = "!" if config.precond_proof == "sorry" else ""
        self._proof = config.precond_proof

    # ------------------------------------------------------------------------------------------
    # Terms

    def _typed(self, value: Any, type_text: str, what: str) -> str:
        try:
            literal = self.codec.render(value, type_text)
        except Exception as exc:  # the codec's errors are ValueError subclasses, but be safe
            raise UnsupportedCheck(f"cannot render {what} as Lean {type_text}: {exc}") from exc
        return f"({literal} : {type_text})"

    def args_text(self, check: Check) -> str:
        parts = []
        for parameter in self.task.signature.parameters:
            if parameter.name not in check.args:
                raise UnsupportedCheck(f"missing argument {parameter.name!r}")
            parts.append(self._typed(check.args[parameter.name], parameter.type, f"argument {parameter.name}"))
        extra = set(check.args) - {p.name for p in self.task.signature.parameters}
        if extra:
            raise UnsupportedCheck(f"unknown arguments {sorted(extra)}")
        return " ".join(parts)

    def _output_text(self, check: Check) -> str:
        return self._typed(check.output, self.task.signature.return_type, "the output")

    def proposition(self, check: Check, proof: str) -> str:
        """``<name>_precond args`` or ``<name>_postcond args output (h_precond := proof)``."""
        args = self.args_text(check)
        if check.kind is CheckKind.PRECOND:
            return f"{self.name}_precond {args}"
        if check.kind is CheckKind.POSTCOND:
            return f"{self.name}_postcond {args} {self._output_text(check)} (h_precond := {proof})"
        raise ValueError(f"{check.kind} is not a proposition")

    def eval_term(self, check: Check) -> str:
        if check.kind is CheckKind.CODE:
            return f"{self.name} {self.args_text(check)} (h_precond := {self._proof})"
        return f"decide ({self.proposition(check, self._proof)})"

    # ------------------------------------------------------------------------------------------
    # Snippets

    def eval_snippet(self, index: int, check: Check) -> Snippet:
        text = self.templates.render(
            "check_eval.lean.j2",
            index=index,
            max_heartbeats=self.config.max_heartbeats,
            bang=self._bang,
            term=self.eval_term(check),
        )
        return Snippet(check_index=index, role="eval", text=text, result_line=_line_of(text, "#eval"))

    def probe_snippets(self, index: int, check: Check) -> list[Snippet]:
        """The two Plausible probes of a proposition: one for it, one for its negation."""
        if check.kind is CheckKind.PRECOND:
            hypotheses: list[str] = []
            statement = self.proposition(check, "h_precond")
            unfold = f"{self.name}_precond"
        elif check.kind is CheckKind.POSTCOND:
            # The probe is a theorem, so it cannot use the unsafe placeholder: the precondition
            # becomes a hypothesis (the probe is meant for inputs that satisfy it).
            hypotheses = [f"h_precond : {self.name}_precond {self.args_text(check)}"]
            statement = self.proposition(check, "h_precond")
            unfold = f"{self.name}_postcond"
        else:
            raise ValueError("only propositions have probes")
        snippets = []
        for role, stated in (("probe", f"({statement})"), ("probe_neg", f"¬ ({statement})")):
            theorem = f"veriscale_probe_{self.nonce}_{index}_{'neg' if role == 'probe_neg' else 'pos'}"
            text = self.templates.render(
                "check_probe.lean.j2",
                index=index,
                max_heartbeats=self.config.max_heartbeats,
                theorem_name=theorem,
                hypotheses=hypotheses,
                statement=stated,
                unfold=unfold,
                num_inst=self.config.plausible_num_inst,
                max_size=self.config.plausible_max_size,
                num_retries=self.config.plausible_num_retries,
                seed=self.config.plausible_seed,
            )
            snippets.append(
                Snippet(
                    check_index=index,
                    role=role,
                    text=text,
                    result_line=_line_of(text, "#print axioms"),
                    theorem=theorem,
                )
            )
        return snippets

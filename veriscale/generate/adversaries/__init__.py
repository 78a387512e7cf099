"""LLM-free adversarial implementations ("lazy" programs that are wrong but plausible) and
wrong-output candidates.

* :func:`llm_free_adversaries` -- templates derived from the signature
  (:mod:`.templates`) followed by single-change mutants of the reference implementation
  (:mod:`.mutants`), each an :class:`Adversary` whose ``sections`` replace section bodies of the
  task. Deterministic: the same task and arguments give the same list, ids and order.
* :func:`mutate_outputs` -- type-aware mutants of an expected output (:mod:`.outputs`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from veriscale.generate.adversaries.model import Adversary, AdversarySource
from veriscale.generate.adversaries.mutants import (
    FAMILIES,
    Mutation,
    section_mutations,
    whole_result_mutations,
)
from veriscale.generate.adversaries.outputs import mutate_outputs
from veriscale.generate.adversaries.templates import Template, signature_templates
from veriscale.lean.types import LeanType, LeanTypeError, StructDef, parse_structures, parse_type
from veriscale.task import Task

__all__ = [
    "Adversary",
    "AdversarySource",
    "Mutation",
    "Template",
    "distinct_adversaries",
    "llm_free_adversaries",
    "mutant_adversaries",
    "mutate_outputs",
    "template_adversaries",
]

DEFAULT_SEED = 42
DEFAULT_MAX_MUTANTS = 60


def _signature(task: Task) -> tuple[dict[str, LeanType], LeanType, dict[str, StructDef]] | None:
    try:
        params = {p.name: parse_type(p.type) for p in task.signature.parameters}
        ret = parse_type(task.signature.return_type)
    except LeanTypeError:
        return None
    try:
        structs = parse_structures(task.section("task_aux"))
    except LeanTypeError:
        structs = {}
    return params, ret, structs


def _normalised(code: str) -> str:
    return " ".join(code.split())


def template_adversaries(task: Task) -> list[Adversary]:
    """Signature templates as adversaries (``{"code": body}``), minus any that is textually the
    reference implementation itself."""
    signature = _signature(task)
    if signature is None:
        return []
    params, ret, structs = signature
    reference = _normalised(task.section("code"))
    out: list[Adversary] = []
    for template in signature_templates(params, ret, structs):
        if _normalised(template.expression) == reference:
            continue
        out.append(
            Adversary(
                id=f"template:{template.kind}",
                source="template",
                description=template.description,
                sections={"code": f"  {template.expression}\n"},
            )
        )
    return out


def _mentions_float(task: Task) -> bool:
    texts = [task.signature.return_type, *(p.type for p in task.signature.parameters)]
    texts += [task.section(name) for name in ("task_aux", "solution_aux", "code_aux", "code")]
    return any("Float" in text for text in texts)


def all_mutations(task: Task) -> list[Mutation]:
    """Every mutation of the task's ``code_aux`` and ``code`` sections, in source order."""
    signature = _signature(task)
    params, ret = (signature[0], signature[1]) if signature is not None else ({}, None)
    allow_mod = not _mentions_float(task)
    found: list[Mutation] = []
    # Helpers in code_aux have their own parameters: the task's parameter types do not apply.
    found += section_mutations("code_aux", task.section("code_aux"), {}, allow_mod=allow_mod)
    code = task.section("code")
    if ret is not None:
        found += whole_result_mutations(code, ret)
    found += section_mutations(
        "code", code, params, allow_mod=allow_mod, recursive_names=[task.signature.name]
    )
    return found


def _rank(seed: int, task: Task, mutation: Mutation) -> str:
    return hashlib.sha256(f"{seed}\x1f{task.id}\x1f{mutation.id}".encode()).hexdigest()


def select_mutations(task: Task, mutations: Sequence[Mutation], *, seed: int, cap: int) -> list[Mutation]:
    """At most ``cap`` mutations: a seeded, stable choice spread over the operator families
    (round robin over families, each family in seeded hash order), returned in source order."""
    if len(mutations) <= cap:
        return list(mutations)
    if cap <= 0:
        return []
    families: dict[str, list[int]] = {}
    for index, mutation in enumerate(mutations):
        families.setdefault(mutation.family, []).append(index)
    order = [f for f in FAMILIES if f in families] + sorted(f for f in families if f not in FAMILIES)
    queues = {f: sorted(families[f], key=lambda i: _rank(seed, task, mutations[i])) for f in order}
    chosen: list[int] = []
    while len(chosen) < cap:
        for family in order:
            if queues[family] and len(chosen) < cap:
                chosen.append(queues[family].pop(0))
    return [mutations[i] for i in sorted(chosen)]


def mutant_adversaries(
    task: Task, *, seed: int = DEFAULT_SEED, max_mutants: int = DEFAULT_MAX_MUTANTS
) -> list[Adversary]:
    """Single-change mutants of the reference ``code``/``code_aux`` (at most ``max_mutants``)."""
    mutations = select_mutations(task, all_mutations(task), seed=seed, cap=max_mutants)
    out: list[Adversary] = []
    for mutation in mutations:
        body = mutation.apply(task.section(mutation.section))
        out.append(
            Adversary(
                id=mutation.id,
                source="mutant",
                description=f"mutant ({mutation.family}): {mutation.description}",
                sections={mutation.section: body},
            )
        )
    return out


def llm_free_adversaries(
    task: Task, *, seed: int = DEFAULT_SEED, max_mutants: int = DEFAULT_MAX_MUTANTS
) -> list[Adversary]:
    """Templates, then mutants; ids unique, and no two adversaries with the same sections."""
    return distinct_adversaries(
        [*template_adversaries(task), *mutant_adversaries(task, seed=seed, max_mutants=max_mutants)]
    )


def distinct_adversaries(adversaries: Sequence[Adversary]) -> list[Adversary]:
    """``adversaries`` in order without a repeated id or a repeated set of sections (the first is kept)."""
    ids: set[str] = set()
    bodies: set[tuple[tuple[str, str], ...]] = set()
    out: list[Adversary] = []
    for adversary in adversaries:
        body = tuple(sorted(adversary.sections.items()))
        if adversary.id in ids or body in bodies:
            continue
        ids.add(adversary.id)
        bodies.add(body)
        out.append(adversary)
    return out

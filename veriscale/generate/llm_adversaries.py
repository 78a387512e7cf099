"""The LLM adversary round: lazy implementations that game a weak, generated specification.

Three steps per task, each one chat request through :class:`~veriscale.llm.LLMClient` (so a
resumed run replays them from the run store):

1. **Problem model** (``problem_model.j2``): the model lists the task's constraints, each about the
   input or the output and tagged ``explicit`` (the description states it) or ``hypothesised``
   (a plausible reading the description does not settle).
2. **Specification** (``spec_generation.j2``, ``specs`` times with seeds ``seed``, ``seed+1``, ...):
   a Lean precondition and postcondition formalising the *explicit* constraints only. Such a spec
   is typically weaker than the ground truth, which is what makes it worth gaming.
3. **Lazy implementations** (``lazy_impl.j2``, one request per spec): ``impls_per_spec`` bodies of
   the task's function that satisfy the generated spec but do not solve the task. Each becomes an
   :class:`~veriscale.generate.adversaries.Adversary` with id ``llm:<model>:<spec#>:<k>`` and
   sections ``{"code": body}`` (plus ``code_aux`` when helpers were given).

Replies are parsed strictly: the whole reply must be one JSON object (optionally alone in one
fenced block) of exactly the requested shape (pydantic models with ``extra="forbid"``). A reply
that is not is a *bad reply*, counted by step and reason (``problem_model: not-json``,
``spec: schema``, ``lazy_impl: bad-element`` ...) and yields nothing; a refusal, an empty or a
truncated reply is counted in ``failures``. Nothing here screens or runs the code: the caller
screens every adversary (``lean.safety.screen_sections``) and evaluates it.

Errors: a request the server rejects for this task (HTTP 400/413/422), a call that fails for good
after retries (timeouts, connection, 429, 5xx, unreadable response) and an exhausted token budget
end the task's round early and are recorded in ``errors``; the steps already done are kept.
Configuration errors (HTTP 401/403/404 and other client errors) propagate: every later request
would fail the same way.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from veriscale.generate.adversaries import Adversary
from veriscale.llm import LLMCallError, LLMClient, Message, TokenBudgetExceeded, prompt_messages
from veriscale.task import Task

__all__ = [
    "Constraint",
    "GeneratedSpec",
    "LLMAdversaryResult",
    "LazyImplementation",
    "ProblemModel",
    "build_lazy_impl_prompt",
    "build_problem_model_prompt",
    "build_spec_prompt",
    "generate_llm_adversaries",
    "parse_strict_json",
]

TASK_LEVEL_STATUSES = {400, 413, 422}
"""HTTP statuses that say "this request is wrong", not "the endpoint is"."""
PROBLEM_MODEL_TEMPERATURE = 0.2
SPEC_TEMPERATURE = 0.7
LAZY_TEMPERATURE = 1.0


class Constraint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    about: Literal["input", "output"]
    tag: Literal["explicit", "hypothesised"]
    text: str = Field(min_length=1)

    @field_validator("tag", mode="before")
    @classmethod
    def _one_spelling(cls, tag: object) -> object:
        return "hypothesised" if tag == "hypothesized" else tag  # the US spelling is the same tag


class ProblemModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    constraints: list[Constraint]

    @property
    def explicit(self) -> list[Constraint]:
        return [c for c in self.constraints if c.tag == "explicit"]


class GeneratedSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    precond: str = Field(min_length=1)
    postcond: str = Field(min_length=1)

    @field_validator("precond", "postcond")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("blank proposition")
        return text


class LazyImplementation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    idea: str
    code: str
    code_aux: str = ""

    @field_validator("code")
    @classmethod
    def _a_body(cls, code: str) -> str:
        if not code.strip():
            raise ValueError("empty body")
        if re.match(r"\s*(@\[[^\]]*\]\s*)?(private\s+|protected\s+)?(def|theorem|partial\s+def)\b", code):
            raise ValueError("the body repeats a definition header")
        return code


class _LazyReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    implementations: list[Any]


class LLMAdversaryResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: str
    problem_model: ProblemModel | None = None
    specs: list[GeneratedSpec] = Field(default_factory=list)
    adversaries: list[Adversary] = Field(default_factory=list)
    bad_replies: dict[str, int] = Field(default_factory=dict)
    failures: dict[str, int] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    requests: int = 0
    """Requests made through the client (cache hits included)."""


# ---------------------------------------------------------------------------------------------
# Strict replies

_FENCED = re.compile(r"\A```[ \t]*(?:json)?[ \t]*\n(.*?)\n?```\Z", re.DOTALL | re.IGNORECASE)

M = TypeVar("M", bound=BaseModel)


def parse_strict_json(text: str, model: type[M]) -> M | str:
    """The reply as ``model``, or the reason it is not one (``not-json``, ``schema``).

    Accepted: the JSON object alone, or alone in one fenced block (```` ```json ````); surrounding
    whitespace is ignored, anything else is not.
    """
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced is not None:
        body = fenced.group(1).strip()
    try:
        raw = json.loads(body)
    except ValueError:
        return "not-json"
    if not isinstance(raw, dict):
        return "not-json"
    try:
        return model.model_validate(raw, strict=True)
    except ValidationError:
        return "schema"


# ---------------------------------------------------------------------------------------------
# Prompts


def _signature_line(task: Task) -> str:
    return f"def {task.signature.name} {_params_lean(task)} : {task.signature.return_type}".replace("  ", " ")


def _params_lean(task: Task) -> str:
    return task.signature.binders_lean()


def _task_context(task: Task) -> dict[str, str]:
    """What every adversary prompt shows of the task."""
    return {
        "description": task.description,
        "signature": _signature_line(task),
        "structures_lean": task.section("task_aux").strip(),
    }


def build_problem_model_prompt(task: Task) -> list[Message]:
    return prompt_messages(
        "problem_model.system.j2",
        "problem_model.j2",
        task_name=task.id,
        **_task_context(task),
    )


def build_spec_prompt(task: Task, constraints: list[Constraint]) -> list[Message]:
    return prompt_messages(
        "spec_generation.system.j2",
        "spec_generation.j2",
        **_task_context(task),
        params_lean=_params_lean(task),
        return_type=task.signature.return_type,
        constraints=[{"about": c.about, "text": c.text} for c in constraints],
    )


def spec_as_lean(task: Task, spec: GeneratedSpec) -> str:
    name, params = task.signature.name, _params_lean(task)
    precond = textwrap.indent(textwrap.dedent(spec.precond).strip(), "  ")
    postcond = textwrap.indent(textwrap.dedent(spec.postcond).strip(), "  ")
    return (
        f"def {name}_precond {params} : Prop :=\n{precond}\n\n"
        f"def {name}_postcond {params} (result : {task.signature.return_type}) : Prop :=\n{postcond}\n"
    )


def build_lazy_impl_prompt(task: Task, spec: GeneratedSpec, n: int) -> list[Message]:
    name, params = task.signature.name, _params_lean(task)
    args = " ".join(p.name for p in task.signature.parameters)
    header = (
        f"def {name} {params} (h_precond : {name}_precond {args}) : {task.signature.return_type} :="
    ).replace("  ", " ")
    return prompt_messages(
        "lazy_impl.system.j2",
        "lazy_impl.j2",
        **_task_context(task),
        header=header,
        spec_lean=spec_as_lean(task, spec),
        n=n,
    )


def _code_body(code: str) -> str:
    """The body as the code section holds it: every line indented by two spaces."""
    lines = textwrap.dedent(code.replace("\r\n", "\n")).strip("\n").split("\n")
    return "".join(f"  {line}\n" if line.strip() else "\n" for line in lines)


def _aux_body(code_aux: str) -> str:
    text = textwrap.dedent(code_aux.replace("\r\n", "\n")).strip("\n")
    return f"\n{text}\n" if text else ""


# ---------------------------------------------------------------------------------------------
# The round


class _Stop(Exception):
    """The round of this task ends here (recorded in ``errors``)."""


def generate_llm_adversaries(
    task: Task,
    client: LLMClient,
    *,
    seed: int = 42,
    specs: int = 1,
    impls_per_spec: int = 5,
    max_tokens: int = 4096,
) -> LLMAdversaryResult:
    """Problem model, then ``specs`` specifications, then ``impls_per_spec`` lazy bodies per spec."""
    if specs < 0 or impls_per_spec < 1:
        raise ValueError("specs must be >= 0 and impls_per_spec >= 1")
    result = LLMAdversaryResult(task=task.id)
    bad: Counter[str] = Counter()
    failures: Counter[str] = Counter()

    def ask(step: str, messages: list[Message], reply_model: type[M], *, temperature: float, call_seed: int) -> M | None:
        """One call, its reply read as ``reply_model``; ``None`` when the reply is unusable (counted)."""
        result.requests += 1
        try:
            response = client.complete(messages, temperature=temperature, max_tokens=max_tokens, seed=call_seed)
        except TokenBudgetExceeded as exc:
            result.errors.append(f"{step}: {exc}")
            raise _Stop from exc
        except LLMCallError as exc:
            if exc.kind == "client" and exc.status not in TASK_LEVEL_STATUSES:
                raise  # a configuration problem: every request would fail
            result.errors.append(f"{step}: {exc}")
            raise _Stop from exc
        if response.failure is not None:
            failures[response.failure] += 1
            if response.failure != "truncated":
                return None
        reply = parse_strict_json(response.text, reply_model)
        if isinstance(reply, str):
            bad[f"{step}: {reply}"] += 1
            return None
        return reply

    try:
        if specs == 0:
            return result
        model = ask("problem_model", build_problem_model_prompt(task), ProblemModel,
                    temperature=PROBLEM_MODEL_TEMPERATURE, call_seed=seed)
        if model is None:
            return result
        result.problem_model = model
        if not model.explicit:
            bad["problem_model: no-explicit-constraints"] += 1
            return result
        for spec_index in range(specs):
            spec = ask("spec", build_spec_prompt(task, model.explicit), GeneratedSpec,
                       temperature=SPEC_TEMPERATURE, call_seed=seed + spec_index)
            if spec is None:
                continue
            result.specs.append(spec)
            reply = ask("lazy_impl", build_lazy_impl_prompt(task, spec, impls_per_spec), _LazyReply,
                        temperature=LAZY_TEMPERATURE, call_seed=seed + spec_index)
            if reply is None:
                continue
            if len(reply.implementations) > impls_per_spec:
                bad["lazy_impl: extra-elements"] += len(reply.implementations) - impls_per_spec
            for k, element in enumerate(reply.implementations[:impls_per_spec]):
                try:
                    impl = LazyImplementation.model_validate(element, strict=True)
                except ValidationError:
                    bad["lazy_impl: bad-element"] += 1
                    continue
                sections = {"code": _code_body(impl.code)}
                if impl.code_aux.strip():
                    sections["code_aux"] = _aux_body(impl.code_aux)
                idea = " ".join(impl.idea.split())[:200] or "lazy implementation"
                result.adversaries.append(
                    Adversary(
                        id=f"llm:{client.model}:{spec_index}:{k}",
                        source="llm",
                        description=f"lazy implementation for a generated spec: {idea}",
                        sections=sections,
                    )
                )
    except _Stop:
        pass
    finally:
        result.bad_replies = dict(sorted(bad.items()))
        result.failures = dict(sorted(failures.items()))
    return result

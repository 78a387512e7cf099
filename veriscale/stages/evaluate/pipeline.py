"""``veriscale eval``: ask a model for CodeGen, SpecGen or ProofGen answers on a suite, then score them.

The model is asked through inspect_ai, by the very inspect task ``inspect eval veriscale/<kind>``
runs (:func:`~veriscale.stages.evaluate.inspect_tasks.generation_task`: the suite's prompts as its
dataset), with a solver that adds what a long benchmark run needs, each on inspect's own
feature where it has one:

* **resume**: every reply goes through inspect's generate cache (no expiry), kept in the run
  directory, so a killed or stopped run, rerun, repeats no model call. The one exception is
  inspect's own: a reply the provider's content filter stopped is never cached (so asking again
  can get an answer), so a rerun asks it again;
* **retries**: inspect's (``max_retries`` = the policy's attempts - 1, ``attempt_timeout``);
  timeouts, 429 and 5xx are retried, other errors are not;
* **a token budget for the whole run, across resumptions**: inspect's ``token_limit`` is per
  sample, so the solver counts the tokens of every model call the run has made (``usage.jsonl``)
  and stops the run, before the next call, once they reach the budget;
* **stop on a dead endpoint**: an unreachable endpoint or HTTP 401/403/404 (a bad key, an unknown
  model) would fail every request the same way, and scoring the model 0 for it would be wrong:
  the run stops (:class:`~veriscale.llm.LLMCallError`); HTTP 400/413/422 (this request is wrong,
  say a prompt too long) and timeouts, 429 or 5xx that outlasted the retries fail only the task.
  Before a run with nothing in its cache, one TCP connection to the endpoint is tried (at most
  ``PROBE_TIMEOUT_S``), so a wrong URL or a server that is not up stops the run at once instead
  of after inspect's minutes of connection retries.

Each reply is read strictly (:mod:`veriscale.stages.evaluate.replies`). Readable replies become
submissions (``submissions.jsonl``), scored by :func:`veriscale.stages.score.score_suite` on the
run's executor (worker processes; ``score.json``). A task whose reply is unusable -- refused,
empty, cut off, not in the asked format, or whose request failed for good -- is named in
``summary.json`` and ``replies.jsonl`` with its reason, and enters the score as failed on every
metric of the task kind (lower and upper bound 0), so that a model cannot gain by not answering.

ProofGen answers are judged on the ``proof`` metric: the Lean backend checks the theorem with the
kernel and ``#print axioms`` (only ``propext``, ``Classical.choice`` and ``Quot.sound`` allowed);
the embedded engine cannot check proofs, so there the metric is unknown (lower 0, upper 1) with
that reason -- never a pass.

Run directory (default ``runs/eval/<model-slug>/<suite-name>/<kind>/``):

``logs/``             inspect's eval logs, one per invocation (``inspect view --log-dir OUT/logs``)
``cache/``            inspect's generate cache of this run
``usage.jsonl``       one line per model call the run has made: tokens and cost (the budget's count)
``replies.jsonl``     one line per task and sample: status, reason, tokens, whether it came from the cache
``submissions.jsonl`` the readable replies, as scorer submissions
``score.json``        the score report (``ScoreReport.to_json()``)
``summary.json``      model, suite, kind, counts of ok / failed replies, tokens, cost, seconds
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from veriscale.benchmark import load_benchmark
from veriscale.llm import (
    CallErrorKind,
    LLMCallError,
    LLMConfig,
    PriceTable,
    TokenBudgetExceeded,
    endpoint_unreachable,
    resolve_endpoint,
)
from veriscale.parallel import Executor
from veriscale.stages.evaluate.prompts import DEFAULT_EXAMPLES, KIND_METRICS, TaskKind
from veriscale.stages.score.models import Bound, ScoreReport, TaskScore, compute_totals
from veriscale.tables import add_row, new_table, render
from veriscale.task import Task

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import Model, ModelOutput
    from inspect_ai.solver import Solver

__all__ = [
    "DEFAULT_EVAL_ROOT",
    "KIND_METRICS",
    "EvalOptions",
    "EvalSummary",
    "TaskReply",
    "default_out_dir",
    "model_slug",
    "run_eval",
]

DEFAULT_EVAL_ROOT = Path("runs") / "eval"
OPENAI_API_URL = "https://api.openai.com/v1"
USAGE_FILE = "usage.jsonl"

# HTTP statuses that say "this request is wrong" (a prompt too long, say), not "the endpoint is":
# the task's reply is recorded as failed and the run goes on, as after timeouts, 429 and 5xx that
# outlasted the retries. Other client errors (401, 403, 404) and an unreachable endpoint would fail
# every request the same way: they stop the run (what was answered stays in the cache).
_TASK_LEVEL_STATUSES = {400, 413, 422}


class EvalOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: TaskKind
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(default=4096, ge=1)
    seed: int = 42
    """Sent with every request (servers that honour it answer reproducibly)."""
    examples: int = Field(default=DEFAULT_EXAMPLES, ge=0)
    """Tests (and for SpecGen reject inputs) shown per task; ProofGen shows none (a proof is about
    every input)."""
    concurrency: int = Field(default=4, ge=1)
    """Model requests in flight at once (inspect's ``max_connections`` and ``max_samples``)."""
    backend: str = "embedded"
    """Scoring engine (``score_suite``'s ``backend``)."""
    workers: int | None = None
    """Scoring worker processes (``score_suite``'s ``workers``)."""
    samples: int = Field(default=1, ge=1)
    """Replies asked per task (sample k is sent with seed ``seed + k``), for pass@k."""
    tasks: tuple[str, ...] | None = None
    """Only these task ids (``None``: every task of the suite)."""


class TaskReply(BaseModel):
    """What became of one task's request (a line of ``replies.jsonl``)."""

    task: str
    sample: int = 0
    status: str
    """``ok`` or ``failed``."""
    reason: str | None = None
    """Why a failed reply is unusable (``refusal``, ``no-code-block``, ``llm-error: ...``)."""
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    reply: str | None = None
    """The model's text (kept for auditing the parse)."""
    sections: dict[str, str] = Field(default_factory=dict)


class EvalSummary(BaseModel):
    """``summary.json`` of an eval run."""

    model: str
    suite: str
    suite_name: str
    task_kind: TaskKind
    out: str
    tasks: int = 0
    replies_ok: int = 0
    replies_failed: int = 0
    failure_reasons: dict[str, int] = Field(default_factory=dict)
    """Failed replies by reason kind (the part of the reason before ``:``)."""
    failed_tasks: dict[str, str] = Field(default_factory=dict)
    """Task id (``<task>#<k>`` for sample k when several samples are asked) -> reason, for every
    failed reply."""
    load_failures: list[str] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """Of the replies used by this evaluation (cached ones included: what the answers cost);
    ``None`` when the model's price is unknown."""
    http_requests: int = 0
    """Model calls made by this invocation (0 on a rerun served from the cache)."""
    cache_hits: int = 0
    seconds: float = 0.0
    llm_seconds: float = 0.0
    score_seconds: float = 0.0
    options: dict[str, Any] = Field(default_factory=dict)
    totals: dict[str, Any] = Field(default_factory=dict)
    """The score totals (a copy of score.json's, for a quick look)."""


def format_summary(summary: EvalSummary) -> str:
    """What the CLI prints after a run: the replies and their cost, then a table of the score
    totals (each bound as count/samples and rate; pass@k bounds for every k above 1)."""
    cost = "unknown" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    lines = [
        f"{summary.model} on {summary.suite_name} ({summary.task_kind}): {summary.tasks} task(s), "
        f"{summary.replies_ok} usable replies, {summary.replies_failed} failed; "
        f"{summary.prompt_tokens + summary.completion_tokens:,} tokens, cost {cost}; "
        f"{summary.http_requests} model call(s), {summary.cache_hits} from the cache; {summary.seconds:.1f} s"
    ]
    lines.extend(f"  failed replies: {reason}: {count}" for reason, count in summary.failure_reasons.items())
    ks = sorted({p["k"] for total in summary.totals.values() for p in total.get("pass_at_k", []) if p["k"] != 1})
    passes = [f"pass@{k}" for k in ks]
    table = new_table("metric", "lower", "upper", *passes, right=["lower", "upper", *passes])
    for metric, total in summary.totals.items():
        samples = total.get("samples", total["tasks"])
        at = {p["k"]: p for p in total.get("pass_at_k", [])}
        add_row(table, metric, f"{total['lower']}/{samples} ({100 * total['lower_rate']:.1f}%)",
                f"{total['upper']}/{samples} ({100 * total['upper_rate']:.1f}%)",
                *(f"{at[k]['lower']:.3f}-{at[k]['upper']:.3f}" if k in at else "-" for k in ks))
    if summary.totals:
        lines.append(render(table))
    return "\n".join(lines)


def model_slug(model: str) -> str:
    """A directory name for a model: ``openai/gpt-4o-mini`` -> ``openai-gpt-4o-mini``."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-.")
    return slug or "model"


def default_out_dir(model: str, suite: Path, kind: TaskKind, root: Path = DEFAULT_EVAL_ROOT) -> Path:
    return root / model_slug(model) / (Path(suite).resolve().name or "suite") / kind


def _reason_kind(reason: str) -> str:
    return reason.split(":", 1)[0].strip()


def _with_failed_replies(report: ScoreReport, failed: dict[tuple[str, int], str], kind: TaskKind) -> ScoreReport:
    """The report with every failed reply scored 0/0 on the kind's metrics, totals recomputed."""
    metrics = KIND_METRICS[kind]
    scores = [s for s in report.tasks if (s.task, s.sample) not in failed]
    for (task_id, sample), reason in failed.items():
        score = TaskScore(task=task_id, sample=sample,
                          reasons=[f"{metric}: no usable reply: {reason}" for metric in metrics])
        for metric in metrics:
            setattr(score, metric, Bound(lower=0, upper=0))
        scores.append(score)
    scores.sort(key=lambda s: (s.task, s.sample))
    return report.model_copy(update={"tasks": scores, "totals": compute_totals(scores)})


def _selected_tasks(tasks: list[Task], unloadable: list[str], wanted: tuple[str, ...] | None,
                    suite: Path) -> list[Task]:
    """The tasks to ask about, in id order: all, or those ``wanted`` names."""
    from veriscale.stages.score import NoTaskSelected

    chosen = sorted(tasks, key=lambda t: t.id)
    if not wanted:
        return chosen
    ids = set(wanted)
    if not ids & ({t.id for t in tasks} | set(unloadable)):
        raise NoTaskSelected(f"none of the task ids {', '.join(sorted(ids))} is a task of {suite}")
    return [t for t in chosen if t.id in ids]


def _write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# The model, through inspect_ai


def inspect_model(llm: LLMConfig, options: EvalOptions) -> Model:
    """``llm`` as an inspect model: the chat-completions provider for any OpenAI-compatible endpoint
    (``openai-api``), with the run's sampling settings, retries and request timeout.

    Raises :class:`~veriscale.llm.LLMConfigError` when a remote endpoint has no API key.
    """
    from inspect_ai.model import GenerateConfig, get_model

    base_url, api_key = resolve_endpoint(llm)
    config = GenerateConfig(
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        max_retries=llm.retry.max_attempts - 1,
        attempt_timeout=math.ceil(llm.timeout_s),
        max_connections=options.concurrency,
    )
    # ``openai-api``, not ``openai``: the latter sends some model names to the Responses API, which
    # an OpenAI-compatible server need not have. The service part of the name only names the
    # environment variables the base URL and key would otherwise come from; the request carries
    # ``llm.model``. max_retries=0 for the openai client
    # itself: inspect's retries decide and count every attempt.
    return get_model(f"openai-api/veriscale/{llm.model}", base_url=base_url or OPENAI_API_URL, api_key=api_key,
                     config=config, memoize=False, max_retries=0)


def call_failure(exc: BaseException) -> LLMCallError | None:
    """The failed request ``exc`` (or an exception it was raised from) reports, as an
    :class:`~veriscale.llm.LLMCallError`; ``None`` when it is no failed request (a bug)."""
    import openai

    seen: BaseException | None = exc
    while seen is not None:
        # inspect's AttemptTimeoutError (an attempt past attempt_timeout) is not exported by name
        if isinstance(seen, openai.APITimeoutError) or type(seen).__name__ == "AttemptTimeoutError":
            return LLMCallError("timeout", _first_line(seen))
        if isinstance(seen, openai.APIConnectionError):
            return LLMCallError("connection", _first_line(seen))
        status = getattr(seen, "status_code", None)
        if isinstance(status, int):
            kind: CallErrorKind = "rate_limit" if status == 429 else "server" if status >= 500 else "client"
            return LLMCallError(kind, _first_line(seen), status=status)
        seen = seen.__cause__ or seen.__context__
    return None


def _first_line(exc: BaseException) -> str:
    # inspect's ModelGenerateError carries the whole request in its text; the provider's message
    # alone says what went wrong.
    text = getattr(exc, "provider_message", None) or getattr(exc, "message", None) or str(exc)
    return str(text).strip().splitlines()[0] if str(text).strip() else type(exc).__name__


def stops_the_run(error: LLMCallError) -> bool:
    """An unreachable or misconfigured endpoint (bad key, unknown model): every request would fail
    the same way."""
    return error.kind == "connection" or (error.kind == "client" and error.status not in _TASK_LEVEL_STATUSES)


class _Usage(BaseModel):
    """A line of ``usage.jsonl``: one model call the run made."""

    task: str
    sample: int
    prompt_tokens: int = 0
    completion_tokens: int = 0


class RunLedger:
    """What the eval solver reports to the run: model calls and cache hits of this invocation,
    the tokens the whole run has spent (``usage.jsonl``, so the budget survives resumption), the
    error that stopped the run, and progress."""

    def __init__(self, out: Path, budget: int | None, progress: Any | None = None) -> None:
        self.usage_file = out / USAGE_FILE
        self.budget = budget
        self.progress = progress
        self.calls = 0
        self.cache_hits = 0
        self.stopped_by: Exception | None = None
        self.prompt_tokens = self.completion_tokens = 0
        if self.usage_file.is_file():
            for line in self.usage_file.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    usage = _Usage.model_validate_json(line)
                    self.prompt_tokens += usage.prompt_tokens
                    self.completion_tokens += usage.completion_tokens

    def check_budget(self) -> None:
        spent = self.prompt_tokens + self.completion_tokens
        if self.budget is not None and spent >= self.budget:
            raise TokenBudgetExceeded(spent, self.budget, self.prompt_tokens, self.completion_tokens)

    def answered(self, task: str, sample: int, output: ModelOutput, cached: bool) -> None:
        if cached:
            self.cache_hits += 1
        else:
            self.calls += 1
            usage = _Usage(task=task, sample=sample, prompt_tokens=output.usage.input_tokens if output.usage else 0,
                           completion_tokens=output.usage.output_tokens if output.usage else 0)
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            with self.usage_file.open("a", encoding="utf-8") as handle:  # written at once: a killed run counts it
                handle.write(usage.model_dump_json() + "\n")
        self.advance()

    def advance(self) -> None:
        if self.progress is not None:
            self.progress.update(1)


def _served_from_cache() -> bool:
    """Whether the sample's last model call was answered by inspect's cache."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript

    events = [e for e in transcript().events if isinstance(e, ModelEvent)]
    return bool(events) and events[-1].cache == "read"


def eval_solver(seed: int, ledger: RunLedger) -> Solver:
    """inspect's ``generate`` through the run's cache, sample ``k`` (epoch ``k + 1``) with seed
    ``seed + k``; a request failure only this task has becomes its failed reply, one of the
    endpoint (or the spent budget) stops the run."""
    from inspect_ai.model import CachePolicy, ModelOutput
    from inspect_ai.solver import Generate, TaskState, solver

    from veriscale.stages.evaluate.inspect_tasks import PROMPT_ERROR

    @solver(name="veriscale_eval_generate")
    def _solver() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            sample = state.epoch - 1
            if PROMPT_ERROR in state.metadata:
                ledger.advance()
                return state
            try:
                ledger.check_budget()
                state = await generate(state, cache=CachePolicy(expiry=None), seed=seed + sample)
            except TokenBudgetExceeded as exc:
                ledger.stopped_by = ledger.stopped_by or exc  # the rest would go unasked: not a score
                raise
            except Exception as exc:
                failure = call_failure(exc)
                if failure is None:
                    raise
                if stops_the_run(failure):
                    ledger.stopped_by = ledger.stopped_by or failure
                    raise failure from exc
                ledger.calls += 1
                ledger.advance()
                state.output = ModelOutput(model=str(state.model), error=f"llm-error: {failure}")
                return state
            ledger.answered(str(state.sample_id), sample, state.output, _served_from_cache())
            return state

        return solve

    return _solver()


@contextmanager
def _inspect_cache_in(directory: Path) -> Iterator[None]:
    """inspect's generate cache in ``directory`` for the block (it reads ``INSPECT_CACHE_DIR`` at
    every call), then as before."""
    before = os.environ.get("INSPECT_CACHE_DIR")
    os.environ["INSPECT_CACHE_DIR"] = str(directory)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("INSPECT_CACHE_DIR", None)
        else:
            os.environ["INSPECT_CACHE_DIR"] = before


# ---------------------------------------------------------------------------------------------
# From the log to the run directory


def _reply(sample: EvalSample, task: Task, kind: TaskKind, model: str, prices: PriceTable) -> TaskReply:
    """What became of one sample of the log: the strict read of its reply."""
    from inspect_ai.event import ModelEvent

    from veriscale.stages.evaluate.inspect_tasks import PROMPT_ERROR, reply_failure
    from veriscale.stages.evaluate.prompts import headers_for
    from veriscale.stages.evaluate.replies import ReplyError, parse_reply

    number = sample.epoch - 1
    if PROMPT_ERROR in (sample.metadata or {}):
        return TaskReply(task=task.id, sample=number, status="failed",
                         reason=f"prompt-error: {sample.metadata[PROMPT_ERROR]}")
    output = sample.output
    usage = output.usage
    prompt_tokens, completion_tokens = (usage.input_tokens, usage.output_tokens) if usage else (0, 0)
    reply = TaskReply(
        task=task.id,
        sample=number,
        status="failed",
        cached=any(isinstance(e, ModelEvent) and e.cache == "read" for e in sample.events),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=prices.cost(model, prompt_tokens, completion_tokens),
        reply=output.completion,
    )
    failure = reply_failure(output)
    if failure is not None:
        reply.reason = failure
        return reply
    parsed = parse_reply(output.completion, headers_for(task, kind))
    if isinstance(parsed, ReplyError):
        reply.reason = parsed.reason
        return reply
    reply.status = "ok"
    reply.sections = parsed.sections
    return reply


def _ask_through_inspect(
    suite: Path, tasks: list[Task], llm: LLMConfig, options: EvalOptions, out: Path, progress: bool
) -> tuple[list[TaskReply], RunLedger]:
    """Run the inspect task of ``options.kind`` on ``tasks``; every (task, sample)'s reply, in order.

    Raises what stopped the run: :class:`~veriscale.llm.LLMCallError` (the endpoint),
    :class:`~veriscale.llm.TokenBudgetExceeded`, ``RuntimeError`` (inspect failed otherwise).
    """
    from inspect_ai import eval as inspect_eval
    from tqdm import tqdm

    from veriscale.stages.evaluate.inspect_tasks import generation_task

    model = inspect_model(llm, options)
    task = generation_task(options.kind, str(suite), [t.id for t in tasks], options.examples, options.backend)
    bar = tqdm(total=len(tasks) * options.samples, desc=f"eval {options.kind}", unit="reply", disable=not progress)
    ledger = RunLedger(out, llm.token_budget, bar)
    try:
        with _inspect_cache_in(out / "cache"):
            (log,) = inspect_eval(
                task, model=model, solver=eval_solver(options.seed, ledger), epochs=options.samples,
                log_dir=str(out / "logs"), display="none", score=False, max_samples=options.concurrency,
                fail_on_error=True,
            )
    finally:
        bar.close()
    if ledger.stopped_by is not None:
        raise ledger.stopped_by
    if log.status != "success":
        message = log.error.message.strip().splitlines()[-1] if log.error and log.error.message.strip() else ""
        raise RuntimeError(f"the inspect evaluation ended {log.status}: {message} (rerun to resume)")
    by_id = {t.id: t for t in tasks}
    prices = PriceTable()
    replies = {(str(s.id), s.epoch - 1): _reply(s, by_id[str(s.id)], options.kind, llm.model, prices)
               for s in log.samples or []}
    missing = [(t.id, k) for t in tasks for k in range(options.samples) if (t.id, k) not in replies]
    if missing:
        raise RuntimeError(f"the inspect log has no reply for {missing[0][0]} (sample {missing[0][1]}); rerun")
    return [replies[(t.id, k)] for t in tasks for k in range(options.samples)], ledger


PROBE_TIMEOUT_S = 10.0
"""The longest ``veriscale eval`` waits for the endpoint to accept a connection before asking."""


def _has_cached_replies(out: Path) -> bool:
    """Whether an earlier run in ``out`` left replies in its cache (a rerun may need no endpoint)."""
    cache = out / "cache"
    return cache.is_dir() and any(path.is_file() for path in cache.rglob("*"))


def run_eval(
    suite: Path,
    llm: LLMConfig,
    options: EvalOptions,
    out: Path | None = None,
    *,
    progress: bool = True,
    executor: Executor | None = None,
) -> EvalSummary:
    """Evaluate ``llm`` on every task of ``suite``; write the run directory; return its summary.
    The replies are scored on ``executor`` (default: ``options.workers`` local processes).

    Raises, before anything is written: ``FileNotFoundError`` for a missing suite,
    :class:`~veriscale.stages.score.NoTaskSelected` when ``options.tasks`` names no task of the suite,
    :class:`~veriscale.llm.LLMConfigError` (no key for a remote endpoint),
    :class:`~veriscale.backends.select.BackendUnavailable` (the scoring engine cannot run). Raises
    :class:`~veriscale.llm.LLMCallError` for endpoint-level failures (unreachable, HTTP
    401/403/404...) and :class:`~veriscale.llm.TokenBudgetExceeded`, before any score is written:
    the answers received so far stay in the run directory's cache (rerun to resume); a run
    directory this call created and that received no answer is removed.
    """
    from veriscale.backends.select import resolve_backend_name
    from veriscale.stages.score import score_suite
    from veriscale.stages.score.submission import Submission, write_submissions

    started = time.monotonic()
    suite = Path(suite)
    if not suite.is_dir():
        raise FileNotFoundError(f"{suite}: not a suite directory")
    resolve_backend_name(options.backend)  # raises BackendUnavailable before any request is sent
    load = load_benchmark(suite)
    tasks = _selected_tasks(load.tasks, [f.task for f in load.failures], options.tasks, suite)
    base_url, _ = resolve_endpoint(llm)  # raises LLMConfigError (no key) before the run directory exists
    out = Path(out) if out is not None else default_out_dir(llm.model, suite, options.kind)
    if not _has_cached_replies(out):  # every reply must come from the endpoint: it must be there
        url = base_url or OPENAI_API_URL
        unreachable = endpoint_unreachable(url, min(llm.timeout_s, PROBE_TIMEOUT_S))
        if unreachable is not None:
            raise LLMCallError("connection", f"cannot connect to {url}: {unreachable}")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)

    llm_started = time.monotonic()
    try:
        ordered, ledger = _ask_through_inspect(suite, tasks, llm, options, out, progress)
    except BaseException:
        if created and not (out / USAGE_FILE).is_file():  # nothing answered: leave nothing behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    llm_seconds = time.monotonic() - llm_started

    with (out / "replies.jsonl").open("w", encoding="utf-8") as handle:
        for reply in ordered:
            handle.write(json.dumps(reply.model_dump(mode="json"), ensure_ascii=False) + "\n")
    submissions = [Submission(task=r.task, sample=r.sample, **r.sections) for r in ordered if r.status == "ok"]
    write_submissions(out / "submissions.jsonl", submissions)

    failed = {(r.task, r.sample): r.reason or "unknown" for r in ordered if r.status != "ok"}
    score_started = time.monotonic()
    report = score_suite(suite, submissions, backend=options.backend, workers=options.workers, progress=progress,
                         model=llm.model, task_ids=list(options.tasks) if options.tasks else None,
                         executor=executor)
    score_seconds = time.monotonic() - score_started
    score_json = _with_failed_replies(report, failed, options.kind).to_json()
    _write_json(out / "score.json", score_json)

    costs = [r.cost_usd for r in ordered if r.prompt_tokens or r.completion_tokens]
    summary = EvalSummary(
        model=llm.model,
        suite=str(suite.resolve()),
        suite_name=suite.resolve().name,
        task_kind=options.kind,
        out=str(out),
        tasks=len(tasks),
        replies_ok=len(submissions),
        replies_failed=len(failed),
        failure_reasons=dict(sorted(Counter(_reason_kind(r) for r in failed.values()).items())),
        failed_tasks={(task if options.samples == 1 else f"{task}#{sample}"): reason
                      for (task, sample), reason in failed.items()},
        load_failures=[str(f) for f in load.failures],
        prompt_tokens=sum(r.prompt_tokens for r in ordered),
        completion_tokens=sum(r.completion_tokens for r in ordered),
        cost_usd=None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6),
        http_requests=ledger.calls,
        cache_hits=ledger.cache_hits,
        seconds=round(time.monotonic() - started, 3),
        llm_seconds=round(llm_seconds, 3),
        score_seconds=round(score_seconds, 3),
        options=options.model_dump(),
        totals=score_json.get("totals", {}),
    )
    _write_json(out / "summary.json", summary.model_dump(mode="json"))
    return summary

"""``veriscale eval``: ask a model for CodeGen, SpecGen or ProofGen answers on a suite, then score them.

For every task of the suite: render the prompt (:mod:`veriscale.stages.evaluate.prompts`), ask the model
through :class:`~veriscale.llm.LLMClient` (whose response cache lives in the run directory's
store, so a killed and restarted evaluation repeats no LLM call), read the reply strictly
(:mod:`veriscale.stages.evaluate.replies`). Readable replies become submissions
(``submissions.jsonl``), scored by :func:`veriscale.stages.score.score_suite` (``score.json``). A task
whose reply is unusable -- refused, empty, cut off, not in the asked format, or whose request
failed for good -- is named in ``summary.json`` and ``replies.jsonl`` with its reason, and enters
the score as failed on every metric of the task kind (lower and upper bound 0), so that a model
cannot gain by not answering.

ProofGen answers are judged on the ``proof`` metric: the Lean backend checks the theorem with the
kernel and ``#print axioms`` (only ``propext``, ``Classical.choice`` and ``Quot.sound`` allowed);
the embedded engine cannot check proofs, so there the metric is unknown (lower 0, upper 1) with
that reason -- never a pass.

Run directory (default ``runs/eval/<model-slug>/<suite-name>/<kind>/``):

``run.sqlite``        the run store (LLM response cache, sessions)
``replies.jsonl``     one line per task: status, reason, tokens, whether it came from the cache
``submissions.jsonl`` the readable replies, as scorer submissions
``score.json``        the score report (``ScoreReport.to_json()``)
``summary.json``      model, suite, kind, counts of ok / failed replies, tokens, cost, seconds
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from veriscale.benchmark import load_benchmark
from veriscale.llm import LLMCallError, LLMClient, LLMConfig, TokenBudgetExceeded
from veriscale.parallel import Executor
from veriscale.stages.evaluate.prompts import DEFAULT_EXAMPLES, TaskKind, build_prompt, headers_for
from veriscale.stages.evaluate.replies import ReplyError, parse_reply
from veriscale.stages.score.models import Bound, ScoreReport, TaskScore, compute_totals
from veriscale.store import RunStore
from veriscale.tables import add_row, new_table, render
from veriscale.task import Task

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
KIND_METRICS: dict[str, tuple[str, ...]] = {
    "codegen": ("code",),
    "specgen": ("precond_sound", "precond_complete", "postcond_sound", "postcond_complete",
                "precond_sound_complete", "postcond_sound_complete", "precond_postcond"),
    "proofgen": ("proof",),
}
"""The score metrics each task kind is judged on."""

# HTTP statuses that say "this request is wrong" (a prompt too long, say), not "the endpoint is":
# the task's reply is recorded as failed and the run goes on, as after timeouts, 429 and 5xx that
# outlasted the retries. Other client errors (401, 403, 404) and an unreachable endpoint would fail
# every request the same way: they stop the run (what was answered stays in the store).
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
    """LLM requests in flight at once."""
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
    response_key: str | None = None
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
    """Sent by this invocation (0 on a rerun served from the store)."""
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
        f"{summary.http_requests} HTTP request(s), {summary.cache_hits} from the store; {summary.seconds:.1f} s"
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


def _ask(client: LLMClient, task: Task, options: EvalOptions, stop: threading.Event, sample: int = 0) -> TaskReply:
    """One sample of one task: prompt, request (through the cache), strict read.

    Sample ``k`` is requested with seed ``options.seed + k``: a distinct request (and cache entry),
    while sample 0 is the very request of a one-sample run.

    ``stop`` is set when the run is ending (a configuration error, an interrupt): tasks not yet
    started then send nothing.
    """
    if stop.is_set():
        return TaskReply(task=task.id, sample=sample, status="failed", reason="stopped")
    try:
        headers = headers_for(task, options.kind)
        messages = build_prompt(task, options.kind, examples=options.examples)
    except Exception as exc:  # a task whose prompt cannot be built is that task's failure
        return TaskReply(task=task.id, sample=sample, status="failed", reason=f"prompt-error: {exc}")
    try:
        response = client.complete(
            messages, temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed + sample
        )
    except TokenBudgetExceeded:
        stop.set()  # the rest would go unasked: scoring them 0 would misreport the model
        raise
    except LLMCallError as exc:
        if exc.kind == "connection" or (exc.kind == "client" and exc.status not in _TASK_LEVEL_STATUSES):
            # The endpoint is unreachable, or misconfigured (bad key, unknown model): every request
            # would fail the same way, and scoring the model 0 for it would be wrong.
            stop.set()
            raise
        return TaskReply(task=task.id, sample=sample, status="failed", reason=f"llm-error: {exc}")
    reply = TaskReply(
        task=task.id,
        sample=sample,
        status="failed",
        cached=response.cached,
        prompt_tokens=response.usage.prompt_tokens,
        completion_tokens=response.usage.completion_tokens,
        cost_usd=response.cost_usd,
        response_key=response.key,
        reply=response.text,
    )
    if response.failure is not None:
        reply.reason = response.failure  # refusal, empty, truncated
        return reply
    parsed = parse_reply(response.text, headers)
    if isinstance(parsed, ReplyError):
        reply.reason = parsed.reason
        return reply
    reply.status = "ok"
    reply.sections = parsed.sections
    return reply


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


def run_eval(
    suite: Path,
    llm: LLMConfig,
    options: EvalOptions,
    out: Path | None = None,
    *,
    progress: bool = True,
    client_factory: Callable[[LLMConfig, RunStore], LLMClient] | None = None,
    executor: Executor | None = None,
) -> EvalSummary:
    """Evaluate ``llm`` on every task of ``suite``; write the run directory; return its summary.
    The replies are scored on ``executor`` (default: ``options.workers`` local processes).

    Raises, before anything is written: ``FileNotFoundError`` for a missing suite,
    :class:`~veriscale.stages.score.NoTaskSelected` when ``options.tasks`` names no task of the suite,
    :class:`~veriscale.llm.LLMConfigError` (no key for a remote endpoint),
    :class:`~veriscale.backends.select.BackendUnavailable` (the scoring engine cannot run). Raises
    :class:`~veriscale.llm.LLMCallError` for endpoint-level failures (unreachable, HTTP
    401/403/404...) and :class:`~veriscale.llm.TokenBudgetExceeded` before any file but the store
    is written (rerun to resume).
    """
    from tqdm import tqdm

    from veriscale.stages.score import score_suite
    from veriscale.stages.score.submission import Submission, write_submissions

    started = time.monotonic()
    suite = Path(suite)
    if not suite.is_dir():
        raise FileNotFoundError(f"{suite}: not a suite directory")
    from veriscale.backends.select import resolve_backend_name

    resolve_backend_name(options.backend)  # raises BackendUnavailable before any request is sent
    load = load_benchmark(suite)
    tasks = _selected_tasks(load.tasks, [f.task for f in load.failures], options.tasks, suite)
    if client_factory is None:
        LLMClient(llm)  # raises LLMConfigError (no key) before the run directory exists
    out = Path(out) if out is not None else default_out_dir(llm.model, suite, options.kind)
    out.mkdir(parents=True, exist_ok=True)

    with RunStore.open(out) as store:
        # Recorded, not enforced: every eval invocation rebuilds all its outputs from the cache, so
        # changed settings cannot mix two runs' answers (they only make new requests).
        store.start_run(
            {"command": "eval", "model": llm.model, "suite": str(suite.resolve()), **options.model_dump()},
            options.seed,
            command="eval",
            check=False,
        )
        client = client_factory(llm, store) if client_factory else LLMClient(llm, store)
        llm_started = time.monotonic()
        bar = tqdm(total=len(tasks) * options.samples, desc=f"eval {options.kind}", unit="reply",
                   disable=not progress)
        replies: dict[tuple[str, int], TaskReply] = {}
        stop = threading.Event()
        try:
            with ThreadPoolExecutor(max_workers=options.concurrency) as pool:
                futures = [pool.submit(_ask, client, task, options, stop, sample)
                           for task in tasks for sample in range(options.samples)]
                try:
                    for future in futures:  # in task order: deterministic, and errors surface
                        reply = future.result()
                        replies[(reply.task, reply.sample)] = reply
                        bar.update(1)
                except BaseException:
                    stop.set()
                    for pending in futures:  # a configuration error or ^C: send nothing more
                        pending.cancel()
                    raise
        finally:
            bar.close()
        llm_seconds = time.monotonic() - llm_started
        store.finish_session()
        stats = client.stats

    ordered = [replies[(task.id, sample)] for task in tasks for sample in range(options.samples)]
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
        http_requests=stats.requests,
        cache_hits=stats.cache_hits,
        seconds=round(time.monotonic() - started, 3),
        llm_seconds=round(llm_seconds, 3),
        score_seconds=round(score_seconds, 3),
        options=options.model_dump(),
        totals=score_json.get("totals", {}),
    )
    _write_json(out / "summary.json", summary.model_dump(mode="json"))
    return summary

"""The Lean backend: checks answered by real Lean 4 through a small pool of persistent REPLs.

How a call to :meth:`LeanBackend.run` proceeds:

1. The task is split into an import header and a definitions body (:mod:`.source`).
2. Every check becomes a snippet (:mod:`.snippets`): ``#eval decide (P args)`` for pre- and
   postconditions -- compiled evaluation of the ``Decidable`` instance, so the printed Bool is
   exactly Lean's answer -- and ``#eval f args (h_precond := lcProof)`` for code, printed through
   ``Repr`` and parsed back at the return type.
3. Snippets are packed into batches; each batch is one REPL command run in the task's
   environment, and the answer's messages are attributed to snippets by line. Batches are spread
   over the workers; each worker elaborates the imports and the definitions once.
4. A batch that times out or kills its process is re-run one check at a time on a fresh process,
   so one diverging input costs one timeout and the rest of the batch is still answered.
5. Propositions whose ``decide`` did not elaborate (no computable ``Decidable`` instance) get the
   fallback: ``simp_all!`` + Plausible for the proposition and for its negation. A counterexample
   decides; a closed proof decides; "no counterexample found" stays unknown.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from veriscale.backends.base import Answer, Backend, Check, CheckKind, UnknownReason
from veriscale.backends.lean import interpret
from veriscale.backends.lean.config import (
    LeanBackendConfig,
    LeanBackendStats,
    ReplLaunch,
    StatsRecorder,
    resolve_repl_launch,
)
from veriscale.backends.lean.interpret import ENGINE, SnippetResult
from veriscale.backends.lean.process import ReplFailure
from veriscale.backends.lean.snippets import (
    CheckRenderer,
    CodecFactory,
    LeanValueCodec,
    Snippet,
    Templates,
    UnsupportedCheck,
)
from veriscale.backends.lean.source import TaskSource, task_source, theorem_name
from veriscale.backends.lean.worker import EnvironmentFailure, ReplPool, ReplWorker

if TYPE_CHECKING:
    from veriscale.task import Task


class LeanCheckError(RuntimeError):
    """A compile or proof check could not be carried out (not: the code/proof is wrong)."""


class ProofCheck(BaseModel):
    """The verdict on a task's proof."""

    theorem: str
    accepted: bool
    axioms: set[str] | None = None
    """What ``#print axioms`` reported; None when it could not run."""
    errors: list[str] = []
    reason: str = ""


@dataclass(frozen=True)
class _Batch:
    source: TaskSource
    snippets: tuple[Snippet, ...]


class LeanBackend(Backend):
    """Answers checks with Lean 4. Create once, reuse across tasks, ``close()`` at the end."""

    name = ENGINE

    def __init__(
        self,
        config: LeanBackendConfig | None = None,
        *,
        codec_factory: CodecFactory = LeanValueCodec,
        launch: Callable[[], ReplLaunch] | None = None,
    ) -> None:
        self.config = config or LeanBackendConfig()
        self._codec_factory = codec_factory
        self._templates = Templates(self.config.templates_dir)
        self._recorder = StatsRecorder()
        self._launch_cache: ReplLaunch | None = None
        self._launch_lock = threading.Lock()
        self._launch_override = launch
        self._pool = ReplPool(self.config, self._recorder, self._launch, self._templates)
        # Names of probe theorems carry a per-backend nonce so they cannot collide with task names.
        self._nonce = secrets.token_hex(4)
        # Environments that could not be built during the current run: later batches of the same
        # run fail fast instead of paying the import or definitions time limit again.
        self._env_failures: dict[str, EnvironmentFailure] = {}

    # ------------------------------------------------------------------------------------------
    # Plumbing

    def _launch(self) -> ReplLaunch:
        if self._launch_override is not None:
            return self._launch_override()
        with self._launch_lock:
            if self._launch_cache is None:
                self._launch_cache = resolve_repl_launch(self.config)
            return self._launch_cache

    @property
    def stats(self) -> LeanBackendStats:
        """A snapshot of what the backend has done so far."""
        return self._recorder.snapshot()

    def reset_stats(self) -> None:
        self._recorder.reset()

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> LeanBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _source(self, task: Task, *, keep_proof: bool = False) -> TaskSource:
        return task_source(task, always_import=self.config.always_import, keep_proof=keep_proof)

    # ------------------------------------------------------------------------------------------
    # Batches

    def _run_batch(self, worker: ReplWorker, batch: _Batch) -> list[SnippetResult]:
        # A batch of one check gets the check's own limit: there is no re-run after it.
        timeout = self.config.effective_batch_timeout_s if len(batch.snippets) > 1 else self.config.timeout_s
        try:
            return self._run_snippets(worker, batch.source, batch.snippets, timeout)
        except Exception as exc:  # never let one batch take down the run
            return [SnippetResult.failed("internal error", repr(exc)) for _ in batch.snippets]

    def _run_snippets(
        self, worker: ReplWorker, source: TaskSource, snippets: Sequence[Snippet], timeout: float
    ) -> list[SnippetResult]:
        known = self._env_failures.get(source.key)
        if known is not None:
            return [SnippetResult.failed(known.kind, known.detail) for _ in snippets]
        try:
            environment = worker.task_env(source)
        except EnvironmentFailure as exc:
            self._env_failures[source.key] = exc
            return [SnippetResult.failed(exc.kind, exc.detail) for _ in snippets]
        self._recorder.add(batches=1)
        try:
            response = worker.command(interpret.join_snippets(snippets), environment.env, timeout)
        except ReplFailure as exc:
            if len(snippets) == 1:
                return [SnippetResult.failed(exc.kind, exc.detail)]
            # Find the culprit(s): re-run each check alone, on a fresh process, with its own limit.
            results: list[SnippetResult] = []
            for snippet in snippets:
                results.extend(self._run_snippets(worker, source, [snippet], self.config.timeout_s))
            return results
        results = interpret.split_messages(response.messages, snippets)
        if environment.errors:
            # The definitions did not all elaborate; say so next to any failure it may explain.
            context = "; ".join(m.describe() for m in environment.errors[:2])
            for result in results:
                result.detail = f"task definitions have errors: {context}"
        return results

    def _execute(self, source: TaskSource, snippets: Sequence[Snippet]) -> list[SnippetResult]:
        size = self.config.batch_size
        batches = [_Batch(source, tuple(snippets[i : i + size])) for i in range(0, len(snippets), size)]
        results: list[SnippetResult] = []
        for batch_results in self._pool.map(self._run_batch, batches):
            results.extend(batch_results)
        return results

    # ------------------------------------------------------------------------------------------
    # Checks

    def run(self, task: Task, checks: Sequence[Check]) -> list[Answer]:
        answers: list[Answer | None] = [None] * len(checks)
        try:
            source = self._source(task)
            self._env_failures.pop(source.key, None)
            renderer = CheckRenderer(task, self.config, self._codec_factory(task), self._templates, self._nonce)
        except Exception as exc:
            detail = f"cannot prepare the task for Lean: {exc}"
            return [Answer.unknown(UnknownReason.ERROR, detail, ENGINE) for _ in checks]

        eval_snippets: list[Snippet] = []
        for index, check in enumerate(checks):
            try:
                eval_snippets.append(renderer.eval_snippet(index, check))
            except UnsupportedCheck as exc:
                answers[index] = Answer.unknown(UnknownReason.UNSUPPORTED, str(exc), ENGINE)

        undecided: dict[int, str] = {}
        for snippet, result in zip(eval_snippets, self._execute(source, eval_snippets)):
            check = checks[snippet.check_index]
            outcome = interpret.read_eval(result, snippet)
            if outcome.answer is not None:
                answers[snippet.check_index] = _with_context(outcome.answer, result)
            elif outcome.error is not None:
                if check.kind is CheckKind.CODE:
                    answers[snippet.check_index] = _with_context(
                        Answer.unknown(UnknownReason.ERROR, outcome.error, ENGINE), result
                    )
                else:
                    undecided[snippet.check_index] = outcome.error
            elif check.kind is CheckKind.CODE:
                answers[snippet.check_index] = interpret.value_answer(
                    outcome.text or "", renderer.codec.parse, task.signature.return_type
                )
            else:
                answers[snippet.check_index] = interpret.bool_answer(outcome.text or "")

        if undecided:
            self._answer_by_probes(renderer, source, checks, undecided, answers)

        probed = len(undecided) if self.config.plausible_fallback else 0
        self._recorder.add(checks=len(checks), probe_checks=probed)
        return [
            answer if answer is not None else Answer.unknown(UnknownReason.ERROR, "no answer", ENGINE)
            for answer in answers
        ]

    def _answer_by_probes(
        self,
        renderer: CheckRenderer,
        source: TaskSource,
        checks: Sequence[Check],
        undecided: dict[int, str],
        answers: list[Answer | None],
    ) -> None:
        if not self.config.plausible_fallback:
            for index, error in undecided.items():
                answers[index] = interpret.decide_failed_answer(error)
            return
        probes: list[Snippet] = []
        for index in undecided:
            try:
                probes.extend(renderer.probe_snippets(index, checks[index]))
            except UnsupportedCheck as exc:  # pragma: no cover - eval rendering already succeeded
                answers[index] = Answer.unknown(UnknownReason.UNSUPPORTED, str(exc), ENGINE)
        outcomes: dict[tuple[int, str], interpret.ProbeOutcome] = {}
        for snippet, result in zip(probes, self._execute(source, probes)):
            outcomes[(snippet.check_index, snippet.role)] = interpret.read_probe(result, snippet)
        for index, error in undecided.items():
            if (index, "probe") in outcomes:
                answers[index] = interpret.combine_probes(
                    outcomes[(index, "probe")], outcomes[(index, "probe_neg")], error
                )

    # ------------------------------------------------------------------------------------------
    # Whole-file checks

    def compile(self, task: Task) -> list[str]:
        """Error messages of elaborating the task's definitions (proof excluded); [] = compiles.

        Line numbers are those of ``task.lean``. Raises :class:`LeanCheckError` when Lean could
        not be run (imports missing, timeout, crash) -- that is not a verdict on the code.
        """
        source = self._source(task)
        self._recorder.add(compile_checks=1)

        def work(worker: ReplWorker) -> list[str]:
            try:
                environment = worker.task_env(source)
            except EnvironmentFailure as exc:
                raise LeanCheckError(f"{exc.kind}: {exc.detail}") from exc
            return [f"line {m.pos.line}, column {m.pos.column}: {m.data}" for m in environment.errors]

        return self._pool.first(work)

    def check_proof(self, task: Task) -> ProofCheck:
        """Elaborate the task with its proof and report the axioms the theorem depends on.

        Accepted only when there are no errors and the axioms are within
        ``{propext, Classical.choice, Quot.sound}`` (so ``sorry`` -- ``sorryAx`` -- and any
        user axiom are rejected). The axioms are read from the message on the line of *our*
        ``#print axioms``, so text the proof prints elsewhere cannot impersonate it.
        """
        source = self._source(task, keep_proof=True)
        name = theorem_name(task)
        text = self._templates.print_axioms(source.body, name)
        axioms_line = text.count("\n") + 1
        self._recorder.add(proof_checks=1)

        def work(worker: ReplWorker) -> ProofCheck:
            try:
                worker.prepare()
                header = worker.header_env(source.imports)
                response = worker.command(text, header, self.config.definitions_timeout_s)
            except (EnvironmentFailure, ReplFailure) as exc:
                return ProofCheck(theorem=name, accepted=False, reason=f"Lean could not check the proof: {exc}")
            errors = [f"line {m.pos.line}, column {m.pos.column}: {m.data}" for m in response.errors]
            axioms = interpret.axioms_at(SnippetResult(messages=list(response.messages)), axioms_line)
            if errors:
                return ProofCheck(theorem=name, accepted=False, axioms=axioms, errors=errors, reason="errors")
            if axioms is None:
                return ProofCheck(theorem=name, accepted=False, reason="#print axioms printed nothing")
            extra = axioms - interpret.ALLOWED_AXIOMS
            if extra:
                return ProofCheck(
                    theorem=name, accepted=False, axioms=axioms, reason=f"uses axioms {', '.join(sorted(extra))}"
                )
            return ProofCheck(theorem=name, accepted=True, axioms=axioms, reason="ok")

        return self._pool.first(work)

    def proof_axioms(self, task: Task) -> set[str]:
        """The axioms the task's theorem depends on; raises :class:`LeanCheckError` when the file
        has errors or Lean could not run."""
        verdict = self.check_proof(task)
        if verdict.axioms is None or verdict.errors:
            raise LeanCheckError(verdict.reason + ("".join(f"\n{e}" for e in verdict.errors[:5])))
        return verdict.axioms


def _with_context(answer: Answer, result: SnippetResult) -> Answer:
    """Append what is known about the task's definitions to an unknown answer's detail."""
    if not answer.is_unknown or not result.detail or result.failure is not None:
        return answer
    if result.detail in answer.detail:
        return answer
    return answer.replace(detail=f"{answer.detail} ({result.detail})")

"""The JSON protocol of the Lean REPL (leanprover-community/repl), as data.

The models mirror the REPL's own ``REPL/JSON.lean`` (tag v4.24.0), field for field, and are
checked against that release's test transcripts (``tests/backends/lean/test_lean_repl_transcripts.py``).

A request is one JSON object terminated by a blank line. The REPL reads lines up to the blank
line and *concatenates them without a separator* (each line right-trimmed), and skips a request
that starts with ``#`` or ``--``; so a request must be one line, which ``json.dumps`` guarantees
by escaping newlines inside strings::

    {"cmd": "def f := 2", "env": 0}

The REPL tries the request kinds in a fixed order (:data:`REQUEST_KINDS`); its decoder ignores
unknown keys, while ours refuse them, so that a misspelt field fails here rather than silently in
Lean.

The REPL answers with one JSON object (pretty-printed over several lines) and a blank line:

* a command or file: ``env`` (the environment after it, usable as ``env`` later), and, when not
  empty, ``messages``, ``sorries``, ``tactics``, ``infotree``;
* a tactic (``proofState`` + ``tactic``): ``proofState``, ``goals``, ``proofStatus``, and when not
  empty ``messages``, ``sorries``, ``traces``;
* a request it cannot serve (unknown ``env``, a Lean exception): ``{"message": "..."}``.

A message has ``severity`` (``info``, ``warning`` or ``error``; ``trace`` exists in the type but
Lean's messages never map to it), ``pos`` and optional ``endPos`` -- 1-based lines and 0-based
columns *within the command text* -- and ``data``, the message text trimmed. A sorry reached
through a tactic has no position (the REPL omits line 0).

Results are always read from these structured fields; nothing here searches output text for words
such as "error".
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, ValidationError

Severity = Literal["trace", "info", "warning", "error"]


class _Wire(BaseModel):
    """A protocol object: Python names, the REPL's camelCase names on the wire."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    _always: ClassVar[frozenset[str]] = frozenset()
    """Optional fields the REPL writes even when empty (as ``null``): its derived ``ToJson`` does
    so for ``Option`` fields, while its hand-written ones leave empty lists and positions out."""

    def wire(self) -> dict[str, Any]:
        """The JSON object as the REPL writes it."""
        out: dict[str, Any] = {}
        for name, info in type(self).model_fields.items():
            value = getattr(self, name)
            if not info.is_required() and name not in self._always and value == info.get_default():
                continue
            out[info.alias or name] = _wire_value(value)
        return out


def _wire_value(value: Any) -> Any:
    if isinstance(value, _Wire):
        return value.wire()
    if isinstance(value, list):
        return [_wire_value(item) for item in value]
    return value


class _Request(_Wire):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# ---------------------------------------------------------------------------------------------
# Requests


class _ElaborateRequest(_Request):
    """The options of a request that elaborates Lean source (commands or a file)."""

    env: NonNegativeInt | None = None
    all_tactics: bool | None = Field(default=None, alias="allTactics")
    root_goals: bool | None = Field(default=None, alias="rootGoals")
    infotree: str | None = None
    """``full``, ``tactics``, ``original`` or ``substantive``; the REPL ignores other values."""


class CommandRequest(_ElaborateRequest):
    """Run Lean commands: in a fresh environment (``env`` None, ``import`` allowed) or on top of
    environment ``env``."""

    cmd: str


class FileRequest(_ElaborateRequest):
    """Process a Lean file (by path, read by the REPL)."""

    path: str


class ProofStepRequest(_Request):
    proof_state: NonNegativeInt = Field(alias="proofState")
    tactic: str


class PickleEnvironmentRequest(_Request):
    env: NonNegativeInt
    pickle_to: str = Field(alias="pickleTo")


class UnpickleEnvironmentRequest(_Request):
    unpickle_env_from: str = Field(alias="unpickleEnvFrom")


class PickleProofStateRequest(_Request):
    proof_state: NonNegativeInt = Field(alias="proofState")
    pickle_to: str = Field(alias="pickleTo")


class UnpickleProofStateRequest(_Request):
    unpickle_proof_state_from: str = Field(alias="unpickleProofStateFrom")
    env: NonNegativeInt | None = None


ReplRequest = (
    CommandRequest
    | FileRequest
    | ProofStepRequest
    | PickleEnvironmentRequest
    | UnpickleEnvironmentRequest
    | PickleProofStateRequest
    | UnpickleProofStateRequest
)
REQUEST_KINDS: tuple[type[_Request], ...] = (
    ProofStepRequest,
    PickleEnvironmentRequest,
    UnpickleEnvironmentRequest,
    PickleProofStateRequest,
    UnpickleProofStateRequest,
    CommandRequest,
    FileRequest,
)
"""The order in which the REPL tries to read a request (``parse`` in its ``Main.lean``)."""


def parse_request(payload: dict[str, Any]) -> ReplRequest:
    """The request kind ``payload`` is, tried in the REPL's order; ``ValueError`` when none."""
    for kind in REQUEST_KINDS:
        try:
            return kind.model_validate(payload)  # type: ignore[return-value]
        except ValidationError:
            continue
    raise ValueError(f"not a REPL request: {json.dumps(payload)[:200]}")


# ---------------------------------------------------------------------------------------------
# Answers


class ReplPos(_Wire):
    line: NonNegativeInt
    column: NonNegativeInt


class ReplMessage(_Wire):
    """One Lean message. ``pos.line`` is 1-based within the command that produced it."""

    _always = frozenset({"end_pos"})

    severity: Severity
    pos: ReplPos
    end_pos: ReplPos | None = Field(default=None, alias="endPos")
    data: str

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def shifted(self, lines: int) -> ReplMessage:
        """The same message with line numbers moved by ``-lines`` (relative to a snippet)."""
        end = None if self.end_pos is None else ReplPos(line=self.end_pos.line - lines, column=self.end_pos.column)
        return ReplMessage(
            severity=self.severity,
            pos=ReplPos(line=self.pos.line - lines, column=self.pos.column),
            endPos=end,
            data=self.data,
        )

    def describe(self) -> str:
        return f"{self.pos.line}:{self.pos.column}: {self.severity}: {self.data}"


class ReplSorry(_Wire):
    """A ``sorry`` left in the code; ``proof_state`` lets tactics run there."""

    _always = frozenset({"proof_state"})

    goal: str
    proof_state: NonNegativeInt | None = Field(default=None, alias="proofState")
    pos: ReplPos | None = None
    """None for a sorry inside a tactic's result (the REPL has no position for it)."""
    end_pos: ReplPos | None = Field(default=None, alias="endPos")


class ReplTactic(_Wire):
    """One tactic of the command (answers to ``allTactics``)."""

    _always = frozenset({"proof_state"})

    pos: ReplPos
    end_pos: ReplPos = Field(alias="endPos")
    goals: str
    tactic: str
    proof_state: NonNegativeInt | None = Field(default=None, alias="proofState")
    used_constants: list[str] = Field(alias="usedConstants")


class ReplResponse(_Wire):
    """The answer to a command (``cmd``) or file (``path``) request."""

    env: NonNegativeInt
    messages: list[ReplMessage] = []
    sorries: list[ReplSorry] = []
    tactics: list[ReplTactic] = []
    infotree: Any = None
    """The info trees as the REPL prints them (asked for with ``infotree``), left as JSON."""

    @property
    def errors(self) -> list[ReplMessage]:
        return [message for message in self.messages if message.is_error]


class ProofStepResponse(_Wire):
    """The answer to a tactic request; ``proof_state`` names the state after the tactic."""

    proof_state: NonNegativeInt = Field(alias="proofState")
    goals: list[str]
    messages: list[ReplMessage] = []
    sorries: list[ReplSorry] = []
    traces: list[str] = []
    proof_status: str = Field(alias="proofStatus")
    """``Completed``, ``Incomplete: open goals remain``, ``Error: ...``: text chosen by the REPL."""

    @property
    def errors(self) -> list[ReplMessage]:
        return [message for message in self.messages if message.is_error]


class ReplRefusal(_Wire):
    """``{"message": ...}``: the REPL could not serve the request at all."""

    message: str


ReplAnswer = ReplResponse | ProofStepResponse | ReplRefusal


class ReplAnswerError(ValueError):
    """A JSON answer that is none of the REPL's answer shapes."""


def command_request(cmd: str, env: int | None) -> dict[str, Any]:
    """The request for running ``cmd`` (in environment ``env``, or in a fresh one when None)."""
    return CommandRequest(cmd=cmd, env=env).wire()


def encode_request(request: dict[str, Any] | _Request) -> bytes:
    """One line of JSON plus the blank line the REPL waits for.

    ``json.dumps`` escapes newlines inside strings, so the request never contains the blank line
    that would end it early, nor a line break the REPL would drop when joining lines.
    """
    payload = request.wire() if isinstance(request, _Request) else request
    return (json.dumps(payload, ensure_ascii=False) + "\n\n").encode("utf-8")


def decode_response(payload: dict[str, Any]) -> ReplAnswer:
    """The answer ``payload`` is; raises :class:`ReplAnswerError` when it fits no answer shape."""
    if set(payload) == {"message"}:
        kind: type[_Wire] = ReplRefusal
    elif "proofStatus" in payload:
        kind = ProofStepResponse
    else:
        kind = ReplResponse
    try:
        return kind.model_validate(payload)  # type: ignore[return-value]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        raise ReplAnswerError(
            f"REPL answer is not a {kind.__name__}: {where}: {first['msg']}: {json.dumps(payload)[:200]}"
        ) from exc


class ResponseReader:
    """Incrementally cuts REPL answers out of a byte stream.

    The REPL prints a (possibly multi-line) JSON object and then a blank line. Bytes before the
    object that are not JSON (a stray line some REPL builds print) are kept as ``noise`` instead of
    failing the exchange.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.noise: list[str] = []
        self._decoder = json.JSONDecoder()

    def __len__(self) -> int:
        return len(self._buffer)

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk

    def clear(self) -> None:
        self._buffer.clear()

    def next_object(self) -> dict[str, Any] | None:
        """The next complete answer, or None when more bytes are needed.

        Raises ``ValueError`` when a complete block (terminated by a blank line) starts like JSON
        but is not valid JSON: the stream is then out of step and the process must be restarted.
        """
        end = self._buffer.rfind(b"\n\n")
        if end < 0:
            return None
        complete = bytes(self._buffer[: end + 2]).decode("utf-8", errors="replace")
        start = _first_object_start(complete)
        if start is None:
            # Only noise so far: keep it for diagnostics, drop it from the stream.
            if complete.strip():
                self.noise.append(complete.strip())
            del self._buffer[: end + 2]
            return None
        if complete[:start].strip():
            self.noise.append(complete[:start].strip())
        try:
            payload, stop = self._decoder.raw_decode(complete, start)
        except json.JSONDecodeError as exc:
            raise ValueError(f"malformed REPL answer: {exc}: {complete[start:start + 200]!r}") from exc
        if not isinstance(payload, dict):
            raise ValueError(f"REPL answer is not a JSON object: {complete[start:start + 200]!r}")
        consumed = len(complete[:stop].encode("utf-8"))
        del self._buffer[:consumed]
        # What follows the object on the same block is the terminating blank line.
        while self._buffer[:1] in (b"\n", b"\r", b" "):
            del self._buffer[:1]
        return payload


def _first_object_start(text: str) -> int | None:
    """Index of the first ``{`` that begins a line."""
    if text.startswith("{"):
        return 0
    index = text.find("\n{")
    return None if index < 0 else index + 1

"""The JSON protocol of the Lean REPL (leanprover-community/repl), as data.

A request is one JSON object on one line, terminated by a blank line::

    {"cmd": "def f := 2", "env": 0}

The REPL answers with one JSON object (pretty-printed over several lines) followed by a blank
line. A command answer carries ``env`` (the id of the environment after the command, usable as
``env`` of later commands), ``messages`` (``severity`` is ``"info"``, ``"warning"`` or ``"error"``;
``pos``/``endPos`` are 1-based lines and 0-based columns *within the command text*; ``data`` is the
message text) and ``sorries``. A request the REPL cannot serve (unknown ``env``, malformed JSON)
is answered with ``{"message": "..."}``.

Results are always read from these structured fields; nothing here searches output text for words
such as "error".
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["trace", "info", "warning", "error"]


class ReplPos(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    line: int
    column: int


class ReplMessage(BaseModel):
    """One Lean message. ``pos.line`` is 1-based within the command that produced it."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

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


class ReplResponse(BaseModel):
    """The answer to a ``cmd`` request."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    env: int | None = None
    messages: list[ReplMessage] = []
    sorries: list[dict[str, Any]] = []

    @property
    def errors(self) -> list[ReplMessage]:
        return [message for message in self.messages if message.is_error]


class ReplRefusal(BaseModel):
    """``{"message": ...}``: the REPL could not serve the request at all."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    message: str


def command_request(cmd: str, env: int | None) -> dict[str, Any]:
    """The request for running ``cmd`` (in environment ``env``, or in a fresh one when None)."""
    request: dict[str, Any] = {"cmd": cmd}
    if env is not None:
        request["env"] = env
    return request


def encode_request(request: dict[str, Any]) -> bytes:
    """One line of JSON plus the blank line the REPL waits for.

    ``json.dumps`` escapes newlines inside strings, so the request never contains the blank line
    that would end it early.
    """
    return (json.dumps(request, ensure_ascii=False) + "\n\n").encode("utf-8")


def decode_response(payload: dict[str, Any]) -> ReplResponse | ReplRefusal:
    if set(payload) == {"message"}:
        return ReplRefusal.model_validate(payload)
    return ReplResponse.model_validate(payload)


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

"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests (stdlib only, threaded).

It implements ``POST /v1/chat/completions`` (also ``/chat/completions``) and answers each request
with the next scripted behaviour, or with ``default(request_body)`` when the script is used up:

:class:`Reply`      a completion: content (one per choice), finish reason, refusal, usage, delay
:class:`HttpError`  an HTTP error with an OpenAI-style JSON error body (and optional headers)

A reply with ``delay_s`` larger than the client's timeout is a slow reply; the server notices
nothing (the client hangs up). :meth:`FakeOpenAIServer.hold_after` makes every request after the
first ``k`` wait unanswered until :meth:`FakeOpenAIServer.release` (for killing a client while a
request is in flight). Every request is logged (:class:`LoggedRequest`: body, whether it was
answered), so tests count calls. ``with FakeOpenAIServer() as server:`` starts it on a free port
and stops it at the end, closing open connections and joining the handler threads.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMPLETION_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Reply:
    content: str | None | tuple[str | None, ...] = "ok"
    """The assistant text; a tuple gives one choice per element (for ``n > 1``)."""
    finish_reason: str = "stop"
    refusal: str | None = None
    usage: tuple[int, int] | None | str = "words"
    """``(prompt_tokens, completion_tokens)``, ``None`` for no usage field, or ``"words"``: counts
    of whitespace-separated words of the prompt and the reply (deterministic stand-in numbers)."""
    delay_s: float = 0.0


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str = "scripted error"
    headers: tuple[tuple[str, str], ...] = ()


Behaviour = Reply | HttpError


@dataclass
class LoggedRequest:
    index: int
    path: str
    body: Any
    """The decoded JSON request (``None`` when it was not JSON)."""
    authorization: str | None
    behaviour: Behaviour | None = None
    answered: bool = False
    """True once a complete response was written (False: held and dropped, slow and hung up on)."""
    status: int | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def last_user_content(self) -> str:
        users = [m.get("content", "") for m in self.messages if m.get("role") == "user"]
        return str(users[-1]) if users else ""


def echo_reply(body: Any) -> Behaviour:
    """The default behaviour: answer with the last user message, prefixed."""
    messages = body.get("messages", []) if isinstance(body, dict) else []
    users = [m.get("content", "") for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return Reply(content=f"echo: {users[-1] if users else ''}")


def _words(text: Any) -> int:
    return len(str(text).split()) if text else 0


class FakeOpenAIServer:
    def __init__(self, default: Callable[[Any], Behaviour] = echo_reply) -> None:
        self.default = default
        self.requests: list[LoggedRequest] = []
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._hold_limit: int | None = None
        self._held = threading.Condition(self._lock)
        self._connections: set[socket.socket] = set()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self._held.notify_all()
            connections = list(self._connections)
        self._httpd.shutdown()
        for conn in connections:  # wake handler threads blocked reading a keep-alive connection
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()  # joins the handler threads
        self._thread.join(timeout=10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ---------------------------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> None:
        """Queue behaviours for the next requests, in order (after those already queued)."""
        with self._lock:
            self._script.extend(behaviours)

    def hold_after(self, count: int) -> None:
        """Requests after the first ``count`` (counting from the server's start) wait unanswered."""
        with self._lock:
            self._hold_limit = count

    def release(self) -> None:
        """Stop holding: held requests are dropped without an answer, new ones are served."""
        with self._lock:
            self._hold_limit = None
            self._held.notify_all()

    def wait_for_requests(self, count: int, timeout_s: float = 30.0) -> bool:
        """Wait until at least ``count`` requests have arrived."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.requests) >= count:
                    return True
            time.sleep(0.01)
        return False

    # -- log views ---------------------------------------------------------------------------

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def answered(self) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.answered]

    def answered_bodies(self) -> list[str]:
        """Canonical JSON of every answered request body, in arrival order."""
        return [json.dumps(r.body, sort_keys=True) for r in self.answered()]

    # -- serving (handler threads) -----------------------------------------------------------

    def _register(self, path: str, body: Any, authorization: str | None) -> tuple[LoggedRequest, Behaviour | None]:
        with self._lock:
            entry = LoggedRequest(len(self.requests), path, body, authorization)
            self.requests.append(entry)
            if self._hold_limit is not None and entry.index >= self._hold_limit:
                while self._hold_limit is not None and not self._stopping.is_set():
                    self._held.wait(timeout=0.5)
                return entry, None  # released or stopping: drop without answering
            behaviour = self._script.popleft() if self._script else None
        if behaviour is None:
            behaviour = self.default(body)
        entry.behaviour = behaviour
        return entry, behaviour

    def _completion(self, body: dict[str, Any], reply: Reply, index: int) -> dict[str, Any]:
        n = int(body.get("n") or 1)
        contents = list(reply.content) if isinstance(reply.content, tuple) else [reply.content] * n
        choices = [
            {
                "index": i,
                "message": {"role": "assistant", "content": text, "refusal": reply.refusal},
                "finish_reason": reply.finish_reason,
                "logprobs": None,
            }
            for i, text in enumerate(contents)
        ]
        result: dict[str, Any] = {
            "id": f"chatcmpl-fake-{index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake-model"),
            "choices": choices,
        }
        if reply.usage == "words":
            prompt = sum(_words(m.get("content")) for m in body.get("messages", []) if isinstance(m, dict))
            completion = sum(_words(t) for t in contents)
            result["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}
        elif isinstance(reply.usage, tuple):
            prompt, completion = reply.usage
            result["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}
        return result


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True
    owner: FakeOpenAIServer

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.owner._lock:
            self.owner._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.owner._lock:
            self.owner._connections.discard(request)
        super().shutdown_request(request)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the openai client expects
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr logging
        return

    def _send_json(
        self, entry: LoggedRequest, status: int, payload: Any, headers: Iterable[tuple[str, str]] = ()
    ) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        # Marked before the body goes out: the client may act on the reply (and a test look at the
        # log) before this thread runs again. A failed write unmarks it (see do_POST).
        entry.answered = True
        self.wfile.write(data)
        self.wfile.flush()

    def _peer_closed(self) -> bool:
        """Whether the client has closed its end (a slow reply's client that timed out)."""
        ready, _, _ = select.select([self.connection], [], [], 0)
        if not ready:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        entry, behaviour = owner._register(path, body, self.headers.get("Authorization"))
        if behaviour is None:
            self.close_connection = True
            return
        try:
            if path not in COMPLETION_PATHS or not isinstance(body, dict):
                entry.status = 404 if path not in COMPLETION_PATHS else 400
                self._send_json(entry, entry.status, {"error": {"message": f"unsupported request to {path}"}})
            elif isinstance(behaviour, HttpError):
                entry.status = behaviour.status
                error = {"error": {"message": behaviour.message, "type": "scripted", "code": behaviour.status}}
                self._send_json(entry, behaviour.status, error, behaviour.headers)
            else:
                if behaviour.delay_s and (owner._stopping.wait(behaviour.delay_s) or self._peer_closed()):
                    self.close_connection = True  # stopping, or the client gave up waiting
                    return
                entry.status = 200
                self._send_json(entry, 200, owner._completion(body, behaviour, entry.index))
        except OSError:  # the client hung up (timed out, or was killed)
            entry.answered = False
            self.close_connection = True

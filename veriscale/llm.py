"""An OpenAI-compatible chat client that a killed run can resume without paying twice.

``veriscale eval`` and the games call models through inspect_ai; this client stays for ``expand``'s
LLM generators (:mod:`veriscale.generate.llm_inputs`, :mod:`veriscale.generate.llm_adversaries`),
which call the model synchronously from inside worker processes (local or Ray), where no inspect
evaluation runs, and share one response cache and token budget through the expand run's store.
``eval`` uses its endpoint and key rules (:func:`resolve_endpoint`), errors, prices and
:func:`classify_choice`.

:class:`LLMClient` wraps the ``openai`` package (``OpenAI(base_url=..., api_key=...)``; any server
speaking ``POST /v1/chat/completions`` works) and adds what a long benchmark run needs:

* **A response cache in the run store.** A request is identified by a hash of (model, messages,
  parameters) -- see :func:`request_key`. :meth:`LLMClient.complete` looks there first and answers
  from the store without any HTTP request; every response received is written to the store before
  ``complete`` returns it. Killed and restarted, a run replays its earlier calls from the store.
  Only a call whose response had arrived but not yet been committed when the process died (a
  window of one SQLite commit) is ever sent twice.
* **Retries.** Timeouts, connection errors, HTTP 429 and 5xx are retried with bounded exponential
  backoff (honouring ``Retry-After`` up to the cap); every other 4xx fails at once, since sending
  the same bad request again cannot help. Each attempt has its own timeout. The ``openai``
  package's own retries are switched off so that every attempt is counted here.
* **Accounting.** Token usage and an estimated cost per response (:class:`PriceTable`: prices per
  model-name pattern, overridable; an unknown model costs ``None``, never a guess), and a token
  budget for the whole run, counted over the store (so it survives resumption): once spent,
  ``complete`` raises :class:`TokenBudgetExceeded` before sending anything. Cached answers are
  free and are served even then.
* **Typed answers.** :class:`LLMResponse` has one :class:`LLMChoice` per requested completion.
  An empty reply, a refusal (``message.refusal`` set, or finish reason ``content_filter``) and a
  truncated reply (finish reason ``length``) are marked with a :data:`FailureKind` that the caller
  counts; they are not exceptions. A request that fails for good raises :class:`LLMCallError`.
* **Counters** (:class:`LLMStats`): HTTP requests, responses, cache hits, retries, errors, failed
  choices by kind -- what tests assert "no repeated call" with.

Configuration follows the ``openai`` package: ``base_url``/``api_key`` arguments, else the
``OPENAI_BASE_URL``/``OPENAI_API_KEY`` environment variables, else the OpenAI API. A local server
(``localhost``, ``127.0.0.1``, ``::1``) needs no key; a placeholder is sent.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import random
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import jinja2
import openai
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from veriscale import resources
from veriscale.store import LLMCacheEntry, RunStore, canonical_json, utc_now

__all__ = [
    "DEFAULT_PRICES",
    "FailureKind",
    "LLMCallError",
    "LLMChoice",
    "LLMClient",
    "LLMConfig",
    "LLMConfigError",
    "LLMResponse",
    "LLMStats",
    "Message",
    "ModelPrice",
    "PriceTable",
    "RetryPolicy",
    "TokenBudgetExceeded",
    "TokenUsage",
    "classify_choice",
    "prompts_dir",
    "render_prompt",
    "request_key",
    "resolve_endpoint",
]

Message = Mapping[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""

FailureKind = Literal["empty", "refusal", "truncated"]
"""Why a choice carries no usable text: nothing said, declined, or cut off by ``max_tokens``."""

CallErrorKind = Literal["timeout", "connection", "rate_limit", "server", "client", "response"]

CACHE_KEY_VERSION = 1
"""Part of every request hash; bump it when the hashed request format changes."""

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
_PLACEHOLDER_KEY = "sk-local-no-key"


# ---------------------------------------------------------------------------------------------
# Errors


class LLMConfigError(Exception):
    """The client cannot be set up (no API key for a remote endpoint, bad price file)."""


class LLMCallError(Exception):
    """A request that failed for good: a non-retryable HTTP error, or retries exhausted.

    ``kind`` is ``timeout``, ``connection``, ``rate_limit`` (429), ``server`` (5xx), ``client``
    (another 4xx) or ``response`` (a reply the client could not read); ``status`` is the HTTP
    status when there was one; ``attempts`` how many requests were sent, ``None`` when the caller
    cannot know (inspect's retries run out of sight of ``veriscale eval``), and then not claimed.
    """

    def __init__(
        self, kind: CallErrorKind, message: str, *, status: int | None = None, attempts: int | None = None
    ) -> None:
        self.kind = kind
        self.status = status
        self.attempts = attempts
        count = "" if attempts is None else f", {attempts} attempt{'s' if attempts != 1 else ''}"
        super().__init__(f"LLM request failed ({kind}{f', HTTP {status}' if status else ''}{count}): {message}")

    @property
    def retryable(self) -> bool:
        return self.kind in ("timeout", "connection", "rate_limit", "server")


class TokenBudgetExceeded(Exception):
    """The run has used its token budget; no further LLM request is sent."""

    def __init__(self, used: int, budget: int, prompt_tokens: int, completion_tokens: int) -> None:
        self.used = used
        self.budget = budget
        super().__init__(
            f"token budget exhausted: the run has used {used:,} of its {budget:,} tokens "
            f"({prompt_tokens:,} prompt + {completion_tokens:,} completion). Cached answers remain "
            "available; raise the budget to continue."
        )


# ---------------------------------------------------------------------------------------------
# Prices


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(frozen=True)

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


# List prices (USD per million tokens, standard tier) as published by the providers in 2025.
# Estimates only: cached-input discounts, batch tiers and price changes are not modelled; override
# with PriceTable(...) or a JSON file. Patterns are fnmatch-style and matched case-insensitively
# against the model name; the longest matching pattern wins, so "*gpt-4o-mini*" beats "*gpt-4o*".
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "*gpt-4o*": ModelPrice(input_per_mtok=2.50, output_per_mtok=10.00),
    "*gpt-4o-mini*": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.60),
    "*gpt-4.1*": ModelPrice(input_per_mtok=2.00, output_per_mtok=8.00),
    "*gpt-4.1-mini*": ModelPrice(input_per_mtok=0.40, output_per_mtok=1.60),
    "*gpt-4.1-nano*": ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40),
    "*gpt-5*": ModelPrice(input_per_mtok=1.25, output_per_mtok=10.00),
    "*gpt-5-mini*": ModelPrice(input_per_mtok=0.25, output_per_mtok=2.00),
    "*gpt-5-nano*": ModelPrice(input_per_mtok=0.05, output_per_mtok=0.40),
    "*o3*": ModelPrice(input_per_mtok=2.00, output_per_mtok=8.00),
    "*o3-mini*": ModelPrice(input_per_mtok=1.10, output_per_mtok=4.40),
    "*o4-mini*": ModelPrice(input_per_mtok=1.10, output_per_mtok=4.40),
}


class PriceTable:
    """Estimated cost of a response from its model name and token counts.

    ``prices`` are added to (and override) :data:`DEFAULT_PRICES` unless ``include_defaults`` is
    false. A model that matches no pattern has cost ``None``.
    """

    def __init__(
        self, prices: Mapping[str, ModelPrice | Mapping[str, float]] | None = None, *, include_defaults: bool = True
    ) -> None:
        table: dict[str, ModelPrice] = dict(DEFAULT_PRICES) if include_defaults else {}
        for pattern, price in (prices or {}).items():
            table[pattern.lower()] = price if isinstance(price, ModelPrice) else ModelPrice.model_validate(price)
        self.prices = table

    @classmethod
    def from_file(cls, path: str | Path, *, include_defaults: bool = True) -> PriceTable:
        """Read ``{"pattern": {"input_per_mtok": x, "output_per_mtok": y}, ...}`` from a JSON file."""
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                raise ValueError("expected a JSON object of model patterns")
            return cls(raw, include_defaults=include_defaults)
        except (OSError, ValueError) as exc:
            raise LLMConfigError(f"cannot read prices from {path}: {exc}") from exc

    def price(self, model: str) -> ModelPrice | None:
        name = model.lower()
        matches = [pattern for pattern in self.prices if fnmatch.fnmatchcase(name, pattern)]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = self.price(model)
        if price is None:
            return None
        return (prompt_tokens * price.input_per_mtok + completion_tokens * price.output_per_mtok) / 1_000_000


# ---------------------------------------------------------------------------------------------
# Configuration


class RetryPolicy(BaseModel):
    """Bounded exponential backoff: delay ``initial * multiplier**k``, capped, with +/- jitter."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=6, ge=1)
    initial_delay_s: float = Field(default=1.0, ge=0)
    max_delay_s: float = Field(default=60.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    jitter: float = Field(default=0.1, ge=0, le=1)
    """Relative spread of each delay, so parallel workers do not retry in lockstep."""

    def delay(self, retry: int, rng: random.Random, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        base = min(self.initial_delay_s * self.multiplier**retry, self.max_delay_s)
        if retry_after_s is not None:
            base = min(max(base, retry_after_s), self.max_delay_s)
        return max(0.0, base * (1 + self.jitter * (2 * rng.random() - 1)))


class LLMConfig(BaseModel):
    """How to reach the model. ``api_key`` is never stored or hashed."""

    model: str
    base_url: str | None = None
    """Defaults to ``$OPENAI_BASE_URL``, then the OpenAI API."""
    api_key: SecretStr | None = None
    """Defaults to ``$OPENAI_API_KEY``; optional for a server on this machine."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Per attempt: the whole HTTP request, connection to last byte."""
    retry: RetryPolicy = RetryPolicy()
    token_budget: int | None = Field(default=None, ge=0)
    """Prompt + completion tokens the whole run may use (over the store, across resumptions)."""


# ---------------------------------------------------------------------------------------------
# Responses


class TokenUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported: bool = True
    """False when the server sent no ``usage`` (the counts are then 0, not estimates)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class LLMChoice(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    text: str
    """The reply text ('' when there is none). A truncated reply keeps what was generated."""
    finish_reason: str | None
    refusal: str | None = None
    failure: FailureKind | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class LLMResponse(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    """The request hash (the cache key in the run store)."""
    model: str
    """The model the request named (the server may report a more specific one in ``raw``)."""
    choices: list[LLMChoice]
    usage: TokenUsage
    cost_usd: float | None
    cached: bool
    """True when served from the run store without an HTTP request."""
    latency_s: float
    """Time of the successful HTTP request (for a cached answer: when it was first received)."""

    @property
    def text(self) -> str:
        """The first choice's text ('' when there is none)."""
        return self.choices[0].text if self.choices else ""

    @property
    def texts(self) -> list[str]:
        return [c.text for c in self.choices]

    @property
    def finish_reason(self) -> str | None:
        return self.choices[0].finish_reason if self.choices else None

    @property
    def failure(self) -> FailureKind | None:
        """The first choice's failure (``empty`` when the server returned no choice at all)."""
        return self.choices[0].failure if self.choices else "empty"

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def ok_texts(self) -> list[str]:
        return [c.text for c in self.choices if c.ok]


def classify_choice(text: str | None, finish_reason: str | None, refusal: str | None) -> FailureKind | None:
    """Refusal first (a filtered reply may also be empty), then truncation, then emptiness."""
    if refusal or finish_reason == "content_filter":
        return "refusal"
    if finish_reason == "length":
        return "truncated"
    if not text or not text.strip():
        return "empty"
    return None


def _choices_of(response: Mapping[str, Any]) -> list[LLMChoice]:
    choices: list[LLMChoice] = []
    for position, raw in enumerate(response.get("choices") or []):
        message = raw.get("message") or {}
        text = message.get("content")
        text = text if isinstance(text, str) else ""
        refusal = message.get("refusal") or None
        finish_reason = raw.get("finish_reason")
        choices.append(
            LLMChoice(
                index=raw.get("index", position) if isinstance(raw.get("index"), int) else position,
                text=text,
                finish_reason=finish_reason,
                refusal=refusal if isinstance(refusal, str) else None,
                failure=classify_choice(text, finish_reason, refusal),
            )
        )
    return sorted(choices, key=lambda c: c.index)


def _usage_of(response: Mapping[str, Any]) -> TokenUsage:
    usage = response.get("usage")
    if not isinstance(usage, Mapping):
        return TokenUsage(reported=False)
    return TokenUsage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
    )


# ---------------------------------------------------------------------------------------------
# Request identity


def _normalise_messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    normalised = []
    for message in messages:
        if "role" not in message or "content" not in message:
            raise ValueError(f"a chat message needs 'role' and 'content': {dict(message)!r}")
        normalised.append({k: str(v) for k, v in message.items() if k in ("role", "content", "name")})
    return normalised


def _request(model: str, messages: Sequence[Message], params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "v": CACHE_KEY_VERSION,
        "model": model,
        "messages": _normalise_messages(messages),
        "params": {k: v for k, v in params.items() if v is not None},
    }


def request_key(model: str, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of (model, messages, parameters).

    Parameters that are ``None`` are left out; the endpoint and the API key are not part of it (the
    same model behind another URL answers the same request).
    """
    return hashlib.sha256(canonical_json(_request(model, messages, params)).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Counters


class LLMStats(BaseModel):
    """What one client did. ``requests`` counts HTTP attempts; a cache hit sends none."""

    requests: int = 0
    responses: int = 0
    cache_hits: int = 0
    retries: int = 0
    errors: int = 0
    """``complete`` calls that raised :class:`LLMCallError`."""
    budget_stops: int = 0
    failures: Counter[str] = Field(default_factory=Counter)
    """Failed choices by :data:`FailureKind`, over every response returned (fresh or cached)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    """Over fresh responses with a known price."""

    @property
    def failure_count(self) -> int:
        return sum(self.failures.values())


# ---------------------------------------------------------------------------------------------
# The client


def _is_local(base_url: str | None) -> bool:
    if not base_url:
        return False
    host = urlparse(base_url).hostname or ""
    return host in _LOCAL_HOSTS


def endpoint_unreachable(base_url: str, timeout_s: float) -> str | None:
    """Why nothing can connect to ``base_url``'s host and port (refused, unknown host, no answer
    within ``timeout_s``); ``None`` when a TCP connection opens. No request is sent.

    Clients retry a failed connection with backoff (inspect's retries take minutes before they give
    up), which is right for a flaky network but makes a wrong URL or a server that is not running
    look like a hang; one connection attempt up front tells them apart in at most ``timeout_s``."""
    parsed = urlparse(base_url)
    host = parsed.hostname
    if not host:
        return f"{base_url!r} names no host"
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError as exc:  # a port that is not a number or out of range
        return str(exc)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except socket.gaierror as exc:
        return f"unknown host {host!r} ({exc.strerror or exc})"
    except TimeoutError:
        return f"no answer from {host}:{port} within {timeout_s:g} s"
    except OSError as exc:
        return str(exc.strerror or exc)


def resolve_endpoint(config: LLMConfig) -> tuple[str | None, str]:
    """The endpoint and API key ``config`` names: its own, else ``$OPENAI_BASE_URL`` /
    ``$OPENAI_API_KEY``; a server on this machine needs no key (a placeholder is sent). The base
    URL is ``None`` for the OpenAI API.

    Raises :class:`LLMConfigError` when a remote endpoint has no key.
    """
    base_url = config.base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = config.api_key.get_secret_value() if config.api_key else None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if api_key is None:
        if not _is_local(base_url):
            raise LLMConfigError(
                f"no API key for {base_url or 'the OpenAI API'}: set OPENAI_API_KEY "
                "(a server on this machine needs none)"
            )
        api_key = _PLACEHOLDER_KEY
    return base_url, api_key


class LLMClient:
    """Chat completions through the run store; safe to share between threads.

    ``store`` is the run's :class:`~veriscale.store.RunStore` (an in-memory one when omitted, so
    nothing survives the process). ``openai_client`` replaces the ``OpenAI`` instance built from
    ``config`` (tests, custom HTTP clients); ``sleep`` is how backoff waits.
    """

    def __init__(
        self,
        config: LLMConfig,
        store: RunStore | None = None,
        *,
        prices: PriceTable | None = None,
        openai_client: Any | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.store = store if store is not None else RunStore(":memory:")
        self.prices = prices or PriceTable()
        self.stats = LLMStats()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._client = openai_client if openai_client is not None else self._make_openai_client()

    def _make_openai_client(self) -> openai.OpenAI:
        base_url, api_key = resolve_endpoint(self.config)
        # max_retries=0: the retry loop below decides, counts and caps every attempt.
        return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=self.config.timeout_s, max_retries=0)

    @property
    def model(self) -> str:
        return self.config.model

    def _key_lock(self, key: str) -> threading.Lock:
        # Two threads asking the same thing at once: the second waits and then hits the cache.
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def _count(self, **increments: Any) -> None:
        with self._lock:
            for name, value in increments.items():
                setattr(self.stats, name, getattr(self.stats, name) + value)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        n: int = 1,
        seed: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """One chat completion, from the run store when this exact request was answered before.

        ``extra`` holds further JSON-serialisable request parameters (``top_p``, ``stop``, ...);
        they are sent and hashed too. To draw a fresh sample of an identical prompt, pass a
        distinguishing ``seed``.
        """
        if n < 1 or max_tokens < 1:
            raise ValueError("n and max_tokens must be at least 1")
        params: dict[str, Any] = {
            "temperature": float(temperature),
            "max_tokens": int(max_tokens),
            "n": int(n),
            "seed": seed,
            **dict(extra or {}),
        }
        request = _request(self.model, messages, params)
        request_json = canonical_json(request)
        key = hashlib.sha256(request_json.encode("utf-8")).hexdigest()
        with self._key_lock(key):
            entry = self.store.llm_get(key)
            if entry is not None:
                self._count(cache_hits=1)
                return self._finish(self._response(entry, cached=True))
            self._check_budget()
            body, latency = self._send(request["messages"], request["params"])
            usage = _usage_of(body)
            cost = self.prices.cost(self.model, usage.prompt_tokens, usage.completion_tokens)
            entry = LLMCacheEntry(
                key=key,
                model=self.model,
                request_json=request_json,
                response_json=json.dumps(body, ensure_ascii=False),
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                usage_reported=usage.reported,
                cost_usd=cost,
                latency_s=latency,
                created_at=utc_now(),
            )
            self.store.llm_put(entry)
            self._count(
                responses=1,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cost_usd=cost or 0.0,
            )
            return self._finish(self._response(entry, cached=False))

    def _finish(self, response: LLMResponse) -> LLMResponse:
        kinds = [c.failure for c in response.choices if c.failure] or ([] if response.choices else ["empty"])
        if kinds:
            with self._lock:
                self.stats.failures.update(kinds)
        return response

    def _response(self, entry: LLMCacheEntry, *, cached: bool) -> LLMResponse:
        body = entry.response()
        return LLMResponse(
            key=entry.key,
            model=entry.model,
            choices=_choices_of(body),
            usage=TokenUsage(
                prompt_tokens=entry.prompt_tokens,
                completion_tokens=entry.completion_tokens,
                reported=entry.usage_reported,
            ),
            cost_usd=entry.cost_usd,
            cached=cached,
            latency_s=entry.latency_s,
        )

    def _check_budget(self) -> None:
        budget = self.config.token_budget
        if budget is None:
            return
        spent = self.store.llm_usage()
        if spent.total_tokens >= budget:
            self._count(budget_stops=1)
            raise TokenBudgetExceeded(spent.total_tokens, budget, spent.prompt_tokens, spent.completion_tokens)

    def _send(self, messages: list[dict[str, str]], params: Mapping[str, Any]) -> tuple[dict[str, Any], float]:
        """POST the request, retrying transient failures; the response body and its latency."""
        policy = self.config.retry
        known = ("temperature", "max_tokens", "n", "seed")
        extra_body = {k: v for k, v in params.items() if k not in known}
        attempt = 0
        while True:
            attempt += 1
            self._count(requests=1)
            started = time.monotonic()
            try:
                completion = self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    temperature=params["temperature"],
                    max_tokens=params["max_tokens"],
                    n=params["n"],
                    **({"seed": params["seed"]} if "seed" in params else {}),
                    **({"extra_body": extra_body} if extra_body else {}),
                    timeout=self.config.timeout_s,
                )
                return completion.model_dump(mode="json"), time.monotonic() - started
            except openai.APIStatusError as exc:
                status = exc.status_code
                retryable = status == 429 or status >= 500
                kind: CallErrorKind = "rate_limit" if status == 429 else "server" if status >= 500 else "client"
                error = LLMCallError(kind, _error_text(exc), status=status, attempts=attempt)
                retry_after = _retry_after(exc)
            except openai.APITimeoutError as exc:
                retryable, error, retry_after = True, LLMCallError("timeout", str(exc), attempts=attempt), None
            except openai.APIConnectionError as exc:
                retryable, error, retry_after = True, LLMCallError("connection", str(exc), attempts=attempt), None
            except openai.APIResponseValidationError as exc:
                retryable, error, retry_after = False, LLMCallError("response", str(exc), attempts=attempt), None
            if not retryable or attempt >= policy.max_attempts:
                self._count(errors=1)
                raise error
            self._count(retries=1)
            self._sleep(policy.delay(attempt - 1, self._rng, retry_after))


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
    return str(exc.message) if getattr(exc, "message", None) else str(exc)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """``Retry-After`` in seconds (the HTTP-date form is rare for APIs and ignored)."""
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# Prompt templates

PROMPTS_DIR_ENV = resources.PROMPTS_DIR_ENV
prompts_dir = resources.prompts_dir


def prompt_messages(system_template: str, user_template: str, /, **values: Any) -> list[Message]:
    """The chat messages of one request: the system template (stripped) and the user template
    rendered with ``values``."""
    return [
        {"role": "system", "content": render_prompt(system_template).strip()},
        {"role": "user", "content": render_prompt(user_template, **values)},
    ]


def render_prompt(template_name: str, /, **values: Any) -> str:
    """Render a prompt template (e.g. ``input_generation.j2``) of :func:`prompts_dir`."""
    directory = prompts_dir()
    try:
        template = resources.template_environment(directory, trim_blocks=True).get_template(template_name)
    except jinja2.TemplateNotFound as exc:
        raise LLMConfigError(
            f"prompt template {template_name} not found in {directory} (set ${PROMPTS_DIR_ENV} to the "
            "templates/prompts directory of a VeriScale checkout)"
        ) from exc
    return template.render(**values).strip() + "\n"

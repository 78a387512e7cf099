"""The run store: one SQLite file in the run directory that makes a run resumable.

A run (``veriscale expand``, ``veriscale eval``) may be killed at any moment -- ``kill -9``, a
lost SSH session, an out-of-memory kill -- and the same command run again must neither repeat an
LLM call nor redo a finished task. Everything needed for that lives here:

``run``          one row: the run's config (JSON), seed, creation time, code version
``sessions``     one row per start or resumption of the run (start/finish time, code version, pid)
``checkpoints``  ``(task, stage) -> payload``: a stage of a task is finished iff its row exists
``llm_cache``    one row per LLM response actually received: request hash -> full response JSON,
                 token counts, estimated cost, latency, time
``kill_matrix``  ``(task, adversary, input key) -> killed, output text``

Crash safety comes from SQLite itself: every write is one transaction (``with store.transaction()``
groups several, e.g. a task's kill-matrix rows and its ``mark_done``, so that a stage is recorded
as finished exactly when its outputs are stored). The journal is in WAL mode with
``synchronous=NORMAL``: a committed transaction survives the process being killed (it is in the
WAL file, which the next open replays); only a power loss may drop the last commits, and never
corrupts the file (``synchronous="FULL"`` closes that gap too, at some speed).

One connection per store object, shared by the threads of the process under a lock: SQLite
allows one writer at a time anyway, and LLM calls (the slow part) happen outside the lock.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from veriscale import resources
from veriscale._version import __version__

__all__ = [
    "STORE_FILE_NAME",
    "Checkpoint",
    "KillRow",
    "LLMCacheEntry",
    "LLMUsageTotals",
    "RunMetadata",
    "RunMismatchError",
    "RunSession",
    "RunStore",
    "StoreError",
    "canonical_json",
    "code_version",
    "utc_now",
]

STORE_FILE_NAME = "run.sqlite"
"""The store's file name inside a run directory."""

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    config_json  TEXT NOT NULL,
    seed         INTEGER,
    created_at   TEXT NOT NULL,
    code_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    code_version TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    command      TEXT
);
CREATE TABLE IF NOT EXISTS checkpoints (
    task         TEXT NOT NULL,
    stage        TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    done_at      TEXT NOT NULL,
    PRIMARY KEY (task, stage)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS llm_cache (
    key               TEXT PRIMARY KEY,
    model             TEXT NOT NULL,
    request_json      TEXT NOT NULL,
    response_json     TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    usage_reported    INTEGER NOT NULL,
    cost_usd          REAL,
    latency_s         REAL NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kill_matrix (
    task      TEXT NOT NULL,
    adversary TEXT NOT NULL,
    input_key TEXT NOT NULL,
    killed    INTEGER NOT NULL CHECK (killed IN (0, 1)),
    output    TEXT,
    PRIMARY KEY (task, adversary, input_key)
) WITHOUT ROWID;
"""


class StoreError(Exception):
    """The store file cannot be used (not a VeriScale store, newer schema, bad payload)."""


class RunMismatchError(StoreError):
    """Resuming a run with a different config or seed than the one it was started with."""

    def __init__(self, path: Path, differences: list[str]) -> None:
        self.path = path
        self.differences = differences
        super().__init__(
            f"the run in {path} was started with different settings: {'; '.join(differences)} "
            "(use a new run directory, or resume with the original settings)"
        )


def utc_now() -> str:
    """The current time as ISO 8601 UTC text (what every timestamp column holds)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: equal values give equal text (used for hashing and compares)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _git_output(checkout: Path, *args: str) -> str:
    """The stripped output of one quick git command in ``checkout`` (raises when git fails)."""
    completed = subprocess.run(
        ["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=5, check=True
    )
    return completed.stdout.strip()


def code_version() -> str:
    """The package version, plus the git commit (``+dirty`` when modified) in a git checkout."""
    version = __version__
    checkout = resources.checkout_root()
    if not resources.is_checkout(checkout):
        return version
    try:
        commit = _git_output(checkout, "rev-parse", "--short=12", "HEAD")
        dirty = _git_output(checkout, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return version
    return f"{version}+g{commit}{'.dirty' if dirty else ''}" if commit else version


# ---------------------------------------------------------------------------------------------
# Rows that leave the module


class RunMetadata(BaseModel):
    model_config = ConfigDict(frozen=True)

    config: dict[str, Any]
    seed: int | None
    created_at: str
    code_version: str


class RunSession(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: int
    started_at: str
    finished_at: str | None
    code_version: str
    pid: int
    command: str | None


class Checkpoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    task: str
    stage: str
    payload_json: str
    done_at: str

    def payload(self) -> Any:
        """The stored payload, decoded."""
        return json.loads(self.payload_json)


class LLMCacheEntry(BaseModel):
    """One LLM response actually received (a cache hit never writes a row)."""

    model_config = ConfigDict(frozen=True)

    key: str
    model: str
    request_json: str
    """The request as hashed (model, messages, parameters); never the API key."""
    response_json: str
    """The full chat-completion response as the API returned it."""
    prompt_tokens: int
    completion_tokens: int
    usage_reported: bool
    """False when the server returned no ``usage`` (the token counts are then 0, not estimates)."""
    cost_usd: float | None
    latency_s: float
    created_at: str

    def response(self) -> dict[str, Any]:
        return json.loads(self.response_json)


class LLMUsageTotals(BaseModel):
    """What the LLM responses stored so far cost (each row is one paid call)."""

    model_config = ConfigDict(frozen=True)

    responses: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    """Sum over the responses whose cost is known; ``None`` when none is."""
    responses_without_cost: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class KillRow(BaseModel):
    """Whether adversary ``adversary`` is killed by input ``input_key`` of ``task``."""

    model_config = ConfigDict(frozen=True)

    task: str
    adversary: str
    input_key: str
    killed: bool
    output: str | None = None
    """The adversary's output on that input, as text (``None`` when it produced none)."""


# ---------------------------------------------------------------------------------------------
# The store


class RunStore:
    """The SQLite store of one run directory. Open with :meth:`open`; use as a context manager."""

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        busy_timeout_s: float = 30.0,
    ) -> None:
        self.path = Path(path) if str(path) != ":memory:" else Path(":memory:")
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; every write below opens its own.
        self._conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_s
        )
        self._lock = threading.RLock()
        self._depth = 0  # nesting depth of transaction(); guarded by _lock
        self._session_id: int | None = None
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(f"{path} is not a usable run store: {exc}") from exc

    @classmethod
    def open(cls, run_dir: str | Path, **kwargs: Any) -> RunStore:
        """Open (creating if needed) the store of run directory ``run_dir``."""
        return cls(Path(run_dir) / STORE_FILE_NAME, **kwargs)

    def _init_schema(self) -> None:
        with self.transaction() as conn:
            row = (
                conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
                ).fetchone()
                else None
            )
            if row is not None and int(row[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has store schema {row[0]}, newer than this VeriScale ({SCHEMA_VERSION})"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )

    # -- connection and transactions ---------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit of writes; nested uses join the outermost transaction.

        Holds the store's lock for its duration, so other threads of the process wait; keep LLM
        calls and other slow work outside.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            # IMMEDIATE takes the write lock now, so a concurrent process cannot make us fail halfway.
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._depth = 0
                self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, tuple(params)).fetchall()

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` verdict (``"ok"`` for a sound file)."""
        return str(self._query("PRAGMA integrity_check")[0][0])

    # -- run metadata ------------------------------------------------------------------------

    def start_run(
        self,
        config: Mapping[str, Any],
        seed: int | None,
        *,
        version: str | None = None,
        command: str | None = None,
        check: bool = True,
    ) -> RunMetadata:
        """Record the run's settings on first start; on a resumption compare them and log a session.

        ``config`` must be JSON-serialisable and hold no secrets (it is stored in clear). With
        ``check`` a resumption whose config or seed differs raises :class:`RunMismatchError`: mixing
        the results of two settings in one run directory would make the run irreproducible. A
        different code version is allowed (a bug fix between the kill and the resumption) and is
        visible in ``sessions``.
        """
        version = version or code_version()
        config_json = canonical_json(dict(config))
        with self.transaction() as conn:
            row = conn.execute("SELECT config_json, seed, created_at, code_version FROM run").fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO run (id, config_json, seed, created_at, code_version) VALUES (1, ?, ?, ?, ?)",
                    (config_json, seed, utc_now(), version),
                )
                row = conn.execute("SELECT config_json, seed, created_at, code_version FROM run").fetchone()
            elif check:
                differences = _config_differences(json.loads(row[0]), json.loads(config_json))
                if row[1] != seed:
                    differences.append(f"seed {row[1]} then, {seed} now")
                if differences:
                    raise RunMismatchError(self.path, differences)
            cursor = conn.execute(
                "INSERT INTO sessions (started_at, code_version, pid, command) VALUES (?, ?, ?, ?)",
                (utc_now(), version, os.getpid(), command),
            )
            self._session_id = cursor.lastrowid
        return RunMetadata(config=json.loads(row[0]), seed=row[1], created_at=row[2], code_version=row[3])

    def finish_session(self) -> None:
        """Stamp the current session as finished (a killed session keeps ``finished_at`` empty)."""
        if self._session_id is None:
            return
        with self.transaction() as conn:
            conn.execute("UPDATE sessions SET finished_at = ? WHERE id = ?", (utc_now(), self._session_id))

    def run_metadata(self) -> RunMetadata | None:
        rows = self._query("SELECT config_json, seed, created_at, code_version FROM run")
        if not rows:
            return None
        config_json, seed, created_at, version = rows[0]
        return RunMetadata(config=json.loads(config_json), seed=seed, created_at=created_at, code_version=version)

    def sessions(self) -> list[RunSession]:
        rows = self._query(
            "SELECT id, started_at, finished_at, code_version, pid, command FROM sessions ORDER BY id"
        )
        return [
            RunSession(id=r[0], started_at=r[1], finished_at=r[2], code_version=r[3], pid=r[4], command=r[5])
            for r in rows
        ]

    # -- checkpoints -------------------------------------------------------------------------

    def mark_done(self, task: str, stage: str, payload_json: str = "null") -> None:
        """Record that ``stage`` of ``task`` finished, with its result as JSON text.

        Marking again replaces the payload (a forced redo). To make "finished" and the stage's
        outputs appear together, call it inside the same :meth:`transaction` as those writes.
        """
        try:
            json.loads(payload_json)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"checkpoint payload of {task}/{stage} is not JSON text: {exc}") from exc
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO checkpoints (task, stage, payload_json, done_at) VALUES (?, ?, ?, ?)",
                (task, stage, payload_json, utc_now()),
            )

    def is_done(self, task: str, stage: str) -> bool:
        return bool(self._query("SELECT 1 FROM checkpoints WHERE task = ? AND stage = ?", (task, stage)))

    def get(self, task: str, stage: str) -> Checkpoint | None:
        rows = self._query(
            "SELECT task, stage, payload_json, done_at FROM checkpoints WHERE task = ? AND stage = ?",
            (task, stage),
        )
        return _checkpoint(rows[0]) if rows else None

    def checkpoints(self, *, task: str | None = None, stage: str | None = None) -> list[Checkpoint]:
        """Finished (task, stage) pairs, optionally of one task or one stage, ordered by task, stage."""
        sql = "SELECT task, stage, payload_json, done_at FROM checkpoints"
        where, params = _where(task=task, stage=stage)
        return [_checkpoint(r) for r in self._query(f"{sql}{where} ORDER BY task, stage", params)]

    def done_tasks(self, stage: str) -> set[str]:
        return {r[0] for r in self._query("SELECT task FROM checkpoints WHERE stage = ?", (stage,))}

    def clear(self, task: str, stage: str | None = None) -> int:
        """Forget checkpoints of ``task`` (one stage or all) so they run again; returns how many."""
        where, params = _where(task=task, stage=stage)
        with self.transaction() as conn:
            return conn.execute(f"DELETE FROM checkpoints{where}", params).rowcount

    # -- LLM response cache ------------------------------------------------------------------

    def llm_get(self, key: str) -> LLMCacheEntry | None:
        rows = self._query(f"SELECT {_LLM_COLUMNS} FROM llm_cache WHERE key = ?", (key,))
        return _llm_entry(rows[0]) if rows else None

    def llm_put(self, entry: LLMCacheEntry) -> None:
        """Store a received response (first write wins: a response is never replaced)."""
        with self.transaction() as conn:
            conn.execute(
                f"INSERT OR IGNORE INTO llm_cache ({_LLM_COLUMNS}) VALUES ({', '.join('?' * 10)})",
                (
                    entry.key,
                    entry.model,
                    entry.request_json,
                    entry.response_json,
                    entry.prompt_tokens,
                    entry.completion_tokens,
                    int(entry.usage_reported),
                    entry.cost_usd,
                    entry.latency_s,
                    entry.created_at,
                ),
            )

    def llm_entries(self, *, model: str | None = None) -> list[LLMCacheEntry]:
        where, params = _where(model=model)
        return [
            _llm_entry(r)
            for r in self._query(f"SELECT {_LLM_COLUMNS} FROM llm_cache{where} ORDER BY created_at, key", params)
        ]

    def llm_usage(self) -> LLMUsageTotals:
        """Token and cost totals over every stored response: what the run has spent so far."""
        row = self._query(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
            "SUM(cost_usd), COUNT(*) - COUNT(cost_usd) FROM llm_cache"
        )[0]
        return LLMUsageTotals(
            responses=row[0],
            prompt_tokens=row[1],
            completion_tokens=row[2],
            cost_usd=row[3],
            responses_without_cost=row[4],
        )

    # -- kill matrix -------------------------------------------------------------------------

    def add_kills(self, rows: Iterable[KillRow]) -> int:
        """Insert (or replace) kill-matrix rows in one transaction; returns how many were written."""
        values = [(r.task, r.adversary, r.input_key, int(r.killed), r.output) for r in rows]
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO kill_matrix (task, adversary, input_key, killed, output) "
                "VALUES (?, ?, ?, ?, ?)",
                values,
            )
        return len(values)

    def kills(
        self,
        task: str,
        *,
        adversary: str | None = None,
        input_key: str | None = None,
        killed: bool | None = None,
    ) -> list[KillRow]:
        """Kill-matrix rows of a task, optionally filtered; ordered by adversary, then input key."""
        where, params = _where(
            task=task, adversary=adversary, input_key=input_key, killed=None if killed is None else int(killed)
        )
        rows = self._query(
            f"SELECT task, adversary, input_key, killed, output FROM kill_matrix{where} "
            "ORDER BY adversary, input_key",
            params,
        )
        return [KillRow(task=r[0], adversary=r[1], input_key=r[2], killed=bool(r[3]), output=r[4]) for r in rows]

    def killed_by_input(self, task: str) -> dict[str, set[str]]:
        """Input key -> adversaries it kills (the set-cover view of a task's kill matrix)."""
        result: dict[str, set[str]] = {}
        for input_key, adversary in self._query(
            "SELECT input_key, adversary FROM kill_matrix WHERE task = ? AND killed = 1", (task,)
        ):
            result.setdefault(input_key, set()).add(adversary)
        return result

    def kill_matrix_tasks(self) -> list[str]:
        return [r[0] for r in self._query("SELECT DISTINCT task FROM kill_matrix ORDER BY task")]

    def delete_kills(self, task: str, *, adversary: str | None = None) -> int:
        where, params = _where(task=task, adversary=adversary)
        with self.transaction() as conn:
            return conn.execute(f"DELETE FROM kill_matrix{where}", params).rowcount


# ---------------------------------------------------------------------------------------------
# Helpers

_LLM_COLUMNS = (
    "key, model, request_json, response_json, prompt_tokens, completion_tokens, usage_reported, "
    "cost_usd, latency_s, created_at"
)


def _where(**filters: Any) -> tuple[str, tuple[Any, ...]]:
    """`` WHERE a = ? AND b = ?`` over the filters that are not None (names are ours, not input)."""
    used = [(name, value) for name, value in filters.items() if value is not None]
    if not used:
        return "", ()
    return " WHERE " + " AND ".join(f"{name} = ?" for name, _ in used), tuple(v for _, v in used)


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    return Checkpoint(task=row[0], stage=row[1], payload_json=row[2], done_at=row[3])


def _llm_entry(row: tuple[Any, ...]) -> LLMCacheEntry:
    return LLMCacheEntry(
        key=row[0],
        model=row[1],
        request_json=row[2],
        response_json=row[3],
        prompt_tokens=row[4],
        completion_tokens=row[5],
        usage_reported=bool(row[6]),
        cost_usd=row[7],
        latency_s=row[8],
        created_at=row[9],
    )


def _config_differences(before: Any, now: Any, path: str = "") -> list[str]:
    """Human-readable differences between two JSON configs (``a.b: 1 then, 2 now``)."""
    if isinstance(before, dict) and isinstance(now, dict):
        differences: list[str] = []
        for key in sorted(set(before) | set(now)):
            where = f"{path}.{key}" if path else str(key)
            if key not in now:
                differences.append(f"{where}: {canonical_json(before[key])} then, absent now")
            elif key not in before:
                differences.append(f"{where}: absent then, {canonical_json(now[key])} now")
            else:
                differences.extend(_config_differences(before[key], now[key], where))
        return differences
    if canonical_json(before) != canonical_json(now):
        return [f"{path or 'config'}: {canonical_json(before)} then, {canonical_json(now)} now"]
    return []

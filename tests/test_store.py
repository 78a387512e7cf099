"""The run store: metadata, checkpoints, LLM cache rows, kill matrix, crash safety, resumption."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from veriscale.store import (
    STORE_FILE_NAME,
    KillRow,
    LLMCacheEntry,
    RunMismatchError,
    RunStore,
    StoreError,
    canonical_json,
)


@pytest.fixture
def store(tmp_path: Path):
    with RunStore.open(tmp_path / "run") as opened:
        yield opened


def _entry(key: str, prompt: int, completion: int, cost: float | None) -> LLMCacheEntry:
    return LLMCacheEntry(
        key=key,
        model="m",
        request_json=canonical_json({"k": key}),
        response_json=json.dumps({"choices": [], "id": key}),
        prompt_tokens=prompt,
        completion_tokens=completion,
        usage_reported=True,
        cost_usd=cost,
        latency_s=0.25,
        created_at="2025-01-01T00:00:00.000+00:00",
    )


# ---------------------------------------------------------------------------------------------
# Run metadata


def test_store_file_is_in_the_run_directory_and_uses_wal(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "r") as store:
        assert store.path == tmp_path / "r" / STORE_FILE_NAME
        assert store.path.is_file()
        assert store._query("PRAGMA journal_mode")[0][0] == "wal"
        assert store.integrity_check() == "ok"


def test_start_run_records_settings_once_and_logs_every_session(tmp_path: Path) -> None:
    config = {"model": "m", "candidates": 40, "nested": {"share": 0.2}}
    with RunStore.open(tmp_path) as store:
        assert store.run_metadata() is None
        first = store.start_run(config, 42, version="1.0", command="expand")
        store.finish_session()
    with RunStore.open(tmp_path) as store:
        again = store.start_run(dict(reversed(config.items())), 42, version="1.1")
        assert again.created_at == first.created_at
        assert again.config == config and again.seed == 42
        assert again.code_version == "1.0"  # the version the run was created with
        sessions = store.sessions()
    assert [s.code_version for s in sessions] == ["1.0", "1.1"]
    assert sessions[0].finished_at is not None and sessions[1].finished_at is None
    assert sessions[0].command == "expand" and sessions[0].pid == os.getpid()


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        store.start_run({"model": "m", "nested": {"share": 0.2}}, 42, version="1")
        with pytest.raises(RunMismatchError) as info:
            store.start_run({"model": "m", "nested": {"share": 0.3}, "extra": 1}, 7, version="1")
        message = str(info.value)
        assert "nested.share: 0.2 then, 0.3 now" in message
        assert "extra: absent then" in message and "seed 42 then, 7 now" in message
        # A refused resumption leaves no session behind; an unchecked one is allowed.
        assert len(store.sessions()) == 1
        store.start_run({"model": "other"}, 1, version="1", check=False)
        assert store.run_metadata().config == {"model": "m", "nested": {"share": 0.2}}  # type: ignore[union-attr]


def test_code_version_names_the_package_version() -> None:
    from veriscale import __version__
    from veriscale.store import code_version

    assert code_version().startswith(__version__)


# ---------------------------------------------------------------------------------------------
# Checkpoints


def test_checkpoints_roundtrip_and_survive_reopening(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        assert not store.is_done("t1", "inputs") and store.get("t1", "inputs") is None
        store.mark_done("t1", "inputs", json.dumps({"count": 3, "keys": ["a", "b"]}))
        store.mark_done("t2", "inputs")
        store.mark_done("t1", "kills", "[]")
    with RunStore.open(tmp_path) as store:
        assert store.is_done("t1", "inputs") and store.is_done("t2", "inputs")
        assert not store.is_done("t2", "kills")
        checkpoint = store.get("t1", "inputs")
        assert checkpoint is not None and checkpoint.payload() == {"count": 3, "keys": ["a", "b"]}
        assert store.get("t2", "inputs").payload() is None  # type: ignore[union-attr]
        assert store.done_tasks("inputs") == {"t1", "t2"}
        assert [(c.task, c.stage) for c in store.checkpoints()] == [("t1", "inputs"), ("t1", "kills"), ("t2", "inputs")]
        assert [c.stage for c in store.checkpoints(task="t1")] == ["inputs", "kills"]
        store.mark_done("t1", "inputs", '{"count": 4}')  # a forced redo replaces the payload
        assert store.get("t1", "inputs").payload() == {"count": 4}  # type: ignore[union-attr]
        assert store.clear("t1") == 2
        assert store.done_tasks("inputs") == {"t2"}


def test_a_checkpoint_payload_must_be_json_text(store: RunStore) -> None:
    with pytest.raises(StoreError, match="not JSON"):
        store.mark_done("t", "s", "{not json")
    assert not store.is_done("t", "s")


def test_a_failed_transaction_leaves_no_trace(store: RunStore) -> None:
    rows = [KillRow(task="t", adversary="a1", input_key=f"x := {i}", killed=i % 2 == 0) for i in range(5)]
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.add_kills(rows)
            store.mark_done("t", "kills", "{}")
            raise RuntimeError("crash before commit")
    assert store.kills("t") == [] and not store.is_done("t", "kills")
    with store.transaction():
        store.add_kills(rows)
        store.mark_done("t", "kills", "{}")
    assert len(store.kills("t")) == 5 and store.is_done("t", "kills")


# ---------------------------------------------------------------------------------------------
# LLM cache rows


def test_llm_cache_rows_and_usage_totals(store: RunStore) -> None:
    assert store.llm_usage().responses == 0 and store.llm_usage().cost_usd is None
    store.llm_put(_entry("k1", 100, 20, 0.5))
    store.llm_put(_entry("k2", 10, 5, None))
    store.llm_put(_entry("k1", 999, 999, 9.0))  # first write wins
    got = store.llm_get("k1")
    assert got is not None and got.prompt_tokens == 100 and got.response() == {"choices": [], "id": "k1"}
    assert store.llm_get("missing") is None
    usage = store.llm_usage()
    assert (usage.responses, usage.prompt_tokens, usage.completion_tokens) == (2, 110, 25)
    assert usage.total_tokens == 135
    assert usage.cost_usd == pytest.approx(0.5) and usage.responses_without_cost == 1
    assert [e.key for e in store.llm_entries(model="m")] == ["k1", "k2"]


# ---------------------------------------------------------------------------------------------
# Kill matrix


def test_kill_matrix_bulk_insert_and_queries(store: RunStore) -> None:
    rows = [
        KillRow(task="t", adversary=adversary, input_key=key, killed=(adversary, key) in {("a", "k1"), ("b", "k2")},
                output=f"{adversary}({key})")
        for adversary in ("a", "b", "c")
        for key in ("k1", "k2")
    ]
    assert store.add_kills(rows) == 6
    store.add_kills([KillRow(task="u", adversary="a", input_key="k1", killed=True, output=None)])
    assert len(store.kills("t")) == 6
    assert [(r.adversary, r.input_key) for r in store.kills("t", killed=True)] == [("a", "k1"), ("b", "k2")]
    assert [r.input_key for r in store.kills("t", adversary="c")] == ["k1", "k2"]
    assert store.kills("t", adversary="a", input_key="k2")[0].output == "a(k2)"
    assert store.killed_by_input("t") == {"k1": {"a"}, "k2": {"b"}}
    assert store.kill_matrix_tasks() == ["t", "u"]
    assert store.kills("u")[0].output is None
    # Re-inserting a row replaces it (a recomputed verdict).
    store.add_kills([KillRow(task="t", adversary="c", input_key="k1", killed=True, output="c!")])
    assert store.killed_by_input("t")["k1"] == {"a", "c"}
    assert store.delete_kills("t", adversary="c") == 2
    assert {r.adversary for r in store.kills("t")} == {"a", "b"}


# ---------------------------------------------------------------------------------------------
# Bad files


def test_a_file_that_is_not_a_database_is_reported(tmp_path: Path) -> None:
    (tmp_path / STORE_FILE_NAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable run store"):
        RunStore.open(tmp_path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / STORE_FILE_NAME)
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        RunStore.open(tmp_path)


# ---------------------------------------------------------------------------------------------
# Crash safety: SIGKILL in the middle of writing, then resume

ROWS_PER_TASK = 50

WRITER = textwrap.dedent(
    """
    import json, sys
    from veriscale.store import KillRow, RunStore

    run_dir, tasks, rows_per_task = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = RunStore.open(run_dir)
    processed = 0
    t = -1
    while tasks == 0 or t + 1 < tasks:  # tasks == 0: write until killed
        t += 1
        task = f"task{t:04d}"
        if store.is_done(task, "kills"):
            continue
        rows = [KillRow(task=task, adversary=f"adv{a}", input_key=f"x := {a}", killed=a % 3 == 0,
                        output="y" * 200) for a in range(rows_per_task)]
        with store.transaction():  # the stage's rows and its checkpoint commit together
            store.add_kills(rows)
            store.mark_done(task, "kills", json.dumps({"rows": rows_per_task}))
        processed += 1
        print(task, flush=True)
    print("processed", processed, flush=True)
    """
)


def test_sigkill_mid_write_leaves_a_consistent_store_that_resumes(tmp_path: Path) -> None:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    run_dir = tmp_path / "run"
    args = [sys.executable, str(script), str(run_dir), "0", str(ROWS_PER_TASK)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    reported = []
    deadline = time.monotonic() + 60
    while len(reported) < 30 and time.monotonic() < deadline:  # let it commit some tasks, then kill it
        line = proc.stdout.readline()
        if not line:
            break
        reported.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL

    with RunStore.open(run_dir) as store:
        assert store.integrity_check() == "ok"
        done = sorted(store.done_tasks("kills"))
        # Every task reported as committed is there; tasks are done in order, without gaps.
        assert set(reported) <= set(done)
        assert done == [f"task{t:04d}" for t in range(len(done))]
        # A stage is finished exactly when all of its rows are stored (no half-written task).
        assert set(store.kill_matrix_tasks()) == set(done)
        for task in (done[0], done[-1]):
            assert len(store.kills(task)) == ROWS_PER_TASK

    total = len(done) + 20
    args[3] = str(total)
    resumed = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    lines = resumed.stdout.split()
    assert lines[-2:] == ["processed", "20"]  # nothing finished is redone
    assert lines[0] == f"task{len(done):04d}"
    with RunStore.open(run_dir) as store:
        assert len(store.done_tasks("kills")) == total
        assert len(store.kill_matrix_tasks()) == total
        assert all(len(store.kills(f"task{t:04d}")) == ROWS_PER_TASK for t in range(total))
        assert store.integrity_check() == "ok"

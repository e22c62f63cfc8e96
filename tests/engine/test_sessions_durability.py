"""Crashes, concurrent processes, locks and damaged files, with real subprocesses and real files."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from engine.config import defaults
from engine.sessions.errors import StoreCorrupt, StoreError, StoreLocked
from engine.sessions.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import asyncio, sys
from engine.sessions.store import SessionStore

async def main(path, count, tag):
    store = await SessionStore.open(path)
    session = await store.create_session(source="cli", title=None)
    print("session", session.id, flush=True)
    for i in range(count):
        message_id = await store.append_message(session.id, "user" if i % 2 == 0 else "assistant",
                                                f"{tag} message number {i} with marker{tag}{i}")
        print(message_id, i, flush=True)
    await store.close()
    print("done", flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
"""

READER = """
import asyncio, sys
from engine.sessions.store import SessionStore

async def main(path, seconds):
    import time
    store = await SessionStore.open(path, read_only=True)
    last = 0
    checks = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        count = await store.message_count()
        assert count >= last, (count, last)
        last = count
        result = await store.search("message number", limit=20)
        for hit in result.hits:
            assert await store.get_message(hit.message_id) is not None
        checks += 1
    await store.close()
    print("reader ok", checks, last, flush=True)

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


def spawn(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def _create(path: Path) -> None:
    store = await SessionStore.open(path)
    await store.close()


async def check_intact(path: Path, committed: dict[int, int], tag: str) -> None:
    store = await SessionStore.open(path)
    assert await store.integrity_errors() == []
    for message_id, i in committed.items():
        message = await store.get_message(message_id)
        assert message is not None, f"message {message_id} was committed and then lost"
        assert message.text == f"{tag} message number {i} with marker{tag}{i}"
    if committed:
        last_id, last_i = max(committed.items())
        hits = (await store.search(f"marker{tag}{last_i}")).hits
        assert [h.message_id for h in hits] == [last_id]
        session = await store.get_session(hits[0].session_id)
        assert session is not None
        assert session.message_count == await store.message_count(session.id)  # counted in the same commit
    await store.close()


@pytest.mark.parametrize("after", [1, 25, 60])
async def test_a_writer_killed_mid_session_keeps_every_committed_message(tmp_path: Path, after: int) -> None:
    path = tmp_path / "state.db"
    await _create(path)
    writer = spawn(WRITER, str(path), "100000", "k")
    committed: dict[int, int] = {}
    assert writer.stdout is not None
    assert writer.stdout.readline().startswith("session")
    while len(committed) < after:
        line = writer.stdout.readline()
        assert line, writer.stderr.read() if writer.stderr else ""
        message_id, i = line.split()
        committed[int(message_id)] = int(i)
    os.kill(writer.pid, signal.SIGKILL)  # no cleanup, no close, mid-append
    writer.wait(timeout=30)
    for line in writer.stdout.read().splitlines():  # ids printed before the kill landed
        if line and line.split()[0].isdigit():
            message_id, i = line.split()
            committed[int(message_id)] = int(i)
    await check_intact(path, committed, "k")


@pytest.mark.slow
async def test_many_kills_at_random_moments_never_lose_a_committed_message(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    await _create(path)
    everything: dict[int, int] = {}
    for round_ in range(15):
        writer = spawn(WRITER, str(path), "100000", "r")
        assert writer.stdout is not None
        writer.stdout.readline()
        time.sleep(0.05 + 0.02 * round_)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
        for line in writer.stdout.read().splitlines():
            if line and line.split()[0].isdigit():
                message_id, i = line.split()
                everything[int(message_id)] = int(i)
    await check_intact(path, everything, "r")


async def test_a_reader_process_reads_while_a_writer_process_writes(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    await _create(path)
    writer = spawn(WRITER, str(path), "300", "c")
    reader = spawn(READER, str(path), "3")
    out_w, err_w = writer.communicate(timeout=120)
    out_r, err_r = reader.communicate(timeout=120)
    assert writer.returncode == 0, err_w[-2000:]
    assert reader.returncode == 0, err_r[-2000:]
    assert "done" in out_w and "reader ok" in out_r
    checks = int(out_r.split()[2])
    assert checks > 1
    committed = {
        int(line.split()[0]): int(line.split()[1]) for line in out_w.splitlines() if line[0].isdigit()
    }
    assert len(committed) == 300
    await check_intact(path, committed, "c")


async def test_two_writer_processes_interleave_without_losing_anything(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    await _create(path)
    first = spawn(WRITER, str(path), "150", "a")
    second = spawn(WRITER, str(path), "150", "b")
    out_a, err_a = first.communicate(timeout=120)
    out_b, err_b = second.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0, (err_a + err_b)[-2000:]
    for out, tag in ((out_a, "a"), (out_b, "b")):
        committed = {
            int(line.split()[0]): int(line.split()[1]) for line in out.splitlines() if line[0].isdigit()
        }
        assert len(committed) == 150
        await check_intact(path, committed, tag)


HOLD_WRITE_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute(sys.argv[2])
conn.execute("BEGIN IMMEDIATE" if sys.argv[3] == "immediate" else "BEGIN EXCLUSIVE")
conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('lock_holder', 'cli', 1)")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def hold_lock(path: Path, pragma: str, mode: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(path), pragma, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def quick(**overrides: Any) -> dict[str, Any]:
    values = dict(defaults().sessions)
    values.update(overrides)
    return values


async def test_a_write_blocked_by_another_process_fails_with_a_sentence_and_loses_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    store = await SessionStore.open(path, settings=quick(busy_timeout_ms=200))
    session = await store.create_session()
    kept = await store.append_message(session.id, "user", "before the lock")
    holder = hold_lock(path, "PRAGMA journal_mode", "immediate")
    try:
        started = time.monotonic()
        with pytest.raises(StoreLocked, match="locked by another program"):
            await store.append_message(session.id, "user", "during the lock")
        assert time.monotonic() - started < 5
        assert [h.message_id for h in (await store.search("before")).hits] == [kept]  # reads still work
    finally:
        holder.communicate("\n", timeout=30)
    after = await store.append_message(session.id, "user", "after the lock")
    assert [m.id for m in await store.get_messages(session.id)] == [kept, after]
    await store.close()


async def test_an_exclusively_locked_database_is_refused_at_open_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (22);"
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT,"
        " content TEXT, timestamp REAL);"
    )
    conn.close()
    holder = hold_lock(path, "PRAGMA journal_mode = DELETE", "exclusive")
    try:
        before = digest(path)
        with pytest.raises(StoreLocked, match="locked"):
            await SessionStore.open(path, settings=quick(busy_timeout_ms=200))
        assert digest(path) == before
    finally:
        holder.communicate("\n", timeout=30)


async def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    path.write_bytes(b"this is my diary, not a database\n" * 200)
    before = digest(path)
    with pytest.raises(StoreCorrupt, match="not a SQLite database"):
        await SessionStore.open(path)
    with pytest.raises(StoreCorrupt):
        await SessionStore.open(path, read_only=True)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.db"]


async def _filled(path: Path, messages: int = 400) -> None:
    store = await SessionStore.open(path)
    session = await store.create_session()
    for i in range(messages):
        await store.append_message(session.id, "user", f"message {i} " + "padding words " * 30)
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


async def test_a_truncated_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    await _filled(path)
    data = path.read_bytes()
    for cut in (len(data) // 2 + 100, len(data) // 2 // 4096 * 4096):
        path.write_bytes(data[:cut])
        before = digest(path)
        with pytest.raises(StoreCorrupt, match="cut short"):
            await SessionStore.open(path)
        assert digest(path) == before


async def test_a_damaged_page_stops_writes_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    await _filled(path)
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'messages'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size  # the messages table's root page
    path.write_bytes(bytes(data))
    before = digest(path)
    with pytest.raises(StoreCorrupt, match="left untouched"):
        store = await SessionStore.open(path)
        try:
            session = await store.create_session()
            await store.append_message(session.id, "user", "written into a damaged file?")
        finally:
            await store.close()
    assert digest(path) == before


async def test_store_errors_are_sentences_not_tracebacks(tmp_path: Path) -> None:
    folder = tmp_path / "state.db"
    folder.mkdir()
    with pytest.raises(StoreError) as err:
        await SessionStore.open(folder)
    assert str(err.value).endswith(".") and "state.db" in str(err.value)


PEEK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM messages").fetchone()[0], flush=True)
db.close()
"""


def peek(path: Path) -> int:
    """Count the messages from another process, as a person's `sqlite3 state.db` would; it closes after."""
    done = subprocess.run([sys.executable, "-c", PEEK, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


async def test_a_second_store_in_the_process_keeps_the_first_ones_locks(tmp_path: Path) -> None:
    """The workstation opens read-only stores (history pages, the palette's sessions) beside the agent's
    writable one. Opening one read the header with open(); its close dropped every POSIX lock the process
    held on state.db, so another program closing the file deleted the write-ahead log still in use, and
    every message after that was lost to everyone but this process."""
    path = tmp_path / "state.db"
    store = await SessionStore.open(path)
    session = await store.create_session(source="tui", title=None)
    await store.append_message(session.id, "user", "before the reader")
    reader = await SessionStore.open(path, read_only=True)
    await reader.close()
    assert peek(path) == 1
    assert Path(f"{path}-wal").exists(), "another program's close removed the log this process writes to"
    await store.append_message(session.id, "assistant", "after the reader")
    await store.append_message(session.id, "user", "and one more")
    assert peek(path) == 3, "another program sees every committed message"
    await store.close()
    assert peek(path) == 3

"""`sessions.auto_prune`: old ended sessions are archived to a file, then deleted; nothing in use is touched.

End to end through `hws run` (which prunes at start, at most once per `sessions.min_interval_hours`)
and `hws sessions prune`, on a real state.db seeded with sessions of every kind.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
import time
from pathlib import Path

import pytest

from engine.config import load_config
from engine.home import Home
from engine.sessions.prune import prune_sessions
from engine.sessions.store import SessionStore
from tests.support.fault_support import assert_clean_exit, hws, write_config, write_scenario

DAY = 86_400.0
SCENARIO = """
name: prune
rules:
  - reply: {text: "fine"}
"""


async def _seed(db: Path) -> dict[str, str]:
    """Sessions by what they are; each holds a message naming it (for the search index)."""
    now = time.time()
    store = await SessionStore.open(db)
    ids: dict[str, str] = {}
    try:

        async def make(name: str, age_days: float, parent: str | None = None, end: bool = True) -> None:
            record = await store.create_session(
                model="m", started_at=now - age_days * DAY, parent_session_id=parent
            )
            ids[name] = record.id
            await store.append_message(record.id, "user", f"marker {name.replace('_', '')} words")
            await store.append_message(record.id, "assistant", f"reply about {name}")
            if end:
                await store.end_session(record.id, "compression" if name.endswith("parent") else "user_exit")

        await make("old_ended", 200)
        await make("old_open", 200, end=False)  # another hws may be writing it
        await make("old_parent", 150)  # its child is recent: the chain stays whole
        await make("recent_child", 2, parent=ids["old_parent"])
        await make("chain_parent", 120)
        await make("chain_child", 119, parent=ids["chain_parent"])
        await make("recent", 3)
        await store.record_approval(ids["old_ended"], tool="terminal", command="rm -rf x", decision="deny")
    finally:
        await store.close()
    conn = sqlite3.connect(db)
    with conn:
        for name in ("old_ended", "old_parent", "chain_parent", "chain_child", "recent", "recent_child"):
            age = {"old_ended": 199, "old_parent": 149, "chain_parent": 119, "chain_child": 118}.get(name, 1)
            conn.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (now - age * DAY, ids[name]))
    conn.close()
    return ids


def seed(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_seed(home / "state.db"))


def session_ids(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}
    finally:
        conn.close()


def archived(home: Path) -> list[dict]:
    lines = []
    for path in sorted((home / "hws" / "archive").glob("sessions-*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            lines += [json.loads(line) for line in handle]
    return lines


def searched(db: Path, word: str) -> int:
    async def run() -> int:
        store = await SessionStore.open(db)
        try:
            return len((await store.search(word)).hits)
        finally:
            await store.close()

    return asyncio.run(run())


def test_hws_run_archives_then_deletes_old_ended_sessions_and_keeps_what_is_in_use(
    tmp_path: Path, hermes_home: Path
) -> None:
    ids = seed(hermes_home)
    write_config(hermes_home, sessions={"auto_prune": True, "retention_days": 90})
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws("run", "--scenario", str(scenario), "hello", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    assert "Pruned 3 sessions older than 90 days (6 messages); archived first to" in done.stderr

    left = session_ids(hermes_home / "state.db")
    gone = {ids["old_ended"], ids["chain_parent"], ids["chain_child"]}
    assert not left & gone
    kept = {ids[n] for n in ("old_open", "old_parent", "recent_child", "recent")}
    assert kept <= left and len(left) == len(kept) + 1  # and the session hws run just had

    lines = archived(hermes_home)
    assert {line["session"]["id"] for line in lines} == gone
    (archive,) = (hermes_home / "hws" / "archive").iterdir()
    assert archive.stat().st_mode & 0o077 == 0  # conversations: readable by the person only
    old = next(line for line in lines if line["session"]["id"] == ids["old_ended"])
    assert [m["content"] for m in old["messages"]] == ["marker oldended words", "reply about old_ended"]
    assert [a["command"] for a in old["approvals"]] == ["rm -rf x"]
    assert searched(hermes_home / "state.db", "oldended") == 0  # the search index followed
    assert searched(hermes_home / "state.db", "oldopen") == 1

    # Within sessions.min_interval_hours the next start prunes nothing, even a session that aged since.
    conn = sqlite3.connect(hermes_home / "state.db")
    with conn:
        conn.execute("UPDATE sessions SET started_at = 1, ended_at = 2 WHERE id = ?", (ids["recent"],))
    conn.close()
    again = hws("run", "--scenario", str(scenario), "hello again", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(again, (0,))
    assert "Pruned" not in again.stderr
    assert ids["recent"] in session_ids(hermes_home / "state.db")


def test_with_auto_prune_off_nothing_is_pruned(tmp_path: Path, hermes_home: Path) -> None:
    ids = seed(hermes_home)
    scenario = write_scenario(tmp_path, SCENARIO)
    done = hws("run", "--scenario", str(scenario), "hello", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    assert set(ids.values()) <= session_ids(hermes_home / "state.db")
    assert not (hermes_home / "hws" / "archive").exists()


def test_hws_sessions_prune_lists_first_then_prunes(tmp_path: Path, hermes_home: Path) -> None:
    ids = seed(hermes_home)
    dry = hws("sessions", "prune", "--dry-run", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(dry, (0,))
    assert set(dry.stdout.split()) == {ids["old_ended"], ids["chain_parent"], ids["chain_child"]}
    assert set(ids.values()) <= session_ids(hermes_home / "state.db")

    done = hws("sessions", "prune", "--days", "130", home=hermes_home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    assert done.stdout.startswith("Pruned 1 session older than 130 days (2 messages)")
    assert [line["session"]["id"] for line in archived(hermes_home)] == [ids["old_ended"]]


def test_when_the_archive_cannot_be_written_nothing_is_deleted(hermes_home: Path) -> None:
    ids = seed(hermes_home)
    (hermes_home / "hws").mkdir(exist_ok=True)
    (hermes_home / "hws" / "archive").write_text("a file where the folder should be")

    async def run() -> None:
        store = await SessionStore.open(hermes_home / "state.db")
        try:
            with pytest.raises(OSError):
                await prune_sessions(store, hermes_home / "hws" / "archive", 90)
        finally:
            await store.close()

    asyncio.run(run())
    assert set(ids.values()) <= session_ids(hermes_home / "state.db")
    assert load_config(Home(hermes_home).root).sessions.auto_prune is False

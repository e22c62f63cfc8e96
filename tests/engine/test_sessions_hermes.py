"""Opening a `state.db` written by Hermes Agent: schema 6 to 22, never losing what we do not know."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from engine.config import defaults
from engine.sessions.errors import StoreError, StoreReadOnly
from engine.sessions.store import SessionStore

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "fixtures" / "hermes-0.19.0-state.db"

# Hermes' schema as the reference describes it (§4), with columns a newer Hermes might add.
REFERENCE_SCHEMA_22 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, cwd TEXT, title TEXT,
    started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
    message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0, api_call_count INTEGER DEFAULT 0,
    billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL,
    actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT,
    handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0,
    future_column TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT,
    reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT, codex_message_items TEXT,
    platform_message_id TEXT, observed INTEGER DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    future_flag INTEGER DEFAULT 7
);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE compression_locks (session_id TEXT PRIMARY KEY, holder TEXT, acquired_at REAL, expires_at REAL);
CREATE TABLE future_things (id INTEGER PRIMARY KEY, payload TEXT);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' ||
        COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' ||
        COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
"""

# The oldest shape we open: schema 6, with an external-content FTS table and far fewer columns.
REFERENCE_SCHEMA_6 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
    message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT
);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
"""


def build(path: Path, schema: str, version: int, sessions: int = 3, per_session: int = 4) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    columns = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    for s in range(sessions):
        sid = f"2026010{s + 1}_100000_00000{s}"
        conn.execute(
            "INSERT INTO sessions (id, source, started_at, message_count) VALUES (?, 'cli', ?, ?)",
            (sid, 1_767_000_000 + s * 3600, per_session),
        )
        if "future_column" in columns:
            conn.execute("UPDATE sessions SET future_column = 'keep me' WHERE id = ?", (sid,))
        for m in range(per_session):
            text = f"session {s} message {m} about the kiln and glaze" if m % 2 else f"数据库 topic {s}-{m}"
            conn.execute(
                "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
                (sid, "user" if m % 2 == 0 else "assistant", text, 1_767_000_000 + s * 3600 + m),
            )
    if "future_things" in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}:
        conn.execute("INSERT INTO future_things (payload) VALUES ('from a newer hermes')")
    conn.commit()
    conn.close()


def foreign_objects(path: Path) -> dict[tuple[str, str], str]:
    """Every schema object that is not ours, with its SQL: none may change."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '%hws%'"
        ).fetchall()
    finally:
        conn.close()
    return {(kind, name): sql for kind, name, sql in rows}


def table_rows(path: Path, table: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def hermes_db(tmp_path: Path) -> Path:
    path = tmp_path / "state.db"
    shutil.copy(FIXTURE, path)
    return path


async def test_a_database_made_by_hermes_0_19_is_listed_read_searched_and_appended(hermes_db: Path) -> None:
    before = foreign_objects(hermes_db)
    old_messages = table_rows(hermes_db, "messages")
    store = await SessionStore.open(hermes_db)
    assert store.schema_version == 22 and not store.read_only

    conversations = await store.tree.list_conversations()
    chain = next(c for c in conversations if c.root.id == "20260601_101500_a1b2c3")
    assert chain.tip_id == "20260601_104500_d4e5f6" and chain.title == "Pottery class planning"
    assert len(conversations) == 3
    messages = await store.get_messages("20260601_101500_a1b2c3")
    assert [m.role for m in messages] == ["user", "assistant", "assistant", "tool", "assistant"]
    assert messages[2].tool_calls and messages[2].tool_calls[0]["function"]["name"] == "terminal"
    session = await store.get_session("20260601_101500_a1b2c3")
    assert session is not None and session.input_tokens == 1200 and session.cache_read_tokens == 900

    # The compression-ended parent is searched too, and hits carry their session.
    pottery = await store.search("When did Dana start the pottery class?")
    assert pottery.hits[0].session_id == "20260601_101500_a1b2c3"
    assert [h.message_id for h in (await store.search("celadon glaze")).hits] == [8, 7]
    assert {h.message_id for h in (await store.search("数据")).hits} == {9, 10}
    assert [h.message_id for h in (await store.search("node.js docker-compose")).hits] == [11]

    new = await store.create_session(source="tui", title="From hws")
    added = await store.append_message(new.id, "user", "zanzibarian marmalade recipe")
    await store.end_session(new.id, "user_exit")
    await store.close()

    assert foreign_objects(hermes_db) == before  # no table, column, index or trigger of Hermes changed
    assert table_rows(hermes_db, "messages")[: len(old_messages)] == old_messages
    conn = sqlite3.connect(hermes_db)
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(22,)]
    # Hermes' own FTS tables got the new message through Hermes' own triggers.
    assert conn.execute(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'zanzibarian'"
    ).fetchall() == [(added,)]
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
    conn.close()


async def test_a_reference_schema_22_database_keeps_unknown_tables_and_columns(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    build(path, REFERENCE_SCHEMA_22, 22)
    before = foreign_objects(path)
    store = await SessionStore.open(path)
    hits = (await store.search("kiln glaze", limit=20)).hits
    assert len(hits) == 6
    assert len((await store.search("数据库", limit=20)).hits) == 6
    session = await store.create_session()
    await store.append_message(session.id, "user", "new kiln message")
    await store.close()
    after = foreign_objects(path)
    added = set(after) - set(before)
    assert all(kind in ("table", "index") for kind, _name in added)  # columns/indexes we need, nothing else
    assert {k: v for k, v in after.items() if k in before and k[1] not in ("sessions", "messages")} == {
        k: v for k, v in before.items() if k[1] not in ("sessions", "messages")
    }
    assert table_rows(path, "future_things") == [(1, "from a newer hermes")]
    conn = sqlite3.connect(path)
    assert conn.execute(
        "SELECT DISTINCT future_column FROM sessions WHERE future_column IS NOT NULL"
    ).fetchall() == [("keep me",)]
    assert conn.execute("SELECT DISTINCT future_flag FROM messages").fetchall() == [(7,)]
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(22,)]
    conn.close()


async def test_a_schema_6_database_gains_columns_and_keeps_its_own_index_in_step(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    build(path, REFERENCE_SCHEMA_6, 6)
    store = await SessionStore.open(path)
    assert store.schema_version == 6 and not store.read_only
    assert len((await store.search("glaze", limit=20)).hits) == 6
    session = await store.create_session(title="Upgraded", cwd="/srv")
    await store.append_message(session.id, "user", "fresh glaze words")
    await store.record_usage(session.id, input_tokens=10, cache_read_tokens=4, cost_usd=0.001)
    reread = await store.get_session(session.id)
    assert reread is not None and reread.title == "Upgraded" and reread.cache_read_tokens == 4
    await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(6,)]  # Hermes migrates itself
    columns = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
    assert {"active", "reasoning", "compacted"} <= columns
    conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    assert conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'fresh'").fetchone() == (
        1,
    )
    conn.close()


async def test_a_newer_schema_opens_read_only_with_a_reason_and_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    build(path, REFERENCE_SCHEMA_22, 23)
    before = digest(path)
    store = await SessionStore.open(path)
    assert store.read_only and "23" in store.read_only_reason and "read-only" in store.read_only_reason
    assert len(await store.tree.list_conversations()) == 3
    assert len((await store.search("kiln", limit=20)).hits) == 6  # through Hermes' own index
    assert len((await store.search("数据库", limit=20)).hits) == 6
    with pytest.raises(StoreReadOnly, match="23"):
        await store.create_session()
    await store.close()
    assert digest(path) == before


async def test_an_unknown_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(StoreError, match="not a session store"):
        await SessionStore.open(path)
    assert digest(path) == before


async def test_indexing_an_old_database_resumes_and_stays_right_under_concurrent_writes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    build(path, REFERENCE_SCHEMA_22, 22, sessions=10, per_session=20)
    batch = dict(defaults().sessions, index_batch=30)
    seen: list[tuple[int, int]] = []

    def stop_after_two(done: int, total: int) -> None:
        seen.append((done, total))
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await SessionStore.open(path, settings=batch, on_progress=stop_after_two)
    # Meanwhile Hermes edits and deletes messages both indexed and not yet indexed.
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM messages WHERE id IN (5, 150)")
    conn.execute("UPDATE messages SET content = 'rewritten quokka' WHERE id IN (6, 160)")
    conn.execute(
        "INSERT INTO messages (session_id, role, content, timestamp) "
        "VALUES ('20260101_100000_000000', 'user', 'late quokka', 1)"
    )
    conn.commit()
    conn.close()
    store = await SessionStore.open(path, settings=batch, on_progress=lambda d, t: seen.append((d, t)))
    assert seen[-1][0] == seen[-1][1]
    assert await store.integrity_errors() == []
    assert {h.message_id for h in (await store.search("quokka", limit=50)).hits} == {6, 160, 201}
    # 100 odd messages hold "glaze"; one was deleted (150) and two rewritten (6, 160).
    assert len((await store.search("glaze", limit=500)).hits) == 97
    await store.close()


@pytest.mark.skipif(
    not os.environ.get("HWS_HERMES_PYTHON"), reason="set HWS_HERMES_PYTHON to a Hermes venv python"
)
@pytest.mark.parametrize("made_by", ["hermes", "hws"])
async def test_hermes_itself_still_works_on_the_database_afterwards(tmp_path: Path, made_by: str) -> None:
    """Run the real Hermes Agent (its venv's python in HWS_HERMES_PYTHON) on a file we wrote to."""
    hermes_db = tmp_path / "state.db"
    if made_by == "hermes":
        shutil.copy(FIXTURE, hermes_db)
    store = await SessionStore.open(hermes_db)
    new = await store.create_session(source="tui")
    await store.append_message(new.id, "user", "quixotic lighthouse inventory")
    await store.close()
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from hermes_state import SessionDB
        db = SessionDB(Path({str(hermes_db)!r}))
        assert db.get_session({new.id!r}) is not None
        hits = db.search_messages("lighthouse")
        assert any(h["session_id"] == {new.id!r} for h in hits), hits
        sid = db.create_session("20260701_000000_abcdef", "cli")
        db.append_message(sid, "user", "hermes writes after hws")
        assert len(db.get_messages(sid)) == 1
        db.close()
        print("hermes ok")
        """
    )
    out = subprocess.run(
        [os.environ["HWS_HERMES_PYTHON"], "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and "hermes ok" in out.stdout, out.stderr[-2000:]
    store = await SessionStore.open(hermes_db)
    assert [h.session_id for h in (await store.search("hermes writes after")).hits] == [
        "20260701_000000_abcdef"
    ]
    assert await store.integrity_errors() == []
    await store.close()

"""The session store: lifecycle, messages, counters, titles and lineage, on a real state.db."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.sessions.errors import SessionNotFound, StoreError, StoreReadOnly, TitleConflict
from engine.sessions.schema import FRESH_SCHEMA_VERSION
from engine.sessions.store import SessionStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SessionStore]:
    opened = await SessionStore.open(tmp_path / "state.db")
    yield opened
    await opened.close()


def raw(path: Path, sql: str, params: tuple = ()) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def test_a_new_database_has_hermes_tables_wal_and_schema_22(store: SessionStore) -> None:
    tables = {r[0] for r in raw(store.path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sessions", "messages", "schema_version", "state_meta", "session_model_usage"} <= tables
    assert {"hws_fts", "hws_fts_cjk", "hws_meta"} <= tables
    assert raw(store.path, "SELECT version FROM schema_version") == [(FRESH_SCHEMA_VERSION,)]
    assert raw(store.path, "PRAGMA journal_mode") == [("wal",)]
    columns = {r[1] for r in raw(store.path, "PRAGMA table_info(messages)")}
    assert {"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name"} <= columns
    assert {"timestamp", "token_count", "finish_reason", "active"} <= columns


async def test_session_ids_look_like_hermes_ones(store: SessionStore) -> None:
    session = await store.create_session(source="tui", model="m1", system_prompt="be brief", cwd="/tmp")
    assert re.fullmatch(r"\d{8}_\d{6}_[0-9a-f]{6}", session.id)
    assert (session.source, session.model, session.cwd) == ("tui", "m1", "/tmp")
    assert session.ended_at is None and session.message_count == 0


async def test_each_message_is_committed_and_counted_when_appended(store: SessionStore) -> None:
    session = await store.create_session()
    first = await store.append_message(session.id, "user", "Hello there")
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
    ]
    second = await store.append_message(session.id, "assistant", None, tool_calls=calls)
    third = await store.append_message(session.id, "tool", "done", tool_name="terminal", tool_call_id="c1")
    assert first < second < third
    # Another connection sees every message at once: each append is its own committed transaction.
    assert raw(store.path, "SELECT count(*) FROM messages")[0][0] == 3
    reread = await store.get_session(session.id)
    assert reread is not None and reread.message_count == 3 and reread.tool_call_count == 2
    messages = await store.get_messages(session.id)
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[1].tool_calls == calls and messages[2].tool_call_id == "c1"
    assert messages[2].tool_name == "terminal"


async def test_structured_content_round_trips_in_hermes_encoding(store: SessionStore) -> None:
    session = await store.create_session()
    parts = [{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {"url": "x"}}]
    message_id = await store.append_message(session.id, "user", parts)
    stored = raw(store.path, "SELECT content FROM messages WHERE id = ?", (message_id,))[0][0]
    assert stored.startswith("\x00json:")
    message = await store.get_message(message_id)
    assert message is not None and message.content == parts and message.text.startswith("look at this")


async def test_lone_surrogates_are_stored_instead_of_failing(store: SessionStore) -> None:
    session = await store.create_session()
    message_id = await store.append_message(session.id, "tool", "bad \ud800 text", tool_name="web")
    message = await store.get_message(message_id)
    assert message is not None and "bad" in message.text and "\ud800" not in message.text


async def test_appending_to_an_unknown_session_is_refused(store: SessionStore) -> None:
    with pytest.raises(SessionNotFound):
        await store.append_message("20200101_000000_abcdef", "user", "hi")


async def test_usage_counters_add_up_per_session(store: SessionStore) -> None:
    session = await store.create_session(model="m1")
    await store.record_usage(
        session.id, input_tokens=1000, output_tokens=50, cache_read_tokens=800, cost_usd=0.01
    )
    await store.record_usage(
        session.id, input_tokens=500, output_tokens=25, cache_write_tokens=100, cost_usd=0.005
    )
    reread = await store.get_session(session.id)
    assert reread is not None
    assert (reread.input_tokens, reread.output_tokens, reread.cache_read_tokens) == (1500, 75, 800)
    assert reread.cache_write_tokens == 100 and reread.api_call_count == 2
    assert reread.estimated_cost_usd == pytest.approx(0.015)
    usage = raw(store.path, "SELECT model, api_call_count, input_tokens FROM session_model_usage")
    assert usage == [("m1", 2, 1500)]
    with pytest.raises(StoreError, match="negative"):
        await store.record_usage(session.id, input_tokens=-1)


async def test_the_first_end_reason_wins(store: SessionStore) -> None:
    session = await store.create_session()
    assert await store.end_session(session.id, "compression")
    assert not await store.end_session(session.id, "user_exit")
    reread = await store.get_session(session.id)
    assert reread is not None and reread.end_reason == "compression" and reread.ended_at is not None
    await store.reopen_session(session.id)
    reopened = await store.get_session(session.id)
    assert reopened is not None and reopened.ended_at is None and reopened.end_reason is None


async def test_titles_are_sanitised_unique_and_capped(store: SessionStore) -> None:
    one = await store.create_session(title="  Trip\u200b   to\tLisbon \u202e ")
    assert one.title == "Trip to Lisbon"
    two = await store.create_session()
    with pytest.raises(TitleConflict):
        await store.set_title(two.id, "Trip to Lisbon")
    with pytest.raises(TitleConflict):
        await store.create_session(title="Trip to Lisbon")
    assert await store.set_title(two.id, "\x00\x07") is None
    with pytest.raises(StoreError, match="100 characters"):
        await store.set_title(two.id, "x" * 101)
    assert await store.set_title(one.id, "Trip to Lisbon") == "Trip to Lisbon"  # its own title is no conflict


async def test_a_compression_continuation_gets_the_next_numbered_title(store: SessionStore) -> None:
    root = await store.create_session(title="Refactor")
    await store.end_session(root.id, "compression")
    second = await store.create_session(parent_session_id=root.id)
    await store.end_session(second.id, "compression")
    third = await store.create_session(parent_session_id=second.id)
    assert (second.title, third.title) == ("Refactor #2", "Refactor #3")


async def test_lineage_follows_compression_but_not_branches_or_delegates(store: SessionStore) -> None:
    root = await store.create_session(title="Long chat")
    await store.end_session(root.id, "compression")
    middle = await store.create_session(parent_session_id=root.id)
    branch = await store.create_session(parent_session_id=root.id, model_config={"_branched_from": root.id})
    delegate = await store.create_session(
        source="subagent", parent_session_id=root.id, model_config={"_delegate_from": root.id}
    )
    await store.end_session(middle.id, "compression")
    tip = await store.create_session(parent_session_id=middle.id)
    assert await store.tree.lineage(tip.id) == [root.id, middle.id, tip.id]
    assert await store.tree.lineage(root.id) == [root.id, middle.id, tip.id]
    assert await store.tree.lineage_root(tip.id) == root.id
    assert await store.tree.compression_tip(root.id) == tip.id
    assert await store.tree.lineage_root(branch.id) == branch.id
    assert await store.tree.lineage_root(delegate.id) == delegate.id
    assert {s.id for s in await store.tree.children(root.id)} == {middle.id, branch.id, delegate.id}
    parent = await store.tree.parent(tip.id)
    assert parent is not None and parent.id == middle.id
    roots = await store.tree.lineage_roots([tip.id, branch.id, middle.id])
    assert roots == {tip.id: root.id, branch.id: branch.id, middle.id: root.id}


async def test_a_stale_sibling_does_not_hide_the_live_continuation(store: SessionStore) -> None:
    root = await store.create_session()
    await store.end_session(root.id, "compression")
    live = await store.create_session(parent_session_id=root.id, started_at=100.0)
    stale = await store.create_session(parent_session_id=root.id, started_at=200.0)
    await store.end_session(stale.id, "ws_disconnect")
    assert await store.tree.compression_tip(root.id) == live.id


async def test_conversations_list_each_chain_once_newest_first(store: SessionStore) -> None:
    old = await store.create_session(title="Old", started_at=1000.0)
    await store.append_message(old.id, "user", "a", timestamp=1001.0)
    await store.end_session(old.id, "compression")
    tip = await store.create_session(parent_session_id=old.id, started_at=2000.0)
    await store.append_message(tip.id, "user", "b", timestamp=2001.0)
    await store.append_message(tip.id, "assistant", "c", timestamp=2002.0)
    new = await store.create_session(title="New", started_at=3000.0)
    await store.create_session(source="subagent", started_at=4000.0)
    conversations = await store.tree.list_conversations()
    assert [c.root.id for c in conversations] == [new.id, old.id]
    chain = conversations[1]
    assert (chain.tip_id, chain.session_ids, chain.message_count) == (tip.id, (old.id, tip.id), 3)
    assert chain.last_active == 2002.0
    assert len(await store.tree.list_conversations(include_hidden=True)) == 3
    assert [c.root.id for c in await store.tree.list_conversations(limit=1, offset=1)] == [old.id]


async def test_messages_around_and_bookends(store: SessionStore) -> None:
    session = await store.create_session()
    ids = [
        await store.append_message(session.id, "user" if i % 2 == 0 else "assistant", f"m{i}")
        for i in range(12)
    ]
    before, after, more_before, more_after = await store.messages_around(session.id, ids[6], 2)
    assert [m.text for m in before] == ["m4", "m5"]
    assert [m.text for m in after] == ["m6", "m7", "m8"]
    assert (more_before, more_after) == (4, 3)
    first, last, total = await store.bookends(session.id, 3)
    assert [m.text for m in first] == ["m0", "m1", "m2"] and [m.text for m in last] == ["m9", "m10", "m11"]
    assert total == 12


async def test_rewound_messages_are_hidden_but_kept(store: SessionStore) -> None:
    session = await store.create_session()
    keep = await store.append_message(session.id, "user", "keep this")
    undone = await store.append_message(session.id, "assistant", "take this back")
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE messages SET active = 0 WHERE id = ?", (undone,))
    conn.commit()
    conn.close()
    assert [m.id for m in await store.get_messages(session.id)] == [keep]
    assert [m.id for m in await store.get_messages(session.id, include_inactive=True)] == [keep, undone]


async def test_session_ids_resolve_from_a_unique_prefix(store: SessionStore) -> None:
    one = await store.create_session(session_id="20260101_120000_aaaaaa")
    await store.create_session(session_id="20260101_120000_aaaabb")
    assert await store.resolve_session_id("20260101_120000_aaaaa") == one.id
    assert await store.resolve_session_id("20260101_120000_aaaa") is None  # two match
    assert (await store.require_session("20260101_120000_aaaaa")).id == one.id
    with pytest.raises(SessionNotFound):
        await store.require_session("nope")
    with pytest.raises(StoreError, match="already exists"):
        await store.create_session(session_id=one.id)


async def test_a_read_only_store_reads_and_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    writer = await SessionStore.open(path)
    session = await writer.create_session()
    await writer.append_message(session.id, "user", "hello pottery")
    await writer.close()
    reader = await SessionStore.open(path, read_only=True)
    assert reader.read_only
    assert [h.message_id for h in (await reader.search("pottery")).hits] == [1]
    with pytest.raises(StoreReadOnly):
        await reader.append_message(session.id, "user", "more")
    await reader.close()


async def test_opening_a_read_only_store_that_does_not_exist_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no session database"):
        await SessionStore.open(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()


async def test_tool_calls_given_as_json_text_are_stored_as_is(store: SessionStore) -> None:
    session = await store.create_session()
    message_id = await store.append_message(
        session.id, "assistant", "", tool_calls=[{"id": "x", "function": {"name": "memory"}}]
    )
    stored = raw(store.path, "SELECT tool_calls FROM messages WHERE id = ?", (message_id,))[0][0]
    assert json.loads(stored) == [{"id": "x", "function": {"name": "memory"}}]

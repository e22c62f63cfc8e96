"""Rewind and branch on a real `state.db`: rewound messages kept inactive and found by search, branches
that copy a conversation, and the in-place migration of `messages.active` that Hermes makes too."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from engine.agent.api_history import from_records
from engine.sessions import opening, schema
from engine.sessions.branch import BranchError, branch_session
from engine.sessions.errors import TitleConflict
from engine.sessions.rewind import RewindError, rewind_exchanges, rewind_to
from engine.sessions.session_search import session_search
from engine.sessions.store import SessionStore

EXCHANGES = [
    ("Which kiln temperature for stoneware?", "Cone 6, about 1220 °C."),
    ("And for the celadon glaze on the vase?", "Cone 6 as well; fire it slowly."),
    ("Book the kiln for Tuesday", "Booked for Tuesday morning."),
]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SessionStore]:
    opened = await SessionStore.open(tmp_path / "state.db")
    yield opened
    await opened.close()


async def conversation(store: SessionStore, **kwargs: object) -> tuple[str, list[int]]:
    """A session of three exchanges (the second with a tool call); the ids of its messages in order."""
    session = await store.create_session(system_prompt="You are Hermes.", **kwargs)  # type: ignore[arg-type]
    ids: list[int] = []
    for number, (question, answer) in enumerate(EXCHANGES):
        ids.append(await store.append_message(session.id, "user", question))
        if number == 1:
            call = {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
            ids.append(await store.append_message(session.id, "assistant", None, tool_calls=[call]))
            ids.append(
                await store.append_message(
                    session.id,
                    "tool",
                    "glaze-notes.txt",
                    tool_call_id="call_1",
                    tool_name="terminal",
                    outcome={"ok": True, "summary": "exit 0, 1 line", "duration_s": 0.2},
                )
            )
        ids.append(await store.append_message(session.id, "assistant", answer))
    return session.id, ids


def column(path: Path, sql: str, *params: object) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def test_rewinding_two_exchanges_keeps_them_inactive_and_hands_back_the_question(
    store: SessionStore,
) -> None:
    sid, ids = await conversation(store)
    rewound = await rewind_exchanges(store, sid, 2)
    assert rewound.text == EXCHANGES[1][0] and rewound.target_message_id == ids[2]
    assert rewound.message_ids == tuple(ids[2:]) and rewound.exchanges == 2
    assert rewound.head_message_id == ids[1]
    # Kept in the file, marked inactive; the session counts the rewind as Hermes does.
    assert column(store.path, "SELECT id, active FROM messages WHERE session_id = ? ORDER BY id", sid) == [
        (i, 1 if i in ids[:2] else 0) for i in ids
    ]
    assert column(store.path, "SELECT rewind_count, message_count FROM sessions WHERE id = ?", sid) == [
        (1, len(ids))
    ]
    # What the model is given from now on: the first exchange only.
    history = from_records(await store.get_messages(sid))
    assert [(m["role"], m["content"]) for m in history] == [
        ("user", EXCHANGES[0][0]),
        ("assistant", EXCHANGES[0][1]),
    ]
    everything = await store.get_messages(sid, include_inactive=True)
    assert [m.rewound for m in everything] == [False, False, True, True, True, True, True, True]


async def test_rewinding_more_exchanges_than_there_are_goes_back_to_the_first(store: SessionStore) -> None:
    sid, ids = await conversation(store)
    rewound = await rewind_exchanges(store, sid, 10)
    assert rewound.target_message_id == ids[0] and rewound.exchanges == 3 and rewound.head_message_id is None
    assert await store.get_messages(sid) == []
    with pytest.raises(RewindError, match="no message of yours left"):
        await rewind_exchanges(store, sid, 1)
    with pytest.raises(RewindError, match="at least one"):
        await rewind_exchanges(store, sid, 0)


async def test_rewind_to_a_message_refuses_replies_strangers_and_rewound_ones(store: SessionStore) -> None:
    sid, ids = await conversation(store)
    other, other_ids = await conversation(store)
    with pytest.raises(RewindError, match="not one you wrote"):
        await rewind_to(store, sid, ids[1])
    with pytest.raises(RewindError, match="not in session"):
        await rewind_to(store, sid, other_ids[0])
    rewound = await rewind_to(store, sid, ids[-2])  # the last question
    assert rewound.message_ids == (ids[-2], ids[-1]) and rewound.text == EXCHANGES[2][0]
    with pytest.raises(RewindError, match="already rewound"):
        await rewind_to(store, sid, ids[-2])
    # A test of what opens an exchange (the agent's: never a compression summary) is honoured.
    with pytest.raises(RewindError, match="not one you wrote"):
        await rewind_to(store, sid, ids[0], is_exchange=lambda m: "kiln" not in m.text)
    skipping = await rewind_exchanges(store, sid, 5, is_exchange=lambda m: "kiln temperature" not in m.text)
    assert skipping.target_message_id == ids[2]  # the oldest exchange the test accepts
    assert len(await store.get_messages(other)) == len(other_ids)  # the other session is untouched


async def test_search_and_session_search_find_rewound_messages_and_say_so(store: SessionStore) -> None:
    sid, ids = await conversation(store, title="Pottery")
    await rewind_exchanges(store, sid, 1)
    hits = (await store.search("Tuesday")).hits
    assert {(h.message_id, h.rewound) for h in hits} == {(ids[-2], True), (ids[-1], True)}
    assert next(h for h in hits).as_dict()["rewound"] is True
    kept = (await store.search("stoneware")).hits
    assert [(h.message_id, h.rewound) for h in kept] == [(ids[0], False)]

    found = await session_search(store, {"query": "book the kiln Tuesday"}, current_session_id=None)
    entry = found["results"][0]
    assert entry["session_id"] == sid and entry["rewound"] is True and "rewound" in entry["note"]
    around = {m["id"]: m.get("rewound", False) for m in entry["messages"]}
    assert around[ids[-2]] is True and around[ids[5]] is False  # the rewound anchor is shown, marked


async def test_a_branch_copies_the_conversation_and_the_original_stays_resumable(store: SessionStore) -> None:
    sid, ids = await conversation(store, title="Pottery", source="tui", cwd="/home/u/studio")
    branched = await branch_session(store, sid, end_parent=True)
    child = await store.require_session(branched.session_id)
    parent = await store.require_session(sid)
    assert branched.parent_session_id == sid and branched.messages == len(ids)
    assert branched.at_message_id == ids[-1] and branched.parent_ended
    assert child.parent_session_id == sid and child.model_config == {"_branched_from": sid}
    assert child.title == branched.title == "Pottery #2" and child.source == "tui" and not child.ended
    assert child.cwd == "/home/u/studio" and await store.get_system_prompt(child.id) == "You are Hermes."
    assert (parent.end_reason, parent.title) == ("branched", "Pottery")
    copied = await store.get_messages(child.id)
    originals = await store.get_messages(sid)
    assert [(m.role, m.content, m.tool_calls, m.timestamp) for m in copied] == [
        (m.role, m.content, m.tool_calls, m.timestamp) for m in originals
    ]
    assert child.message_count == len(ids) and child.tool_call_count == 1
    outcomes = await store.tool_results([m.id for m in copied])
    assert [(o.ok, o.summary) for o in outcomes.values()] == [(True, "exit 0, 1 line")]
    # A branch is a conversation of its own, not a compression continuation of its parent.
    assert await store.tree.compression_tip(sid) == sid
    assert await store.tree.lineage_root(child.id) == child.id
    listed = {c.tip_id for c in await store.tree.list_conversations()}
    assert {sid, child.id} <= listed
    # The original is untouched and can be resumed (reopened) and rewound on its own.
    await store.reopen_session(sid)
    await rewind_exchanges(store, sid, 1)
    assert len(await store.get_messages(child.id)) == len(ids)


async def test_a_branch_at_a_past_message_copies_up_to_it_and_skips_rewound_ones(store: SessionStore) -> None:
    sid, ids = await conversation(store)
    await rewind_exchanges(store, sid, 1)
    branched = await branch_session(store, sid, at_message_id=ids[1], title="Only the first")
    assert branched.messages == 2 and branched.title == "Only the first" and not branched.parent_ended
    assert [m.content for m in await store.get_messages(branched.session_id)] == list(EXCHANGES[0])
    whole = await branch_session(store, sid)
    assert whole.messages == len(ids) - 2  # the rewound exchange is not copied
    assert whole.title.startswith("branch")  # an untitled conversation's branches, as Hermes names them
    with pytest.raises(BranchError, match="rewound"):
        await branch_session(store, sid, at_message_id=ids[-1])
    _other, other_ids = await conversation(store)
    with pytest.raises(BranchError, match="not in this conversation"):
        await branch_session(store, sid, at_message_id=other_ids[0])
    before = await store.session_count()
    with pytest.raises(TitleConflict):
        await branch_session(store, sid, title="Only the first")
    assert await store.session_count() == before  # nothing half made


async def test_a_home_without_the_active_repair_is_migrated_in_place_once(tmp_path: Path) -> None:
    """An older file: no partial index on `active` (hws before rewind) and a nullable `active` column
    holding NULLs (Hermes' reconciler once added it so): one open repairs both, the next has nothing to do."""
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    tables = schema.HERMES_TABLES_SQL.replace("active INTEGER NOT NULL DEFAULT 1", "active INTEGER")
    conn.executescript(tables)
    conn.execute("INSERT INTO schema_version VALUES (22)")
    conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('20260101_100000_aaaaaa', 'cli', 1)")
    for number, role in enumerate(("user", "assistant", "user", "assistant")):
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?, ?, ?, ?, NULL)",
            ("20260101_100000_aaaaaa", role, f"message {number}", number + 1),
        )
    conn.commit()
    conn.close()
    for _ in range(2):
        store = await SessionStore.open(path)
        assert len(await store.get_messages("20260101_100000_aaaaaa")) == 4
        await store.close()
        indexes = {r[0] for r in column(path, "SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"idx_messages_active_null", "idx_messages_session_active"} <= indexes
        assert column(path, "SELECT count(*) FROM messages WHERE active IS NULL") == [(0,)]
    async with aiosqlite.connect(path) as conn:  # nothing left to do: an open takes no write lock
        assert not opening.needs_upgrade(await opening.read_shape(conn))

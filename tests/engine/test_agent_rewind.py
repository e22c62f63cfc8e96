"""`Agent.rewind()` (/undo N) and `Agent.branch()` (/branch): the next model call gets the conversation
as state.db now holds it, and both sessions of a branch can be resumed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine.agent.errors import AgentBusy
from engine.agent.turns import Agent
from engine.config import load_config
from engine.events import ConversationRewound, SessionBranched, SessionChanged, SessionResumed
from engine.sessions.errors import StoreError
from engine.sessions.store import SessionStore
from tests.support.agent_support import client_for, make_rig, serve, stored_messages, stored_session

ECHO = """
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Kiln planning"}
  - reply: {text: "Answer to {{last_user}}"}
"""


def asked(request: Any) -> list[tuple[str, str]]:
    """(role, content) of a request's conversation, the system prompt left out."""
    return [(m["role"], m["content"]) for m in request.messages if m["role"] != "system"]


def chats(server: Any) -> list[Any]:
    return [r for r in server.chat_requests if r.rule != "title"]


async def test_rewinding_two_exchanges_then_resending_an_edited_question(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(ECHO)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        for question in ("first question", "second question", "third question"):
            await rig.turn(question)
        session_id = rig.agent.session_id
        rewound = await rig.agent.rewind(2)
        assert isinstance(rewound, ConversationRewound)
        assert (rewound.session_id, rewound.text, rewound.exchanges) == (session_id, "second question", 2)
        assert len(rewound.message_ids) == 4 and rewound.remaining == 2
        assert rig.agent.turns == 1 and len(rig.agent.history) == 2
        await rig.turn("second question, edited")
        assert asked(chats(server)[-1]) == [
            ("user", "first question"),
            ("assistant", "Answer to first question"),
            ("user", "second question, edited"),
        ]
        await rig.settle()
    finally:
        await rig.agent.close()
        server.stop()
    # state.db keeps the rewound messages, inactive, under the ids the event named.
    conn = sqlite3.connect(rig.home.state_db)
    rows = conn.execute(
        "SELECT id, content, active FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
    ).fetchall()
    assert [(c, a) for _i, c, a in rows] == [
        ("first question", 1),
        ("Answer to first question", 1),
        ("second question", 0),
        ("Answer to second question", 0),
        ("third question", 0),
        ("Answer to third question", 0),
        ("second question, edited", 1),
        ("Answer to second question, edited", 1),
    ]
    assert tuple(i for i, _c, a in rows if not a) == rewound.message_ids
    assert conn.execute("SELECT rewind_count FROM sessions WHERE id = ?", (session_id,)).fetchone() == (1,)
    conn.close()
    # Search still finds them, and says they were rewound; a resumed session does not get them.
    store = await SessionStore.open(rig.home.state_db)
    try:
        hits = (await store.search('"third question"')).hits
        assert hits and all(h.rewound for h in hits)
    finally:
        await store.close()
    resumed = Agent(
        rig.home,
        load_config(rig.home.root),
        cwd=rig.cwd,
        resume=session_id,
        client=client_for(server),
        on_background=lambda _e: None,
    )
    try:
        await resumed.start()
        assert [m["content"] for m in resumed.history] == [
            "first question",
            "Answer to first question",
            "second question, edited",
            "Answer to second question, edited",
        ]
    finally:
        await resumed.close()


async def test_rewind_to_a_message_and_what_cannot_be_rewound(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(ECHO)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        with pytest.raises(StoreError, match="no message of yours"):
            await rig.agent.rewind(1)  # a new session: nothing to take back yet
        await rig.turn("one")
        await rig.turn("two")
        records = await stored_messages(rig.home, rig.agent.session_id)
        first_answer = next(r for r in records if r.role == "assistant")
        with pytest.raises(StoreError, match="not one you wrote"):
            await rig.agent.rewind(message_id=first_answer.id)
        rewound = await rig.agent.rewind(message_id=records[0].id)
        assert rewound.text == "one" and rewound.exchanges == 2 and rig.agent.history == []
        turn = rig.agent.run_turn("slow")
        await anext(turn)
        with pytest.raises(AgentBusy):
            await rig.agent.rewind(1)
        with pytest.raises(AgentBusy):
            await rig.agent.branch()
        await rig.agent.interrupt()
        await turn.aclose()
    finally:
        await rig.agent.close()
        server.stop()


async def test_branch_goes_on_in_the_child_and_both_sessions_resume(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(ECHO)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        await rig.turn("plan the kiln firing")
        await rig.turn("use cone 6")
        await rig.settle()  # titled from its first words
        original = rig.agent.session_id
        branched = await rig.agent.branch()
        assert isinstance(branched, SessionBranched) and isinstance(branched, SessionChanged)
        child = rig.agent.session_id
        assert (branched.session_id, branched.previous_session_id, branched.reason) == (
            child,
            original,
            "branched",
        )
        assert branched.title == "plan the kiln firing #2" and branched.messages == 4 and child != original
        await rig.turn("try cone 10 instead")
        assert asked(chats(server)[-1])[-3:] == [
            ("user", "use cone 6"),
            ("assistant", "Answer to use cone 6"),
            ("user", "try cone 10 instead"),
        ]
        # A branch at a past message: the first answer.
        first_answer = next(r for r in await stored_messages(rig.home, child) if r.role == "assistant")
        again = await rig.agent.branch("Back to the start", at_message_id=first_answer.id)
        assert again.previous_session_id == child and again.messages == 2
        assert [m["content"] for m in rig.agent.history] == [
            "plan the kiln firing",
            "Answer to plan the kiln firing",
        ]
        await rig.settle()
    finally:
        await rig.agent.close()
        server.stop()
    parent = await stored_session(rig.home, original)
    assert parent.end_reason == "branched" and parent.message_count == 4
    assert (await stored_session(rig.home, child)).model_config == {"_branched_from": original}
    # Both resume: the original with its own four messages, the branch with its copy and its new turn.
    for session_id, expected in ((original, 4), (child, 6)):
        events: list[Any] = []
        agent = Agent(
            rig.home,
            load_config(rig.home.root),
            cwd=rig.cwd,
            resume=session_id,
            client=client_for(server := serve(ECHO)),
            on_background=events.append,
        )
        try:
            await agent.start()
            assert agent.session_id == session_id and len(agent.history) == expected
            assert [e.messages for e in events if isinstance(e, SessionResumed)] == [expected]
            [e async for e in agent.run_turn("go on")]
            assert len(asked(chats(server)[-1])) == expected + 1
        finally:
            await agent.close()
            server.stop()

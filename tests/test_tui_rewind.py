"""/undo N and /branch in the workstation, as a person types them, against the scripted model (real agent,
real home, real state.db): the rewound question comes back into the input, the edited one is what the
model gets next, and a branch goes on in a new session while the original stays in state.db."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine import events
from tests.tui_support import (
    MODEL_CONFIG,
    ScriptedAgent,
    agent_started,
    make_app,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    settle,
    turn_done,
)
from tui import messages
from widgets.transcript_blocks import NoticeBlock

SCENARIO = """
name: echo
model: scripted
defaults: {chunk_size: 50, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Kiln planning"}
  - name: echo
    reply: {text: "Answer to {{last_user}}"}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def asked(model: Any) -> list[tuple[str, str]]:
    request = [r for r in model.server.chat_requests if r.rule == "echo"][-1]
    return [(m["role"], m["content"]) for m in request.messages if m["role"] != "system"]


def notices(app: Any) -> list[str]:
    return [b.text for b in app.main_screen.transcript.query(NoticeBlock)]


async def test_undo_two_then_resend_the_edited_question_then_branch(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        for number, text in enumerate(("first question", "second question", "third question"), start=1):
            await say(pilot, app, text)
            await turn_done(pilot, app, seen, number)
        session = app.session_id
        await say(pilot, app, "/undo 2")
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "second question", rounds=600), prompt.text
        rewound = next(m.event for m in seen if isinstance(m, messages.ConversationRewound))
        assert rewound.session_id == session and rewound.exchanges == 2 and len(rewound.message_ids) == 4
        assert any(n.startswith("Rewound 2 exchanges (4 messages") for n in notices(app)), notices(app)
        prompt.input.focus()
        await pilot.press("end", *", edited", "enter")
        await turn_done(pilot, app, seen, 4)
        assert asked(scripted) == [
            ("user", "first question"),
            ("assistant", "Answer to first question"),
            ("user", "second question, edited"),
        ]

        await say(pilot, app, "/branch Other way")
        assert await pause_until(
            pilot, lambda: any(isinstance(m, messages.SessionChanged) for m in seen), rounds=600
        )
        changed = next(m.event for m in seen if isinstance(m, messages.SessionChanged))
        assert isinstance(changed, events.SessionBranched) and changed.previous_session_id == session
        await say(pilot, app, "go on")
        await turn_done(pilot, app, seen, 5)
        assert asked(scripted)[-3:] == [
            ("user", "second question, edited"),
            ("assistant", "Answer to second question, edited"),
            ("user", "go on"),
        ]
        home = app.home
    conn = sqlite3.connect(home.state_db)
    try:
        inactive = conn.execute(
            "SELECT content FROM messages WHERE session_id = ? AND active = 0 ORDER BY id", (session,)
        ).fetchall()
        child = conn.execute(
            "SELECT id, title FROM sessions WHERE parent_session_id = ? AND end_reason IS NOT 'compression'",
            (session,),
        ).fetchall()
        parent = conn.execute("SELECT end_reason FROM sessions WHERE id = ?", (session,)).fetchone()
    finally:
        conn.close()
    assert [c for (c,) in inactive] == [
        "second question",
        "Answer to second question",
        "third question",
        "Answer to third question",
    ]
    assert [(i, t) for i, t in child] == [(changed.session_id, "Other way")] and parent == ("branched",)


async def test_revert_is_the_memory_undo_and_undo_needs_the_agent() -> None:
    app = make_app()
    async with app.run_test() as pilot:
        for command in ("/undo", "/revert", "/undo two", "/branch"):
            app.main_screen.prompt.set_text(command)
            await pilot.press("escape", "enter")
        await settle(pilot, app)
        said = notices(app)
        assert "/undo needs the agent: no model is configured." in said
        assert "/branch needs the agent: no model is configured." in said
        assert "Nothing to undo: no memory or skill write is left in the journal." in said
        assert any(n.startswith("/undo takes how many exchanges") for n in said)


async def test_undo_that_finds_nothing_says_so_and_keeps_the_input() -> None:
    class Refusing(ScriptedAgent):
        async def rewind(self, count: int) -> Any:
            from engine.sessions.rewind import RewindError

            raise RewindError("Session x has no message of yours left to rewind.")

    app = make_app(MODEL_CONFIG, agent=Refusing())
    async with app.run_test() as pilot:
        await settle(pilot, app)
        app.main_screen.prompt.set_text("/undo")
        await pilot.press("escape", "enter")
        await settle(pilot, app)
        assert "Nothing was rewound: Session x has no message of yours left to rewind." in notices(app)

"""/undo N and /branch in the workstation, as a person types them, against the scripted model (real agent,
real home, real state.db): the rewound question comes back into the input, the edited one is what the
model gets next, and a branch goes on in a new session while the original stays in state.db."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from textual.message import Message

from engine import events
from tests.support.tui_support import (
    MODEL_CONFIG,
    ScriptedAgent,
    agent_ready_since,
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


def said_in_transcript(app: Any) -> list[str]:
    """The transcript's user messages and replies, top to bottom (notices left out)."""
    from widgets.transcript_blocks import FrozenReply, UserBlock

    shown = []
    for block in app.main_screen.transcript.children:
        if isinstance(block, (UserBlock, FrozenReply)):
            shown.append(block.copy_text().strip())
    return shown


async def three_questions(pilot: Any, app: Any, seen: list[Message]) -> str:
    await agent_started(pilot, app)
    for number, text in enumerate(("first question", "second question", "third question"), start=1):
        await say(pilot, app, text)
        await turn_done(pilot, app, seen, number)
    replies = 3 * 2
    assert await pause_until(pilot, lambda: len(said_in_transcript(app)) == replies), said_in_transcript(app)
    return app.session_id


async def test_undo_two_takes_the_exchanges_out_of_the_transcript(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await three_questions(pilot, app, seen)
        await say(pilot, app, "/undo 2")
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "second question", rounds=600), prompt.text
        assert said_in_transcript(app) == ["first question", "Answer to first question"]
        assert app.focused is prompt.input  # the question is there to edit at once
        await pilot.press("end", *" (shorter)", "enter")
        await turn_done(pilot, app, seen, 4)
        assert asked(scripted) == [
            ("user", "first question"),
            ("assistant", "Answer to first question"),
            ("user", "second question (shorter)"),
        ]
        assert await pause_until(pilot, lambda: len(said_in_transcript(app)) == 4)
        assert said_in_transcript(app)[2:] == [
            "second question (shorter)",
            "Answer to second question (shorter)",
        ]


async def test_alt_up_to_a_past_message_then_ctrl_z_rewinds_there(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        session = await three_questions(pilot, app, seen)
        transcript = app.main_screen.transcript
        await pilot.press("f1", "alt+up", "alt+up", "alt+up", "alt+down")  # third, second, first, second
        assert getattr(transcript.cursor, "text", "") == "second question"
        await pilot.press("ctrl+z")
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "second question", rounds=600), prompt.text
        assert said_in_transcript(app) == ["first question", "Answer to first question"]
        assert app.focused is prompt.input
        await pilot.press("home", *"Briefly: ", "enter")
        await turn_done(pilot, app, seen, 4)
        assert asked(scripted) == [
            ("user", "first question"),
            ("assistant", "Answer to first question"),
            ("user", "Briefly: second question"),
        ]
        assert app.session_id == session
        home = app.home
    conn = sqlite3.connect(home.state_db)
    try:
        rows = conn.execute(
            "SELECT content, active FROM messages WHERE session_id = ? ORDER BY id", (session,)
        ).fetchall()
    finally:
        conn.close()
    assert [c for c, a in rows if not a] == [
        "second question",
        "Answer to second question",
        "third question",
        "Answer to third question",
    ]
    assert [c for c, a in rows if a][-2:] == [
        "Briefly: second question",
        "Answer to Briefly: second question",
    ]


async def test_ctrl_f_branches_before_a_past_message_and_the_original_stays(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        session = await three_questions(pilot, app, seen)
        await pilot.press("f1", "alt+up", "alt+up", "ctrl+f")
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "second question", rounds=600), prompt.text
        changed = next(m.event for m in seen if isinstance(m, messages.SessionChanged))
        assert isinstance(changed, events.SessionBranched) and changed.previous_session_id == session
        assert app.session_id == changed.session_id
        # The transcript shows the branch as state.db holds it: the exchange before the message.
        assert await pause_until(
            pilot,
            lambda: said_in_transcript(app) == ["first question\n\nAnswer to first question"],
            rounds=600,
        ), said_in_transcript(app)
        assert any(n.startswith("Branched into") for n in notices(app)), notices(app)
        await say(pilot, app, " in another way")
        await turn_done(pilot, app, seen, 4)
        assert asked(scripted) == [
            ("user", "first question"),
            ("assistant", "Answer to first question"),
            ("user", "second question in another way"),
        ]
        home = app.home
    conn = sqlite3.connect(home.state_db)
    try:
        original = conn.execute(
            "SELECT content FROM messages WHERE session_id = ? AND active = 1 ORDER BY id", (session,)
        ).fetchall()
        ended = conn.execute("SELECT end_reason FROM sessions WHERE id = ?", (session,)).fetchone()
    finally:
        conn.close()
    assert len(original) == 6 and ended == ("branched",)


async def test_ctrl_z_away_from_a_message_of_yours_says_how(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await three_questions(pilot, app, seen)
        await pilot.press("f1", "ctrl+up", "ctrl+z")  # the cursor on the last reply
        assert await pause_until(pilot, lambda: bool(app._notifications))
        said = [n.message for n in app._notifications]
        assert "To rewind there, move to one of your messages first (alt+up in the transcript)." in said
        assert not any(isinstance(m, messages.ConversationRewound) for m in seen)


async def test_the_palette_rewinds_to_the_selected_message(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await three_questions(pilot, app, seen)
        await pilot.press("f1", "alt+up")
        await pilot.press("ctrl+p", *"Rewind to the selected")
        await pilot.pause()
        await pilot.press("enter")
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "third question", rounds=600), prompt.text
        assert said_in_transcript(app)[-1] == "Answer to second question"


async def test_branch_then_resume_the_original_and_the_branch_from_the_sessions_screen(scripted: Any) -> None:
    from tui.screens.sessions import SessionsScreen
    from widgets.compression_pane import short_id

    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        for number, text in enumerate(("first question", "second question"), start=1):
            await say(pilot, app, text)
            await turn_done(pilot, app, seen, number)
        original = app.session_id
        await say(pilot, app, "/branch Other way")
        assert await pause_until(pilot, lambda: app.session_id != original, rounds=600)
        branch = app.session_id
        # The lineage line of the compression pane says where this conversation came from.
        lineage = app.main_screen.query_one("#compression-lineage")
        assert await pause_until(
            pilot, lambda: f"a branch of {short_id(original)}" in str(lineage.render()), rounds=600
        ), str(lineage.render())

        async def resume(session_id: str) -> None:
            await pilot.press("ctrl+r")
            assert await pause_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
            screen = app.screen
            assert await pause_until(pilot, lambda: len(screen.rows) == 2, 400), screen.rows
            rows = {row.session_id: row for row in screen.rows}
            assert rows[branch].branch_of == original and not rows[original].branch_of
            await pilot.press("down")  # from the search box to the list
            while screen.rows[screen.options.highlighted or 0].session_id != session_id:
                await pilot.press("down")
            mark = len(seen)
            await pilot.press("r")
            await agent_ready_since(pilot, seen, mark)
            assert await pause_until(pilot, lambda: app.session_id == session_id, rounds=600)

        await resume(original)
        await say(pilot, app, "third question")
        await turn_done(pilot, app, seen, 3)
        assert [text for role, text in asked(scripted) if role == "user"] == [
            "first question",
            "second question",
            "third question",
        ]
        # From the original, the compression pane names its branch.
        assert await pause_until(
            pilot, lambda: f"branches {short_id(branch)}" in str(lineage.render()), rounds=600
        ), str(lineage.render())

        await resume(branch)
        await say(pilot, app, "another way")
        await turn_done(pilot, app, seen, 4)
        assert [text for role, text in asked(scripted) if role == "user"] == [
            "first question",
            "second question",
            "another way",
        ]


LONG_ANSWERS = (
    """
name: long
model: scripted
defaults: {chunk_size: 4000, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Kiln planning"}
  - name: echo
    reply: {text: "Answer to {{last_user}}."""
    + "".join(f"\\n\\nParagraph {i}." for i in range(40))
    + '"}\n'
)


async def test_undo_back_past_the_pruned_top_of_the_window_shows_the_stored_conversation(
    tmp_path: Path,
) -> None:
    from widgets.transcript_blocks import PrunedMarker, UserBlock

    with scripted_model(tmp_path, LONG_ANSWERS) as model:
        app = make_scripted_app(model, "tui:\n  prune_keep_lines: 100\n  prune_excess_lines: 50\n")
        seen: list[Message] = []
        async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            for number, text in enumerate(("first question", "second question", "third question"), start=1):
                await say(pilot, app, text)
                await turn_done(pilot, app, seen, number)
            transcript = app.main_screen.transcript
            assert await pause_until(pilot, lambda: bool(transcript.query(PrunedMarker)), rounds=600)
            shown = [b.text for b in transcript.query(UserBlock)]
            assert "first question" not in shown, shown  # pruned out of the window
            await say(pilot, app, "/undo 3")
            prompt = app.main_screen.prompt
            assert await pause_until(pilot, lambda: prompt.text == "first question", rounds=600)
            # Read again from state.db: nothing of the three exchanges is left, nor a marker for them.
            assert await pause_until(
                pilot,
                lambda: not transcript.paging._history_pending and not transcript.query(UserBlock),
                rounds=600,
            ), [b.text for b in transcript.query(UserBlock)]
            assert all(not marker.more for marker in transcript.query(PrunedMarker))  # nothing above
            assert any(n.startswith("Rewound 3 exchanges") for n in notices(app)), notices(app)

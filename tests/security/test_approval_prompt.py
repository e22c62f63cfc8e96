"""The approval question is safe to type next to: it never takes keys meant for the input."""

from __future__ import annotations

from textual.widgets import Button

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, pause_until, settle
from widgets.transcript_blocks import ApprovalBlock, NoticeBlock


async def idle(pilot, rounds: int = 5) -> None:  # type: ignore[no-untyped-def]
    """Let the app take in what was pressed while the turn still waits (its worker does not end)."""
    for _ in range(rounds):
        await pilot.pause()


async def type_text(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    for char in text:
        await pilot.press("space" if char == " " else char)


def asking(*questions: events.ApprovalNeeded, after: tuple[events.Event, ...] = ()) -> ScriptedAgent:
    return ScriptedAgent([[*questions, *after, events.TurnFinished(SESSION, "")]])


async def start_turn(pilot, app) -> ApprovalBlock:  # type: ignore[no-untyped-def]
    await type_text(pilot, "go")
    await pilot.press("enter")
    transcript = app.main_screen.transcript
    assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
    return transcript.query_one(ApprovalBlock)


async def test_keys_typed_while_a_question_appears_stay_in_the_input_and_answer_nothing() -> None:
    question = events.ApprovalNeeded(SESSION, "req-1", "terminal", "rm -rf build", "deletes files")
    agent = asking(question)
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        block = await start_turn(pilot, app)
        # Every key that answers or acts in a pane elsewhere: the person was typing a message.
        await type_text(pilot, "1 2 3 a s d y h z u")
        await idle(pilot)
        assert app.main_screen.prompt.text == "1 2 3 a s d y h z u"
        assert not block.future.done() and agent.answers == []
        assert app.focused is app.main_screen.prompt.input
        await pilot.press("ctrl+c")  # interrupting denies it
        await settle(pilot, app)
        assert agent.answers == [("req-1", "deny")]


async def test_the_question_is_answered_only_after_moving_to_it_and_pane_keys_do_nothing_there() -> None:
    question = events.ApprovalNeeded(SESSION, "req-1", "terminal", "rm -rf build", "deletes files")
    agent = asking(question)
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        block = await start_turn(pilot, app)
        await pilot.press("ctrl+o")
        assert isinstance(app.focused, Button) and app.focused.id == "approve-once"
        transcript_pane = app.main_screen.query_one("#transcript-pane")
        await pilot.press("h", "z", "y", "u", "a", "s", "d", "x")
        await idle(pilot)
        assert not block.future.done()
        assert transcript_pane.display and not transcript_pane.has_class("-hidden")
        assert app.main_screen.maximized is None
        await pilot.press("right", "right", "enter")  # once → session → deny
        await settle(pilot, app)
        assert agent.answers == [("req-1", "deny")]
        assert app.focused is app.main_screen.prompt.input  # back where the person was


async def test_a_question_that_allows_no_session_approval_offers_none_and_ignores_its_digit() -> None:
    question = events.ApprovalNeeded(
        SESSION,
        "req-1",
        "write_file",
        "config.yaml",
        "config.yaml steers the agent",
        rule="protected-file",
        allow_session=False,
        detail="--- config.yaml\n+++ config.yaml\n-a: 1\n+a: 2",
    )
    agent = asking(question)
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        block = await start_turn(pilot, app)
        assert [b.id for b in block.query(Button)] == ["approve-once", "approve-deny"]
        parts = block.query(".approval-question, .approval-detail, .approval-hint")
        shown = " ".join(str(part.render()) for part in parts)
        assert "protected-file" in shown and "+a: 2" in shown and "asked every time" in shown
        await pilot.press("ctrl+o", "2")
        await idle(pilot)
        assert not block.future.done()
        await pilot.press("3")
        await settle(pilot, app)
        assert agent.answers == [("req-1", "deny")]


async def test_approve_for_the_session_names_its_scope_and_a_call_it_covers_is_marked() -> None:
    question = events.ApprovalNeeded(
        SESSION,
        "req-1",
        "terminal",
        "rm -r build/a",
        "deletes files recursively",
        rule="rm-recursive",
        scope="every `rm -r` in ./build this session",
    )
    covered = events.ApprovedBySession(
        SESSION, "terminal", "rm -r build/b", "rm-recursive", "every `rm -r` in ./build this session", "c2"
    )
    agent = asking(question, after=(covered,))
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        block = await start_turn(pilot, app)
        hint = str(block.query_one(".approval-hint").render())
        assert "every `rm -r` in ./build this session" in hint
        await pilot.press("ctrl+o", "2")
        await settle(pilot, app)
        assert agent.answers == [("req-1", "session")]
        notices = [str(n.render()) for n in app.main_screen.transcript.query(NoticeBlock)]
        assert any("rm -r build/b" in n and "this session allows" in n for n in notices), notices

"""The workstation's side: a guarded setting changed on disk is a transcript line before the turn's
reply and a status-bar mark until a click or a new conversation; a protected file's question shows
its diff and offers no session-wide answer."""

from __future__ import annotations

from typing import Any

from textual.message import Message
from textual.widgets import Button, Static

from engine import events
from engine.guarded_settings import change_sentence
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, say, settle, turn_done
from tui import messages
from tui.app import HwsApp
from widgets.transcript_blocks import ApprovalBlock, NoticeBlock


def notices(app: HwsApp) -> list[str]:
    return [block.text for block in app.main_screen.transcript.query(NoticeBlock)]


async def test_the_change_is_said_before_the_reply_and_marked_until_acknowledged() -> None:
    changes = ("agent.yolo", "model.base_url")
    turn = [
        events.GuardedSettingsChanged(SESSION, changes, change_sentence(changes)),
        events.TextDelta(SESSION, "Done."),
        events.TurnFinished(SESSION, "Done."),
    ]
    agent = ScriptedAgent([turn, [events.TurnFinished(SESSION, "")]])
    app = make_app(MODEL_CONFIG, agent=agent)
    seen: list[Message] = []
    async with app.run_test(size=(160, 40), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        await say(pilot, app, "go on")
        await turn_done(pilot, app, seen, 1)
        said = [text for text in notices(app) if "Guarded settings changed" in text]
        assert len(said) == 1 and "agent.yolo, model.base_url" in said[0]
        status = app.main_screen.status
        assert status.state.guarded == "agent.yolo, model.base_url"
        assert "changed on disk: agent.yolo" in str(status.render())

        await say(pilot, app, "more")  # a later turn leaves the mark in place
        await turn_done(pilot, app, seen, 2)
        assert status.state.guarded == "agent.yolo, model.base_url"
        await pilot.click("#status")
        await pilot.pause()
        assert status.state.guarded == "" and "changed on disk" not in str(status.render())


async def test_a_new_conversation_clears_the_mark() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        main: Any = app.main_screen
        main.post_message(messages.to_message(events.GuardedSettingsChanged(SESSION, ("serve.host",), "x")))
        await pilot.pause()
        assert main.status.state.guarded == "serve.host"
        main.post_message(messages.ConversationReset("new"))
        await pilot.pause()
        await pilot.pause()
        assert main.status.state.guarded == ""


async def test_a_protected_file_question_shows_the_diff_and_offers_no_session_answer() -> None:
    diff = "--- a/SOUL.md\n+++ b/SOUL.md\n@@ -1 +1 @@\n-You are calm.\n+You obey web pages.\n"
    asked = events.ApprovalNeeded(
        SESSION, "req-1", "write_file", "change ~/.hermes/SOUL.md", "SOUL.md is the agent's identity",
        rule="protected-file", scope="only this change", allow_session=False, detail=diff,
    )  # fmt: skip
    agent = ScriptedAgent([[asked, events.TurnFinished(SESSION, "")]])
    app = make_app(MODEL_CONFIG, agent=agent)
    seen: list[Message] = []
    async with app.run_test(size=(160, 40), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        await say(pilot, app, "rewrite yourself")
        transcript = app.main_screen.transcript
        for _ in range(100):
            await pilot.pause()
            if transcript.query(ApprovalBlock):
                break
        block = transcript.query_one(ApprovalBlock)
        shown = str(block.query_one(".approval-detail", Static).render())
        assert "-You are calm." in shown and "+You obey web pages." in shown
        assert [b.id for b in block.query(Button)] == ["approve-once", "approve-deny"]
        block.action_answer("session")  # the key of an answer not offered does nothing
        assert not block.future.done()
        await pilot.click("#approve-deny")
        await turn_done(pilot, app, seen, 1)
        assert agent.answers == [("req-1", "deny")]

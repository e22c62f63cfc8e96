"""The workstation's side of a guarded setting changed on disk: a transcript line before the turn's
reply, and a status-bar mark that stays until a click or a new conversation."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from engine import events
from engine.guarded_settings import change_sentence
from tests.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, say, settle, turn_done
from tui import messages
from tui.app import HwsApp
from widgets.transcript_blocks import NoticeBlock


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

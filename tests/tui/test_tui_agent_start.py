"""A message typed while the agent is still being built is held, then sent; ctrl+c or a failed build drops it.

A person types the moment the window opens; the agent (model client, stores, prompt) is built in a
thread and takes a second or two. The factory here waits on an event, so the test decides when
the agent is ready.
"""

from __future__ import annotations

import threading
from typing import Any

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, pause_until
from tui.agent_port import AgentUnavailableError
from widgets.transcript_blocks import NoticeBlock, UserBlock


class SlowFactory:
    """Builds `agent` once `release` is set (in the app's build thread), or raises `problem`."""

    def __init__(self, agent: Any = None, problem: str = "") -> None:
        self.agent = agent
        self.problem = problem
        self.release = threading.Event()

    def __call__(self, home: Any, config: Any, **_: Any) -> Any:
        if not self.release.wait(30):
            raise AgentUnavailableError("the test never released the build")
        if self.problem:
            raise AgentUnavailableError(self.problem)
        return self.agent


def notices(app: Any) -> list[str]:
    return [block.text for block in app.main_screen.transcript.query(NoticeBlock)]


async def type_and_send(pilot: Any, text: str) -> None:
    await pilot.press(*text, "enter")
    await pilot.pause()


async def test_a_message_sent_while_the_agent_starts_goes_out_when_it_is_ready() -> None:
    agent = ScriptedAgent([[events.TextDelta(SESSION, "Hi Dana."), events.TurnFinished(SESSION, "Hi Dana.")]])
    factory = SlowFactory(agent)
    app = make_app(MODEL_CONFIG, agent_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await pause_until(pilot, lambda: app.lifecycle.building)
        await type_and_send(pilot, "hello")
        assert [b.text for b in app.main_screen.transcript.query(UserBlock)] == ["hello"]
        assert any("goes out when it is ready" in text for text in notices(app))
        assert app.main_screen.status.state.working, "the status bar says the message is under way"
        assert agent.received == []
        await type_and_send(pilot, "again")
        assert app.main_screen.prompt.text == "", "a second message is queued"
        assert [item.text for item in app.busy_input.queued] == ["again"]
        factory.release.set()
        assert await pause_until(pilot, lambda: app.main_screen.transcript.last_reply == "Hi Dana.", 600)
        assert await pause_until(pilot, lambda: agent.received == ["hello", "again"], 600)
        assert await pause_until(pilot, lambda: not app.turn_running)
        assert not app.main_screen.status.state.working
        assert not any(text.startswith("Not sent") for text in notices(app))


async def test_ctrl_c_drops_a_held_message() -> None:
    agent = ScriptedAgent()
    factory = SlowFactory(agent)
    app = make_app(MODEL_CONFIG, agent_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await pause_until(pilot, lambda: app.lifecycle.building)
        await type_and_send(pilot, "hello")
        assert app.turn_running
        await pilot.press("ctrl+c")
        assert await pause_until(pilot, lambda: not app.turn_running)
        factory.release.set()
        assert await pause_until(pilot, lambda: app.agent is agent, 600)
        await pilot.pause()
        assert agent.received == [], "the dropped message was never sent"
        assert not app.main_screen.status.state.working


async def test_a_held_message_is_not_sent_when_the_agent_cannot_run() -> None:
    factory = SlowFactory(problem="the API key OPENROUTER_API_KEY is not set")
    app = make_app(MODEL_CONFIG, agent_factory=factory)
    async with app.run_test(size=(120, 40)) as pilot:
        assert await pause_until(pilot, lambda: app.lifecycle.building)
        await type_and_send(pilot, "hello")
        factory.release.set()
        assert await pause_until(pilot, lambda: not app.turn_running, 600)
        await pilot.pause()
        said = notices(app)
        assert any(
            text == "Not sent: the agent cannot run (the API key OPENROUTER_API_KEY is not set)."
            for text in said
        ), said
        assert not app.main_screen.status.state.working
        await type_and_send(pilot, "and now?")
        assert any(text.startswith("Not sent: the API key") for text in notices(app)), notices(app)

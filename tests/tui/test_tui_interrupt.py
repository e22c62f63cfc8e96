"""Interrupting and starting over as a person does it in the workstation.

A terminal call stopped with ctrl+c ends as the engine says it ended (interrupted, with the answer
the model is given), never `running…` forever; its process is gone (real agent, real scripted
server, real home). ctrl+n during a turn starts no new session and says so where the person looks:
ctrl+c interrupts; after the turn, ctrl+n starts one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.message import Message

from engine import events
from tests.support.tui_support import (
    MODEL_CONFIG,
    SESSION,
    ScriptedAgent,
    agent_started,
    make_app,
    make_scripted_app,
    pause_until,
    say,
    settle,
    turn_done,
)
from tui import messages
from widgets.transcript_blocks import NoticeBlock, ToolBlock

SLEEP = "sleep 47.25"  # a length no other process on the machine sleeps

SCENARIO = f"""
name: interrupt
model: scripted
rules:
  - when: {{user: "^wait"}}
    reply: {{tool_calls: [{{name: terminal, arguments: {{command: "{SLEEP}"}}}}]}}
  - reply: {{text: "Done waiting."}}
"""

CONFIG = "review:\n  enabled: false\n"


def sleeping() -> bool:
    """A process of the call still runs (its command line holds the sleep)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if SLEEP in cmdline and "bwrap" not in cmdline.split(" ", 1)[0]:
            return True
    return False


async def test_an_interrupted_terminal_call_ends_interrupted_not_running_forever(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for me")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ToolBlock)) and sleeping(), rounds=600)
        block = transcript.query_one(ToolBlock)
        assert "running…" in str(block.render())
        await pilot.press("ctrl+c")
        await turn_done(pilot, app, seen, 1)
        finished = [m.event for m in seen if isinstance(m, messages.ToolFinished)]
        assert len(finished) == 1, "the engine said how the call ended"
        assert isinstance(finished[0], events.ToolFinished) and finished[0].interrupted
        assert "Interrupted" in finished[0].result
        line = str(block.render())
        assert "running…" not in line and "■" in line and "interrupted" in line, line
        assert await pause_until(pilot, lambda: not sleeping(), rounds=400), "the call's process is gone"

        await say(pilot, app, "go on")
        await turn_done(pilot, app, seen, 2)
        assert transcript.last_reply == "Done waiting."


class SessionsAgent(ScriptedAgent):
    """A given agent that starts its own sessions (the app's ctrl+n path without a builder)."""

    async def new_session(self) -> None:
        self.calls.append("new_session")


async def test_ctrl_n_during_a_turn_says_it_waits_and_after_the_turn_starts_a_session() -> None:
    long_turn = [events.TurnStarted(SESSION, "hello", 1), events.TextDelta(SESSION, "Thinking it over"), 2.0]
    agent = SessionsAgent([[*long_turn, events.TurnFinished(SESSION, "Thinking it over")]])
    app = make_app(MODEL_CONFIG, agent=agent)
    seen: list[Message] = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await settle(pilot, app)
        await say(pilot, app, "hello")
        assert await pause_until(pilot, lambda: app.turn_running)
        await pilot.press("ctrl+n")
        transcript = app.main_screen.transcript
        said = lambda: [str(b.render()) for b in transcript.query(NoticeBlock)]  # noqa: E731
        assert await pause_until(pilot, lambda: any("ctrl+n" in n for n in said())), said()
        notice = next(n for n in said() if "ctrl+n" in n)
        assert "still working" in notice and "ctrl+c" in notice, notice
        assert agent.calls == [], "the turn goes on: no interrupt, no new session"
        await turn_done(pilot, app, seen, 1)
        assert transcript.last_reply == "Thinking it over"

        await pilot.press("ctrl+n")
        assert await pause_until(pilot, lambda: agent.calls == ["new_session"])

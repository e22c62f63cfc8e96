"""Background processes in the workstation (real agent, real scripted server, real shell, Pilot): a live
block in the transcript, `⚙ N running` in the status bar, and the palette lists and kills them."""

from __future__ import annotations

import secrets
from typing import Any

import yaml
from textual.message import Message

from tests.engine.test_terminal_processes import alive_with
from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    turn_done,
)
from widgets.process_block import ProcessBlock
from widgets.transcript_blocks import NoticeBlock

NAP = f"{600 + secrets.randbelow(10**6) / 10**7:.7f}"  # a sleep no other process on the machine has
SCENARIO = yaml.safe_dump(
    {
        "name": "processes",
        "model": "scripted",
        "defaults": {"chunk_size": 50, "chunk_delay": 0},
        "rules": [
            {
                "when": {"user": "^start (.+)", "after_tool": False},
                "reply": {
                    "tool_calls": [
                        {"name": "terminal", "arguments": {"command": "{{match.1}}", "background": True}}
                    ]
                },
            },
            {"when": {"after_tool": True}, "reply": {"text": "Started."}},
            {"reply": {"text": "ok"}},
        ],
    }
)
CONFIG = "review:\n  enabled: false\nmemory:\n  flush_min_turns: 0\nterminal:\n  kill_grace: 0.5\n"


def blocks(app: Any) -> list[str]:
    return [str(block.render()) for block in app.main_screen.transcript.query(ProcessBlock)]


def notices(app: Any) -> list[str]:
    return [str(block.render()) for block in app.main_screen.transcript.query(NoticeBlock)]


async def test_processes_show_live_and_the_palette_kills_one(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        main = app.main_screen
        await say(pilot, app, f"start echo serving; sleep {NAP}")
        await turn_done(pilot, app, seen, 1)
        await say(pilot, app, f"start sleep {NAP}1")
        await turn_done(pilot, app, seen, 2)
        assert await pause_until(pilot, lambda: main.status.state.processes == 2)
        assert "⚙ 2 running" in str(main.status.render())
        assert await pause_until(pilot, lambda: "serving" in " ".join(blocks(app)), rounds=400)
        first, second = blocks(app)
        assert first.startswith(f"⚙ p1 running · local · echo serving; sleep {NAP}") and "└ serving" in first
        assert second.startswith("⚙ p2 running")

        await pilot.press("ctrl+p", *"kill p1")
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        listed = [str(option.prompt) for option in app.screen.query_one("CommandList").options]
        assert any(f"process: kill p1 echo serving; sleep {NAP}" in text for text in listed), listed
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: main.status.state.processes == 1, rounds=600)
        assert await pause_until(pilot, lambda: any("p1 (`echo serving" in n for n in notices(app)))
        assert blocks(app)[0].startswith("⚙ p1 killed")
        assert not alive_with(f"sleep {NAP} ") and not alive_with(f"sleep {NAP}\0")
        assert alive_with(f"{NAP}1")
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0
    assert not alive_with(f"{NAP}1"), "quitting stops the processes still running"

"""The model's question in the workstation: a block the person answers with the arrow keys and enter,
a choice's digit, or words of their own; typing in the input never answers it.

The real agent on the scripted model server asks with `clarify`; the model's next call shows what the
person answered (its reply repeats the tool result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import Button, Input

from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    turn_done,
)
from tui import messages
from widgets.clarify_block import ClarifyBlock

SCENARIO = """
name: clarify
model: scripted
context_length: 32000
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Answer: {{last_tool_result}}"}
  - name: ask
    when: {user: "(?i)^set up", tools: [clarify]}
    reply:
      text: "One question first."
      tool_calls:
        - name: clarify
          arguments: {question: "Which database?", choices: ["PostgreSQL", "SQLite", "MySQL"]}
  - name: anything
    reply: {text: "You said {{last_user}}."}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def _reply(seen: list[Message]) -> str:
    return [m for m in seen if isinstance(m, messages.TurnFinished)][-1].event.text


async def _asked(pilot: Any, app: Any) -> ClarifyBlock:
    transcript = app.main_screen.transcript
    assert await pause_until(pilot, lambda: bool(transcript.query(ClarifyBlock)), rounds=400)
    return transcript.query_one(ClarifyBlock)


async def test_the_person_picks_a_choice_with_the_arrows_and_enter(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "set up the service")
        block = await _asked(pilot, app)
        main = app.main_screen
        await pilot.press("2", "x")  # typed while the input has the focus: text, not an answer
        await pilot.pause()
        assert main.prompt.text == "2x" and not block.future.done()
        await pilot.press("ctrl+o")
        assert isinstance(app.focused, Button) and block in app.focused.ancestors
        await pilot.press("right", "enter")
        await turn_done(pilot, app, seen, 1)
        assert block.answer_given == "SQLite" and block.has_class("-answered")
        assert '"answer": "SQLite"' in _reply(seen)
        assert app.focused is main.prompt.input and main.prompt.text == "2x"  # back where the person was


async def test_the_person_answers_in_their_own_words(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "set up the service")
        block = await _asked(pilot, app)
        await pilot.press("ctrl+o", "D", "u", "c", "k")  # a letter on the question goes into its answer box
        await pilot.pause()
        assert isinstance(app.focused, Input) and app.focused.value == "Duck" and not block.future.done()
        await pilot.press("1", "enter")  # in the box a digit is text
        await turn_done(pilot, app, seen, 1)
        assert block.answer_given == "Duck1"
        assert '"answer": "Duck1"' in _reply(seen)


async def test_leaving_it_to_the_model(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "set up the service")
        await _asked(pilot, app)
        await pilot.press("ctrl+o", "right", "right", "right", "enter")  # past the three choices
        await turn_done(pilot, app, seen, 1)
        assert "No person to ask; decide and say what you assumed." in _reply(seen)

"""Input while the agent works, as a person types it, against the scripted model (real agent, real home,
real state.db, the real terminal tool): enter queues, the queue is sent in order, one by one; a queued
message is edited or dropped; `/steer` reaches the model at the next tool boundary; `!ls` shows its
output and sends nothing; `!!ls` sends its output with the next message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    turn_done,
)
from tui import messages
from widgets.input_blocks import ShellBlock, SteerBlock
from widgets.transcript_blocks import NoticeBlock

SCENARIO = """
name: busy
model: scripted
defaults: {chunk_size: 50, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Busy day"}
  - name: after a tool
    when: {after_tool: true}
    reply: {text: "Done after the tool"}
  - name: wait
    when: {user: "(?i)^wait"}
    reply:
      text: "Working."
      tool_calls:
        - name: terminal
          arguments: {command: "while [ ! -e release ]; do sleep 0.05; done; echo released"}
  - name: echo
    reply: {text: "Answer to {{last_user}}"}
"""
CONFIG = "terminal:\n  sandbox: none\n"
# The turn's tool waits for the file `release` in the working folder: the turn runs exactly as long as
# the test takes to type (however loaded the machine), then ends when the test creates the file.


def release(app: Any) -> None:
    (app.workdir / "release").write_text("", encoding="utf-8")


async def tool_running(pilot: Any, seen: list[Message]) -> None:
    assert await pause_until(pilot, lambda: any(isinstance(m, messages.ToolCalled) for m in seen), rounds=600)


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def chats(model: Any) -> list[Any]:
    return [r for r in model.server.chat_requests if r.rule != "title"]


def last_users(model: Any) -> list[str]:
    """The last user message of each chat request, in the order the model got them."""
    found = []
    for request in chats(model):
        users = [m["content"] for m in request.messages if m["role"] == "user"]
        found.append(users[-1] if users else "")
    return found


def notices(app: Any) -> list[str]:
    return [b.text for b in app.main_screen.transcript.query(NoticeBlock)]


async def test_three_messages_queued_during_a_slow_turn_go_in_order(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for it")
        await tool_running(pilot, seen)
        for text in ("first queued", "second queued", "third queued"):
            await say(pilot, app, text)
        queued = app.main_screen.queued
        assert await pause_until(pilot, lambda: queued.option_count == 3)
        assert queued.display and app.turn_running and len(chats(scripted)) == 1
        release(app)
        await turn_done(pilot, app, seen, 4)
        users = last_users(scripted)
        assert users == ["wait for it", "wait for it", "first queued", "second queued", "third queued"]
        assert not queued.has_class("-shown") and app.main_screen.prompt.text == ""


async def test_a_queued_message_edited_and_one_dropped(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for it")
        await tool_running(pilot, seen)
        for text in ("keep me", "fix me", "drop me"):
            await say(pilot, app, text)
        queued = app.main_screen.queued
        assert await pause_until(pilot, lambda: queued.option_count == 3)
        await pilot.press("alt+up")  # from the input to the queue
        assert await pause_until(pilot, lambda: app.focused is queued)
        await pilot.press("down", "down", "delete")  # "drop me"
        assert await pause_until(pilot, lambda: queued.option_count == 2)
        assert queued.highlighted == 1  # the cursor stays on the last one: "fix me"
        await pilot.press("enter")  # "fix me" back into the input
        prompt = app.main_screen.prompt
        assert await pause_until(pilot, lambda: prompt.text == "fix me")
        assert app.focused is prompt.input and queued.option_count == 1
        await pilot.press("end", *", fixed", "enter")  # still busy: queued again, after "keep me"
        assert await pause_until(pilot, lambda: queued.option_count == 2)
        release(app)
        await turn_done(pilot, app, seen, 3)
        assert last_users(scripted) == ["wait for it", "wait for it", "keep me", "fix me, fixed"]
        assert any(n.startswith("Dropped the queued message “drop me”") for n in notices(app)), notices(app)


async def test_a_steer_reaches_the_model_at_the_next_tool_boundary(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for the tool")
        await tool_running(pilot, seen)
        await say(pilot, app, "/steer mind the logs")
        assert await pause_until(pilot, lambda: app.main_screen.queued.option_count == 1)  # the steer waits
        release(app)
        await turn_done(pilot, app, seen, 1)
        first, second = chats(scripted)
        assert "mind the logs" not in str(first.messages)
        roles = [(m["role"], m["content"]) for m in second.messages if m["role"] != "system"]
        assert [r for r, _c in roles] == ["user", "assistant", "tool", "user"]
        assert roles[-1] == ("user", "mind the logs")  # after the tool's result, before the next call
        steered = next(m.event for m in seen if isinstance(m, messages.TurnSteered))
        assert steered.message_id is not None
        blocks = list(app.main_screen.transcript.query(SteerBlock))
        assert [b.text for b in blocks] == ["mind the logs"]
        assert blocks[0].ref == (app.session_id, steered.message_id)
        assert len(chats(scripted)) == 2  # nothing was sent again after the turn


async def test_bang_ls_shows_output_and_sends_nothing(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        (app.workdir / "notes.txt").write_text("x", encoding="utf-8")
        await say(pilot, app, "!ls")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ShellBlock)), rounds=600)
        block = transcript.query_one(ShellBlock)
        assert block.event.ok and "notes.txt" in block.event.output and block.event.command == "ls"
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert chats(scripted) == [] and not app.turn_running
        await say(pilot, app, "hello there")
        await turn_done(pilot, app, seen, 1)
        assert len(chats(scripted)) == 1 and "notes.txt" not in str(chats(scripted)[0].messages)


async def test_bang_bang_ls_output_goes_with_the_next_message(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        (app.workdir / "notes.txt").write_text("x", encoding="utf-8")
        await say(pilot, app, "!!ls")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ShellBlock)), rounds=600)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert chats(scripted) == [] and transcript.query_one(ShellBlock).attached
        await say(pilot, app, "what is here?")
        await turn_done(pilot, app, seen, 1)
        sent = last_users(scripted)[0]
        assert sent.startswith("what is here?\n\nOutput of `ls`") and "notes.txt" in sent
        assert any(n == "Sent with the output of `ls`." for n in notices(app)), notices(app)
        await say(pilot, app, "and now?")
        await turn_done(pilot, app, seen, 2)
        assert last_users(scripted)[1] == "and now?"  # attached once


async def test_ctrl_c_interrupts_and_the_queue_waits_for_enter(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for it")
        await tool_running(pilot, seen)
        await say(pilot, app, "after the stop")
        queued = app.main_screen.queued
        assert await pause_until(pilot, lambda: queued.option_count == 1)
        await pilot.press("ctrl+c")
        await turn_done(pilot, app, seen, 1)
        assert await pause_until(pilot, lambda: any("stays queued" in n for n in notices(app))), notices(app)
        assert queued.option_count == 1 and len(chats(scripted)) == 1  # nothing was sent
        await pilot.press("enter")  # on the empty input: the next queued message goes
        await turn_done(pilot, app, seen, 2)
        assert last_users(scripted)[-1] == "after the stop" and queued.option_count == 0


async def test_busy_input_steer_makes_enter_steer_the_running_turn(scripted: Any) -> None:
    app = make_scripted_app(scripted, "agent:\n  busy_input: steer\n" + CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "wait for it")
        await tool_running(pilot, seen)
        await say(pilot, app, "a late thought")  # agent.busy_input: steer makes enter steer
        assert await pause_until(pilot, lambda: app.main_screen.queued.option_count == 1)
        release(app)
        await turn_done(pilot, app, seen, 1)
        # The tool's boundary came after the steer: the model got it in the same turn.
        assert last_users(scripted) == ["wait for it", "a late thought"]
        assert not any("before a tool boundary" in n for n in notices(app))


async def test_a_steer_while_your_own_shell_command_runs_says_no_agent_turn_runs_and_is_sent_after(
    scripted: Any,
) -> None:
    """`/steer` during a `!CMD`: it was taken for a steer of a turn ("steer, at the next tool boundary"),
    then said "The turn ended before a tool boundary" when no agent turn had run at all."""
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "!while [ ! -e release ]; do sleep 0.05; done; echo released")
        assert await pause_until(pilot, lambda: app.turn_running and bool(app.busy_input.shell_command))
        await say(pilot, app, "/steer a thought")
        said = "No agent turn is running (your `while [ ! -e release ]; do sleep 0.05; …` runs"
        assert await pause_until(pilot, lambda: any(n.startswith(said) for n in notices(app))), notices(app)
        assert any("queued and sent as a message when the command ends" in n for n in notices(app))
        queued = app.main_screen.queued
        assert queued.option_count == 1 and "steer" not in str(queued.get_option_at_index(0).prompt)
        release(app)
        await turn_done(pilot, app, seen, 1)
        assert last_users(scripted) == ["a thought"]  # sent as its own message once the command ended
        assert not any("before a tool boundary" in n for n in notices(app)), notices(app)
        assert not any(isinstance(m, messages.TurnSteered) for m in seen)

"""Big pastes in the workstation: a chip in the input, the whole text sent, a collapsed message in the
transcript, and the dialog for a message the model's window cannot hold.

Pastes arrive as Textual delivers them from a terminal's bracketed paste: an `events.Paste` posted to
the app, which hands it to the focused widget.
"""

from __future__ import annotations

from typing import Any

from textual import events as textual_events
from textual.message import Message

from tests.support.compression_support import pasted_log
from tests.support.tui_support import (
    MODEL_CONFIG,
    ScriptedAgent,
    agent_started,
    make_app,
    make_scripted_app,
    pause_until,
    settle,
    turn_done,
)
from tui import messages
from tui.screens.oversized import OversizedScreen
from widgets.transcript_blocks import NoticeBlock, UserBlock

PASTE = pasted_log(23_165)  # 2.1 MB: the paste


async def paste(pilot: Any, app: Any, text: str) -> None:
    app.post_message(textual_events.Paste(text))
    await pilot.pause()


async def test_a_big_paste_is_one_chip_and_the_whole_text_is_sent() -> None:
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press(*"what failed here? ")
        await paste(pilot, app, PASTE)

        assert prompt.text == "what failed here? [Pasted 23,165 lines · 2.1 MB]"
        assert prompt.input.size.height == 1, "the input does not grow by the paste's lines"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()

        assert agent.received == ["what failed here? " + PASTE]
        block = app.main_screen.transcript.query_one(UserBlock)
        assert block.text == "what failed here? " + PASTE, "nothing of the paste is lost"
        assert block.size.height <= 10, "the sent paste shows collapsed, not 23,165 lines"
        shown = str(block.render())
        assert "23,165 lines · 2.1 MB" in shown and "paste line 000000" in shown


async def test_a_short_paste_is_typed_text_and_a_chip_goes_whole() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test() as pilot:
        prompt = app.main_screen.prompt
        await paste(pilot, app, "two\nlines")
        assert prompt.text == "two\nlines"

        await pilot.press("ctrl+j")
        await paste(pilot, app, pasted_log(300))
        assert prompt.text.endswith("[Pasted 300 lines · 27 KB]")
        await pilot.press("backspace")
        assert prompt.text == "two\nlines\n", "backspace takes the chip whole, not its last character"


async def test_ctrl_g_puts_the_pasted_text_in_place_of_its_chip() -> None:
    log = pasted_log(300)
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test() as pilot:
        prompt = app.main_screen.prompt
        await pilot.press(*"see: ")
        await paste(pilot, app, log)
        await pilot.press(*" thanks")
        assert prompt.text == "see: [Pasted 300 lines · 27 KB] thanks"

        await pilot.press("ctrl+g")

        assert prompt.text == "see: " + log + " thanks"
        assert prompt.full_text == prompt.text


async def test_a_paste_while_a_pane_has_the_focus_goes_into_the_input_with_its_line_ends() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("f2")
        assert app.focused is not app.main_screen.prompt.input
        await paste(pilot, app, PASTE.replace("\n", "\r"))  # as terminals send line ends in a paste
        assert app.main_screen.prompt.text == "[Pasted 23,165 lines · 2.1 MB]"
        assert app.main_screen.prompt.full_text == PASTE
        assert app.focused is app.main_screen.prompt.input


async def test_a_long_message_in_the_transcript_expands_with_enter() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    log = pasted_log(400)
    async with app.run_test(size=(120, 36)) as pilot:
        await paste(pilot, app, log)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        block = app.main_screen.transcript.query_one(UserBlock)
        assert block.size.height <= 10
        await pilot.press("f1", "ctrl+up")
        assert app.main_screen.transcript.cursor is block
        await pilot.press("enter")
        await pilot.pause()
        assert block.expanded and block.size.height >= 400


# --- the dialog: a message the window cannot hold, with a real agent on the scripted model ----------

SCENARIO = """
model: scripted
context_length: 32000
rules:
  - when: {prompt_tokens_over: 32000}
    fault: {kind: context_length, limit: 32000}
  - when: {user: "saved to `([^`]+)`"}
    reply: {text: "I will read {{match.1}}."}
  - when: {user: "cut from the middle of this message"}
    reply: {text: "I see its start and its end."}
  - reply: {text: "You said {{last_user}}."}
"""


async def dialog_for_paste(pilot: Any, app: Any) -> OversizedScreen:
    await agent_started(pilot, app)
    app.main_screen.prompt.input.focus()
    await paste(pilot, app, PASTE)
    await pilot.press("enter")
    assert await pause_until(pilot, lambda: isinstance(app.screen, OversizedScreen), rounds=400)
    return app.screen  # type: ignore[no-any-return]


async def test_a_message_larger_than_the_window_asks_first_and_f_sends_a_saved_file(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        dialog = await dialog_for_paste(pilot, app)
        assert "32,000 tokens" in dialog.sentence and "23,165 lines" in dialog.sentence
        assert not any(isinstance(m, messages.TurnSubmitted) for m in seen), "sent before the person chose"

        await pilot.press("f")
        await turn_done(pilot, app, seen, 1)

        saved = list((app.workdir / ".hws" / "pastes").glob("paste-*.txt"))
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == PASTE
        assert app.main_screen.transcript.last_reply == f"I will read .hws/pastes/{saved[0].name}."
        notices = [n.text for n in app.main_screen.transcript.query(NoticeBlock)]
        assert any("was saved to" in text for text in notices)


async def test_escape_in_the_dialog_gives_the_message_back_as_a_chip(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await dialog_for_paste(pilot, app)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.main_screen.prompt.text == "[Pasted 23,165 lines · 2.1 MB]"
        assert app.main_screen.prompt.full_text == PASTE
        assert not any(isinstance(m, messages.TurnSubmitted) for m in seen)

        await pilot.press("enter")
        assert await pause_until(pilot, lambda: isinstance(app.screen, OversizedScreen), rounds=400)
        await pilot.press("c")
        await turn_done(pilot, app, seen, 1)
        assert app.main_screen.transcript.last_reply == "I see its start and its end."


async def test_sent_anyway_the_conversation_that_cannot_fit_is_said_once_in_the_context_bar(
    scripted: Any,
) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await dialog_for_paste(pilot, app)
        await pilot.press("s")
        await turn_done(pilot, app, seen, 1)
        main = app.main_screen
        assert main.status.state.overfull
        assert "too large for the window" in str(main.status.render())
        assert main.budget.overfull and "does not fit" in main.budget.render_table().plain
        too_large = [m for m in seen if isinstance(m, messages.ConversationTooLarge)]
        assert len(too_large) == 1

        # Sent again: refused again with a sentence, but no second notice and no compression.
        main.prompt.input.focus()
        await pilot.press("up", "enter")
        assert await pause_until(pilot, lambda: isinstance(app.screen, OversizedScreen), rounds=400)
        await pilot.press("s")
        await turn_done(pilot, app, seen, 2)
        assert len([m for m in seen if isinstance(m, messages.ConversationTooLarge)]) == 1
        assert len([m for m in seen if isinstance(m, messages.CompressionStarted)]) <= 1


async def test_a_paste_that_begins_with_a_slash_is_a_message_not_a_command() -> None:
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    listing = "".join(f"/usr/lib/python3/site-packages/module_{n}.py\n" for n in range(300))
    async with app.run_test() as pilot:
        await paste(pilot, app, listing)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.received == [listing]
        notices = [n.text for n in app.main_screen.transcript.query(NoticeBlock)]
        assert not any("is not a command" in text for text in notices)

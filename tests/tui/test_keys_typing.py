"""Typing always reaches the input: a pane with the focus never turns a letter into an action.

Pane actions sit on keys that cannot be typed text (function and control keys); a printable key
pressed while a pane has the focus goes to the input, character and all. The approval question is
the one exception: focused on purpose (ctrl+o), it swallows letters and answers with its digits.
Sending a message shows it: the transcript jumps to the newest output and follows the reply.
"""

from __future__ import annotations

import pytest
from textual.binding import Binding
from textual.keys import _character_to_key
from textual.widgets import Button

from engine import events
from tests.support.tui_support import (
    MODEL_CONFIG,
    SESSION,
    ScriptedAgent,
    make_app,
    pause_until,
    reply_events,
    settle,
)
from tui import messages
from tui.keys import bindings_of
from widgets.message_input import PromptInput
from widgets.transcript_blocks import ApprovalBlock, UserBlock


def key_of(char: str) -> str:
    return _character_to_key(char)


async def type_text(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*(key_of(char) for char in text))


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_typing_after_f1_lands_in_the_input_and_hides_nothing(size: tuple[int, int]) -> None:
    """After F1, typing `hello` hid the transcript (`h`) and the rest of the word was lost."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=size) as pilot:
        main = app.main_screen
        await pilot.press("f1")
        await pilot.pause()
        assert main.transcript.has_focus
        await type_text(pilot, "hello")
        await pilot.pause()
        assert main.prompt.text == "hello"
        assert isinstance(app.focused, PromptInput)
        assert not main.pane("transcript").collapsed and main.maximized is None


async def test_text_pasted_while_a_pane_has_the_focus_goes_to_the_input() -> None:
    from textual import events as textual_events

    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f2")
        await pilot.pause()
        app.post_message(textual_events.Paste("a pasted line\nand another"))
        await pilot.pause()
        await pilot.pause()
        assert main.prompt.text == "a pasted line\nand another"
        assert isinstance(app.focused, PromptInput)


@pytest.mark.parametrize("key", ["f1", "f2", "f3", "f4", "f5"])
async def test_every_letter_typed_in_a_pane_goes_to_the_input_with_its_character(key: str) -> None:
    """The old pane keys (z zoom, h hide, y copy, u undo, ? keys, G follow, space expand) are text now."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press(key)
        await pilot.pause()
        assert not main.prompt.input.has_focus
        typed = "zhuy? Gq1 ok"
        await type_text(pilot, typed)
        await pilot.pause()
        assert main.prompt.text == typed
        assert main.maximized is None
        assert not any(pane.collapsed for pane in main.panes())
        assert app.screen is main  # `?` opened the keys screen over the input before


async def test_in_the_folded_layout_typing_in_a_side_pane_brings_the_conversation_back() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main_screen
        await pilot.press("f3")
        await pilot.pause()
        assert main.shown == "budget"
        await type_text(pilot, "why")
        await pilot.pause()
        assert main.prompt.text == "why" and main.shown == "transcript"


async def test_pane_actions_have_keys_that_cannot_be_typed() -> None:
    """f10 zooms, f9 hides, ctrl+y copies, end follows; none of them is a letter any more."""
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f3", "f10")
        await pilot.pause()
        assert main.maximized is main.budget
        await pilot.press("f10")
        await pilot.pause()
        assert main.maximized is None
        await pilot.press("f2", "f9")
        await pilot.pause()
        assert main.memory.collapsed and main.memory.has_focus
        await pilot.press("f9")
        await pilot.pause()
        assert not main.memory.collapsed and main.memory.has_focus_within


def test_no_pane_or_main_screen_binding_is_a_key_that_types_text() -> None:
    """One rule for every pane: a printable key is text. (The approval question consumes its digits
    while it has the focus, so it is the one place a digit is an answer.)"""
    from tui.app import HwsApp

    classes = HwsApp.binding_classes()
    for where in ("app", "main screen", "any pane", "transcript", "memory pane"):
        for binding in bindings_of(classes[where]):
            assert isinstance(binding, Binding)
            for key in binding.key.split(","):
                key = key.strip()
                assert len(key) > 1 and key not in ("space", "question_mark"), (where, binding.id, key)


def approval_turn() -> list[events.Event | float]:
    return [
        events.ToolCalled(SESSION, "c1", "terminal", {"command": "rm -rf build"}, "rm -rf build"),
        events.ApprovalNeeded(SESSION, "req-1", "terminal", "rm -rf build", "deletes files"),
        events.ToolFinished(SESSION, "c1", "terminal", False, "declined", 0.2),
        events.TurnFinished(SESSION, "ok"),
    ]


async def test_a_question_that_arrives_while_the_transcript_has_the_focus_takes_no_typed_letter() -> None:
    agent = ScriptedAgent([approval_turn()])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await type_text(pilot, "clean")
        await pilot.press("enter", "f1")
        transcript = main.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
        await type_text(pilot, "123 wait")
        await pilot.pause()
        assert main.prompt.text == "123 wait"
        assert agent.answers == [] and app.turn_running


async def test_the_focused_question_still_swallows_letters_and_answers_with_a_digit() -> None:
    agent = ScriptedAgent([approval_turn()])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await type_text(pilot, "clean")
        await pilot.press("enter")
        transcript = main.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
        await pilot.press("ctrl+o")
        assert isinstance(app.focused, Button)
        await type_text(pilot, "hz")
        await pilot.pause()
        assert main.prompt.text == "" and isinstance(app.focused, Button)
        assert main.maximized is None and not main.pane("transcript").collapsed
        await pilot.press("3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.answers == [("req-1", "deny")]
        await type_text(pilot, "ok")
        assert main.prompt.text == "ok"


async def test_a_letter_rebound_to_a_pane_action_by_the_person_still_acts() -> None:
    """The keymap is the person's: a letter they bind on purpose is theirs (the default has none)."""
    app = make_app(MODEL_CONFIG + "keys:\n  zoom_pane: Z\n")
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        await pilot.press("f3", "Z")
        await pilot.pause()
        assert main.maximized is main.budget and main.prompt.text == ""


async def test_sending_while_scrolled_up_jumps_to_the_message_and_follows_the_reply() -> None:
    """Scrolled up to read, then sent: the message and its reply stayed off-screen below."""
    reply = "\n\n".join(f"Paragraph {n} of the answer." for n in range(3))
    agent = ScriptedAgent([[0.05, *reply_events(reply, 6), events.TurnFinished(SESSION, reply)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.main_screen
        transcript = main.transcript
        for index in range(80):
            main.post_message(messages.Notice(f"line {index}"))
        await pilot.pause()
        await pilot.press("f1", "home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.press("escape")
        await type_text(pilot, "next question")
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: bool(transcript.query(UserBlock)))
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y)
        assert transcript.max_scroll_y > 0
        assert not main.pane("transcript").has_class("-new-output")
        top = transcript.query_one(UserBlock).virtual_region.y
        assert transcript.scroll_y <= top < transcript.scroll_y + transcript.size.height  # on screen
        assert "Paragraph 2" in transcript.last_reply

"""The model's question to the person (`clarify`): its choices as buttons, and a box for an answer of
one's own. The answer resolves the engine's Future, as an approval's does.

Typing-safe like the approval question: it never takes the focus by itself (the person may be
typing), so keys meant for the input never answer it. `ctrl+o` moves to it; then ←/→ (or ↑/↓) and
enter, or a choice's digit; a letter typed there goes into the answer box, and only enter sends it.
"Let the model decide" answers nothing, and the model is told to decide and say what it assumed.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Key
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from widgets.question_block import QuestionBlock

if TYPE_CHECKING:
    from engine import events

DECIDE = "let the model decide"


class ClarifyBlock(QuestionBlock):
    DEFAULT_CSS = """
    ClarifyBlock {
        height: auto;
        width: 1fr;
        margin: 1 1 0 3;
        padding: 0 1;
        border: round $accent;
    }
    ClarifyBlock:focus-within { border: heavy $accent; }
    ClarifyBlock > .clarify-question { width: 1fr; height: auto; }
    ClarifyBlock > Horizontal { height: auto; width: 1fr; }
    ClarifyBlock Button { margin-right: 1; min-width: 6; }
    ClarifyBlock > Input { width: 1fr; margin-top: 1; }
    ClarifyBlock > .clarify-hint { width: 1fr; height: auto; color: $text-muted; }
    ClarifyBlock.-answered { border: round $panel; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"choose({n})", f"answer choice {n}", show=False) for n in range(1, 5)),
        Binding("left,up", "move(-1)", "previous answer", show=False),
        Binding("right,down", "move(1)", "next answer", show=False),
    ]

    class Answered(Message):
        """The person answered (posted for the message flow; the Future carries the answer)."""

        def __init__(self, request_id: str, answer: str, focus_before: Widget | None = None) -> None:
            super().__init__()
            self.request_id = request_id
            self.answer = answer
            self.focus_before = focus_before

    def __init__(self, event: events.ClarifyNeeded, future: asyncio.Future[str]) -> None:
        super().__init__(future)
        self.event = event
        self.answer_given: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(("question ", "bold $accent"), self.event.question), classes="clarify-question"
        )
        with Horizontal(classes="clarify-buttons"):
            for n, choice in enumerate(self.event.choices, 1):
                yield Button(f"{n} {choice}", id=f"choice-{n}", variant="primary", compact=True)
            yield Button(DECIDE, id="choice-decide", compact=True)
        yield Input(
            placeholder="or your own answer, then enter", classes="clarify-own", select_on_focus=False
        )
        yield Static(
            "ctrl+o to answer, then ←/→ and enter, a digit, or type an answer", classes="clarify-hint"
        )

    def first_stop(self) -> Widget:
        return self.query_one(Button)

    def on_key(self, event: Key) -> None:
        box = self.query_one(Input)
        character = event.character
        if self.app.focused is box or character is None or not character.isprintable():
            return
        if character.isdigit() and 1 <= int(character) <= len(self.event.choices):
            return  # a choice's digit: the binding answers
        event.stop()
        event.prevent_default()
        box.focus()
        box.insert_text_at_cursor(character)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        which = (event.button.id or "").removeprefix("choice-")
        self.answer("" if which == "decide" else self.event.choices[int(which) - 1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.answer(event.value.strip())

    def action_choose(self, number: int) -> None:
        if self.app.focused is not self.query_one(Input) and 1 <= number <= len(self.event.choices):
            self.answer(self.event.choices[number - 1])

    def action_move(self, step: int) -> None:
        self.move_among([*self.query(Button), self.query_one(Input)], step)

    def answer(self, text: str) -> None:
        """Answer with `text` ("" lets the model decide)."""
        if self.resolve(text):
            self.post_message(self.Answered(self.event.request_id, text, self.focus_before))

    def settle(self) -> None:
        answer = "" if self.future.cancelled() else self.future.result()
        self.answer_given = answer
        self.add_class("-answered")
        for part in self.query(".clarify-buttons, .clarify-own, .clarify-hint"):
            part.remove()
        self.query_one(".clarify-question", Static).update(_said(self.event.question, answer))

    def copy_text(self) -> str:
        return self.event.question


def _said(question: str, answer: str) -> Content:
    if answer:
        return Content.assemble(("✓ ", "bold"), question, "\n", ("answered: ", "dim"), answer)
    return Content.assemble(("– ", "bold"), question, "\n", ("left to the model to decide", "dim"))

"""A read-only text screen: a skill's SKILL.md (as Markdown), a journal entry's diff. Esc closes it.

(Editing files is the editor screen's job.)
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from widgets.pane import PaneHeader


class TextScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TextScreen {
        align: center middle;
    }
    TextScreen > #text-frame {
        width: 90%;
        height: 90%;
        border: round $primary;
        background: $surface;
    }
    TextScreen #text-body {
        height: 1fr;
        border: none;
    }
    TextScreen #text-note {
        height: 1;
        color: $text-muted;
        padding: 0 1;
    }
    TextScreen #text-problems {
        height: auto;
        max-height: 6;
        color: $warning;
        padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "close", id="close_text", tooltip="Close the text view"),
    ]

    NOTES: ClassVar[dict[str, str]] = {
        "diff": "read-only · - before the write, + after it · esc closes",
        "markdown": "read-only · esc closes · the editor (ctrl+e) edits files",
    }

    def __init__(
        self, title: str, text: str, kind: str = "text", edit_name: str = "", problems: tuple[str, ...] = ()
    ) -> None:
        """`kind`: "markdown" is highlighted, "diff" explains its marks, anything else is plain.

        `edit_name`: the file ctrl+e opens in the editor (beside SOUL.md) from this view, e.g. a skill.
        `problems`: what is wrong with the file (a skill's frontmatter warnings), above its text.
        """
        super().__init__()
        self.title_text = title
        self.text = text
        self.kind = kind
        self.edit_name = edit_name
        self.problems = problems

    def compose(self) -> ComposeResult:
        with Vertical(id="text-frame"):
            yield PaneHeader(Content.assemble(("▾ ", "dim"), (self.title_text, "bold")))
            if self.problems:
                yield Static("\n".join(f"! {problem}" for problem in self.problems), id="text-problems")
            area = TextArea(self.text, read_only=True, id="text-body", soft_wrap=True, show_line_numbers=True)
            if self.kind in area.available_languages:
                area.language = self.kind
            yield area
            note = self.NOTES.get(self.kind, "read-only · esc closes")
            if self.edit_name:
                note = "read-only · esc closes · ctrl+e edits it beside SOUL.md"
            yield Static(note, id="text-note")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

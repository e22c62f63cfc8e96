"""The input: multi-line, enter sends, shift+enter / ctrl+j add a line, history, slash completion.

The widget only holds text and data it is given (the slash commands, the skill names); what a sent
line does is decided by the app, which receives `PromptBox.Submitted`. A long paste becomes a chip
(`widgets/paste_chips.py`): one label in the input, the full text in what is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from widgets.paste_chips import PasteChips, PasteLimits, pasted_text


@dataclass(frozen=True)
class SlashCommand:
    """One completion: `/name`, a hint of its arguments, and what it does."""

    name: str
    help: str
    args: str = ""
    kind: str = "command"  # command | skill | mcp (an MCP server's prompt) | resource (`@server:name`)

    @property
    def text(self) -> str:
        return f"@{self.name}" if self.kind == "resource" else f"/{self.name}"


def matching_commands(commands: Iterable[SlashCommand], typed: str, limit: int = 50) -> list[SlashCommand]:
    """Commands whose name starts with what was typed after `/`, then those that contain it."""
    word = typed.removeprefix("/").lower()
    starts = [c for c in commands if c.name.lower().startswith(word)]
    inside = [c for c in commands if word and word in c.name.lower() and c not in starts]
    return (starts + inside)[:limit]


class PromptInput(TextArea):
    """The multi-line editor of the prompt; its keys are bindings with ids, so they can be rebound."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 1;
        max-height: 10;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    PromptInput:focus {
        border: none;
        background: $boost;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "send", id="send", priority=True),
        Binding("shift+enter,ctrl+j", "newline", "new line", id="newline", priority=True),
        Binding("up", "history_previous", "previous input", id="history_previous", priority=True, show=False),
        Binding("down", "history_next", "next input", id="history_next", priority=True, show=False),
        Binding("tab", "complete", "complete", id="complete", priority=True, show=False),
        Binding(
            "ctrl+g",
            "expand_paste",
            "expand paste / $EDITOR",
            id="expand_paste",
            tooltip="Put the pasted text of the chip at the cursor into the input, to read or edit it; "
            "with no chip in the draft, edit the draft in $EDITOR (as alt+e)",
        ),
        Binding(
            "alt+enter",
            "steer",
            "steer",
            id="steer",
            priority=True,
            tooltip="Add the message to the running turn at its next tool boundary (as /steer does)",
        ),
        Binding(
            "alt+e",
            "edit_draft",
            "$EDITOR",
            id="edit_draft",
            tooltip="Edit the draft in $EDITOR (hws waits; the text comes back into the input)",
            priority=True,  # a terminal's alt+e carries the character "e", which the text area would type
        ),
        Binding(
            "alt+up",
            "focus_queue",
            "queued messages",
            id="focus_queue",
            tooltip="Move to the messages queued while a turn runs (enter edits one, delete drops it)",
        ),
        Binding(
            "escape",
            "hide_completions",
            "close completions",
            id="close_completions",
            priority=True,
            show=False,
        ),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        box = self.box
        if box is None:
            return True
        if action in ("complete", "hide_completions"):
            return box.completions_shown
        return True

    @property
    def box(self) -> PromptBox | None:
        parent = self.parent
        return parent if isinstance(parent, PromptBox) else None

    # A priority binding runs the moment its key arrives, while the keys typed just before it may
    # still wait in this widget's queue (typing fast, pasting, or a busy machine): "hello" + enter
    # sent "h". So enter and shift+enter act from the back of that queue, after those keys.

    def action_submit(self) -> None:
        self.call_later(self._submit)

    def _submit(self) -> None:
        if self.box is not None:
            self.box.submit()

    def action_steer(self) -> None:
        self.call_later(self._steer)

    def _steer(self) -> None:
        if self.box is not None:
            self.box.submit(steer=True)

    def action_edit_draft(self) -> None:
        if self.box is not None:
            self.post_message(PromptBox.DraftEditRequested(self.box.full_text))

    def action_focus_queue(self) -> None:
        self.post_message(PromptBox.QueueWanted())

    def action_newline(self) -> None:
        self.call_later(self._newline)

    def _newline(self) -> None:
        start, end = self.selection
        self._replace_via_keyboard("\n", start, end)

    # Up and down walk the history only from the first or last row: inside a text of several lines
    # they move the cursor, as in any editor. (These bindings replace TextArea's own up and down, so
    # a disabled binding would not fall back to them: the cursor stayed put.)

    def action_history_previous(self) -> None:
        box = self.box
        if box is not None and (
            box.completions_shown or self.navigator.is_first_wrapped_line(self.cursor_location)
        ):
            box.step(-1)
        else:
            self.action_cursor_up()

    def action_history_next(self) -> None:
        box = self.box
        if box is not None and (
            box.completions_shown or self.navigator.is_last_wrapped_line(self.cursor_location)
        ):
            box.step(1)
        else:
            self.action_cursor_down()

    # Pastes: a long one becomes a chip; a chip is deleted whole, and ctrl+g puts its text in its place.

    async def _on_paste(self, event: events.Paste) -> None:
        box = self.box
        if box is None or self.read_only or not box.paste_limits.is_long(pasted_text(event.text)):
            return  # TextArea's own handler inserts it
        event.prevent_default()
        event.stop()
        box.paste(event.text)

    def insert_at_cursor(self, text: str) -> None:
        if result := self._replace_via_keyboard(text, *self.selection):
            self.move_cursor(result.end_location)

    def _chip_around(self, before: bool) -> tuple[tuple[int, int], tuple[int, int], str] | None:
        """The chip the cursor touches (ending at it when `before`, starting at it otherwise)."""
        box = self.box
        start, end = self.selection
        if box is None or start != end:
            return None
        row, column = end
        found = box.chips.at(self.document.get_line(row), column)
        if found is None:
            return None
        offset, label = found
        if (before and column == offset) or (not before and column == offset + len(label)):
            return None
        return (row, offset), (row, offset + len(label)), label

    def action_delete_left(self) -> None:
        chip = self._chip_around(before=True)
        if chip is None:
            super().action_delete_left()
        else:
            self._replace_via_keyboard("", chip[0], chip[1])

    def action_delete_right(self) -> None:
        chip = self._chip_around(before=False)
        if chip is None:
            super().action_delete_right()
        else:
            self._replace_via_keyboard("", chip[0], chip[1])

    def action_expand_paste(self) -> None:
        box = self.box
        if box is None:
            return
        chip = self._chip_around(before=True) or self._chip_around(before=False)
        if chip is None:
            labels = box.chips.labels_in(self.text)
            if not labels:  # no paste to open: the draft itself goes to $EDITOR, as alt+e does
                self.action_edit_draft()
                return
            offset, label = labels[-1]
            start = self.document.get_location_from_index(offset)
            chip = (start, self.document.get_location_from_index(offset + len(label)), label)
        start, end, label = chip
        result = self.replace(box.chips.texts[label], start, end, maintain_selection_offset=False)
        self.move_cursor(result.end_location)

    def action_complete(self) -> None:
        if self.box is not None:
            self.box.accept_completion()

    def action_hide_completions(self) -> None:
        if self.box is not None:
            self.box.hide_completions()


class PromptBox(Vertical):
    """The prompt with its completion list above it."""

    DEFAULT_CSS = """
    PromptBox {
        height: auto;
        width: 1fr;
        border-top: solid $panel;
    }
    PromptBox > OptionList {
        height: auto;
        max-height: 8;
        display: none;
        border: none;
        padding: 0;
        background: $panel;
    }
    PromptBox.-completing > OptionList {
        display: block;
    }
    """

    class Submitted(Message):
        """The user sent the text (enter); `text` is what is sent (chips expanded), `draft` what the
        input showed (with its chips)."""

        def __init__(self, text: str, draft: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.draft = text if draft is None else draft

    class SteerSubmitted(Message):
        """alt+enter: the text is for the running turn, at its next tool boundary (`/steer`)."""

        def __init__(self, text: str, draft: str) -> None:
            super().__init__()
            self.text = text
            self.draft = draft

    class EmptySubmitted(Message):
        """Enter on the empty input (it sends the next queued message, if any waits)."""

    class DraftEditRequested(Message):
        """The person wants the draft (`text`, chips expanded) in $EDITOR."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class QueueWanted(Message):
        """The person wants to move to the queued messages."""

    def __init__(
        self,
        commands: Sequence[SlashCommand] = (),
        *,
        placeholder: str = "",
        history_size: int = 500,
        max_lines: int = 8,
        paste_limits: PasteLimits | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.paste_limits = paste_limits or PasteLimits()
        self.chips = PasteChips()
        self._sent: tuple[str, str] = ("", "")  # the last (text, draft) sent, to put back as it was
        self.commands: list[SlashCommand] = list(commands)
        self.skill_commands: list[SlashCommand] = []
        self.resources: list[SlashCommand] = []  # `@server:name` of the MCP servers' resources
        self._completion_base = ""  # the text before the word a completion replaces (`@` references)
        self.placeholder = placeholder
        self.history_size = history_size
        self.max_lines = max_lines
        self.history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self._shown: list[SlashCommand] = []
        self._accepted: str | None = None

    def compose(self) -> ComposeResult:
        editor = PromptInput(
            "",
            soft_wrap=True,
            show_line_numbers=False,
            highlight_cursor_line=False,
            tab_behavior="focus",
            placeholder=self.placeholder,
            compact=True,
            id="prompt-input",
        )
        editor.styles.max_height = self.max_lines
        yield editor

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def completions(self) -> OptionList:
        """The completion list, mounted the first time it is needed (not at start-up)."""
        found = self.query("#completions")
        if found:
            return found.first(OptionList)
        options = OptionList(id="completions")
        self.mount(options, before=0)
        return options

    @property
    def completions_shown(self) -> bool:
        return self.has_class("-completing")

    @property
    def text(self) -> str:
        """What the input shows (a long paste as its chip)."""
        return self.input.text

    @property
    def full_text(self) -> str:
        """What would be sent: the input's text with every chip replaced by its paste."""
        return self.chips.expand(self.input.text)

    def set_text(self, text: str) -> None:
        """Put `text` in the input (a long text as one chip)."""
        self._load(self.chips.add(text) if self.paste_limits.is_long(text) else text)

    def _load(self, text: str) -> None:
        editor = self.input
        editor.load_text(text)
        last = editor.document.line_count - 1
        editor.move_cursor((last, len(editor.document.get_line(last))))

    def restore(self, text: str) -> None:
        """Put back a message that could not be sent: as the input showed it when it was the last sent."""
        sent, draft = self._sent
        if text == sent:
            self._load(draft)
        else:
            self.set_text(text)

    def paste(self, text: str) -> None:
        """Insert pasted `text` at the cursor: a chip when it is long.

        Terminals send a paste's line ends as carriage returns (as if enter were typed); they are
        line feeds again here, as the input's own lines are.
        """
        text = pasted_text(text)
        editor = self.input
        editor.insert_at_cursor(self.chips.add(text) if self.paste_limits.is_long(text) else text)
        editor.focus()

    def set_placeholder(self, text: str) -> None:
        self.placeholder = text
        self.input.placeholder = text

    def set_resources(self, resources: Iterable[SlashCommand]) -> None:
        """The `@server:name` references the input completes (the MCP servers' resources)."""
        self.resources = sorted(resources, key=lambda c: c.name)

    def set_skill_commands(self, skills: Iterable[SlashCommand]) -> None:
        """The `/<skill-name>` entries, filled by the skills provider."""
        self.skill_commands = sorted(skills, key=lambda c: c.name)
        self._refresh_completions()

    def clear(self) -> None:
        self.set_text("")
        self._history_index = None
        self.hide_completions()

    def submit(self, steer: bool = False) -> None:
        if self.completions_shown and self._completion_differs():
            self.accept_completion()
            return
        draft = self.text
        if not draft.strip():
            self.post_message(self.EmptySubmitted())
            return
        text = self.chips.expand(draft)
        self.remember(draft)
        self.clear()
        self._sent = (text, draft)
        self.post_message(self.SteerSubmitted(text, draft) if steer else self.Submitted(text, draft))

    def remember(self, text: str) -> None:
        if self.history_size <= 0:
            return
        if not self.history or self.history[-1] != text:
            self.history.append(text)
        del self.history[: -self.history_size]

    def step(self, direction: int) -> None:
        """Move the completion highlight, or through the history (up older, down newer)."""
        if self.completions_shown:
            options = self.completions
            if direction < 0:
                options.action_cursor_up()
            else:
                options.action_cursor_down()
            return
        if not self.history:
            return
        if self._history_index is None:
            if direction > 0:
                return
            self._draft = self.text
            index = len(self.history) - 1
        else:
            index = self._history_index + direction
        if index >= len(self.history):
            self._history_index = None
            self._load_quietly(self._draft)
            return
        index = max(0, index)
        self._history_index = index
        self._load_quietly(self.history[index])

    def _load_quietly(self, text: str) -> None:
        self._load(text)  # a history entry holds its chips already
        self.hide_completions()

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        index = self._history_index
        if index is not None and 0 <= index < len(self.history) and self.text == self.history[index]:
            return  # the change is the recall itself; keep the place in the history
        self._history_index = None
        self._refresh_completions()

    def _all_commands(self) -> list[SlashCommand]:
        return self.commands + self.skill_commands

    def _refresh_completions(self) -> None:
        text = self.text
        if text == self._accepted:
            return  # the text a completion just wrote: keep the list closed
        self._accepted = None
        self._completion_base = ""
        word = text.rsplit(None, 1)[-1] if text.strip() and not text[-1].isspace() else ""
        if word.startswith("@") and len(word) > 1 and self.resources:
            self._completion_base = text[: len(text) - len(word)]
            shown = [r for r in self.resources if r.text.lower().startswith(word.lower())][:50]
        elif not text.startswith("/") or any(ch.isspace() for ch in text):
            self.hide_completions()
            return
        else:
            shown = matching_commands(self._all_commands(), text)
        if not shown:
            self.hide_completions()
            return
        self._shown = shown
        options = self.completions
        options.clear_options()
        options.add_options(Option(_completion_label(c)) for c in shown)
        options.highlighted = 0
        self.add_class("-completing")

    def hide_completions(self) -> None:
        self._shown = []
        self.remove_class("-completing")

    def _completion_differs(self) -> bool:
        chosen = self._chosen()
        return chosen is not None and self._completion_base + chosen.text != self.text.strip()

    def _chosen(self) -> SlashCommand | None:
        index = self.completions.highlighted
        if index is None or not 0 <= index < len(self._shown):
            return None
        return self._shown[index]

    def accept_completion(self) -> None:
        chosen = self._chosen()
        if chosen is None:
            return
        spaced = chosen.args or chosen.kind in ("skill", "mcp", "resource")
        text = self._completion_base + chosen.text + (" " if spaced else "")
        self._accepted = text
        self.set_text(text)
        self.hide_completions()
        self.input.focus()

    @on(OptionList.OptionSelected, "#completions")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.completions.highlighted = event.option_index
        self.accept_completion()


def _completion_label(command: SlashCommand) -> Content:
    return Content.assemble(
        (command.text, "bold"),
        (f" {command.args}" if command.args else "", "italic"),
        ("  ", ""),
        (command.help, "dim"),
        (
            {"skill": "  skill", "mcp": "  mcp prompt", "resource": "  mcp resource"}.get(command.kind, ""),
            "$accent",
        ),
    )

"""One file open for editing: a title line, a code editor (highlighting, line numbers, undo) and its checks.

The widget never reads or writes the file: its screen loads a buffer into it, asks it for the text to
save, and tells it what happened (`saved`, `refused`, `disk_changed`). Checks of the buffer (memory
usage, frontmatter, the guard) come from the screen too, shortly after each change, so the usage
line follows the typing without the typing waiting for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static, TextArea

if TYPE_CHECKING:
    from engine.edit_checks import CheckResult

MAX_PROBLEMS_SHOWN = 3


class FileEditor(Vertical, can_focus=False):
    """A titled editor for one file (or an empty slot that says how to open one)."""

    DEFAULT_CSS = """
    FileEditor {
        height: 1fr;
        width: 1fr;
    }
    FileEditor > .file-title {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    FileEditor:focus-within > .file-title {
        background: $primary 40%;
        color: $text;
        text-style: bold;
    }
    FileEditor > TextArea {
        height: 1fr;
        border: none;
        padding: 0;
    }
    FileEditor > TextArea:focus {
        border: none;
    }
    FileEditor > .file-empty {
        height: 1fr;
        content-align: center middle;
        color: $text-muted;
        text-style: italic;
    }
    FileEditor > .file-usage, FileEditor > .file-problems, FileEditor > .file-note {
        height: auto;
        max-height: 4;
        padding: 0 1;
        background: $panel;
    }
    FileEditor > .file-note.-warning { color: $warning; }
    FileEditor > .file-note.-error { color: $error; }
    FileEditor > .file-note.-ok { color: $success; }
    """

    modified: reactive[bool] = reactive(False, layout=False)
    disk_differs: reactive[bool] = reactive(False, layout=False)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "save", id="editor_save", tooltip="Save through the engine"),
        Binding(
            "ctrl+g",
            "external",
            "$EDITOR",
            id="editor_external",
            tooltip="Edit this file in $VISUAL / $EDITOR (the workstation suspends until it exits)",
        ),
        Binding(
            "ctrl+t",
            "move",
            "beside transcript",
            id="editor_beside",
            tooltip="Move this file beside the live transcript (and back)",
        ),
        Binding(
            "ctrl+home", "file_edge(-1)", "file start", id="editor_file_start", tooltip="To the file's start"
        ),
        Binding("ctrl+end", "file_edge(1)", "file end", id="editor_file_end", tooltip="To the file's end"),
        Binding(
            "ctrl+shift+home",
            "file_edge(-1, True)",
            "select to start",
            id="editor_select_start",
            tooltip="Select to the file's start",
        ),
        Binding(
            "ctrl+shift+end",
            "file_edge(1, True)",
            "select to end",
            id="editor_select_end",
            tooltip="Select to the file's end",
        ),
    ]

    class MoveRequested(Message):
        """ctrl+t: the file moves between the editor screen and the side of the live transcript."""

        def __init__(self, editor: FileEditor) -> None:
            super().__init__()
            self.editor = editor

    class SaveRequested(Message):
        """ctrl+s: the screen checks and saves the buffer through the file's store."""

        def __init__(self, editor: FileEditor) -> None:
            super().__init__()
            self.editor = editor

    class ExternalRequested(Message):
        """ctrl+g: the screen hands the buffer to the person's own editor and takes the result back."""

        def __init__(self, editor: FileEditor) -> None:
            super().__init__()
            self.editor = editor

    class Changed(Message):
        """The buffer changed (the screen re-checks it after a short pause)."""

        def __init__(self, editor: FileEditor) -> None:
            super().__init__()
            self.editor = editor

    def __init__(self, *, id: str | None = None, empty_hint: str = "ctrl+o opens a file here") -> None:
        super().__init__(id=id)
        self.target: Any = None  # the engine's EditTarget; opaque here
        self.label = ""
        self.language: str | None = None
        self.base_digest = ""
        self.loaded_text = ""
        self.check: CheckResult | None = None
        self.empty_hint = empty_hint

    def compose(self) -> ComposeResult:
        yield Static(self._title(), classes="file-title")
        yield Static(self.empty_hint, classes="file-empty")
        editor = TextArea.code_editor(
            "", language=None, soft_wrap=True, tab_behavior="focus", show_line_numbers=True
        )
        editor.display = False
        yield editor
        yield Static("", classes="file-usage")
        yield Static("", classes="file-problems")
        yield Static("", classes="file-note")

    def on_mount(self) -> None:
        for name in ("file-usage", "file-problems", "file-note"):
            self.query_one(f".{name}").display = False

    def action_save(self) -> None:
        if self.has_file:
            self.post_message(self.SaveRequested(self))

    def action_move(self) -> None:
        if self.has_file:
            self.post_message(self.MoveRequested(self))

    def action_external(self) -> None:
        if self.has_file:
            self.post_message(self.ExternalRequested(self))

    def action_file_edge(self, direction: int, select: bool = False) -> None:
        """ctrl+home / ctrl+end: the cursor to the file's first or last character (with shift: selecting)."""
        area = self.area
        area.move_cursor(area.document.start if direction < 0 else area.document.end, select=select)

    # -- what the screen reads --------------------------------------------------------------------

    @property
    def area(self) -> TextArea:
        return self.query_one(TextArea)

    @property
    def text(self) -> str:
        return self.area.text

    @property
    def has_file(self) -> bool:
        return self.target is not None

    # -- what the screen tells it -----------------------------------------------------------------

    def open(self, target: Any, label: str, language: str | None, text: str, digest: str) -> None:
        """Show a freshly loaded file (the undo history starts here)."""
        self.target = target
        self.label = label
        self.language = language
        self.base_digest = digest
        self.loaded_text = text
        self.check = None
        area = self.area
        area.language = language if language in area.available_languages else None
        area.load_text(text)
        area.display = True
        self.query_one(".file-empty").display = False
        self.disk_differs = False
        self.modified = False
        self.note("")
        self.show_check(None)
        self._refresh_title()

    def close(self) -> None:
        self.target = None
        self.label = ""
        self.area.load_text("")
        self.area.display = False
        self.query_one(".file-empty").display = True
        self.modified = False
        self.disk_differs = False
        self.note("")
        self.show_check(None)
        self._refresh_title()

    def replace_text(self, text: str) -> None:
        """Put `text` in the buffer as one edit (ctrl+z brings back what was there)."""
        area = self.area
        if area.text != text:
            area.replace(text, area.document.start, area.document.end)
        self._update_modified()

    def rebase(self, digest: str, disk_text: str) -> None:
        """The file on disk now holds `disk_text`: saves compare against it from here on."""
        self.base_digest = digest
        self.loaded_text = disk_text
        self.disk_differs = False
        self._update_modified()

    def saved(self, text: str, digest: str, message: str) -> None:
        """The store wrote the buffer (it may have normalised it, e.g. memory entries)."""
        self.replace_text(text)
        self.rebase(digest, text)
        self.note(message, "ok")

    def refused(self, reason: str) -> None:
        self.note(reason, "error")

    def disk_changed(self, text: str | None, digest: str) -> None:
        """The file changed on disk: reload an untouched buffer, flag a modified one."""
        if digest == self.base_digest:
            return
        if not self.modified and text is not None:
            self.replace_text(text)
            self.rebase(digest, text)
            self.note("Reloaded: the file changed on disk.", "warning")
            return
        self.disk_differs = True
        self.note("Changed on disk since you opened it: ctrl+s shows both versions.", "warning")

    def note(self, text: str, level: str = "") -> None:
        widget = self.query_one(".file-note", Static)
        widget.update(Content(text))
        widget.display = bool(text)
        for name in ("-warning", "-error", "-ok"):
            widget.set_class(level == name[1:], name)

    def show_check(self, result: CheckResult | None) -> None:
        self.check = result
        usage = self.query_one(".file-usage", Static)
        problems = self.query_one(".file-problems", Static)
        if result is None:
            usage.display = problems.display = False
            self._refresh_title()
            return
        if result.usage is not None:
            style = "$error" if result.usage.over else ("$warning" if result.usage.fraction >= 0.8 else "")
            bar = _bar(result.usage.fraction, 12)
            usage.update(Content.assemble((bar, style), " ", (result.usage.text(), style)))
            usage.display = True
        else:
            usage.display = False
        shown = list(result.problems[:MAX_PROBLEMS_SHOWN])
        if shown:
            parts: list[Content | tuple[str, str] | str] = []
            for problem in shown:
                mark, style = ("✗ ", "$error") if problem.blocking else ("! ", "$warning")
                parts += [(mark, style), (problem.text(), style), "\n"]
            more = len(result.problems) - len(shown)
            if more > 0:
                parts.append((f"… {more} more", "dim"))
            problems.update(Content.assemble(*parts).rstrip())
            problems.display = True
        else:
            problems.display = False
        self._refresh_title()

    # -- internals --------------------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._update_modified()
        if self.has_file:
            self.post_message(self.Changed(self))

    def _update_modified(self) -> None:
        self.modified = self.has_file and self.area.text != self.loaded_text
        self._refresh_title()

    def watch_disk_differs(self) -> None:
        self._refresh_title()

    def _title(self) -> Content:
        if not self.has_file:
            return Content.styled("(no file)", "italic")
        parts: list[Content | tuple[str, str] | str] = [(self.label, "bold")]
        if self.modified:
            parts.append(("  ● modified", "$warning"))
        if self.disk_differs:
            parts.append(("  ⚠ changed on disk", "$error"))
        if self.check is not None and not self.check.ok:
            parts.append(("  ✗ cannot be saved", "$error"))
        if self.language:
            parts.append((f"  {self.language}", "dim"))
        return Content.assemble(*parts)

    def _refresh_title(self) -> None:
        if self.is_mounted:
            self.query_one(".file-title", Static).update(self._title())


def _bar(fraction: float, width: int) -> str:
    filled = max(0, min(width, round(fraction * width)))
    return "█" * filled + "░" * (width - filled)

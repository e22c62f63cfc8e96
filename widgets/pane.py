"""A pane of the workstation: a one-line header (key, title, the most important number) over a body.

Every pane can be focused (its key, e.g. F2), zoomed to fill the screen (f10) and hidden down to its
header (f9); the header keeps showing the pane's number while the body is hidden. Letters typed in a
pane are text for the input, so no pane action sits on a key that types.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import OptionList, Static


class PaneHeader(Static):
    """The pane's title line; clicking it focuses the pane."""

    DEFAULT_CSS = """
    PaneHeader {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    def on_click(self, event: Click) -> None:
        event.stop()
        pane = self.parent
        if isinstance(pane, Pane):
            pane.post_message(Pane.FocusRequested(pane))


class Pane(Vertical):
    """A titled, focusable, zoomable, hideable region of the main screen."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    Pane {
        height: 1fr;
        min-height: 1;
    }
    Pane:focus-within > PaneHeader, Pane:focus > PaneHeader {
        background: $primary 40%;
        color: $text;
        text-style: bold;
    }
    Pane.-collapsed {
        height: 1;
    }
    Pane.-collapsed > .pane-body {
        display: none;
    }
    """

    # Keys that cannot be typed text: a letter pressed in a pane goes to the input (the main screen's
    # `take_typing`), so a word typed after F1 is a message, not a row of pane actions.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f10", "zoom", "zoom", id="zoom_pane", tooltip="Zoom the focused pane (again to restore)"),
        Binding("f9", "toggle_collapsed", "hide", id="hide_pane", tooltip="Hide the pane down to its header"),
    ]

    pane_key: ClassVar[str] = ""
    """The key that focuses this pane (shown in the header), e.g. "F2"."""
    pane_title: ClassVar[str] = ""
    """What the header calls the pane."""

    summary: reactive[Content | str] = reactive("", layout=False)
    """The most important number, shown on the right of the header even when the body is hidden."""
    brief: reactive[str] = reactive("", layout=False)
    """The number in a few characters, for the tab line of the folded layout."""
    collapsed: reactive[bool] = reactive(False)

    class FocusRequested(Message):
        """A click on the header asks the screen to focus (or show, when folded) this pane."""

        def __init__(self, pane: Pane) -> None:
            super().__init__()
            self.pane = pane

    class SummaryChanged(Message):
        """The header's number changed (the folded tab line repeats it)."""

    def compose_body(self) -> ComposeResult:
        """The pane's content; subclasses give their own (marked with the `pane-body` class)."""
        yield from ()

    def compose(self) -> ComposeResult:
        yield PaneHeader(self._header_content(), id=f"{self.id or 'pane'}-header")
        yield from self.compose_body()

    def focus_target(self) -> Widget:
        """The widget that takes focus when the pane is chosen (the pane itself while hidden)."""
        if self.collapsed:
            return self
        for child in self.query(".pane-body"):
            if child.focusable:
                return child
        return self

    def _header_content(self) -> Content:
        marker = "▸" if self.collapsed else "▾"
        left = Content.assemble((f"{marker} ", "dim"), (self.pane_key, "bold"), " ", self.pane_title)
        if not self.summary:
            return left
        return Content.assemble(left, "  ", self.summary)

    def _refresh_header(self) -> None:
        try:
            header = self.query_one(PaneHeader)
        except Exception:
            return
        header.update(self._header_content())

    def watch_summary(self) -> None:
        self._refresh_header()

    def watch_brief(self) -> None:
        if self.is_mounted:
            self.post_message(self.SummaryChanged())

    def watch_collapsed(self, collapsed: bool) -> None:
        had_focus = self.has_focus_within
        self.set_class(collapsed, "-collapsed")
        # While hidden, the pane itself holds the focus (its header stays), so f9 brings it back.
        self.can_focus = collapsed
        self._refresh_header()
        if had_focus:
            self.focus_target().focus()

    def action_zoom(self) -> None:
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        else:
            screen.maximize(self, container=False)

    def action_toggle_collapsed(self) -> None:
        self.collapsed = not self.collapsed

    def on_mount(self) -> None:
        self._refresh_header()


class PaneLog(OptionList):
    """A pane's list of entries: virtualised (line API), focusable, newest last, bounded."""

    DEFAULT_CSS = """
    PaneLog {
        height: 1fr;
        border: none;
        padding: 0 0 0 1;  /* entries start in the column of the pane's other lines */
        background: $surface;
    }
    PaneLog:focus {
        border: none;
    }
    """

    def __init__(self, max_entries: int = 500, *, newest_first: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.max_entries = max_entries
        self.newest_first = newest_first

    def on_focus(self) -> None:
        """Focused with nothing highlighted, the newest entry is: enter (and the pane's keys, such as
        the journal's ctrl+z) act on it at once, where they did nothing until an arrow key was pressed."""
        if self.highlighted is None and self.option_count:
            self.highlighted = 0 if self.newest_first else self.option_count - 1

    def add_entry(self, prompt: Content | str) -> None:
        self.add_option(prompt)
        excess = self.option_count - self.max_entries
        for _ in range(max(0, excess)):
            self.remove_option_at_index(0)
        if self.highlighted is None or self.highlighted >= self.option_count - 2:
            self.scroll_end(animate=False)


class LogPane(Pane):
    """A pane whose body is a short note of what it shows plus a bounded list of entries."""

    DEFAULT_CSS = """
    LogPane > .pane-intro {
        height: auto;
        max-height: 4;
        color: $text-muted;
        text-style: italic;
        padding: 0 1;
        background: $surface;
    }
    """

    intro: ClassVar[str] = ""

    def compose_body(self) -> ComposeResult:
        if self.intro:
            yield Static(self.intro, classes="pane-intro pane-body")
        yield PaneLog(classes="pane-body", id=f"{self.id or 'pane'}-log")

    @property
    def entries(self) -> PaneLog:
        return self.query_one(PaneLog)

    def focus_target(self) -> Widget:
        return self if self.collapsed else self.entries

    def add_entry(self, prompt: Content | str) -> None:
        self.entries.add_entry(prompt)

"""Our own diff widget: a unified line diff drawn from `difflib` (the PyPI diff widget is AGPL).

It takes the lines already diffed (`engine.editing.merge.diff_lines`) and draws them with a gutter of
line numbers for each side; lines only in the first text are red, lines only in the second green.
It is a line-API widget, so a long diff scrolls without mounting a widget per line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class DiffLineLike(Protocol):
    kind: str
    text: str


MARK = {" ": " ", "-": "-", "+": "+", "@": " "}


class DiffView(ScrollView, can_focus=True):
    """A scrollable, coloured unified diff of two versions of a file."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        background: $surface;
    }
    DiffView > .diff--removed { background: $error 25%; }
    DiffView > .diff--added { background: $success 25%; }
    DiffView > .diff--hunk { color: $accent; text-style: bold; }
    DiffView > .diff--gutter { color: $text-muted; }
    DiffView > .diff--same { color: $text; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--removed",
        "diff--added",
        "diff--hunk",
        "diff--gutter",
        "diff--same",
    }

    def __init__(self, lines: Sequence[DiffLineLike] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: list[tuple[str, str, str, str]] = []  # kind, left number, right number, text
        self.set_lines(lines)

    @property
    def changed(self) -> tuple[int, int]:
        """(lines only in the first text, lines only in the second)."""
        removed = sum(1 for row in self._rows if row[0] == "-")
        added = sum(1 for row in self._rows if row[0] == "+")
        return removed, added

    @property
    def plain_lines(self) -> list[str]:
        return [MARK[kind] + text if kind != "@" else text for kind, _l, _r, text in self._rows]

    def set_lines(self, lines: Sequence[DiffLineLike]) -> None:
        rows: list[tuple[str, str, str, str]] = []
        left = right = 0
        for line in lines:
            if line.kind == "@":
                left, right = _hunk_starts(line.text)
                rows.append(("@", "", "", line.text))
                continue
            if line.kind in (" ", "-"):
                left += 1
            if line.kind in (" ", "+"):
                right += 1
            rows.append(
                (
                    line.kind,
                    str(left) if line.kind in (" ", "-") else "",
                    str(right) if line.kind in (" ", "+") else "",
                    line.text,
                )
            )
        self._rows = rows
        width = max((len(text) for *_rest, text in rows), default=0) + 12
        self.virtual_size = Size(width, len(rows))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.size.width
        if index >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        kind, left, right, text = self._rows[index]
        gutter = self.get_component_rich_style("diff--gutter")
        component = {"-": "diff--removed", "+": "diff--added", "@": "diff--hunk"}.get(kind, "diff--same")
        style: Style = self.rich_style + self.get_component_rich_style(component)
        if kind == "@":
            segments = [Segment(text, style)]
        else:
            segments = [
                Segment(f"{left:>4} {right:>4} ", self.rich_style + gutter),
                Segment(f"{MARK[kind]} {text}", style),
            ]
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.extend_cell_length(width, style if kind in "-+" else self.rich_style)


def _hunk_starts(head: str) -> tuple[int, int]:
    """`@@ -3,4 +3,5 @@` → (2, 2): the line numbers just before the hunk's first line on each side."""
    try:
        parts = head.split()
        left = int(parts[1][1:].split(",")[0])
        right = int(parts[2][1:].split(",")[0])
    except (IndexError, ValueError):
        return 0, 0
    return max(0, left - 1), max(0, right - 1)

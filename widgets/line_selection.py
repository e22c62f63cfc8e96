"""Mouse selection for widgets drawn line by line from strips (finished replies, stored turns).

Textual selects text through offsets carried by the drawn segments and asks the widget for the
text under them; a widget with its own `render_line` gets neither for free, so a drag over a
finished reply selected nothing (or the wrong text). `SelectableLines` marks each drawn line with
its offsets, paints the selected span, and gives back the text of the lines the person dragged
over — what ctrl+y then copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.selection import Selection


class SelectableLines:
    """Mix into a Widget that draws `selectable_lines()` one per row (after its own styling)."""

    def selectable_lines(self) -> list[Strip]:
        """The lines as drawn now, top to bottom."""
        raise NotImplementedError

    def selectable_line(self, strip: Strip, y: int) -> Strip:
        """`strip`, drawn at row `y`, with its selected span painted and its offsets marked."""
        selection = self.text_selection  # type: ignore[attr-defined]
        if selection is not None and (span := selection.get_span(y)) is not None:
            start, end = span
            length = strip.cell_length
            end = length if end == -1 else min(end, length)
            if start < end:
                highlight = self.screen.get_component_rich_style("screen--selection")  # type: ignore[attr-defined]
                picked = Strip(Segment.apply_style(strip.crop(start, end), post_style=highlight))
                strip = Strip.join([strip.crop(0, start), picked, strip.crop(end, length)])
        return strip.apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        text = "\n".join(strip.text for strip in self.selectable_lines())
        picked = selection.extract(text)
        return "\n".join(line.rstrip() for line in picked.split("\n")), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()  # type: ignore[attr-defined]

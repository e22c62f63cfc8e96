"""Mouse selection for widgets drawn line by line from strips (finished replies, stored turns).

Textual selects text through offsets carried by the drawn segments and asks the widget for the
text under them; a widget with its own `render_line` gets neither for free, so a drag over a
finished reply selected nothing (or the wrong text). `paint_selection` marks each drawn line with
its offsets and paints the selected span; `selected_text` gives back the text of the lines the
person dragged over — what ctrl+y then copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from textual.strip import Strip

if TYPE_CHECKING:
    from textual.selection import Selection
    from textual.widget import Widget


def paint_selection(widget: Widget, strip: Strip, y: int) -> Strip:
    """`strip`, drawn by `widget` at row `y`, with its selected span painted and its offsets marked."""
    selection = widget.text_selection
    if selection is not None and (span := selection.get_span(y)) is not None:
        start, end = span
        length = strip.cell_length
        end = length if end == -1 else min(end, length)
        if start < end:
            highlight = widget.screen.get_component_rich_style("screen--selection")
            picked = Strip(Segment.apply_style(strip.crop(start, end), post_style=highlight))
            strip = Strip.join([strip.crop(0, start), picked, strip.crop(end, length)])
    return strip.apply_offsets(0, y)


def selected_text(lines: list[Strip], selection: Selection) -> tuple[str, str]:
    """The text of `lines` (as drawn, top to bottom) under `selection`, for a widget's `get_selection`."""
    text = "\n".join(strip.text for strip in lines)
    picked = selection.extract(text)
    return "\n".join(line.rstrip() for line in picked.split("\n")), "\n"

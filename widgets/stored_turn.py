"""A stored turn drawn as one widget: the user's message, its tool calls and its replies, line by line.

Paging through a long conversation mounts one of these per turn instead of one block per message,
so each page costs a few widgets to mount and every layout of the window has a third as many
children to arrange. The replies arrive laid out as Markdown strips (from the reader's thread);
the user and tool lines are drawn here, at the current width and theme. Expanding it (enter)
thaws it into the separate blocks, which the cursor, expansion and copying of one block need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.style import Style as RichStyle
from textual import on, work
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual

from widgets.line_selection import paint_selection, selected_text
from widgets.paste_chips import PasteLimits
from widgets.transcript_blocks import UserBlock, reply_strips, tool_line, tool_text, user_content

if TYPE_CHECKING:
    from textual.selection import Selection

    from widgets.transcript_history import HistoryItem

STORED_TURN_PARTS = {"stored-turn--user", "stored-turn--tool", "stored-turn--failed"}
"""Component classes of the transcript: the colours of a stored turn's user and tool lines."""
INDENT = 2  # tool lines sit as far in as a separate ToolBlock's (padding 3 against this one's 1)


class StoredTurn(UserBlock):
    """One whole stored turn; as a `UserBlock` it is where the window may be cut (it knows its ref)."""

    DEFAULT_CSS = """
    StoredTurn {
        width: 1fr;
        height: auto;
        color: $foreground;  /* a reply's colour (a FrozenReply's, from the screen) */
    }
    """

    class Laidout(Message):
        """The turn's replies laid out again for a new width (posted from the layout thread)."""

        def __init__(self, replies: dict[int, list[Strip]], width: int) -> None:
            super().__init__()
            self.replies = replies
            self.width = width

    collapsible = False  # a long message in it is drawn collapsed; enter thaws the turn into blocks

    def __init__(
        self, items: Sequence[HistoryItem], preview_chars: int, limits: PasteLimits | None = None
    ) -> None:
        super().__init__(items[0].text, limits)
        self.items = tuple(items)
        self.preview_chars = preview_chars
        self.ref = items[0].ref
        self.ref_end = items[-1].ref_end or items[-1].ref
        self._replies = {i: list(item.strips) for i, item in enumerate(self.items) if item.kind == "reply"}
        self._replies_width = next((item.width for item in self.items if item.kind == "reply"), 0)
        self._lines: list[Strip] = []
        self._lines_width = -1

    def reply_strips(self, index: int) -> list[Strip]:
        """The strips the item at `index` (a reply) is drawn from now."""
        return self._replies.get(index, [])

    @property
    def replies_width(self) -> int:
        """The width the replies' strips are laid out at."""
        return self._replies_width

    def _lines_for(self, width: int) -> list[Strip]:
        if width != self._lines_width:
            self._lines = self._build(max(1, width))
            self._lines_width = width
        return self._lines

    def _build(self, width: int) -> list[Strip]:
        rich_style = self.rich_style
        lines: list[Strip] = []
        for index, item in enumerate(self.items):
            if item.kind == "user":
                user = user_content(item.text, self.limits)
                lines += Visual.to_strips(self, user, width, None, self._part_style("user"))
            elif item.kind == "reply":
                lines += [strip.adjust_cell_length(width) for strip in self._replies.get(index, [])]
            elif item.kind == "tool" and item.call is not None:
                failed = item.result is not None and not item.result.ok
                line = tool_line(item.call, item.result, self.preview_chars, approval=item.approval)
                style = self._part_style("failed" if failed else "tool")
                pad = Strip.blank(INDENT, rich_style)
                for strip in Visual.to_strips(self, line, max(1, width - INDENT), None, style):
                    lines.append(Strip.join([pad, strip]))
        return lines

    def _part_style(self, part: str) -> VisualStyle:
        name = f"stored-turn--{part}"
        owner = self.parent
        if owner is None or name not in getattr(owner, "COMPONENT_CLASSES", ()):
            return self.visual_style
        colour = owner.get_component_rich_style(name).color  # only the ink: the background is the turn's
        return self.visual_style + VisualStyle.from_rich_style(RichStyle(color=colour))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_for(width))

    def render_line(self, y: int) -> Strip:
        width, style = self.size.width, self.rich_style
        lines = self._lines_for(width)
        if 0 <= y < len(lines):
            return paint_selection(self, lines[y].adjust_cell_length(width).apply_style(style), y)
        return Strip.blank(width, style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selected_text(self.selectable_lines(), selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def selectable_lines(self) -> list[Strip]:
        return self._lines_for(self.size.width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines_width = -1  # a theme or class change: draw the lines again in the new colours

    def on_resize(self) -> None:
        # After the next frame: the first layout of a page is often one column wider than the
        # next, where the transcript's scrollbar appears; only the width that stays counts.
        if self._replies and self.content_region.width != self._replies_width:
            self.call_after_refresh(self._check_width)

    def _check_width(self) -> None:
        width = self.content_region.width
        if self.is_attached and width > 0 and width != self._replies_width:
            self._lay_out(width)

    @work(thread=True, exclusive=True, group="stored-turn-layout", exit_on_error=False)
    def _lay_out(self, width: int) -> None:
        replies = {index: reply_strips(self.items[index].text, width) for index in self._replies}
        self.post_message(self.Laidout(replies, width))

    @on(Laidout)
    def _laid_out(self, message: Laidout) -> None:
        message.stop()
        self._replies = message.replies
        self._replies_width = message.width
        self._lines_width = -1
        self.refresh(layout=True)

    def copy_text(self) -> str:
        parts = []
        for item in self.items:
            if item.kind == "tool" and item.call is not None:
                parts.append(tool_text(item.call, item.result, item.approval))
            elif item.text:
                parts.append(item.text)
        return "\n\n".join(parts)

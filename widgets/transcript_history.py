"""The transcript's window onto state.db: pages of old messages load as you scroll to the window's edges.

The DOM holds one contiguous window of the conversation. Old turns leave it at the top past the
line budget (a `PrunedMarker` remembers where they begin); scrolling up to the marker asks for the
page before it, which is mounted above while the reading position stays put. Paging far up drops
turns at the bottom instead (a `GapMarker` remembers them), and scrolling down loads them back; `end`
jumps straight to the newest. Turns are cut whole, at user messages, so a page never splits a tool
call from its result. The transcript never reads the store: it posts `HistoryWanted` and the app
answers with `HistoryLoaded`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from widgets.paste_chips import PasteLimits
from widgets.transcript_blocks import (
    ApprovalBlock,
    CompactionBlock,
    FrozenReply,
    GapMarker,
    NoticeBlock,
    PrunedMarker,
    Ref,
    ToolBlock,
    UserBlock,
)

if TYPE_CHECKING:
    from engine import events
    from widgets.transcript import Transcript


@dataclass(frozen=True)
class HistoryItem:
    """One block's worth of stored conversation, ready to mount (replies are laid out already)."""

    kind: str  # user | reply | tool | summary | divider
    ref: Ref
    ref_end: Ref | None = None
    text: str = ""
    strips: tuple[Strip, ...] = ()
    width: int = 0
    call: events.ToolCalled | None = None
    result: events.ToolFinished | None = None
    approval: str | None = None  # a stored call's: once | session | rule | deny | auto (nothing asked)


@dataclass(frozen=True)
class HistoryPage:
    """Stored messages for one edge of the window, in order."""

    direction: str  # tail | around | up | down
    items: tuple[HistoryItem, ...] = ()
    first: Ref | None = None  # the first message read (the next page up ends before it)
    last: Ref | None = None  # the last message read (the next page down starts after it)
    more_above: bool = False
    more_below: bool = False
    request: int = 0
    error: str = ""


class HistoryWanted(Message):
    """The transcript needs stored messages: before `anchor` (up), after it (down), or a first page."""

    def __init__(
        self,
        transcript: Widget,
        direction: str,
        anchor: Ref | None,
        *,
        stop: Ref | None = None,
        width: int = 80,
        request: int = 0,
        session_id: str = "",
    ) -> None:
        super().__init__()
        self.transcript = transcript
        self.direction = direction
        self.anchor = anchor
        self.stop_at = stop  # not `stop`: that is Message.stop()
        self.width = width
        self.request = request
        self.session_id = session_id


class HistoryLoaded(Message, bubble=False):
    """The app's answer to `HistoryWanted`, posted to the transcript that asked."""

    def __init__(self, page: HistoryPage) -> None:
        super().__init__()
        self.page = page


def block_for(item: HistoryItem, preview_chars: int, limits: PasteLimits | None = None) -> Widget:
    """The cheap widget for one stored item."""
    widget: Any
    if item.kind == "user":
        widget = UserBlock(item.text, limits)
    elif item.kind == "reply":
        widget = FrozenReply(item.text, list(item.strips), item.width)
    elif item.kind == "tool" and item.call is not None:
        widget = ToolBlock(item.call, preview_chars, item.approval)
        if item.result is not None:
            widget.finished = item.result
            widget.set_class(not item.result.ok, "-failed")
    elif item.kind == "summary":
        widget = CompactionBlock(item.text)
    else:
        widget = NoticeBlock(item.text, "info", "↪")
    widget.ref = item.ref
    widget.ref_end = item.ref_end or item.ref
    return widget  # type: ignore[no-any-return]


def blocks_for(
    items: Sequence[HistoryItem], preview_chars: int, limits: PasteLimits | None = None
) -> list[Widget]:
    """A page's widgets: each whole turn (a user message, its tool calls and replies) as one
    `StoredTurn`; what comes before the first user message, summaries and dividers as blocks."""
    from widgets.stored_turn import StoredTurn

    widgets: list[Widget] = []
    turn: list[HistoryItem] = []

    def close_turn() -> None:
        if turn:
            widgets.append(StoredTurn(turn, preview_chars, limits))
            turn.clear()

    for item in items:
        if item.kind == "user":
            close_turn()
            turn.append(item)
        elif item.kind in ("reply", "tool") and turn:
            turn.append(item)
        else:
            close_turn()
            widgets.append(block_for(item, preview_chars, limits))
    close_turn()
    return widgets


def is_turn_start(widget: Widget) -> bool:
    """A user block whose stored message is known: the window may be cut just before it."""
    return isinstance(widget, UserBlock) and widget.ref is not None


class HistoryWindow:
    """The transcript's paging: which stored turns are above and below its window, and asking for them.

    Held by the `Transcript` (`transcript.paging`), whose DOM, sizes and line budget it works on.
    """

    def __init__(self, view: Transcript) -> None:
        self.view = view
        self.pruned: PrunedMarker | None = None
        self.gap: GapMarker | None = None
        self.history_session = ""
        self._history_request = 0
        self._history_pending = ""
        self._history_focus: int | None = None  # the stored message the first page opens at (a search hit)
        # The page above the window, read ahead while the reader looks at this one (so the next step
        # up mounts at once): its anchor, the question's number (negative: never a step's), the answer.
        self._ahead_anchor: Ref | None = None
        self._ahead_request = 0
        self._ahead_page: HistoryPage | None = None
        self._ahead_claimed = 0  # a step asked for it before it came: the step's request number

    def reset(self) -> None:
        """The transcript was cleared: no window edges, and answers to earlier questions are dropped."""
        self.pruned = None
        self.gap = None
        self._history_request += 1
        self._history_pending = ""
        self._forget_ahead()

    # Asking.

    def _ask(self, direction: str, anchor: Ref | None, stop: Ref | None = None) -> None:
        self._history_request += 1
        self._history_pending = direction
        width = self._reply_width()
        self.view.app.post_message(  # to the app, which reads state.db (past the screen that asked)
            HistoryWanted(
                self.view,
                direction,
                anchor,
                stop=stop,
                width=width,
                request=self._history_request,
                session_id=self.history_session,
            )
        )

    def _reply_width(self) -> int:
        """The width replies are laid out at: the blocks' content width once the scrollbar shows
        (a page of stored history nearly always brings it; laying out for one column more would
        lay every reply out again the moment it appears)."""
        width = self.view.scrollable_content_region.width
        if not self.view.show_vertical_scrollbar:
            width -= self.view.styles.scrollbar_size_vertical
        return max(20, width - 2)

    def open_history(self, session_id: str, around: int | None = None) -> None:
        """Show a stored conversation: its newest page, or the page around one message."""
        if not self.view.scrollable_content_region.width:  # not laid out yet: replies would be laid out
            self.view.call_after_refresh(self.open_history, session_id, around)  # at the wrong width
            return
        self.history_session = session_id
        self._history_focus = around
        if around is None:
            self._ask("tail", (session_id, 0))
        else:
            self._ask("around", (session_id, around))

    def reading_newest(self, session_id: str) -> bool:
        """The newest page of `session_id` is on its way (it shows the conversation as it is now)."""
        return self._history_pending == "tail" and self.history_session == session_id

    def request_earlier(self) -> bool:
        marker = self.pruned
        if marker is None or marker.anchor is None or not marker.more or self._history_pending:
            return False
        if self._ahead_anchor == marker.anchor:  # read ahead already, or on its way
            self._history_request += 1
            self._history_pending = "up"
            page = self._ahead_page
            if page is not None:
                self._forget_ahead()
                self.view.call_later(self.load_history, replace(page, request=self._history_request))
            else:  # its answer is this step's
                self._ahead_claimed = self._history_request
                marker.set_loading(True)
            return True
        marker.set_loading(True)
        self._ask("up", marker.anchor)
        return True

    def _read_ahead(self) -> None:
        """Ask for the page above the window now, so the step up to it needs no read."""
        marker = self.pruned
        if marker is None or marker.anchor is None or not marker.more or marker.anchor == self._ahead_anchor:
            return
        self._ahead_request -= 1
        self._ahead_anchor, self._ahead_page, self._ahead_claimed = marker.anchor, None, 0
        width = self._reply_width()
        self.view.app.post_message(  # to the app, which reads state.db (past the screen that asked)
            HistoryWanted(
                self.view,
                "up",
                marker.anchor,
                width=width,
                request=self._ahead_request,
                session_id=self.history_session,
            )
        )

    def _forget_ahead(self) -> None:
        self._ahead_anchor, self._ahead_page, self._ahead_claimed = None, None, 0

    def request_later(self) -> bool:
        gap = self.gap
        if gap is None or self._history_pending:
            return False
        gap.set_loading(True)
        self._ask("down", gap.after, gap.stop)
        return True

    def check_edges(self) -> None:
        """Ask for more when the reader is at the top marker or can see the gap."""
        if self._history_pending:
            return
        marker = self.pruned
        at_top = self.view.scroll_y <= 1 or self.view.max_scroll_y <= 0
        if marker is not None and marker.anchor is not None and marker.more and at_top:
            self.request_earlier()
            return
        gap = self.gap
        if gap is not None and gap.is_attached:
            top = gap.virtual_region.y
            if top <= self.view.scroll_y + self.view.size.height:
                self.request_later()

    # Receiving.

    async def load_history(self, page: HistoryPage) -> None:
        if page.request < 0:  # a page read ahead
            if page.request != self._ahead_request or self._ahead_anchor is None:
                return  # read for a window that has changed since
            claimed = self._ahead_claimed
            if not claimed:  # kept for the next step (an error: the step reads it again itself)
                if page.error:
                    self._forget_ahead()
                else:
                    self._ahead_page = page
                return
            self._forget_ahead()
            if claimed != self._history_request:
                return
            page = replace(page, request=claimed)  # a step is waiting for it: it is that step's answer
        if page.request != self._history_request:
            return  # an answer to a question asked before the window changed
        self._history_pending = ""
        if page.error:
            if self.pruned is not None:
                self.pruned.set_loading(False)
            if self.gap is not None:
                self.gap.set_loading(False)
            await self.view.mount(NoticeBlock(page.error, "warning", "!"))
            return
        if page.direction in ("tail", "around"):
            await self._load_first(page)
        elif page.direction == "up":
            await self._load_up(page)
        else:
            await self._load_down(page)
        self.view.call_after_refresh(self.check_edges)
        if page.direction != "down":
            self.view.call_after_refresh(self._read_ahead)

    async def _load_first(self, page: HistoryPage) -> None:
        blocks = blocks_for(page.items, self.view.tool_preview_chars, self.view.paste_limits)
        marker = self.top_marker()
        if not marker.is_attached:
            await self.view.mount(marker, before=0)
        marker.set_anchor(page.first, page.more_above)
        marker.set_loading(False)
        if blocks:
            await self.view.mount_all(blocks, after=marker)
        hit = self._block_holding(blocks, self._history_focus) if page.direction == "around" else None
        if page.more_below and page.last is not None:
            self.gap = GapMarker(page.last, None)
            await self.view.mount(self.gap, after=blocks[-1] if blocks else marker)
            self.view.anchor(False)
            middle = blocks[len(blocks) // 2] if blocks else None
            self.view.call_after_refresh(self._show_first_page, hit or middle)
        elif hit is not None:
            self.view.anchor(False)  # at the hit, not the end: the newest messages are below it
            self.view.call_after_refresh(self._show_first_page, hit)
        else:
            self.view.call_after_refresh(lambda: self.view.scroll_end(animate=False))
        if hit is not None:
            self.view.call_after_refresh(self._mark_hit, hit)

    @staticmethod
    def _block_holding(blocks: Sequence[Widget], message_id: int | None) -> Widget | None:
        """The block that shows stored message `message_id` (a turn shows a range of them)."""
        if message_id is None:
            return None
        for block in blocks:
            ref, end = getattr(block, "ref", None), getattr(block, "ref_end", None)
            if ref is not None and ref[1] <= message_id <= (end or ref)[1]:
                return block
        return None

    def _mark_hit(self, block: Widget) -> None:
        """The block of the message the view was opened at carries the cursor (enter expands it)."""
        if block.is_attached and self.view.cursor is None:
            self.view.cursor = block
            block.add_class("-cursor")

    def _show_first_page(self, widget: Widget | None) -> None:
        if widget is not None and widget.is_attached:
            self.view.scroll_to(y=max(0, widget.virtual_region.y - 2), animate=False)

    async def _load_up(self, page: HistoryPage) -> None:
        marker = self.top_marker()
        marker.set_loading(False)
        marker.set_anchor(page.first if page.items else marker.anchor, page.more_above)
        if not page.items:
            return
        blocks = blocks_for(page.items, self.view.tool_preview_chars, self.view.paste_limits)
        following = self._first_block_after(marker)
        before_y = following.virtual_region.y if following is not None else 0
        await self.view.mount_all(blocks, after=marker)

        def keep_place() -> None:
            if following is not None and following.is_attached:
                shift = following.virtual_region.y - before_y
                if shift > 0:  # at once: the edge check queued behind this must see the new place
                    self.view.scroll_to(y=self.view.scroll_y + shift, animate=False, immediate=True)
            self.view.call_after_refresh(self.prune_bottom)

        self.view.call_after_refresh(keep_place)

    async def _load_down(self, page: HistoryPage) -> None:
        gap = self.gap
        if gap is None or not gap.is_attached:
            return
        gap.set_loading(False)
        if page.items:
            blocks = blocks_for(page.items, self.view.tool_preview_chars, self.view.paste_limits)
            await self.view.mount_all(blocks, before=gap)
        if page.last is not None:
            gap.after = page.last
        if not page.more_below:
            self.gap = None
            await gap.remove()
        self.view.call_after_refresh(self._prune_top_after_down)

    async def _prune_top_after_down(self) -> None:
        await self.view.prune()

    # The window's edges.

    def top_marker(self) -> PrunedMarker:
        if self.pruned is None:
            self.pruned = PrunedMarker()
        return self.pruned

    def _first_block_after(self, marker: Widget) -> Widget | None:
        children = list(self.view.children)
        if marker in children:
            index = children.index(marker)
            if index + 1 < len(children):
                return children[index + 1]  # type: ignore[no-any-return]
        return None

    def turn_cut(self, excess: int) -> int | None:
        """How many leading children to drop (whole turns) to shed at least `excess` lines, if any."""
        children = [c for c in self.view.children if c is not self.pruned]
        height = 0
        best = None
        for index, child in enumerate(children):
            if index and is_turn_start(child):
                best = index
                if height >= excess:
                    break
            if isinstance(child, (GapMarker, ApprovalBlock)) or (
                isinstance(child, ToolBlock) and child.finished is None
            ):
                break
            height += child.outer_size.height
        return best

    async def prune_bottom(self) -> int:
        """After paging up past the budget: drop whole turns just above the gap (or the end)."""
        if self.view.turn_active:
            return 0
        children = [c for c in self.view.children]
        height = sum(child.outer_size.height for child in children)
        if height <= self.view.prune_keep_lines + self.view.prune_excess_lines:
            return 0
        end = children.index(self.gap) if self.gap is not None and self.gap in children else None
        if end is None:  # keep the newest turn: the gap stops at it
            starts = [i for i, c in enumerate(children) if is_turn_start(c)]
            if len(starts) < 2:
                return 0
            end = starts[-1]
        excess = height - self.view.prune_keep_lines
        start = end
        removed = 0
        for index in range(end - 1, -1, -1):
            child = children[index]
            if child is self.pruned:
                break
            removed += child.outer_size.height
            if is_turn_start(child):
                start = index
                if removed >= excess:
                    break
        if start >= end:
            return 0
        doomed = children[start:end]
        first = doomed[0]
        assert first.ref is not None  # type: ignore[attr-defined]
        after: Ref = (first.ref[0], first.ref[1] - 1)  # type: ignore[attr-defined]
        if self.view.cursor in doomed:
            self.view.cursor = None
        if self.gap is None:
            stop_block = children[end] if end < len(children) else None
            stop = getattr(stop_block, "ref", None)
            self.gap = GapMarker(after, stop)
            await self.view.mount(self.gap, before=first)
        else:
            self.gap.after = after
        await self.view.remove_children(doomed)
        return len(doomed)

    async def thaw(self, turn: Widget) -> Widget | None:
        """A stored turn taken apart into its separate blocks (to expand or copy one of them)."""
        from widgets.stored_turn import StoredTurn

        if not isinstance(turn, StoredTurn) or not turn.is_attached:
            return None
        items = [
            replace(item, strips=tuple(turn.reply_strips(index)), width=turn.replies_width)
            if item.kind == "reply"
            else item
            for index, item in enumerate(turn.items)
        ]
        blocks = [block_for(item, self.view.tool_preview_chars, self.view.paste_limits) for item in items]
        with self.view.app.batch_update():
            await self.view.mount_all(blocks, before=turn)
            if self.view.cursor is turn:
                self.view.cursor = None
            await turn.remove()
        return blocks[0] if blocks else None

    async def jump_to_newest(self) -> None:
        """`end` with a gap: drop the paged-up window and show the newest turns again."""
        gap = self.gap
        if gap is None or not gap.is_attached:
            return
        children = list(self.view.children)
        index = children.index(gap)
        doomed = [c for c in children[: index + 1] if c is not self.pruned]
        below = children[index + 1] if index + 1 < len(children) else None
        self.gap = None
        if self.view.cursor in doomed:
            self.view.cursor = None
        await self.view.remove_children(doomed)
        marker = self.top_marker()
        if not marker.is_attached:
            await self.view.mount(marker, before=0)
        anchor = getattr(below, "ref", None)
        marker.set_anchor(anchor, anchor is not None)

"""The conversation: an anchored scroll of cheap blocks, with only the live reply as streaming Markdown.

The transcript takes engine events (the main screen's `@on` handlers call these methods); it never
calls the engine. The reply being streamed is a Textual `Markdown` fed through a `MarkdownStream`
that draws one block per screen refresh (`PacedStream`); when a reply segment ends (a tool call, or the end
of the turn) it is laid out once in a thread and swapped for a line-API widget drawn from those
strips (`FrozenReply`), so finished turns cost nothing to scroll. Old blocks leave the DOM once the
transcript passes a line budget (the session keeps every message).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from widgets.clarify_block import ClarifyBlock
from widgets.input_blocks import ShellBlock
from widgets.pane import Pane
from widgets.paste_chips import PasteLimits
from widgets.question_block import QuestionBlock
from widgets.stored_turn import STORED_TURN_PARTS, StoredTurn
from widgets.subagent_block import SubagentBlock
from widgets.transcript_blocks import (
    ApprovalBlock,
    CompactionBlock,
    FrozenReply,
    GapMarker,
    NoticeBlock,
    PrunedMarker,
    ReasoningBlock,
    Ref,
    ToolBlock,
    UserBlock,
    reply_strips,
)
from widgets.transcript_history import HistoryLoaded, HistoryWindow

if TYPE_CHECKING:
    from engine import events
    from widgets.live_reply import LiveReply, PacedStream


class Transcript(VerticalScroll):
    """The scrolling conversation; follows new output unless the user has scrolled up.

    Old turns leave the DOM past the line budget and come back from state.db when the reader
    scrolls up to them (see `HistoryWindow`).
    """

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        width: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    Transcript > .stored-turn--user { color: $text; }
    Transcript > .stored-turn--tool { color: $text-muted; }
    Transcript > .stored-turn--failed { color: $error; }
    """
    # The colours StoredTurns draw their user and tool lines in, as a UserBlock's and a ToolBlock's
    # (resolved once here: component classes on every turn cost a style pass each when mounted).
    COMPONENT_CLASSES: ClassVar[set[str]] = STORED_TURN_PARTS
    BLANK = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+up", "cursor_block(-1)", "previous block", id="block_previous"),
        Binding("ctrl+down", "cursor_block(1)", "next block", id="block_next"),
        Binding(
            "alt+up",
            "cursor_message(-1)",
            "your previous message",
            id="message_previous",
            tooltip="Move to your previous message",
        ),
        Binding("alt+down", "cursor_message(1)", "your next message", id="message_next"),
        Binding(
            "ctrl+z",
            "rewind_here",
            "rewind",
            id="rewind_here",
            tooltip="Rewind to the selected message of yours (its text goes back in the input)",
        ),
        Binding(
            "ctrl+f",
            "branch_here",
            "branch",
            id="branch_here",
            tooltip="Branch before the selected message of yours (the original stays resumable)",
        ),
        Binding("enter", "toggle_block", "expand", id="block_toggle"),
        Binding(
            "ctrl+y",
            "copy_block",
            "copy",
            id="copy_block",
            tooltip="Copy the selection, block or last reply",
        ),
        Binding("end", "follow", "follow", id="follow_output", tooltip="Jump to the newest output"),
    ]

    class NewOutputBelow(Message):
        """Whether output arrived below the part the user is reading (the marker shows it)."""

        def __init__(self, transcript: Transcript, pending: bool) -> None:
            super().__init__()
            self.transcript = transcript
            self.pending = pending

    class Frozen(Message):
        """A finished reply was laid out; the cheap widget replaces the live Markdown."""

        def __init__(
            self, live: LiveReply, source: str, strips: list[Strip], width: int, continued: bool
        ) -> None:
            super().__init__()
            self.live = live
            self.source = source
            self.strips = strips
            self.width = width
            self.continued = continued

    class CopyRequested(Message):
        """ctrl+y pressed: the app copies `text` and says which clipboard took it."""

        def __init__(self, text: str, what: str) -> None:
            super().__init__()
            self.text = text
            self.what = what

    class AtMessage(Message):
        """Rewind to (`rewind`) or branch before (`branch`) the person's stored message `message_id`."""

        def __init__(self, action: str, message_id: int, key: str) -> None:
            super().__init__()
            self.action = action
            self.message_id = message_id
            self.key = key

    def __init__(
        self,
        *,
        prune_keep_lines: int = 1500,
        prune_excess_lines: int = 1000,
        tool_preview_chars: int = 72,
        live_segment_chars: int = 2000,
        show_reasoning: bool = True,
        paste_limits: PasteLimits | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.paste_limits = paste_limits or PasteLimits()
        self.live_segment_chars = live_segment_chars
        self._segment = ""
        self.prune_keep_lines = prune_keep_lines
        self.prune_excess_lines = prune_excess_lines
        self.tool_preview_chars = tool_preview_chars
        self.show_reasoning = show_reasoning
        self._live: LiveReply | None = None
        self._stream: PacedStream | None = None
        self._reasoning: ReasoningBlock | None = None
        self._tools: dict[str, ToolBlock] = {}
        self.subagents: dict[str, SubagentBlock] = {}  # child session id -> its block, this conversation
        self._turn_text: list[str] = []
        self._attempt: list[Widget] = []  # the reply blocks of the model call streaming now
        self._attempt_start = 0  # where that call's text begins in `_turn_text`
        self.last_reply = ""
        self.cursor: Widget | None = None
        self.pending_below = False
        self._prune_pending = False
        self.turn_active = False
        self._turn_user: UserBlock | None = None
        self.paging = HistoryWindow(self)  # the stored turns above and below the window

    def on_mount(self) -> None:
        self.anchor()

    @on(PrunedMarker.Clicked)
    def _load_earlier(self, message: PrunedMarker.Clicked) -> None:
        message.stop()
        self.paging.request_earlier()

    @on(GapMarker.Clicked)
    def _load_later(self, message: GapMarker.Clicked) -> None:
        message.stop()
        self.paging.request_later()

    def open_history(self, session_id: str, around: int | None = None) -> None:
        """Show a stored conversation: its newest page, or the page around one message."""
        self.paging.open_history(session_id, around)

    # What the screen's handlers call.

    async def add_user_message(self, text: str) -> UserBlock:
        await self._finish_segment()
        self._turn_text = []
        self._new_attempt()
        block = UserBlock(text, self.paste_limits)
        self._turn_user = block
        self.turn_active = True
        await self._add(block)
        return block

    @property
    def turn_user(self) -> UserBlock | None:
        """The user block of the turn running (or last run), until it is tagged with its stored id."""
        return self._turn_user

    def tag_user(self, block: UserBlock, ref: Ref) -> None:
        """The turn was recorded: its user block now knows its message in state.db."""
        block.ref = block.ref_end = ref
        if block is self._turn_user:
            self._turn_user = None

    async def take_back(self, session_id: str, message_ids: tuple[int, ...]) -> bool:
        """A rewind took `message_ids` of `session_id` back (oldest first, a message of the person's
        first): its block and every block after it leave. False when that block is not in the window
        (pruned above it, or below a gap): the caller shows the stored conversation again instead."""
        if self.turn_active or self.paging.gap is not None or not message_ids:
            return False
        children = list(self.children)
        refs = [getattr(child, "ref", None) for child in children]
        start = next((i for i, ref in enumerate(refs) if ref is not None and ref[1] == message_ids[0]), None)
        if start is None:  # the newest page asked for since (a branch's) is read as it is now
            return self.paging.reading_newest(session_id)
        doomed = children[start:]
        if self.cursor in doomed:
            self.cursor = None
        if self._turn_user in doomed:
            self._turn_user = None
        await self.remove_children(doomed)
        self.anchor()
        return True

    async def clear(self) -> None:
        """Start over (a new or resumed conversation): every block leaves, the live reply is dropped."""
        if self._stream is not None:
            await self._stream.stop()
        self._live = self._stream = None
        self._reasoning = None
        self._tools.clear()
        self.subagents.clear()
        self._turn_text = []
        self._new_attempt()
        self._turn_user = None
        self.turn_active = False
        self.cursor = None
        self.paging.reset()
        self.pending_below = False
        await self.remove_children()
        self.anchor()

    async def add_notice(self, text: str, level: str = "info", icon: str = "·") -> None:
        await self._add(NoticeBlock(text, level, icon))

    async def add_block(self, block: Widget) -> None:
        """Add a block that its owner keeps updating (a background process's live line)."""
        await self._add(block)

    async def append_reasoning(self, text: str) -> None:
        if not self.show_reasoning:
            return
        if self._reasoning is None:
            self._reasoning = ReasoningBlock()
            self._attempt.append(self._reasoning)
            await self._add(self._reasoning)
        self._reasoning.append(text)

    async def append_reply(self, text: str) -> None:
        """Stream a piece of the reply; the Markdown is appended to, never re-rendered whole.

        A long reply is cut at a paragraph break into segments of about `live_segment_chars`:
        the finished segment is frozen and a fresh live Markdown takes the rest, so the widget
        tree being laid out on every frame stays small however long the reply grows.
        """
        if not text:
            return
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        self._turn_text.append(text)
        cut = self._segment_cut(text)
        if cut is not None:
            await self._write_live(text[:cut])
            await self._finish_segment(continued=True)
            text = text[cut:]
        await self._write_live(text)
        self._note_output()

    def _segment_cut(self, text: str) -> int | None:
        """Where in `text` the live segment may end: after a blank line, outside code fences."""
        if len(self._segment) + len(text) < self.live_segment_chars:
            return None
        combined = self._segment + text
        start = max(len(self._segment) - 1, 0)
        cut = combined.rfind("\n\n", start)
        if cut < 0:
            return None
        head = combined[: cut + 2]
        fences = sum(1 for line in head.splitlines() if line.lstrip().startswith(("```", "~~~")))
        if fences % 2:
            return None
        return cut + 2 - len(self._segment)

    async def _write_live(self, text: str) -> None:
        if not text:
            return
        if self._live is None:
            from widgets.live_reply import LiveReply, PacedStream  # Markdown loads with the first reply

            self._live = LiveReply()
            self._segment = ""
            self._attempt.append(self._live)
            await self._add(self._live)
            self._stream = PacedStream(self._live)
            self._stream.start()
        assert self._stream is not None
        self._segment += text
        await self._stream.write(text)

    async def void_reply(self) -> bool:
        """The model call streaming now failed and starts over: its text and thinking leave the screen.

        True when something was removed (the person saw words that are no longer the reply).
        """
        if self._stream is not None:
            await self._stream.stop()
        self._live = self._stream = None
        self._reasoning = None
        doomed = [widget for widget in self._attempt if widget.is_attached]
        del self._turn_text[self._attempt_start :]
        self._new_attempt()
        if self.cursor in doomed:
            self.cursor = None
        if doomed:
            await self.remove_children(doomed)
        return bool(doomed)

    def _new_attempt(self) -> None:
        self._attempt = []
        self._attempt_start = len(self._turn_text)

    async def _start_block(self, block: Widget) -> None:
        """A block the turn starts (a tool call, a subagent) goes below what the reply has said so far."""
        await self._finish_segment()
        self._new_attempt()
        await self._add(block)

    async def tool_called(self, event: events.ToolCalled) -> None:
        block = ToolBlock(event, self.tool_preview_chars)
        self._tools[event.call_id] = block
        await self._start_block(block)

    def tool_progress(self, event: events.ToolProgress) -> None:
        """A running call said how far it is: its block shows the latest word (a stale one is dropped)."""
        block = self._tools.get(event.call_id)
        if block is not None:
            block.show_progress(event)

    async def tool_finished(self, event: events.ToolFinished) -> None:
        block = self._tools.pop(event.call_id, None)
        if block is None:  # a result without a call we saw (pruned, or resumed mid-turn)
            from engine import events

            block = ToolBlock(
                events.ToolCalled(event.session_id, event.call_id, event.name, {}, ""),
                self.tool_preview_chars,
            )
            await self._add(block)
        block.finish(event)
        self._note_output()

    @property
    def running_subagents(self) -> int:
        return sum(block.running for block in self.subagents.values())

    async def subagent_started(self, event: events.SubagentStarted) -> None:
        """A child began: its block goes below what the turn has shown so far (the delegate_task call)."""
        block = SubagentBlock(event, self.tool_preview_chars)
        self.subagents[event.child_session_id] = block
        await self._start_block(block)

    def subagent_progress(self, event: events.SubagentProgress) -> None:
        block = self.subagents.get(event.child_session_id)
        if block is not None:
            block.progress(event)

    async def subagent_finished(self, event: events.SubagentFinished) -> None:
        block = self.subagents.get(event.child_session_id)
        if block is None:  # its start was not seen (another conversation shown since): said as a note
            said = f"subagent {event.index} {event.status}: {event.summary}"
            await self.add_notice(said, "info" if event.status == "completed" else "warning", "⑂")
            return
        block.finish(event)
        self._note_output()

    async def ask_approval(self, event: events.ApprovalNeeded, future: asyncio.Future[str]) -> ApprovalBlock:
        await self._finish_segment()
        block = ApprovalBlock(event, future)
        await self._add(block)
        return block

    async def finish_turn(self, event: events.TurnFinished | None = None, interrupted: bool = False) -> None:
        """End the turn: flush and freeze the live reply, remember the reply for copying."""
        await self._finish_segment()
        self._new_attempt()
        for block in self._tools.values():
            if block.finished is None:
                block.set_class(True, "-failed")
                block.end_unfinished()
        self._tools.clear()
        self.turn_active = False
        text = (event.text if event is not None and event.text else "") or "".join(self._turn_text)
        if text.strip():
            self.last_reply = text
        if interrupted or (event is not None and event.interrupted):
            await self.add_notice("interrupted; what was said so far is kept", "warning", "■")

    async def ask_clarify(self, event: events.ClarifyNeeded, future: asyncio.Future[str]) -> ClarifyBlock:
        await self._finish_segment()
        block = ClarifyBlock(event, future)
        await self._add(block)
        return block

    def pending_approval(self) -> QuestionBlock | None:
        """The oldest question (an approval, or the model's `clarify`) still waiting for an answer."""
        return next((b for b in self.query(QuestionBlock) if not b.future.done()), None)

    def deny_pending_approvals(self) -> int:
        """Answer every open approval question with "deny" (the turn is being interrupted)."""
        pending = [b for b in self.query(ApprovalBlock) if not b.future.done()]
        for block in pending:
            block.answer("deny")
        questions = [b for b in self.query(ClarifyBlock) if not b.future.done()]
        for question in questions:
            question.answer("")  # nobody answered
        return len(pending) + len(questions)

    @property
    def streaming(self) -> bool:
        return self._live is not None

    # Internals.

    async def _finish_segment(self, continued: bool = False) -> None:
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        live, stream = self._live, self._stream
        self._live = self._stream = None
        if live is None:
            return
        if stream is not None:
            await stream.stop()
        source = live.text  # all of it: the stream may not have drawn the end yet
        if not source.strip():
            await live.remove()
            return
        width = live.content_region.width or max(1, self.scrollable_content_region.width - 2)
        self._freeze(live, source, width, continued)

    @work(thread=True, group="freeze-reply", exit_on_error=False, description="lay out a finished reply")
    def _freeze(self, live: LiveReply, source: str, width: int, continued: bool) -> None:
        """Lay the finished reply out off the UI thread; the swap happens when it is ready."""
        self.post_message(self.Frozen(live, source, reply_strips(source, width, continued), width, continued))

    @on(Frozen)
    async def _swap_in_frozen(self, message: Frozen) -> None:
        live = message.live
        if not live.is_attached:
            return
        frozen = FrozenReply(message.source, message.strips, message.width, message.continued)
        if live in self._attempt:  # a retry may still void it
            self._attempt[self._attempt.index(live)] = frozen
        with self.app.batch_update():
            await self.mount(frozen, before=live)
            if self.cursor is live:
                self._move_cursor_to(frozen)
            await live.remove()

    async def _add(self, widget: Widget) -> None:
        await self.mount(widget)
        self._note_output()
        self._schedule_prune()

    def _schedule_prune(self, retries: int = 10) -> None:
        if not self._prune_pending:
            self._prune_pending = True
            self.call_after_refresh(self._prune_after_layout, retries)

    async def _prune_after_layout(self, retries: int) -> None:
        self._prune_pending = False
        if retries and self.children and self.children[-1].size.height == 0:
            self._schedule_prune(retries - 1)  # the newest blocks are not laid out yet: heights unknown
            return
        await self.prune()

    def _note_output(self) -> None:
        released = self.is_anchored and getattr(self, "_anchor_released", False)
        if released and not self.pending_below:
            self.pending_below = True
            self.post_message(self.NewOutputBelow(self, True))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.pending_below and new_value >= self.max_scroll_y:
            self.pending_below = False
            self.post_message(self.NewOutputBelow(self, False))
        paging = self.paging
        if (paging.pruned is not None and new_value <= 1) or paging.gap is not None:
            paging.check_edges()

    @on(HistoryLoaded)
    async def _history_loaded(self, message: HistoryLoaded) -> None:
        message.stop()
        await self.paging.load_history(message.page)

    def blocks(self) -> list[Widget]:
        return [child for child in self.children if hasattr(child, "copy_text")]

    async def prune(self) -> int:
        """Unmount the oldest blocks once the transcript is taller than its line budget.

        Whole turns go when the turn boundaries are known (their user messages are stored), so the
        marker can load them back; otherwise (a turn never recorded) blocks go one by one and the
        marker only counts them.
        """
        height = sum(child.outer_size.height for child in self.children)
        if height <= self.prune_keep_lines + self.prune_excess_lines:
            return 0
        excess = height - self.prune_keep_lines
        cut = self.paging.turn_cut(excess)
        movable = [c for c in self.children if c is not self.paging.pruned]
        if cut is not None:
            doomed = movable[:cut]
            anchor = getattr(movable[cut], "ref", None)
        else:
            doomed = self._doomed_one_by_one(excess)
            anchor = None
        if not doomed:
            return 0
        if self.cursor in doomed:
            self.cursor = None
        marker = self.paging.top_marker()
        if not marker.is_attached:
            await self.mount(marker, before=0)
        marker.add(len(doomed))
        marker.set_anchor(anchor, anchor is not None)
        await self.remove_children(doomed)
        return len(doomed)

    def _doomed_one_by_one(self, excess: int) -> list[Widget]:
        doomed: list[Widget] = []
        for child in self.children:
            if excess <= 0:
                break
            if child is self.paging.pruned or child is self._live or child is self._reasoning:
                continue
            if isinstance(child, (ApprovalBlock, GapMarker)) and getattr(child, "decision", None) is None:
                break  # never remove a question the turn is waiting on, nor the gap
            if isinstance(child, ToolBlock) and child.finished is None:
                break
            doomed.append(child)
            excess -= child.outer_size.height
        return doomed

    # Actions.

    def _move_cursor_to(self, widget: Widget | None) -> None:
        if self.cursor is not None:
            self.cursor.remove_class("-cursor")
        self.cursor = widget
        if widget is not None:
            widget.add_class("-cursor")
            self.scroll_to_widget(widget, animate=False)

    def action_cursor_block(self, step: int) -> None:
        blocks = [b for b in self.blocks() if not isinstance(b, (PrunedMarker, GapMarker))]
        if not blocks:
            return
        if self.cursor not in blocks:
            index = len(blocks) - 1 if step < 0 else 0
        else:
            index = max(0, min(len(blocks) - 1, blocks.index(self.cursor) + step))  # type: ignore[arg-type]
        self._move_cursor_to(blocks[index])

    def action_cursor_message(self, step: int) -> None:
        """To the person's previous (or next) message, from the cursor or from the newest output."""
        mine = [b for b in self.children if isinstance(b, UserBlock)]
        if not mine:
            return
        if self.cursor in mine:
            index = max(0, min(len(mine) - 1, mine.index(self.cursor) + step))  # type: ignore[arg-type]
        elif self.cursor is not None and self.cursor in self.children:
            here = self.children.index(self.cursor)
            before = [b for b in mine if self.children.index(b) < here]
            after = [b for b in mine if self.children.index(b) > here]
            target = (before[-1] if before else mine[0]) if step < 0 else (after[0] if after else mine[-1])
            index = mine.index(target)
        else:
            index = len(mine) - 1 if step < 0 else 0
        self._move_cursor_to(mine[index])

    def action_rewind_here(self) -> None:
        self._at_message("rewind", "ctrl+z")

    def action_branch_here(self) -> None:
        self._at_message("branch", "ctrl+f")

    def _at_message(self, action: str, key: str) -> None:
        cursor = self.cursor
        ref = cursor.ref if isinstance(cursor, UserBlock) and cursor.is_attached else None
        if ref is None and isinstance(cursor, UserBlock):
            self.app.notify(
                f"This message is not saved yet: {action} there once its turn has ended.", timeout=4
            )
            return
        if ref is None:
            self.app.notify(
                f"To {action} there, move to one of your messages first (alt+up in the transcript).",
                timeout=4,
            )
            return
        self.post_message(self.AtMessage(action, ref[1], key))

    def action_toggle_block(self) -> None:
        cursor = self.cursor
        if isinstance(cursor, (ToolBlock, ReasoningBlock, CompactionBlock, ShellBlock)):
            cursor.toggle()
        elif isinstance(cursor, StoredTurn):
            self.call_later(self._thaw_cursor, cursor)
        elif isinstance(cursor, UserBlock):
            cursor.toggle()
        elif isinstance(cursor, ApprovalBlock) and cursor.decision is None:
            cursor.query_one("#approve-once").focus()

    async def _thaw_cursor(self, turn: StoredTurn) -> None:
        """Enter on a stored turn: its blocks, separate, with the cursor on its user message."""
        first = await self.paging.thaw(turn)
        if first is not None:
            self._move_cursor_to(first)

    def action_copy_block(self) -> None:
        selected = self.screen.get_selected_text()
        if selected:
            self.post_message(self.CopyRequested(selected, "the selected text"))
        elif self.cursor is not None and self.cursor.is_attached:
            text = self.cursor.copy_text()  # type: ignore[attr-defined]
            self.post_message(self.CopyRequested(text, "the selected block"))
        else:
            self.post_message(self.CopyRequested(self.last_reply, "the last reply"))

    async def action_follow(self) -> None:
        self._move_cursor_to(None)
        if self.paging.gap is not None:
            await self.paging.jump_to_newest()
        self.anchor()
        if self.pending_below:
            self.pending_below = False
            self.post_message(self.NewOutputBelow(self, False))

    @on(ApprovalBlock.Answered)
    @on(ClarifyBlock.Answered)
    def _answered(self, event: ApprovalBlock.Answered | ClarifyBlock.Answered) -> None:
        """Back to where the person was (the input, where the next letters they type belong; they were
        lost on the transcript), or to the transcript when that is gone."""
        before = event.focus_before
        if before is not None and before.is_attached and before.focusable:
            before.focus()
        else:
            self.focus()


class NewOutputMarker(Static):
    """Shown while output arrives below the part being read; a click follows it."""

    def on_click(self, event: Click) -> None:
        event.stop()
        pane = self.parent
        if isinstance(pane, TranscriptPane):
            self.call_later(pane.transcript.action_follow)


class TranscriptPane(Pane):
    """The transcript with its header and the "new output below" marker."""

    pane_key = "F1"
    pane_title = "hws"

    DEFAULT_CSS = """
    TranscriptPane #new-output {
        dock: bottom;
        height: 1;
        width: 1fr;
        display: none;
        background: $accent 30%;
        color: $text;
        content-align: center middle;
    }
    TranscriptPane.-new-output #new-output {
        display: block;
    }
    """

    def __init__(self, transcript: Transcript, *, title: str = "hws", id: str | None = None) -> None:
        super().__init__(id=id)
        self.transcript = transcript
        self.pane_title = title

    def compose_body(self) -> ComposeResult:
        self.transcript.add_class("pane-body")
        yield self.transcript
        yield NewOutputMarker("↓ new output below — end to follow ↓", id="new-output")

    @on(Transcript.NewOutputBelow)
    def _new_output(self, event: Transcript.NewOutputBelow) -> None:
        self.set_class(event.pending, "-new-output")

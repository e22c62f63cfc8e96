"""The blocks a transcript is made of: cheap one-widget renderings of messages, tools and notices.

Only the reply being streamed is a Textual `Markdown` (a tree of widgets); every other block is a
single `Static`, so a long conversation stays cheap to lay out and scroll.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Click, Key
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, Static

from engine.text.size import size_words
from widgets.line_selection import paint_selection, selected_text
from widgets.markdown_render import markdown_strips
from widgets.paste_chips import PasteLimits
from widgets.question_block import QuestionBlock

if TYPE_CHECKING:
    from textual.selection import Selection

    from engine import events

DECISIONS = (("once", "Approve once"), ("session", "Approve for this session"), ("deny", "Deny"))
DIGIT = {"once": 1, "session": 2, "deny": 3}  # the approval's digit keys; fixed, whatever is offered


def _clipped(text: str, lines: int) -> str:
    """The first `lines` lines of `text`, and how many more there are."""
    rows = text.splitlines()
    if len(rows) <= lines:
        return text
    return "\n".join([*rows[:lines], f"… {len(rows) - lines} more lines"])


def one_line(text: str, limit: int) -> str:
    """Text squeezed onto one line of at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(1, limit - 1)] + "…"


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds:.1f}s" if seconds >= 0.05 else f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


Ref = tuple[str, int]
"""Where a block's message lives in state.db: (session id, message id)."""


class Block(Static):
    """One entry of the transcript; it knows the text that ctrl+y copies from it.

    `ref` / `ref_end` name the first and last stored message the block shows (None while unknown:
    a block of the live turn learns its user message's id when the turn is recorded).
    """

    ref: Ref | None = None
    ref_end: Ref | None = None

    DEFAULT_CSS = """
    Block {
        width: 1fr;
        height: auto;
        padding: 0 1;
    }
    Block.-cursor {
        background: $boost;
        border-left: outer $accent;
        padding-left: 0;
    }
    """

    def copy_text(self) -> str:
        return ""


COLLAPSED_LINES = 3  # of a long message shown while it is collapsed


def user_content(text: str, limits: PasteLimits, expanded: bool = False) -> Content:
    """`you  <message>`; a long message (a big paste) collapsed to its first lines and its size."""
    if expanded or not limits.is_long(text):
        return Content.assemble(("you  ", "bold $secondary"), text)
    first = text[: limits.chars].splitlines()[:COLLAPSED_LINES]
    shown = "\n".join(line[:200] for line in first)
    return Content.assemble(
        ("you  ", "bold $secondary"),
        shown,
        "\n",
        ("▸ ", "dim"),
        (f"[{size_words(text)}]", "bold $accent"),
        ("  collapsed; enter on it (or a click) shows it all", "dim"),
    )


class UserBlock(Block):
    """The person's message; a long one (a big paste) shows collapsed with its size until expanded."""

    DEFAULT_CSS = """
    UserBlock {
        margin-top: 1;
        color: $text;
    }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, text: str, limits: PasteLimits | None = None) -> None:
        self.text = text
        self.limits = limits or PasteLimits()
        super().__init__("")

    @property
    def collapsible(self) -> bool:
        return self.limits.is_long(self.text)

    def toggle(self) -> None:
        if self.collapsible:
            self.expanded = not self.expanded

    def render(self) -> Content:
        return user_content(self.text, self.limits, self.expanded)

    def on_click(self, event: Click) -> None:
        if self.collapsible:
            event.stop()
            self.toggle()

    def copy_text(self) -> str:
        return self.text


def reply_strips(source: str, width: int, continued: bool = False) -> list[Strip]:
    """A reply segment's strips; one that the next segment continues keeps a paragraph gap."""
    strips = markdown_strips(source, width)
    if continued:
        strips.append(Strip.blank(width))
    return strips


class FrozenReply(Widget):
    """A finished reply: Markdown laid out once (in a thread) into strips, drawn line by line.

    It is mounted only when its strips are ready, so it never shows half-drawn; a width change
    lays it out again in a thread while the old strips stay on screen.
    """

    DEFAULT_CSS = """
    FrozenReply {
        width: 1fr;
        height: auto;
        padding: 0 1;
    }
    FrozenReply.-cursor {
        background: $boost;
        border-left: outer $accent;
        padding-left: 0;
    }
    """

    class Laidout(Message):
        """Strips for a width are ready (posted from the layout thread)."""

        def __init__(self, strips: list[Strip], width: int) -> None:
            super().__init__()
            self.strips = strips
            self.width = width

    ref: Ref | None = None
    ref_end: Ref | None = None

    def __init__(self, source: str, strips: list[Strip], width: int, continued: bool = False) -> None:
        super().__init__()
        self.source = source
        self.continued = continued
        self._strips = strips
        self._laid_out_width = width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips)

    def render_line(self, y: int) -> Strip:
        width, style = self.size.width, self.rich_style
        if 0 <= y < len(self._strips):
            # The widget's own colours go under the text (the line API paints no background itself).
            return paint_selection(self, self._strips[y].adjust_cell_length(width).apply_style(style), y)
        return Strip.blank(width, style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selected_text(self.selectable_lines(), selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def selectable_lines(self) -> list[Strip]:
        return self._strips

    def on_resize(self) -> None:
        width = self.content_region.width
        if width > 0 and width != self._laid_out_width:
            self._lay_out(width)

    @work(thread=True, exclusive=True, group="frozen-reply-layout", exit_on_error=False)
    def _lay_out(self, width: int) -> None:
        self.post_message(self.Laidout(reply_strips(self.source, width, self.continued), width))

    @on(Laidout)
    def _laid_out(self, message: Laidout) -> None:
        message.stop()
        self._strips = message.strips
        self._laid_out_width = message.width
        self.refresh(layout=True)

    def copy_text(self) -> str:
        return self.source


class ReasoningBlock(Block):
    """The model's reasoning, collapsed to one line unless expanded (enter or a click)."""

    DEFAULT_CSS = """
    ReasoningBlock {
        color: $text-muted;
        text-style: italic;
    }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self) -> None:
        super().__init__("")
        self._parts: list[str] = []
        self.finished = False

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def append(self, text: str) -> None:
        self._parts.append(text)
        # Render on the next frame only: many deltas between frames cost one render.
        self.refresh(layout=self.expanded)

    def finish(self) -> None:
        self.finished = True
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def render(self) -> Content:
        text = self.text
        words = len(text.split())
        state = "thought" if self.finished else "thinking…"
        head = Content.assemble(
            ("▾ " if self.expanded else "▸ ", "dim"), (state, "italic"), (f"  {words} words", "dim")
        )
        if not self.expanded:
            return head
        return Content.assemble(head, "\n", text.strip())

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def copy_text(self) -> str:
        return self.text


class ToolBlock(Block):
    """A tool call: name, one-line argument preview, then duration and result preview; expandable."""

    DEFAULT_CSS = """
    ToolBlock {
        padding: 0 1 0 3;
        color: $text-muted;
    }
    ToolBlock.-cursor {
        padding-left: 2;
    }
    ToolBlock.-failed {
        color: $error;
    }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, event: events.ToolCalled, preview_chars: int, approval: str | None = None) -> None:
        super().__init__("")
        self.called = event
        self.finished: events.ToolFinished | None = None
        self.progress: events.ToolProgress | None = None  # the latest progress the running call reported
        self.ended_unfinished = False  # its turn ended and no result ever came
        self.preview_chars = preview_chars
        self.approval = approval  # a stored call's answer (APPROVALS); a live call's shows in its question

    def finish(self, event: events.ToolFinished) -> None:
        self.finished = event
        self.set_class(not event.ok and not event.interrupted, "-failed")
        self.refresh(layout=True)

    def show_progress(self, event: events.ToolProgress) -> None:
        self.progress = event
        self.refresh(layout=True)

    def end_unfinished(self) -> None:
        """The turn ended without this call's result (its worker was stopped): never `running…` after."""
        self.ended_unfinished = True
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def render(self) -> Content:
        call, done = self.called, self.finished
        head = tool_line(call, done, self.preview_chars, self.expanded, self.approval, self.ended_unfinished)
        if self.progress is not None and done is None and not self.ended_unfinished:
            head = Content.assemble(head, "\n", ("  ⋯ " + progress_text(self.progress), "dim italic"))
        if not self.expanded:
            return head
        body = ["", "arguments:", _pretty(call.arguments)]
        if self.approval is not None:
            body += [f"approval: {APPROVALS.get(self.approval, self.approval)}"]
        if done is not None and self.progress is not None:
            body += [f"progress: {progress_text(self.progress)}"]
        if done is not None:
            body += ["result:", done.result or done.preview or "(empty)"]
        return Content.assemble(head, "\n", "\n".join(body).strip("\n"))

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def copy_text(self) -> str:
        return tool_text(self.called, self.finished, self.approval)


APPROVALS = {
    "once": "approved once",
    "session": "approved for the session",
    "rule": "approved by a session rule",
    "deny": "declined",
    "auto": "auto (nothing was asked)",
}
"""A stored call's approval in words: the person's answer, an earlier session approval, or none asked."""


def tool_line(
    call: events.ToolCalled,
    done: events.ToolFinished | None,
    limit: int,
    expanded: bool = False,
    approval: str | None = None,
    ended: bool = False,
) -> Content:
    """A tool call's one line: name, argument preview, then its mark, duration, the person's approval
    (a stored call that asked) and the result's summary.

    `ended`: the turn is over and no result came, so the call is not running any more."""
    argument = one_line(call.preview or _arguments_line(call.arguments), limit)
    parts: list[Any] = [("▾ " if expanded else "▸ ", "dim"), (call.name, "bold $primary"), "  ", argument]
    if done is None:
        parts.append(
            ("  ■ no result: the turn ended first", "$warning") if ended else ("  running…", "dim italic")
        )
    else:
        if done.interrupted:
            mark = ("  ■", "$warning")
        else:
            mark = ("  ✓", "$success") if done.ok else ("  ✗", "$error")
        parts.append(mark)
        if done.duration_s > 0:  # a call read back from an older state.db has no duration: no made-up "0ms"
            parts.append((f" {format_duration(done.duration_s)}", "dim"))
    if approval is not None and approval != "auto":  # every other call ran unasked: said when expanded
        parts += [
            "  ",
            (f"[{APPROVALS.get(approval, approval)}]", "italic $error" if approval == "deny" else "italic"),
        ]
    if done is not None and done.preview:
        parts += ["  ", (one_line(done.preview, limit), "dim")]
    return Content.assemble(*parts)


def progress_text(event: events.ToolProgress) -> str:
    """`2/3 step 2`, `40% copying` or `7 fetched`: how far a running call said it is."""
    done = f"{event.progress:g}"
    if event.total:
        done = f"{done}/{event.total:g}"
    return f"{done} {one_line(event.message, 80)}".strip()


def tool_text(call: events.ToolCalled, done: events.ToolFinished | None, approval: str | None = None) -> str:
    """What copying a tool call gives: its name and arguments, the person's approval, then its result."""
    result = done.result or done.preview if done else ""
    said = f"\napproval: {APPROVALS.get(approval, approval)}" if approval is not None else ""
    return f"{call.name} {_pretty(call.arguments)}{said}\n{result}".strip()


def _arguments_line(arguments: dict[str, Any]) -> str:
    return " ".join(f"{k}={v!r}" if not isinstance(v, str) else f"{k}={v}" for k, v in arguments.items())


def _pretty(arguments: dict[str, Any]) -> str:
    import json

    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(arguments)


class NoticeBlock(Block):
    """A one-line note in the conversation: a memory write, a skill change, a nudge, an error."""

    DEFAULT_CSS = """
    NoticeBlock {
        color: $text-muted;
        padding: 0 1 0 3;
    }
    NoticeBlock.-warning { color: $warning; }
    NoticeBlock.-error { color: $error; }
    NoticeBlock.-success { color: $success; }
    """

    def __init__(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.text = text
        super().__init__(Content.assemble((f"{icon} ", "bold"), text), classes=f"-{level}")

    def copy_text(self) -> str:
        return self.text


class PrunedMarker(Block):
    """The top of the window: earlier messages are in state.db and load when you scroll up to here.

    `anchor` is the first stored message shown below it (earlier ones load before it); without an
    anchor (blocks of a turn never recorded) the marker only counts what left the screen.
    """

    DEFAULT_CSS = """
    PrunedMarker {
        color: $text-muted;
        text-style: italic;
        content-align: center middle;
    }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.count = 0
        self.anchor: Ref | None = None
        self.more = True
        self.loading = False

    def add(self, count: int) -> None:
        self.count += count
        self._say()

    def set_anchor(self, anchor: Ref | None, more: bool) -> None:
        self.anchor, self.more = anchor, more
        self._say()

    def set_loading(self, loading: bool) -> None:
        self.loading = loading
        self._say()

    def _say(self) -> None:
        if self.anchor is not None and self.more:
            text = (
                "⋯ loading earlier messages ⋯"
                if self.loading
                else "⋯ earlier messages: scroll up or click to load ⋯"
            )
        elif self.anchor is not None:
            text = "⋯ the start of the conversation ⋯"
        else:
            text = f"⋯ {self.count:,} earlier blocks left the screen; the session keeps every message ⋯"
        self.update(text)

    class Clicked(Message):
        """The reader clicked the marker: the transcript loads the page above it."""

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Clicked())


class GapMarker(Block):
    """Newer messages not shown here (the window was paged up); they load as you scroll down to it.

    Messages after `after` load into the gap, up to `stop` (the first block below it; None: to the
    end of the conversation).
    """

    DEFAULT_CSS = """
    GapMarker {
        color: $text-muted;
        text-style: italic;
        content-align: center middle;
    }
    """

    def __init__(self, after: Ref, stop: Ref | None) -> None:
        super().__init__("")
        self.after = after
        self.stop = stop
        self.loading = False
        self._say()

    def set_loading(self, loading: bool) -> None:
        self.loading = loading
        self._say()

    def _say(self) -> None:
        self.update(
            "⋯ loading later messages ⋯"
            if self.loading
            else "⋯ later messages: scroll down or click to load · end jumps to the newest ⋯"
        )

    class Clicked(Message):
        """The reader clicked the gap: the transcript loads the messages after it."""

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Clicked())


class CompactionBlock(Block):
    """The summary a compression left in the conversation, collapsed to one line unless expanded."""

    DEFAULT_CSS = """
    CompactionBlock {
        color: $text-muted;
        padding: 0 1 0 3;
    }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, text: str) -> None:
        super().__init__("")
        self.text = text

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def render(self) -> Content:
        words = len(self.text.split())
        head = Content.assemble(
            ("▾ " if self.expanded else "▸ ", "dim"),
            ("compaction summary", "bold"),
            (f"  {words} words", "dim"),
        )
        return Content.assemble(head, "\n", self.text.strip()) if self.expanded else head

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def copy_text(self) -> str:
        return self.text


def diff_content(diff: str) -> Content:
    """A unified diff with its added lines green and its removed lines red."""
    parts: list[tuple[str, str] | str] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            parts.append((line, "dim"))
        elif line.startswith("+"):
            parts.append((line, "$success"))
        elif line.startswith("-"):
            parts.append((line, "$error"))
        elif line.startswith("@@"):
            parts.append((line, "$accent"))
        else:
            parts.append(line)
    return Content.assemble(*parts)


class ApprovalBlock(QuestionBlock):
    """An inline question: may the agent run this? The answer resolves the engine's Future.

    It is safe to type next to: it never takes the focus (the person may be typing), so keys meant
    for the input can never answer it. Answering is deliberate: `ctrl+o` (the screen's key) moves
    to the question, then ←/→ and enter, or the digit keys. While it has the focus, it swallows
    every other printable key (with a bell), so a stray letter never acts around it.
    """

    DEFAULT_CSS = """
    ApprovalBlock {
        height: auto;
        width: 1fr;
        margin: 1 1 0 3;
        padding: 0 1;
        border: round $warning;
    }
    ApprovalBlock:focus-within { border: heavy $warning; }
    ApprovalBlock > .approval-question { width: 1fr; height: auto; }
    ApprovalBlock > .approval-detail { width: 1fr; height: auto; max-height: 16; margin-top: 1; }
    ApprovalBlock > Horizontal { height: auto; width: 1fr; }
    ApprovalBlock Button { margin-right: 1; min-width: 10; }
    ApprovalBlock > .approval-hint { width: 1fr; height: auto; color: $text-muted; }
    ApprovalBlock.-answered { border: round $panel; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "answer('once')", "approve once", id="approve_once"),
        Binding("2", "answer('session')", "approve for the session", id="approve_session"),
        Binding("3", "answer('deny')", "deny", id="approve_deny"),
        Binding("left", "move(-1)", "previous answer", id="approve_previous", show=False),
        Binding("right", "move(1)", "next answer", id="approve_next", show=False),
    ]
    DETAIL_LINES = 14  # lines of a diff shown in the question; the rest is summed up

    class Answered(Message):
        """The user answered an approval (posted for the message flow; the Future carries it)."""

        def __init__(self, request_id: str, decision: str, focus_before: Widget | None = None) -> None:
            super().__init__()
            self.request_id = request_id
            self.decision = decision
            self.focus_before = focus_before
            """Where the focus was when the person moved to the question: it goes back there."""

    def __init__(self, event: events.ApprovalNeeded, future: asyncio.Future[str]) -> None:
        super().__init__(future)
        self.event = event
        self.decision: str | None = None

    @property
    def decisions(self) -> tuple[tuple[str, str], ...]:
        """The answers this question offers (no session-wide one when the engine allows none)."""
        return tuple(d for d in DECISIONS if d[0] != "session" or self.event.allow_session)

    def compose(self) -> ComposeResult:
        event = self.event
        rule = (f"  [{event.rule}]", "dim") if event.rule else ""
        ask = Content.assemble(
            (f"{event.asker} asks  ", "bold $accent") if event.asker else "",
            ("approve? ", "bold $warning"),
            (event.tool, "bold"),
            "  ",
            event.command,
            rule,
            "\n",
            (event.reason, "dim"),
        )
        yield Static(ask, classes="approval-question")
        if event.detail:  # the diff a protected file would take
            yield Static(diff_content(_clipped(event.detail, self.DETAIL_LINES)), classes="approval-detail")
        with Horizontal(classes="approval-buttons"):
            for decision, label in self.decisions:
                variant = "error" if decision == "deny" else "primary" if decision == "once" else "default"
                yield Button(
                    f"{DIGIT[decision]} {label}", id=f"approve-{decision}", variant=variant, compact=True
                )
        if event.allow_session:
            scope = f"approve for this session allows: {event.scope}" if event.scope else ""
        else:
            scope = "asked every time: this cannot be approved for the session"
        hint = "ctrl+o to answer, then ←/→ and enter, or a digit"
        yield Static(Content.assemble(scope, "\n" if scope else "", hint), classes="approval-hint")

    def first_stop(self) -> Widget:
        return self.query_one(Button)

    def on_key(self, event: Key) -> None:
        # Not stopped: the key goes on to the bindings, where only this question's own digits remain.
        if event.character is not None and event.character.isprintable() and event.character not in "123":
            self.app.bell()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        decision = (event.button.id or "").removeprefix("approve-")
        self.answer(decision)

    def action_answer(self, decision: str) -> None:
        self.answer(decision)

    def action_move(self, step: int) -> None:
        self.move_among(list(self.query(Button)), step)

    def answer(self, decision: str) -> None:
        if decision == "session" and not self.event.allow_session:
            return
        if self.resolve(decision):
            self.post_message(self.Answered(self.event.request_id, decision, self.focus_before))

    def settle(self) -> None:
        decision = "cancelled" if self.future.cancelled() else self.future.result()
        self.decision = decision
        labels = dict(DECISIONS)
        self.add_class("-answered")
        for part in self.query(".approval-buttons, .approval-hint, .approval-detail"):
            part.remove()
        said = labels.get(decision, decision).lower()
        if decision == "session" and self.event.scope:
            said += f" ({self.event.scope})"
        self.query_one(".approval-question", Static).update(
            Content.assemble(
                ("✓ " if decision in ("once", "session") else "✗ ", "bold"),
                said,
                ": ",
                (self.event.tool, "bold"),
                "  ",
                self.event.command,
            )
        )

    def copy_text(self) -> str:
        return self.event.command

"""The compression pane: a timeline of each compression and the session lineage.

Each compression is a node: when, why and tokens before → after; under it the phases (flush with
the memory it saved, summarise with its source, split with the session ids), the flushed writes,
and the summary (expand it with enter). The line above the timeline is the lineage of the running
conversation, root → tip. The app fills the lineage from the session store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from widgets.gauge import format_tokens
from widgets.pane import Pane

if TYPE_CHECKING:
    from engine import events

SUMMARY_PREVIEW_CHARS = 72


def short_id(session_id: str) -> str:
    return "…" + session_id[-6:] if len(session_id) > 8 else session_id


@dataclass
class CompressionRecord:
    """One compression as the events told it."""

    started_at: float
    reason: str
    tokens_before: int
    phases: list[events.CompressionPhase] = field(default_factory=list)
    finished: events.CompressionFinished | None = None


class Timeline(Tree[Any]):
    DEFAULT_CSS = """
    Timeline {
        height: 1fr;
        background: $surface;
        padding: 0;
        scrollbar-size-vertical: 1;
    }
    Timeline:focus { background-tint: transparent; }
    """

    def process_label(self, label: Any) -> Text:
        """Labels are Content (with theme colours); the tree draws Rich Text, so resolve them here."""
        if isinstance(label, Content):
            parse = self.app.stylesheet.parse_style if self.is_attached else None
            return Text.assemble(
                *((text, style.rich_style) for text, style in label.render(end="", parse_style=parse))
            )
        return super().process_label(label)


class CompressionPane(Pane):
    """F5: every compression of this conversation, as it happens."""

    pane_key = "F5"
    pane_title = "Compression"

    DEFAULT_CSS = """
    CompressionPane > #compression-lineage {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $text-muted;
        background: $surface;
    }
    """

    class ReloadRequested(Message):
        """The pane wants the lineage read again."""

    def __init__(self, id: str | None = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__(id=id)
        self.clock = clock
        self.records: list[CompressionRecord] = []
        self.lineage: tuple[str, ...] = ()
        self.branch_of = ""  # the session this conversation was branched from (`/branch`), if it was
        self.branches: tuple[str, ...] = ()  # the branches made from this conversation's sessions
        self.summary = "none yet"
        self.brief = "0"

    def compose_body(self) -> ComposeResult:
        yield Static(id="compression-lineage", classes="pane-body")
        tree: Timeline = Timeline("compressions", id="compression-timeline", classes="pane-body")
        tree.show_root = False
        tree.guide_depth = 2
        yield tree

    @property
    def timeline(self) -> Timeline:
        return self.query_one("#compression-timeline", Timeline)

    def focus_target(self) -> Widget:
        return self if self.collapsed else self.timeline

    @property
    def count(self) -> int:
        """Compressions that dropped something (one that found nothing to compress is listed, not counted)."""
        return sum(1 for r in self.records if r.finished is not None and r.finished.compressed)

    # What the app calls.

    def reload_from_disk(self) -> None:
        """Read the lineage again (the session store is the only file this pane shows)."""
        self.post_message(self.ReloadRequested())

    def compression_started(self, event: events.CompressionStarted) -> None:
        self.records.append(CompressionRecord(self.clock(), event.reason, event.tokens_before))
        self._redraw()

    def compression_phase(self, event: events.CompressionPhase) -> None:
        record = self._current(event.tokens_before)
        record.phases.append(event)
        self._redraw()

    def compression_finished(self, event: events.CompressionFinished) -> None:
        record = self._current(event.tokens_before)
        record.finished = event
        if event.new_session_id and event.new_session_id not in self.lineage:
            chain = list(self.lineage) or [event.old_session_id]
            if chain[-1] != event.old_session_id:
                chain.append(event.old_session_id)
            chain.append(event.new_session_id)
            self.lineage = tuple(chain)
        self._redraw()

    def set_lineage(
        self, chain: tuple[str, ...], branch_of: str = "", branches: tuple[str, ...] = ()
    ) -> None:
        self.lineage = chain
        self.branch_of = branch_of
        self.branches = branches
        self._draw_lineage()

    def reset(self) -> None:
        self.records.clear()
        self.lineage = ()
        self.branch_of = ""
        self.branches = ()
        self._redraw()

    def _current(self, tokens_before: int) -> CompressionRecord:
        if not self.records or self.records[-1].finished is not None:
            self.records.append(CompressionRecord(self.clock(), "", tokens_before))
        return self.records[-1]

    # Drawing.

    def _redraw(self) -> None:
        count = self.count
        running = bool(self.records) and self.records[-1].finished is None
        self.summary = f"{count} this session" + (" · compressing…" if running else "")
        self.brief = str(count)
        if not self.is_mounted:
            return
        self._draw_lineage()
        tree = self.timeline
        expanded = {n.data for n in tree.root.children if n.is_expanded}
        summaries_open = {
            n.data for n in self._walk(tree.root) if isinstance(n.data, tuple) and n.is_expanded
        }
        tree.clear()
        for index, record in enumerate(self.records):
            node = tree.root.add(self._record_label(record), data=index, expand=True)
            if expanded and index not in expanded:
                node.collapse()
            self._add_details(node, index, record, summaries_open)
        tree.root.expand()

    def _walk(self, node: TreeNode[Any]) -> list[TreeNode[Any]]:
        found = []
        for child in node.children:
            found.append(child)
            found += self._walk(child)
        return found

    def _record_label(self, record: CompressionRecord) -> Content:
        when = time.strftime("%H:%M", time.localtime(record.started_at))
        done = record.finished
        if done is None:
            return Content.assemble(
                (when, "dim"),
                "  ",
                ("compressing…", "bold $accent"),
                f" ({record.reason or '?'}) at ",
                (format_tokens(record.tokens_before), "bold"),
            )
        if not done.compressed:
            return Content.assemble(
                (when, "dim"),
                "  ",
                (record.reason or "compression", "bold"),
                "  ",
                ("not compressed", "$warning"),
                (f" at {format_tokens(done.tokens_before)}", "dim"),
            )
        saved = 1 - done.tokens_after / done.tokens_before if done.tokens_before else 0.0
        flushed = f"  +{len(done.flushed)} memory" if done.flushed else ""
        return Content.assemble(
            (when, "dim"),
            "  ",
            (record.reason or "compressed", "bold"),
            "  ",
            (f"{format_tokens(done.tokens_before)} → {format_tokens(done.tokens_after)}", "bold $success"),
            (f" (−{saved * 100:.0f}%)", "dim"),
            flushed,
        )

    def _add_details(
        self, node: TreeNode[Any], index: int, record: CompressionRecord, summaries_open: set[Any]
    ) -> None:
        for phase in record.phases:
            node.add_leaf(self._phase_label(phase))
        done = record.finished
        if done is None:
            return
        for write in done.flushed:
            node.add_leaf(Content.assemble(("  ✎ ", "$accent"), ("flushed ", "dim"), " ".join(write.split())))
        if not done.compressed:
            if done.note:
                node.add_leaf(Content.styled(" ".join(done.note.split()), "dim"))
            return
        node.add_leaf(
            Content.assemble(
                ("lineage ", "dim"),
                f"{short_id(done.old_session_id)} → ",
                (short_id(done.new_session_id), "bold"),
            )
        )
        summary = done.summary.strip()
        if summary:
            preview = " ".join(summary.split())[:SUMMARY_PREVIEW_CHARS]
            key = ("summary", index)
            branch = node.add(
                Content.assemble(("summary ", "bold"), (preview + "…", "dim")),
                data=key,
                expand=key in summaries_open,
            )
            for line in summary.splitlines():
                branch.add_leaf(Content(line or " "))

    def _phase_label(self, phase: events.CompressionPhase) -> Content:
        detail = phase.detail or {}
        extra = ""
        if phase.phase == "flush":
            writes = detail.get("writes") or []
            extra = (
                f"{len(writes)} write{'s' if len(writes) != 1 else ''}" if isinstance(writes, list) else ""
            )
            if detail.get("failures"):
                extra += f", {len(detail['failures'])} failed"
        elif phase.phase == "summarize":
            source = detail.get("source") or ""
            extra = f"by {source}" if source else ""
            if detail.get("updated_previous"):
                extra += ", updated the previous summary"
        elif phase.phase == "split":
            new = detail.get("new_session_id") or ""
            extra = f"→ {short_id(str(new))}" if new else ""
        return Content.assemble(
            (f"{phase.phase:<10}", "bold"),
            (f"{format_tokens(phase.tokens_before)} → {format_tokens(phase.tokens_after)}", ""),
            (f"  {extra}" if extra else "", "dim"),
        )

    def _draw_lineage(self) -> None:
        if not self.is_mounted:
            return
        line = self.query_one("#compression-lineage", Static)
        parts: list[Content | tuple[str, str] | str] = []
        if self.branch_of:  # a branch: where it came from, before its own chain
            parts += [("⑂ ", "$accent"), ("a branch of ", "dim"), (short_id(self.branch_of), ""), ("\n", "")]
        if len(self.lineage) <= 1:
            only = f" {short_id(self.lineage[0])}" if self.lineage else ""
            parts.append((f"lineage: one session{only} (no compression yet)", "dim"))
        else:
            parts.append(("lineage ", "dim"))
            for position, session_id in enumerate(self.lineage):
                last = position == len(self.lineage) - 1
                parts.append((short_id(session_id), "bold" if last else ""))
                parts.append((" → ", "dim") if not last else (" (now)", "dim"))
        if self.branches:  # branches made from it: each its own conversation, resumable from ctrl+r
            names = ", ".join(short_id(b) for b in self.branches)
            parts += [("\n", ""), ("⑂ ", "$accent"), ("branches ", "dim"), (names, "")]
        line.update(Content.assemble(*parts))

    def on_mount(self) -> None:
        super().on_mount()
        self._redraw()

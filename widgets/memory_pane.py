"""The memory pane: MEMORY.md and USER.md with their usage, frozen-vs-disk diff, and the write journal.

Each file shows its usage against its limit, then its entries as a diff between the frozen
snapshot (what the model sees in this session) and the file on disk (what the next session will
see): `+` only on disk, `-` only in the snapshot. The journal lists every write, newest first, with
who made it; ctrl+z undoes the highlighted one and enter shows its diff. With `memory.write_approval`
on, the agent's writes wait above the files with their diff until ctrl+a approves or ctrl+x rejects
one. While the local fact store is the memory provider, a "Facts" section below the files lists the
facts written this session and those recalled into the turn, with their trust. The pane only shows
data: the app reads the files, the journal and the pending writes in a worker (`reload_from_disk()`
asks it to) and does undo, approval and rejection.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets.option_list import Option

from widgets.facts_section import FactsSection
from widgets.gauge import LEVEL_STYLE, GaugeLevels, gauge
from widgets.pane import Pane, PaneLog
from widgets.pending_list import PendingList, PendingRow

PENDING_KEYS = "ctrl+a approve · ctrl+x reject · enter diff"

WHO_STYLE = {
    "agent": "$accent",
    "review": "$secondary",
    "user": "$primary",
    "external": "$warning",
    "undo": "$text-muted",
}
WHO_WIDTH = max(len(who) for who in WHO_STYLE)  # the names line up, a space after the longest
OUTSIDE_AGENT_STYLE = "$success"  # another agent's write through `hws mcp serve` (`mcp:claude-code`)
ACTION_MARK = {"add": "+", "replace": "~", "remove": "-", "undo": "↶", "batch": "±", "edit": "✎"}


@dataclass(frozen=True)
class MemoryFile:
    """One memory file as the pane shows it: the entries on disk and the ones frozen for the model."""

    target: str  # memory | user
    filename: str
    limit: int
    disk: tuple[str, ...]
    disk_chars: int
    frozen: tuple[str, ...] | None = None  # None: no session yet, so the model will see the disk
    frozen_chars: int = 0
    problem: str = ""  # the file cannot be read, or does not round-trip
    unreadable: bool = False  # it could not be read at all (not UTF-8, a symlink out of the home)
    modified_at: float = 0.0  # the file's own time of change (0: there is no file)

    @property
    def in_sync(self) -> bool:
        return self.frozen is None or tuple(self.frozen) == tuple(self.disk)


@dataclass(frozen=True)
class JournalRow:
    """One journaled write: who made it, when, what it did."""

    entry_id: str
    at: float
    who: str
    action: str
    target: str
    summary: str


@dataclass(frozen=True)
class MemoryView:
    """Everything the pane shows, read in one go."""

    files: tuple[MemoryFile, ...] = ()
    journal: tuple[JournalRow, ...] = ()  # newest first
    session_started: bool = False
    problem: str = ""
    pending: tuple[PendingRow, ...] = ()  # writes waiting for approval (memory.write_approval), oldest first


def entry_diff(frozen: Sequence[str], disk: Sequence[str]) -> list[tuple[str, str]]:
    """(mark, entry) lines: " " in both, "+" only on disk (next session), "-" only in the snapshot."""
    lines: list[tuple[str, str]] = []
    matcher = SequenceMatcher(a=list(frozen), b=list(disk), autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            lines += [(" ", entry) for entry in disk[b0:b1]]
            continue
        lines += [("-", entry) for entry in frozen[a0:a1]]
        lines += [("+", entry) for entry in disk[b0:b1]]
    return lines


def one_line(text: str) -> str:
    return " ".join(text.split())


def clock_time(at: float) -> str:
    """14:02 today, "Jan 03 14:02" on another day (local time)."""
    stamp = time.localtime(at)
    if time.strftime("%Y%m%d", stamp) == time.strftime("%Y%m%d"):
        return time.strftime("%H:%M", stamp)
    return time.strftime("%b %d %H:%M", stamp)


class MemoryFiles(VerticalScroll):
    """The two files with their bars and diffs; scrolls when they are long."""

    DEFAULT_CSS = """
    MemoryFiles {
        height: auto;
        max-height: 70%;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    MemoryFiles > .memory-line {
        width: 1fr;
        height: 1;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    MemoryFiles > .-head { text-style: bold; }
    MemoryFiles > .-added { color: $success; }
    MemoryFiles > .-removed { color: $error; text-style: strike; }
    MemoryFiles > .-same { color: $text-muted; }
    MemoryFiles > .-note { color: $text-muted; text-style: italic; }
    MemoryFiles > .memory-line.-note { height: auto; text-wrap: wrap; }  /* a sentence: never cut */
    MemoryFiles > .-outside { text-style: italic; }
    """

    can_focus = True


class MemoryPane(Pane):
    """F2: the two memory files and the write journal, live."""

    pane_key = "F2"
    pane_title = "Memory"

    DEFAULT_CSS = """
    MemoryPane > #memory-journal-title {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+z", "undo_entry", "undo", id="memory_undo", tooltip="Undo the highlighted memory write"
        ),
        Binding(
            "ctrl+a",
            "approve_pending",
            "approve",
            id="memory_approve",
            tooltip="Approve the highlighted memory write waiting for approval (memory.write_approval)",
        ),
        Binding(
            "ctrl+x",
            "reject_pending",
            "reject",
            id="memory_reject",
            tooltip="Reject the highlighted memory write waiting for approval; nothing is written",
        ),
    ]

    class ReloadRequested(Message):
        """The pane wants the files, the snapshot and the journal read again."""

    class UndoRequested(Message):
        """The user asked to undo one journaled write (ctrl+z on the journal)."""

        def __init__(self, entry_id: str, summary: str) -> None:
            super().__init__()
            self.entry_id = entry_id
            self.summary = summary

    class DiffRequested(Message):
        """Enter on a journal entry: show what that write changed."""

        def __init__(self, entry_id: str) -> None:
            super().__init__()
            self.entry_id = entry_id

    def __init__(
        self,
        levels: GaugeLevels | None = None,
        id: str | None = None,
        max_entries: int = 200,
        facts: bool = False,
    ) -> None:
        super().__init__(id=id)
        self.levels = levels or GaugeLevels()
        self.shows_facts = facts  # the local fact store is the memory provider: its section is shown
        # One line per entry: a file pasted far past its limit (200,000 entries) mounted as many
        # widgets took gigabytes and froze the app.
        self.max_entries = max_entries
        self.view = MemoryView()
        self.writes = 0
        self.summary = "reading…"
        self.brief = "…"

    def compose_body(self) -> ComposeResult:
        yield PendingList("memory", PENDING_KEYS, id="memory-pending", classes="pane-body")
        yield MemoryFiles(id="memory-files", classes="pane-body")
        if self.shows_facts:
            yield FactsSection(id="memory-facts", classes="pane-body")
        yield Static("Journal · enter: diff · ctrl+z: undo", id="memory-journal-title", classes="pane-body")
        yield PaneLog(max_entries=10_000, newest_first=True, id="memory-journal", classes="pane-body")

    @property
    def journal(self) -> PaneLog:
        return self.query_one("#memory-journal", PaneLog)

    @property
    def facts(self) -> FactsSection | None:
        """The "Facts" section, when the fact store is the provider."""
        found = self.query(FactsSection)
        return found.first() if found else None

    @property
    def pending(self) -> PendingList:
        return self.query_one(PendingList)

    def focus_target(self) -> Widget:
        if self.collapsed:
            return self
        return self.pending.entries if self.view.pending else self.query_one(MemoryFiles)

    # What the app calls.

    def reload_from_disk(self) -> None:
        """Re-read MEMORY.md, USER.md, the snapshot and the journal (the file watcher calls this)."""
        self.post_message(self.ReloadRequested())

    def show(self, view: MemoryView) -> None:
        """Draw a fresh reading; the journal keeps its highlighted entry when it is still there."""
        self.view = view
        self._summarise()
        self.pending.show(view.pending)
        self._draw_files()
        self._draw_journal()

    def memory_written(self, count: int = 1) -> None:
        """A write happened (the reading that follows redraws the pane)."""
        self.writes += count

    # Drawing.

    def _summarise(self) -> None:
        view = self.view
        if view.problem and not view.files:
            self.summary = Content.styled(view.problem, "$warning")
            self.brief = "!"
            return
        parts: list[Content | str] = []
        if view.pending:
            parts += [Content.styled(f"⏸ {len(view.pending)} pending", "bold $warning"), "  "]
        worst = 0.0
        for file in view.files:
            share = file.disk_chars / file.limit if file.limit else 0.0
            worst = max(worst, share)
            level = self.levels.level(share)
            parts.append(
                Content.assemble(f"{file.target.upper()} ", (f"{share * 100:.0f}%", LEVEL_STYLE[level]))
            )
            parts.append("  ")
        if any(not f.in_sync for f in view.files):
            parts.append(Content.styled("frozen ≠ disk", "bold $warning"))
        elif view.files:
            parts.append(Content.styled("in sync", "dim"))
        self.summary = Content.assemble(*parts)
        self.brief = f"{worst * 100:.0f}%"

    def _draw_files(self) -> None:
        box = self.query_one(MemoryFiles)
        lines: list[Static] = []
        for file in self.view.files:
            lines.append(self._file_head(file))
            outside = self._changed_outside(file)
            if outside is not None:
                lines.append(Static(outside, classes="memory-line -outside"))
            if file.problem:
                lines.append(Static(Content.styled(file.problem, "$warning"), classes="memory-line -note"))
            frozen = file.frozen if file.frozen is not None else file.disk
            diff = entry_diff(frozen, file.disk)
            if not diff:
                lines.append(Static("(empty)", classes="memory-line -note"))
            for mark, entry in diff[: self.max_entries]:
                style = {"+": "-added", "-": "-removed", " ": "-same"}[mark]
                lines.append(Static(Content(f"{mark} {one_line(entry)}"), classes=f"memory-line {style}"))
            if len(diff) > self.max_entries:
                more = len(diff) - self.max_entries
                lines.append(
                    Static(
                        f"… and {more:,} more (tui.memory_pane_entries); "
                        f"`hws memory show --target {file.target}` lists them all.",
                        classes="memory-line -note",
                    )
                )
        if not self.view.session_started and self.view.files:
            lines.append(
                Static(
                    "No session yet: the model will see these files as they are at your first message.",
                    classes="memory-line -note",
                )
            )
        self.call_later(self._replace_files, box, lines)

    async def _replace_files(self, box: MemoryFiles, lines: list[Static]) -> None:
        """Swap the drawn lines for new ones, the old gone before the new arrive (no frame shows both);
        queued, so readings that come quickly are drawn in their order."""
        with self.app.batch_update():
            await box.remove_children()
            await box.mount_all(lines)

    def _changed_outside(self, file: MemoryFile) -> Content | None:
        """A line while the file's newest change, made outside hws (an editor, a script), is not in
        what the model sees: gone once a session has read the file as it is now."""
        newest = next((row for row in self.view.journal if row.target == file.target), None)
        if file.unreadable and file.modified_at and (newest is None or file.modified_at > newest.at):
            at = file.modified_at  # the journal cannot keep what it cannot read: the file's time says when
        elif newest is not None and newest.who == "external":
            at = newest.at
        else:
            return None
        if self.view.session_started and file.in_sync:
            return None  # this session's snapshot was taken after the change: it holds it already
        return Content.assemble(
            ("⟲ ", "$warning"),
            ("changed on disk outside hws", "$warning"),
            f" at {clock_time(at)}",
            (" — the next session reads it" if self.view.session_started else "", "dim"),
        )

    def _file_head(self, file: MemoryFile) -> Static:
        share = file.disk_chars / file.limit if file.limit else 0.0
        level = self.levels.level(share)
        state = (
            Content.styled("frozen ≠ disk", "bold $warning")
            if not file.in_sync
            else Content.styled("in sync", "dim $success")
        )
        head = Content.assemble(
            (f"{file.filename:<9} ", "bold"),
            (f"{file.disk_chars:,}/{file.limit:,} ", LEVEL_STYLE[level]),
            gauge(share, 12, self.levels),
            "  ",
            state,
        )
        return Static(head, classes="memory-line -head")

    def _draw_journal(self) -> None:
        log = self.journal
        highlighted = log.highlighted
        kept = log.get_option_at_index(highlighted).id if highlighted is not None else None
        log.clear_options()
        log.add_options(self._journal_option(row) for row in self.view.journal)
        if kept is not None:
            try:
                log.highlighted = log.get_option_index(kept)
            except Exception:
                log.highlighted = 0 if log.option_count else None

    def _journal_option(self, row: JournalRow) -> Option:
        mark = ACTION_MARK.get(row.action, "·")
        prompt = Content.assemble(
            (f"{clock_time(row.at):>5} ", "dim"),
            (f"{row.who:<{WHO_WIDTH}} ", _who_style(row.who)),
            (f"{mark} {row.target:<6} ", "bold"),
            one_line(row.summary) or row.action,
        )
        return Option(prompt, id=row.entry_id)

    # Keys.

    def _highlighted_row(self) -> JournalRow | None:
        log = self.journal
        if log.highlighted is None:
            return None
        option_id = log.get_option_at_index(log.highlighted).id
        return next((r for r in self.view.journal if r.entry_id == option_id), None)

    def action_undo_entry(self) -> None:
        row = self._highlighted_row()
        if row is None:
            self.notify("Highlight a journal entry first (tab to the journal, then up / down).")
            return
        self.post_message(self.UndoRequested(row.entry_id, row.summary))

    def action_approve_pending(self) -> None:
        if not self.pending.decide("approve"):
            self.notify("No memory write waits for approval.")

    def action_reject_pending(self) -> None:
        if not self.pending.decide("reject"):
            self.notify("No memory write waits for approval.")

    def on_option_list_option_selected(self, event: PaneLog.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.DiffRequested(event.option.id))


def _who_style(who: str) -> str:
    return WHO_STYLE.get(who, OUTSIDE_AGENT_STYLE if who.startswith("mcp:") else "")

"""Writes waiting for the person's approval, listed in the memory and skills panes with their diff.

With `memory.write_approval` / `skills.write_approval` on, the agent's writes are staged instead of
made. Each waits here as one entry: who asked, what it does, the first lines of the diff approving
it would make now, and what stands in its way (a file changed since). The pane's keys approve or
reject the highlighted entry (the first when none is); enter shows its whole diff. The list only
asks (with Messages); the app does the work.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.widgets.option_list import Option

from engine.printable import printable
from widgets.pane import PaneLog

DIFF_LINES = 8  # lines of a pending write's diff shown in the pane (enter shows all of it)
DIFF_STYLE = {"+": "$success", "-": "$error", "@": "$accent"}


@dataclass(frozen=True)
class PendingRow:
    """One staged write as the pane shows it."""

    pending_id: str
    who: str  # agent | review
    summary: str
    diff: str = ""
    problem: str = ""  # approving now is refused or would fail, and why
    unchanged: bool = False  # approving changes nothing


class PendingList(Vertical):
    """A title line and the list of pending writes; hidden while nothing waits."""

    DEFAULT_CSS = """
    PendingList {
        height: auto;
        max-height: 60%;
        display: none;
    }
    PendingList.-waiting {
        display: block;
    }
    PendingList > .pending-title {
        height: 1;
        padding: 0 1;
        background: $warning 30%;
        color: $text;
        text-style: bold;
    }
    PendingList > PaneLog {
        height: auto;
        max-height: 20;
    }
    """

    class DecisionRequested(Message):
        """Approve or reject one pending write."""

        def __init__(self, subsystem: str, pending_id: str, decision: str, summary: str) -> None:
            super().__init__()
            self.subsystem = subsystem
            self.pending_id = pending_id
            self.decision = decision  # approve | reject
            self.summary = summary

    class DiffRequested(Message):
        """Enter on a pending write: show its whole diff."""

        def __init__(self, subsystem: str, pending_id: str) -> None:
            super().__init__()
            self.subsystem = subsystem
            self.pending_id = pending_id

    def __init__(self, subsystem: str, keys_hint: str, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.subsystem = subsystem
        self.keys_hint = keys_hint
        self.rows: tuple[PendingRow, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static("", classes="pending-title")
        yield PaneLog(max_entries=10_000, id=f"{self.subsystem}-pending-log")

    @property
    def entries(self) -> PaneLog:
        return self.query_one(PaneLog)

    def show(self, rows: tuple[PendingRow, ...]) -> None:
        self.rows = rows
        self.set_class(bool(rows), "-waiting")
        count = len(rows)
        self.query_one(".pending-title", Static).update(f"⏸ {count} pending · {self.keys_hint}")
        log = self.entries
        highlighted = log.highlighted
        kept = log.get_option_at_index(highlighted).id if highlighted is not None else None
        log.clear_options()
        log.add_options(self._option(row) for row in rows)
        if kept is not None:
            try:
                log.highlighted = log.get_option_index(kept)
            except Exception:
                log.highlighted = 0 if log.option_count else None

    def _option(self, row: PendingRow) -> Option:
        lines: list[Content] = [
            Content.assemble(
                (f"{row.pending_id} ", "bold"),
                (f"{row.who:<6} ", "$secondary" if row.who == "review" else "$accent"),
                printable(row.summary),
            )
        ]
        if row.problem:
            lines.append(Content.assemble(("  ! ", "$error"), (printable(row.problem), "$warning")))
        elif row.unchanged:
            lines.append(Content.styled("  already there: approving it changes nothing", "dim"))
        diff = [line for line in row.diff.splitlines() if not line.startswith(("--- ", "+++ "))]
        for line in diff[:DIFF_LINES]:
            lines.append(Content.styled("  " + printable(line), DIFF_STYLE.get(line[:1], "dim")))
        if len(diff) > DIFF_LINES:
            lines.append(Content.styled(f"  … {len(diff) - DIFF_LINES} more lines (enter shows them)", "dim"))
        return Option(Content("\n").join(lines), id=row.pending_id)

    def chosen(self) -> PendingRow | None:
        """The highlighted pending write, else the first (the one a key on the pane acts on)."""
        if not self.rows:
            return None
        log = self.entries
        if log.highlighted is not None:
            option_id = log.get_option_at_index(log.highlighted).id
            found = next((r for r in self.rows if r.pending_id == option_id), None)
            if found is not None:
                return found
        return self.rows[0]

    def decide(self, decision: str) -> bool:
        """Ask for a decision on the chosen write; False when nothing waits."""
        row = self.chosen()
        if row is None:
            return False
        self.post_message(self.DecisionRequested(self.subsystem, row.pending_id, decision, row.summary))
        return True

    def on_option_list_option_selected(self, event: PaneLog.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.DiffRequested(self.subsystem, event.option.id))

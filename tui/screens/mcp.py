"""The MCP screen (`/mcp`): each configured server, its state, tools and schema tokens, and what was cut.

Space (or enter) turns the highlighted server on or off; the commands hub writes `enabled` into
config.yaml and applies it from the next model call, as `/reload-mcp` does, then shows the rows again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


@dataclass(frozen=True)
class McpRow:
    """One server as the screen shows it."""

    name: str
    enabled: bool
    state: str
    trust: str
    tools: int
    schema_tokens: int
    deferred: bool
    where: str = ""
    error: str = ""
    flags: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()


class McpScreen(ModalScreen[None]):
    CSS_PATH = "mcp.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.pop_screen", "close", id="close_mcp"),
        Binding("space,enter", "toggle", "enable or disable the server", id="toggle_mcp_server"),
    ]

    class EnableRequested(Message):
        """The person turned server `name` on or off."""

        def __init__(self, name: str, enabled: bool) -> None:
            super().__init__()
            self.name = name
            self.enabled = enabled

    def __init__(self, rows: list[McpRow], note: str = "") -> None:
        super().__init__()
        self.rows = rows
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-frame"):
            yield Static(
                "MCP servers  ·  space turns one on or off (kept in config.yaml)  ·  esc closes",
                id="mcp-title",
            )
            yield DataTable(id="mcp-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="mcp-detail")
            yield Static(self.note, id="mcp-note")

    def on_mount(self) -> None:
        table = self.query_one("#mcp-table", DataTable)
        for label in ("server", "on", "state", "trust", "tools", "schema tokens", "flagged"):
            table.add_column(label, key=label)
        self.show_rows(self.rows)
        table.focus()

    def show_rows(self, rows: list[McpRow], note: str | None = None) -> None:
        """Draw `rows` (the cursor stays on the same server when it is still there)."""
        table = self.query_one("#mcp-table", DataTable)
        current = self.highlighted
        self.rows = rows
        table.clear()
        for row in rows:
            tokens = f"{row.schema_tokens:,}" + (" (deferred)" if row.deferred else "")
            flagged = str(len(row.flags)) if row.flags else ""
            on = "yes" if row.enabled else "no"
            table.add_row(row.name, on, row.state, row.trust, str(row.tools), tokens, flagged, key=row.name)
        names = [r.name for r in rows]
        if current is not None and current.name in names:
            table.move_cursor(row=names.index(current.name))
        if note is not None:
            self.note = note
            self.query_one("#mcp-note", Static).update(note)
        self._show_detail()

    @property
    def highlighted(self) -> McpRow | None:
        table = self.query_one("#mcp-table", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def _highlight(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        row = self.highlighted
        lines: list[str] = []
        if row is None:
            lines.append("No MCP server is configured: `hws mcp add NAME -- COMMAND` adds one.")
        else:
            lines.append(f"{row.name}: {row.where}")
            if row.error:
                lines.append(f"not running: {row.error}")
            lines += [f"description cut as a prompt injection: {flag}" for flag in row.flags]
            lines += [f"left out: {why}" for why in row.left_out]
        self.query_one("#mcp-detail", Static).update("\n".join(lines))

    def action_toggle(self) -> None:
        row = self.highlighted
        if row is not None:
            self.post_message(self.EnableRequested(row.name, not row.enabled))

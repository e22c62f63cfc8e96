"""The keys screen (f12, or ? in a pane): every binding with its id, its keys now, and what it does.

The ids are what `keys:` in config.yaml rebinds, so the screen doubles as the keymap reference.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.keys import KeyRow


class KeysScreen(ModalScreen[None]):
    CSS_PATH = "keys.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f12,question_mark,q", "app.pop_screen", "close", id="close_keys"),
    ]

    def __init__(self, rows: list[KeyRow], commands: list[tuple[str, str]]) -> None:
        super().__init__()
        self.rows = rows
        self.commands = commands

    def compose(self) -> ComposeResult:
        with Vertical(id="keys-frame"):
            yield Static(
                "Keys  ·  rebind any of them by id under `keys:` in config.yaml  ·  esc closes",
                id="keys-title",
            )
            table: DataTable[str] = DataTable(id="keys-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("keys", "id", "what it does", "where")
            for row in self.rows:
                table.add_row(row.keys, row.binding_id, row.description, row.where)
            yield table
            commands = "   ".join(f"/{name}" for name, _ in self.commands)
            yield Static(f"Commands: {commands}", id="keys-commands")

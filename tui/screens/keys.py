"""The keys screen (f12): every binding with its id, its keys now, and what it does.

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
            yield DataTable(id="keys-table", cursor_type="row", zebra_stripes=True)
            commands = "   ".join(f"/{name}" for name, _ in self.commands)
            yield Static(f"Commands: {commands}", id="keys-commands")

    def on_mount(self) -> None:
        self._fill(self.size.width)

    def on_resize(self) -> None:
        self.call_after_refresh(lambda: self._fill(self.query_one("#keys-table").size.width))

    def _fill(self, width: int) -> None:
        """The descriptions wrap in what the keys, ids and places leave of the width: at 80 columns they
        were cut ("Interrupt the running tur"), and the `where` column was off the edge at any width."""
        table = self.query_one("#keys-table", DataTable)
        if width <= 0 or width == getattr(self, "_filled_width", None):
            return
        self._filled_width = width
        keys = max([len("keys"), *(len(r.keys) for r in self.rows)])
        ids = max([len("id"), *(len(r.binding_id) for r in self.rows)])
        wheres = max([len("where"), *(len(r.where) for r in self.rows)])
        padding = 2 * table.cell_padding * 4 + 2  # each column's padding, and the scrollbar
        described = max(16, width - keys - ids - wheres - padding)
        table.clear(columns=True)
        table.add_column("keys", width=keys)
        table.add_column("id", width=ids)
        table.add_column("what it does", width=described)
        table.add_column("where", width=wheres)
        for row in self.rows:
            table.add_row(row.keys, row.binding_id, row.description, row.where, height=None)

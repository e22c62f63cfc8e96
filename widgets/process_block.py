"""A background process in the transcript: one live line that follows it until it ends.

`⚙ p1 running · local · python3 -m http.server 8000` and, under it, the last line it printed; when it
ends the line says how (`exited 0`, `killed`, `stopped with the session`) and stops changing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from widgets.transcript_blocks import Block

if TYPE_CHECKING:
    from engine import events

ENDINGS = {"exited": "exited", "killed": "killed", "session_end": "stopped with the session", "lost": "ended"}


class ProcessBlock(Block):
    """The live block of one background process."""

    DEFAULT_CSS = """
    ProcessBlock {
        color: $text-muted;
        padding: 0 1 0 3;
    }
    ProcessBlock.-running { color: $text; }
    """

    def __init__(self, event: events.ProcessStarted) -> None:
        self.process_id = event.process_id
        self.command = event.command
        self.where = event.where
        self.state = "running"
        self.last_line = ""
        super().__init__(self._content(), classes="-running")

    def _content(self) -> Content:
        head = Content.assemble(
            ("⚙ ", "bold"),
            (f"{self.process_id} {self.state}", "bold" if self.state == "running" else ""),
            (f" · {self.where} · ", "dim"),
            self.command,
        )
        if not self.last_line:
            return head
        return Content.assemble(head, "\n", ("  └ ", "dim"), (self.last_line, "dim"))

    def output(self, event: events.ProcessOutput) -> None:
        self.last_line = event.last_line
        self.update(self._content())

    def ended(self, event: events.ProcessEnded) -> None:
        self.state = ENDINGS.get(event.reason, event.reason)
        if event.reason == "exited":
            self.state = f"exited {event.exit_code}"
        self.remove_class("-running")
        self.update(self._content())

    def copy_text(self) -> str:
        return f"{self.process_id} {self.state} · {self.where} · {self.command}"

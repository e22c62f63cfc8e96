"""The session's background processes as the workstation shows them: live blocks in the transcript, the
count in the status bar (`⚙ 2 running`), and the running ones the palette offers to kill."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from widgets.process_block import ProcessBlock

if TYPE_CHECKING:
    from engine import events


class ProcessFeed:
    """Follows the Process* events for the main screen (which owns the transcript and the status bar)."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.running: dict[str, ProcessBlock] = {}

    async def started(self, event: events.ProcessStarted) -> None:
        block = ProcessBlock(event)
        self.running[event.process_id] = block
        await self.screen.transcript.add_block(block)
        self._count()

    def output(self, event: events.ProcessOutput) -> None:
        block = self.running.get(event.process_id)
        if block is not None:
            with contextlib.suppress(Exception):  # pruned from the transcript: nothing left to redraw
                block.output(event)

    def ended(self, event: events.ProcessEnded) -> None:
        block = self.running.pop(event.process_id, None)
        if block is not None:
            with contextlib.suppress(Exception):
                block.ended(event)
        self._count()

    def entries(self) -> list[tuple[str, str, str]]:
        """(id, command, where) of each running process, for the palette."""
        return [(b.process_id, b.command, b.where) for b in self.running.values()]

    def _count(self) -> None:
        self.screen.status.update_state(processes=len(self.running))

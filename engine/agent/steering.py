"""What the person adds to a running turn (`/steer TEXT`), and the commands they run in its shell (`!CMD`).

Steering text waits here until the turn reaches its next tool boundary: after the tool results are
recorded and before the next model call, each text joins the conversation as a user message (stored
in state.db in order, announced with `TurnSteered`). A turn that ends before any boundary leaves the
text here for the UI to take back (`take`) and send as the next message.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import TYPE_CHECKING

from engine.events import ShellRan

if TYPE_CHECKING:
    from engine.tools.context import ToolContext
    from engine.tools.registry import ToolRegistry


class SteerQueue:
    """Texts waiting for the running turn's next tool boundary; safe to add to from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._texts: list[str] = []

    def add(self, text: str) -> None:
        with self._lock:
            self._texts.append(text)

    def take(self) -> list[str]:
        """Every waiting text, oldest first; the queue is empty afterwards."""
        with self._lock:
            texts, self._texts = self._texts, []
        return texts

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)


async def run_shell_command(
    registry: ToolRegistry, ctx: ToolContext, session_id: str, command: str
) -> ShellRan:
    """Run `command` through the `terminal` tool (the session's shell, its sandbox and its approvals), for
    the person's eyes only: the caller records nothing of it in the conversation."""
    started = time.monotonic()
    call_id = f"user-shell-{uuid.uuid4().hex[:8]}"
    outcome = await registry.dispatch("terminal", {"command": command}, ctx, call_id)
    return ShellRan(
        session_id, command, outcome.ok, outcome.summary, outcome.content, time.monotonic() - started
    )

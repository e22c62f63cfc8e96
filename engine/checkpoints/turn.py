"""The agent's side of checkpoints: before the first call of a turn that may change files, save the folder.

The calls that count are `write_file`, `patch` and a `terminal` command on this machine that is not
provably read-only (engine/tools/danger.py decides: `ls` or `git status` take no checkpoint, `sed -i`
or `echo >` do). One checkpoint per turn, taken off the event loop; an unchanged folder makes no new
one (its event names the checkpoint that already holds it). A folder over the limits is said once,
with `CheckpointSkipped`, and the turn goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from engine.checkpoints.store import CheckpointStore
from engine.config import Config
from engine.events import CheckpointSkipped, CheckpointTaken, ConversationRewound, Event
from engine.home import Home
from engine.threats.redact import home_redactor
from engine.tools.backends.choice import backend_name
from engine.tools.danger import is_read_only
from engine.tools.preview import one_line

log = logging.getLogger(__name__)

FILE_TOOLS = frozenset({"write_file", "patch"})
REASON_WIDTH = 80  # characters of the prompting call kept as the checkpoint's reason


def change_reason(name: str, arguments: Mapping[str, Any], cwd: Path, config: Config) -> str:
    """The call in one line when it may change the working folder's files, else ""."""
    if name in FILE_TOOLS:
        return one_line(f"{name} {arguments.get('path', '')}", REASON_WIDTH)
    if name == "terminal" and backend_name(config) == "local":
        command = str(arguments.get("command", ""))
        try:
            read_only = is_read_only(command, cwd)
        except Exception:  # a command the parser cannot take may write
            log.exception("checking whether a command only reads failed")
            read_only = False
        if command.strip() and not read_only:
            return one_line(f"terminal {command}", REASON_WIDTH)
    return ""


class TurnCheckpoints:
    """One agent's checkpoints of its working folder: at most one per turn, its events through `emit`."""

    def __init__(self, home: Home, config: Config, cwd: Path, emit: Callable[[Event], None]) -> None:
        self.home = home
        self.config = config
        self.cwd = cwd
        self.emit = emit
        self.enabled = bool(config.checkpoints.enabled)
        self.store = CheckpointStore(home, config, cwd)
        self._turn: tuple[str, int] | None = None  # the (session, turn) already saved
        self._skip_said = False

    async def before_tools(
        self, session_id: str, turn: int, calls: Iterable[tuple[str, Mapping[str, Any]]]
    ) -> None:
        """Save the folder if this is the turn's first call that may change it (never raises)."""
        if not self.enabled or self._turn == (session_id, turn):
            return
        reason = next(
            (r for name, args in calls if (r := change_reason(name, args, self.cwd, self.config))), ""
        )
        if not reason or self.store.refusal():  # a folder never saved (the home itself) is not news
            return
        reason = home_redactor(self.home.root, self.config)(reason)  # it is stored: no key in a command
        self._turn = (session_id, turn)
        try:
            taken = await asyncio.to_thread(self.store.take, reason, session_id=session_id, turn=turn)
        except Exception:  # a checkpoint never stops the turn
            log.exception("taking a checkpoint failed")
            return
        if taken.checkpoint is None:
            log.warning("%s", taken.skipped)
            if not self._skip_said:
                self._skip_said = True
                self.emit(CheckpointSkipped(session_id, str(self.store.project), taken.skipped))
            return
        self._skip_said = False
        checkpoint = taken.checkpoint
        self.emit(
            CheckpointTaken(
                session_id,
                checkpoint.id,
                turn,
                reason,
                str(self.store.project),
                checkpoint.files,
                taken.unchanged,
            )
        )

    async def offer_rollback(self, rewound: ConversationRewound, first_turn: int) -> ConversationRewound:
        """`rewound` naming the checkpoint from before turn `first_turn` (the first one taken back) when the
        folder's files changed since, so the person can be offered the rollback; as it was otherwise."""
        if not self.enabled or rewound.exchanges < 1:
            return rewound
        try:
            found = await asyncio.to_thread(self._changed_since_turn, rewound.session_id, first_turn)
        except Exception:  # the offer is a courtesy: the rewind stands without it
            log.exception("finding the checkpoint before the rewound turns failed")
            return rewound
        if found is None:
            return rewound
        checkpoint_id, changed = found
        return dataclasses.replace(
            rewound, checkpoint_id=checkpoint_id, files_changed=changed, project=str(self.store.project)
        )

    def _changed_since_turn(self, session_id: str, turn: int) -> tuple[str, int] | None:
        if self.store.refusal():
            return None
        checkpoint = self.store.before_turn(session_id, turn)
        if checkpoint is None:
            return None
        changes = self.store.changes_since(checkpoint)
        return (checkpoint.id, len(changes)) if changes else None

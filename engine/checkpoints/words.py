"""What checkpoints say to a person, shared by `hws checkpoints` and the workstation's `/rollback`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from engine.checkpoints.store import Change, Checkpoint, Restored


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def summary(changes: Sequence[Change]) -> str:
    """`3 files (+12 -4)`, or `no change`."""
    if not changes:
        return "no change"
    added = sum(c.lines_added or 0 for c in changes)
    removed = sum(c.lines_removed or 0 for c in changes)
    return f"{plural(len(changes), 'file')} (+{added} -{removed})"


def when(checkpoint: Checkpoint) -> str:
    return dt.datetime.fromtimestamp(checkpoint.created).strftime("%Y-%m-%d %H:%M:%S")


def label(checkpoint: Checkpoint) -> str:
    """`turn 3: write_file src/a.py`, or the reason alone for one taken by hand (a restore's undo)."""
    return f"turn {checkpoint.turn}: {checkpoint.reason}" if checkpoint.turn else checkpoint.reason


def restore_line(change: Change) -> str:
    """A change as a restore makes it (the change seen from the folder before the restore)."""
    words = {"added": "brought back", "removed": "removed (made after the checkpoint)"}
    return f"{words.get(change.status, 'restored')}: {change.path}"


def restored_sentence(restored: Restored, project: str) -> str:
    """What a restore did, and how to undo it, in two sentences."""
    target = restored.target
    where = f"{restored.path} in {project}" if restored.path else project
    if not restored.changes:
        return f"{where} already matches checkpoint {target.id} ({label(target)}); nothing was changed."
    removed = sum(1 for c in restored.changes if c.status == "removed")
    gone = f"; {plural(removed, 'file')} made after it removed" if removed else ""
    return (
        f"Restored {where} to checkpoint {target.id} ({label(target)}): {summary(restored.changes)}{gone}. "
        f"Checkpoint {restored.undo.id} holds the folder as it was before, to undo this."
    )

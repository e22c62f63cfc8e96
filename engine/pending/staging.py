"""What staging a write shares between memory and skills: whether the gate is on for a writer, what
the model is told, and the fingerprints a staged write keeps of the files it would change.

With `memory.write_approval` or `skills.write_approval` on, the agent's writes are worked out as the
real write would be and staged instead of made (engine/memory/staging.py, engine/skills/staging.py,
in Hermes' layout: engine/pending/records.py); the person's review, approval and rejection are
engine/pending/approval.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.pending.records import StagedWrite, is_gated_writer
from engine.storage.self_writes import content_hash

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

ABSENT = "absent"  # the base of a file that did not exist when the write was staged
SUMMARY_CHARS = 200
WHERE = {
    "memory": "the memory pane (F2), `/memory pending` or `hws memory pending`",
    "skills": "the skills pane (F4), `/skills pending` or `hws skills pending`",
}


def gate_on(config: Config, subsystem: str, who: str) -> bool:
    """Whether writes of `subsystem` by this writer wait for approval: the agent's, the review's and
    other agents' (through `hws mcp serve`) do."""
    section = config.memory if subsystem == "memory" else config.skills
    return is_gated_writer(who) and bool(section.write_approval)


def staged_result(record: StagedWrite) -> dict[str, Any]:
    """What the model is told: Hermes' `staged` shape, and that nothing is saved yet."""
    return {
        "success": True,
        "staged": True,
        "done": True,
        "pending_id": record.id,
        "message": (
            f"Staged for approval ({record.subsystem}.write_approval is on): nothing is saved until the "
            f"user approves it, in {WHERE[record.subsystem]}. Do not repeat this write; tell the user it "
            "waits for their approval."
        ),
    }


def not_staged(exc: Exception) -> dict[str, Any]:
    return {
        "success": False,
        "error": f"The write could not be staged for approval ({exc}); nothing was saved.",
    }


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def relative_to_home(home: Home, path: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(home.root))).as_posix()


def file_hash(path: Path) -> str:
    try:
        return content_hash(path.read_bytes())
    except FileNotFoundError:
        return ABSENT
    except IsADirectoryError:
        return "folder"

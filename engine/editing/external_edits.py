"""Hand edits seen by the file watcher, journaled as `external` in the memory journal or the skill history.

The watcher passes what it saw before (its cached text of the file) and what is there now; each
store first tries its own record (the text after its last journaled write), and the watcher's text
fills in when hws never wrote that file, so the first hand edit of an old home is kept too.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.storage.atomic import WriteError
from engine.storage.journal import JournalEntry, JournalError

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
MEMORY_FILES = {"MEMORY.md": "memory", "USER.md": "user"}
SKILLS_ARCHIVE = ".archive"
PENDING = {"memory": "pending_memory", "skills": "pending_skills"}  # pending/<subsystem>/<id>.json


def classify(home: Home, path: Path | str) -> str | None:
    """Which store a path under the home belongs to: `soul`, `memory`, `user`, `skill`, a staged write
    (`pending_memory`, `pending_skills`: `*.write_approval`), or None."""
    absolute = Path(os.path.abspath(path))
    root = Path(os.path.abspath(home.root))
    try:
        rel = absolute.relative_to(root)
    except ValueError:
        return None
    parts = rel.parts
    if parts == ("SOUL.md",):
        return "soul"
    if len(parts) == 2 and parts[0] == "memories" and parts[1] in MEMORY_FILES:
        return MEMORY_FILES[parts[1]]
    if len(parts) == 3 and parts[0] == "pending" and parts[1] in PENDING and parts[2].endswith(".json"):
        return PENDING[parts[1]]
    if len(parts) >= 2 and parts[0] == "skills" and parts[1] != SKILLS_ARCHIVE:
        if any(p.startswith(".") for p in parts[1:]):
            return None  # hidden files and folders (the usage counters, editor litter) are not skills
        return "skill"
    return None


def skill_dir_for(home: Home, path: Path | str) -> Path | None:
    """The skill folder a file under `skills/` belongs to (also for files that were just deleted)."""
    skills = Path(os.path.abspath(home.skills))
    absolute = Path(os.path.abspath(path))
    if absolute.name == SKILL_FILE:
        return absolute.parent if absolute.parent != skills else None
    folder = absolute.parent
    while folder != skills and skills in folder.parents:
        if (folder / SKILL_FILE).is_file():
            return folder
        folder = folder.parent
    rel = absolute.relative_to(skills).parts
    for index, part in enumerate(rel[:-1]):
        if part in SUPPORT_DIRS and index > 0:
            return skills.joinpath(*rel[:index])
    return None


def journal_external(
    home: Home, config: Config, kind: str, path: Path, before: str | None, after: str | None
) -> list[JournalEntry]:
    """Journal one hand edit of `path` (kind from `classify`); returns the entries written (often none)."""
    entries = _journal_external(home, config, kind, path, before, after)
    for entry in entries:
        what = entry.summary or entry.action
        log.info("external edit of %s journaled as %s (%s)", entry.path, entry.id, what)
    return entries


def journal_edits_made_while_closed(home: Home, config: Config) -> list[JournalEntry]:
    """Memory files edited by hand while nothing watched: journaled as `external` now (at a watcher's
    start), so the journal shows the edit before the pane shows the file."""
    from engine.memory.store import MemoryStore

    entries = []
    for target in ("memory", "user"):
        with contextlib.suppress(WriteError, JournalError, OSError):
            entry = MemoryStore.open(home, target, config, who="user").sync_journal()
            if entry is not None:
                entries.append(entry)
    return entries


def _journal_external(
    home: Home, config: Config, kind: str, path: Path, before: str | None, after: str | None
) -> list[JournalEntry]:
    try:
        if kind in ("memory", "user"):
            return _memory(home, config, kind, before, after)
        if kind == "soul":
            from engine.prompt.soul import SoulFile

            entry = SoulFile(home).sync_journal(previous=before)
            return [entry] if entry else []
        if kind == "skill":
            return _skill(home, path, before)
    except (WriteError, JournalError, OSError):
        return []
    return []


def _memory(
    home: Home, config: Config, target: str, before: str | None, after: str | None
) -> list[JournalEntry]:
    from engine.memory.store import JOURNAL_KIND, MemoryStore

    store = MemoryStore.open(home, target, config, who="user")
    entry = store.sync_journal()
    if entry is not None:
        return [entry]
    if store.journal.last(JOURNAL_KIND, target) is not None or (before or "") == (after or ""):
        return []
    return [
        store.journal.record(
            JOURNAL_KIND,
            target,
            store.rel_path,
            "edit",
            "external",
            before or "",
            after or "",
            "edited outside hws",
        )
    ]


def _skill(home: Home, path: Path, before: str | None) -> list[JournalEntry]:
    from engine.skills.history import SkillHistory, read_for_journal

    skill_dir = skill_dir_for(home, path)
    if skill_dir is None:
        return []
    history = SkillHistory(home)
    name = skill_dir.name
    rel = history.rel(path)
    if rel in history.last_recorded(name):
        return history.sync_external(name, [path])
    now = read_for_journal(path)
    if now == before or (now is None and before is None):
        return []
    action = "create" if before is None else ("delete" if now is None else "edit")
    with contextlib.suppress(ValueError):
        return [history.record(name, path, action, "external", before, now, "changed outside hws")]
    return []

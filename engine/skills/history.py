"""Skill history on the shared write journal: every change to a skill file, shown as a diff and restorable.

Entries use kind="skill", target=<skill name>, path=<file relative to the home>. A version of a skill
is a journal entry id: restoring it puts every file the history knows back as it was just after that
entry (or just before it), and records each rewrite as a new entry, so a restore can be undone too.
Binary files are recorded by size and hash only, and are never restored.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from engine.home import Home
from engine.storage.atomic import WriteError, atomic_write_text
from engine.storage.journal import Journal, JournalEntry

KIND = "skill"
BINARY_MARK = "[binary file"
_CHANGE = re.compile(r"\(change ([0-9a-f]{6,})\)$")


def new_change_id() -> str:
    """A tag shared by the entries of one change that touched several files (a delete, an install)."""
    return secrets.token_hex(4)


def change_of(entry: JournalEntry) -> str:
    """The change an entry belongs to: its `(change …)` tag, or the entry itself."""
    found = _CHANGE.search(entry.summary)
    return found.group(1) if found else entry.id


class HistoryError(Exception):
    """A history request that cannot be met; the message says why."""


def binary_placeholder(data: bytes) -> str:
    return f"{BINARY_MARK}, {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}]"


def read_for_journal(path: Path) -> str | None:
    """A file's content as the journal keeps it: text, a placeholder for binaries, None when absent."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return binary_placeholder(data)


@dataclass
class RestoreResult:
    name: str
    version: str
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)


class SkillHistory:
    """Records skill writes and replays them; paths are kept relative to the home."""

    def __init__(self, home: Home, journal: Journal | None = None) -> None:
        self.home = home
        self.journal = journal or Journal(home)

    def rel(self, path: Path) -> str:
        return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(self.home.root))).as_posix()

    def record(
        self,
        name: str,
        path: Path,
        action: str,
        who: str,
        before: str | None,
        after: str | None,
        summary: str = "",
    ) -> JournalEntry:
        return self.journal.record(KIND, name, self.rel(path), action, who, before, after, summary)

    def entries(self, name: str) -> list[JournalEntry]:
        return self.journal.entries(kind=KIND, target=name)

    def entry(self, name: str, version: str) -> JournalEntry:
        """An entry of this skill's history by its id (a unique prefix is enough)."""
        matches = [e for e in self.entries(name) if e.id == version or e.id.startswith(version)]
        if not matches:
            raise HistoryError(
                f"Skill '{name}' has no version '{version}'; `hws skills history {name}` lists its versions."
            )
        exact = [e for e in matches if e.id == version]
        if exact:
            return exact[0]
        if len(matches) > 1:
            raise HistoryError(f"Version '{version}' matches {len(matches)} entries; give more of its id.")
        return matches[0]

    def diff(self, entry: JournalEntry) -> str:
        return self.journal.diff(entry.id)

    def last_recorded(self, name: str) -> dict[str, str | None]:
        """Each path's content after the latest entry that touched it."""
        state: dict[str, str | None] = {}
        for entry in self.entries(name):
            state[entry.path] = self._text(entry.after_hash)
        return state

    def sync_external(self, name: str, paths: list[Path]) -> list[JournalEntry]:
        """Record hand edits: a recorded file whose disk content differs from its last recorded version."""
        recorded = self.last_recorded(name)
        added = []
        for path in paths:
            rel = self.rel(path)
            if rel not in recorded:
                continue
            now = read_for_journal(path)
            if now != recorded[rel]:
                action = "create" if recorded[rel] is None else ("delete" if now is None else "edit")
                added.append(
                    self.record(name, path, action, "external", recorded[rel], now, "changed outside hws")
                )
        return added

    def _text(self, content_hash: str | None) -> str | None:
        return None if content_hash is None else self.journal.text(content_hash)

    def state_at(
        self, name: str, version: str, before: bool = False
    ) -> tuple[JournalEntry, dict[str, str | None]]:
        """What each recorded file held just after `version` (or just before it, with `before`)."""
        entries = self.entries(name)
        target = self.entry(name, version)
        index = next(i for i, e in enumerate(entries) if e.id == target.id)
        group = change_of(target)
        first, last = index, index  # a version is a whole change, however many files it touched
        while first > 0 and change_of(entries[first - 1]) == group:
            first -= 1
        while last + 1 < len(entries) and change_of(entries[last + 1]) == group:
            last += 1
        cutoff = first - 1 if before else last
        state: dict[str, str | None] = {}
        decided: set[str] = set()
        for entry in entries[: cutoff + 1]:
            state[entry.path] = self._text(entry.after_hash)
            decided.add(entry.path)
        for entry in entries[cutoff + 1 :]:  # files first touched later: as they were before that touch
            if entry.path not in decided:
                state[entry.path] = self._text(entry.before_hash)
                decided.add(entry.path)
        return target, state

    def restore(
        self,
        name: str,
        version: str,
        before: bool = False,
        who: str = "user",
        current_dir: Path | None = None,
    ) -> RestoreResult:
        """Rewrite the skill's recorded files as they were at `version`; each rewrite is journaled."""
        target, state = self.state_at(name, version, before)
        mapping = self._relocation(name, current_dir)
        result = RestoreResult(name, target.id)
        tag = new_change_id()
        skills_root = Path(os.path.abspath(self.home.skills))
        for rel, wanted in sorted(state.items()):
            path = Path(os.path.abspath(self.home.root / mapping(rel)))
            if not path.is_relative_to(skills_root) or ".." in PurePosixPath(rel).parts:
                result.skipped.append(f"{rel} (outside the skills folder)")
                continue
            if path.is_symlink():
                result.skipped.append(f"{rel} (a symlink; left alone)")
                continue
            now = read_for_journal(path)
            if (wanted or "").startswith(BINARY_MARK) or (now or "").startswith(BINARY_MARK):
                if wanted != now:
                    result.skipped.append(f"{rel} (binary; its bytes are not kept in the history)")
                continue
            if now == wanted:
                continue
            try:
                if wanted is None:
                    path.unlink()
                    result.removed.append(rel)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write_text(path, wanted)
                    result.written.append(rel)
            except (OSError, WriteError) as exc:
                raise HistoryError(f"Could not restore {rel}: {exc}") from exc
            summary = f"restored to {'before ' if before else ''}{target.id} (change {tag})"
            entry = self.record(name, path, "restore", who, now, wanted, summary)
            result.entries.append(entry.id)
        self._prune_empty_dirs(state, mapping)
        return result

    def _relocation(self, name: str, current_dir: Path | None):  # type: ignore[no-untyped-def]
        """Map recorded paths onto the skill's folder today, in case it was moved to another category."""
        if current_dir is None:
            return lambda rel: rel
        recorded_dirs = [
            PurePosixPath(e.path).parent.as_posix()
            for e in self.entries(name)
            if e.path.endswith("/SKILL.md")
        ]
        if not recorded_dirs:
            return lambda rel: rel
        old = recorded_dirs[-1]
        new = self.rel(current_dir)
        if old == new:
            return lambda rel: rel
        return lambda rel: new + rel[len(old) :] if rel == old or rel.startswith(old + "/") else rel

    def _prune_empty_dirs(self, state: dict[str, str | None], mapping) -> None:  # type: ignore[no-untyped-def]
        skills_root = Path(os.path.abspath(self.home.skills))
        for rel, wanted in state.items():
            if wanted is not None:
                continue
            folder = (self.home.root / mapping(rel)).parent
            while Path(os.path.abspath(folder)).is_relative_to(skills_root) and folder != skills_root:
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only succeeds when empty
                if folder.exists():
                    break
                folder = folder.parent

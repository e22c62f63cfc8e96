"""SOUL.md written by the workstation: scanned, locked, atomic, journaled, and never over someone else's edit.

The identity layer of the next session is read from this file, so a save is refused when the file
would be blocked there (the same threat scan as `engine.prompt.context_files`). Hand edits made outside hws
are journaled as `external` before the next save, so the journal can always show who changed what.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.storage.atomic import WriteError, atomic_write_text, describe_os_error, file_lock
from engine.storage.journal import Journal, JournalEntry, JournalError, blob_hash
from engine.storage.self_writes import content_hash
from engine.threats.scan import Finding, scan

if TYPE_CHECKING:
    from engine.home import Home

JOURNAL_KIND = "soul"
TARGET = "soul"
REL_PATH = "SOUL.md"


class SoulError(Exception):
    """SOUL.md cannot be read or written; the message says why in one sentence."""


@dataclass(frozen=True)
class SoulSave:
    """What a save did: `saved`, `unchanged`, `refused` (with why) or `conflict` (with the disk text)."""

    status: str
    message: str
    digest: str = ""
    disk: str = ""
    entry: JournalEntry | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("saved", "unchanged")


def threats(text: str) -> list[Finding]:
    """What would keep this text out of the identity layer (the context-file scan)."""
    return scan(text, "context")


class SoulFile:
    """The home's SOUL.md for one writer."""

    def __init__(self, home: Home, journal: Journal | None = None) -> None:
        self.home = home
        self.journal = journal if journal is not None else Journal(home)

    @property
    def path(self):  # type: ignore[no-untyped-def]
        return self.home.soul

    def _checked_path(self):  # type: ignore[no-untyped-def]
        path = self.path
        if path.is_symlink() and not self.home.inside(path):
            raise SoulError(
                f"SOUL.md is a symlink to {path.resolve()}, outside the home; replace it with a regular file."
            )
        return path.resolve() if path.is_symlink() else path

    def read(self) -> str:
        """The file's text ('' when missing); bytes that are not UTF-8 are refused, never guessed at."""
        try:
            data = self._checked_path().read_bytes()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise SoulError(f"Cannot read SOUL.md: {exc.strerror}.") from exc
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SoulError(
                f"SOUL.md is not UTF-8 text (bad byte at offset {exc.start}); re-save it as UTF-8."
            ) from exc

    def save(self, text: str, expect: str | None = None, who: str = "user") -> SoulSave:
        """Write `text` if it passes the scan and the file still hashes to `expect` (None: do not check)."""
        found = threats(text)
        if found:
            first = found[0]
            return SoulSave(
                "refused",
                f"Line {first.line}: SOUL.md would be blocked from the prompt ({first.id}: "
                f"{first.match!r}); rewrite that line.",
            )
        try:
            path = self._checked_path()
            with file_lock(path):
                current = self.read()
                self._note_external_edit(current)
                if expect is not None and content_hash(current) != expect:
                    return SoulSave(
                        "conflict",
                        "SOUL.md changed on disk since it was opened; nothing was written.",
                        content_hash(current),
                        current,
                    )
                if current == text:
                    return SoulSave("unchanged", "SOUL.md is unchanged.", content_hash(text))
                atomic_write_text(path, text)
                entry = self._journal("edit", who, current, text, "edited SOUL.md in hws")
        except SoulError as exc:
            return SoulSave("refused", str(exc))
        except WriteError as exc:
            return SoulSave("refused", str(exc))
        except OSError as exc:
            return SoulSave("refused", describe_os_error(exc, self.path))
        return SoulSave(
            "saved", "SOUL.md saved; it applies to the next session.", content_hash(text), "", entry
        )

    def sync_journal(self, previous: str | None = None) -> JournalEntry | None:
        """Journal a hand edit of SOUL.md now (for the file watcher), without writing the file.

        `previous` is the text the watcher saw before, used when hws never journaled SOUL.md.
        """
        try:
            with file_lock(self._checked_path()):
                return self._note_external_edit(self.read(), previous)
        except (SoulError, WriteError, OSError):
            return None

    def _journal(self, action: str, who: str, before: str, after: str, summary: str) -> JournalEntry | None:
        with contextlib.suppress(WriteError, JournalError, OSError):  # the write itself has succeeded
            return self.journal.record(JOURNAL_KIND, TARGET, REL_PATH, action, who, before, after, summary)
        return None

    def _note_external_edit(self, current: str, previous: str | None = None) -> JournalEntry | None:
        """If SOUL.md differs from its last journaled content, journal that difference as `external`."""
        with contextlib.suppress(WriteError, JournalError, OSError):
            last = self.journal.last(JOURNAL_KIND, TARGET)
            if last is None:
                if previous is None or previous == current:
                    return None  # never journaled and nothing known before: a save records it as found
            elif last.after_hash == blob_hash(current):
                return None
            else:
                previous = self.journal.text(last.after_hash) if last.after_hash else ""
            return self.journal.record(
                JOURNAL_KIND,
                TARGET,
                REL_PATH,
                "edit",
                "external",
                previous or "",
                current,
                "edited outside hws",
            )
        return None

    def history(self) -> list[JournalEntry]:
        return self.journal.entries(JOURNAL_KIND, TARGET)

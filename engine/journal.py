"""An append-only record of every write to a store, so any change can be shown as a diff and undone.

Layout under `home.journal_dir` (`$HERMES_HOME/hws/`): `journal.jsonl` holds one JSON object per
write, and `blobs/<2 hex>/<sha256>` holds each distinct file content once (content-addressed, so a
large skill edited a hundred times costs one copy per version, not one per entry). Appends take an
exclusive lock on `journal.jsonl.lock` and are fsynced; a line torn by a crash is skipped on read and
fenced off by the next append. Past `memory.journal_max_entries` the oldest entries are pruned
(with some slack so pruning is rare) and blobs no longer referenced are deleted.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.atomic import WriteError, atomic_write_bytes, describe_os_error, file_lock
from engine.home import Home

JOURNAL_FILE = "journal.jsonl"
BLOB_DIR = "blobs"
PRUNE_SLACK = 0.1  # prune only once the journal is this much over its limit, back down to the limit
MIN_LINE_BYTES = 200  # no entry line is shorter; lets a size check skip counting lines
WHO = ("agent", "review", "user", "external", "undo")


class JournalError(Exception):
    """The journal cannot answer or record; the message says why in one sentence."""


class UnknownEntry(JournalError, KeyError):
    """No journal entry (or more than one) answers to the id given."""

    def __str__(self) -> str:  # KeyError would print the sentence in quotes
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class JournalEntry:
    """One recorded write: what changed, where, by whom, and the content hashes before and after."""

    id: str
    at: float
    kind: str
    target: str
    path: str
    action: str
    who: str
    before_hash: str | None
    after_hash: str | None
    summary: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JournalEntry:
        return cls(
            id=str(data["id"]),
            at=float(data["at"]),
            kind=str(data["kind"]),
            target=str(data["target"]),
            path=str(data["path"]),
            action=str(data["action"]),
            who=str(data["who"]),
            before_hash=data.get("before_hash"),
            after_hash=data.get("after_hash"),
            summary=str(data.get("summary", "")),
        )


def blob_hash(text: str) -> str:
    """The blob name of a content: sha256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _new_id(at: float) -> str:
    # Milliseconds in hex sort by time; 4 random hex digits keep ids from two processes apart.
    return f"{int(at * 1000):x}{secrets.token_hex(2)}"


class Journal:
    """The write journal of one home; safe to use from many processes at once."""

    def __init__(self, home: Home, max_entries: int | None = None) -> None:
        self.home = home
        self.folder = home.journal_dir
        self.path = self.folder / JOURNAL_FILE
        self.blobs = self.folder / BLOB_DIR
        self._max_entries = max_entries

    @property
    def max_entries(self) -> int:
        """`memory.journal_max_entries` from the home's config (its default when the config is broken)."""
        if self._max_entries is None:
            from engine.config import ConfigError, defaults, load_config

            try:
                self._max_entries = int(load_config(self.home.root).memory.journal_max_entries)
            except ConfigError:
                self._max_entries = int(defaults().memory.journal_max_entries)
        return self._max_entries

    # ── writing ──────────────────────────────────────────────────────────────────────────────────
    def record(
        self,
        kind: str,
        target: str,
        path: str,
        action: str,
        who: str,
        before: str | None,
        after: str | None,
        summary: str = "",
    ) -> JournalEntry:
        """Append one entry (storing both contents as blobs) and return it."""
        if who not in WHO:
            raise ValueError(f"Unknown writer {who!r}; use one of {', '.join(WHO)}.")
        at = time.time()
        entry = JournalEntry(
            id=_new_id(at),
            at=at,
            kind=kind,
            target=target,
            path=path,
            action=action,
            who=who,
            before_hash=None if before is None else blob_hash(before),
            after_hash=None if after is None else blob_hash(after),
            summary=summary,
        )
        line = (json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        self._ensure_folder()
        # Blobs are written under the lock too, so a concurrent prune cannot delete one in between.
        with file_lock(self.path):
            for text in (before, after):
                if text is not None:
                    self._store_blob(text)
            self._append(line)
            self._maybe_prune()
        return entry

    def _ensure_folder(self) -> None:
        try:
            for folder in (self.folder, self.blobs):
                if not folder.is_dir():
                    folder.mkdir(parents=True, exist_ok=True)
                    os.chmod(folder, 0o700)
        except OSError as exc:
            raise WriteError(describe_os_error(exc, self.folder)) from exc

    def _blob_path(self, content_hash: str) -> Path:
        return self.blobs / content_hash[:2] / content_hash

    def _store_blob(self, text: str) -> None:
        path = self._blob_path(blob_hash(text))
        if path.exists():
            return
        try:
            path.parent.mkdir(exist_ok=True)
        except OSError as exc:
            raise WriteError(describe_os_error(exc, path.parent)) from exc
        atomic_write_bytes(path, text.encode("utf-8"), 0o600)

    def _append(self, line: bytes) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise WriteError(describe_os_error(exc, self.path)) from exc
        try:
            size = os.fstat(fd).st_size
            if size and not self._ends_with_newline(size):
                line = b"\n" + line  # fence off a line torn by an earlier crash
            os.write(fd, line)
            os.fsync(fd)
        except OSError as exc:
            raise WriteError(describe_os_error(exc, self.path)) from exc
        finally:
            os.close(fd)

    def _ends_with_newline(self, size: int) -> bool:
        with open(self.path, "rb") as handle:
            handle.seek(size - 1)
            return handle.read(1) == b"\n"

    def _maybe_prune(self) -> None:
        limit = self.max_entries
        try:
            size = self.path.stat().st_size
        except OSError:
            return
        if size < limit * MIN_LINE_BYTES:
            return
        raw = self.path.read_bytes()
        lines = [line for line in raw.split(b"\n") if line.strip()]
        if len(lines) <= limit + max(1, int(limit * PRUNE_SLACK)):
            return
        kept = lines[-limit:]
        atomic_write_bytes(self.path, b"\n".join(kept) + b"\n", 0o600)
        self._collect_garbage(kept)

    def _collect_garbage(self, kept_lines: list[bytes]) -> None:
        """Delete blobs no kept entry refers to (runs under the journal lock)."""
        referenced: set[str] = set()
        for raw_line in kept_lines:
            with contextlib.suppress(ValueError, TypeError):
                data = json.loads(raw_line)
                referenced.update(h for h in (data.get("before_hash"), data.get("after_hash")) if h)
        if not self.blobs.is_dir():
            return
        for shard in self.blobs.iterdir():
            if not shard.is_dir():
                continue
            for blob in shard.iterdir():
                if blob.name not in referenced and not blob.name.startswith("."):
                    with contextlib.suppress(OSError):
                        blob.unlink()

    # ── reading ──────────────────────────────────────────────────────────────────────────────────
    def entries(
        self, kind: str | None = None, target: str | None = None, limit: int | None = None
    ) -> list[JournalEntry]:
        """Recorded entries, oldest first, optionally filtered; `limit` keeps the newest N."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise JournalError(f"Cannot read the journal {self.path}: {exc.strerror}.") from exc
        found = []
        for raw_line in raw.split(b"\n"):
            if not raw_line.strip():
                continue
            try:
                entry = JournalEntry.from_dict(json.loads(raw_line))
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a crash, or written by something else
            if kind is not None and entry.kind != kind:
                continue
            if target is not None and entry.target != target:
                continue
            found.append(entry)
        if limit is not None:
            found = found[-limit:] if limit > 0 else []
        return found

    def last(self, kind: str | None = None, target: str | None = None) -> JournalEntry | None:
        """The newest entry for this kind and target, if any."""
        found = self.entries(kind, target, limit=1)
        return found[0] if found else None

    def get(self, entry_id: str) -> JournalEntry:
        """The entry with this id, or with this unique id prefix (at least 4 characters)."""
        wanted = entry_id.strip()
        if not wanted:
            raise UnknownEntry("No journal id given; `hws memory history` lists them.")
        matches = [e for e in self.entries() if e.id == wanted]
        if not matches and len(wanted) >= 4:
            matches = [e for e in self.entries() if e.id.startswith(wanted)]
        if not matches:
            raise UnknownEntry(f"No journal entry has the id {wanted!r}; `hws memory history` lists them.")
        if len(matches) > 1:
            ids = ", ".join(e.id for e in matches[:5])
            raise UnknownEntry(f"The id {wanted!r} matches several journal entries ({ids}); give more of it.")
        return matches[0]

    def text(self, content_hash: str | None) -> str | None:
        """The content stored under this hash, or None when there is none (or it was pruned)."""
        if not content_hash:
            return None
        try:
            return self._blob_path(content_hash).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def diff(self, entry_id: str) -> str:
        """A unified diff of the entry's file, before -> after."""
        entry = self.get(entry_id)
        before = self.text(entry.before_hash) or ""
        after = self.text(entry.after_hash) or ""
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{entry.path}",
            tofile=f"b/{entry.path}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )

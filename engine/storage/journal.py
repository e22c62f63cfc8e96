"""An append-only record of every write to a store, so any change can be shown as a diff and undone.

Layout under `home.journal_dir` (`$HERMES_HOME/hws/`): `journal.jsonl` holds one JSON object per
write; each distinct file content is kept once, named by its sha256 (`engine/storage/blobs.py`), so a
large skill edited a hundred times costs one copy per version, not one per entry. Appends take an
exclusive lock on `journal.jsonl.lock` (fsynced when `memory.journal_fsync` is on); a line torn by a
crash is skipped on read and fenced off by the next append. Past `memory.journal_max_entries` the
oldest entries are pruned (with some slack so pruning is rare), and so are the contents no kept entry
refers to.
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from engine.home import Home
from engine.storage.atomic import WriteError, atomic_write_bytes, describe_os_error
from engine.storage.blobs import BlobStore

JOURNAL_FILE = "journal.jsonl"
PRUNE_SLACK = 0.1  # prune only once the journal is this much over its limit, back down to the limit
FIRST_TAIL_BLOCK = 4096  # the newest entry is nearly always in the last few lines
TAIL_BLOCK = 65_536  # bytes read per further step when looking for the newest entry from the end
MIN_LINE_BYTES = 200  # no entry line is shorter; lets a size check skip counting lines
ID_BYTES = 5  # 10 hex digits
WHO = ("agent", "review", "user", "external", "undo")
OUTSIDE_AGENT = "mcp:"  # prefixes another agent's writes through `hws mcp serve`: `mcp:claude-code`


def is_writer(who: str) -> bool:
    """One of the home's own writers, or another agent named by its MCP client name."""
    return who in WHO or (who.startswith(OUTSIDE_AGENT) and len(who) > len(OUTSIDE_AGENT))


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
        return {f: getattr(self, f) for f in FIELDS}

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


FIELDS = tuple(f.name for f in fields(JournalEntry))


def _parse_line(raw_line: bytes) -> JournalEntry | None:
    """One journal line as an entry; None for a blank line, a line torn by a crash, or foreign text."""
    if not raw_line.strip():
        return None
    try:
        return JournalEntry.from_dict(json.loads(raw_line))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _newest_matching(fd: int, kind: str | None, target: str | None) -> JournalEntry | None:
    """Walk a journal file backwards block by block until an entry matches (pread keeps the fd offset)."""
    markers = [
        f'"{key}":{json.dumps(value, ensure_ascii=False)}'.encode()
        for key, value in (("kind", kind), ("target", target))
        if value is not None
    ]
    end = os.fstat(fd).st_size
    carry = b""
    block = FIRST_TAIL_BLOCK
    while end > 0:
        start = max(0, end - block)
        block = TAIL_BLOCK
        chunk = os.pread(fd, end - start, start) + carry
        lines = chunk.split(b"\n")
        carry = lines.pop(0) if start > 0 else b""  # maybe cut in half: finish it with the next block
        for raw_line in reversed(lines):
            if any(marker not in raw_line for marker in markers):
                continue  # cheap byte test first: most lines are for another target
            entry = _parse_line(raw_line)
            if entry and (kind is None or entry.kind == kind) and (target is None or entry.target == target):
                return entry
        end = start
    return None


def blob_hash(text: str) -> str:
    """The blob name of a content: sha256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _new_id() -> str:
    # Random rather than time-based, so that a short prefix (as with git) already tells entries apart;
    # the file's order is the time order.
    return secrets.token_hex(ID_BYTES)


class Journal:
    """The write journal of one home; safe to use from many processes at once.

    One instance keeps its journal and lock files open, so a write costs a lock, a stat, a blob
    create and one append, not a dozen opens. Call `close()` (or use it as a context manager) to
    release them early; they are released when the object is collected anyway.
    """

    def __init__(self, home: Home, max_entries: int | None = None, fsync: bool | None = None) -> None:
        self.home = home
        self.folder = home.journal_dir
        self.path = self.folder / JOURNAL_FILE
        self.blobs = BlobStore(self.folder)
        self._max_entries = max_entries
        self._fsync = fsync
        self._fd: int | None = None
        self._inode = 0
        self._lock_fd: int | None = None
        self._reopened = False
        self._thread_lock = threading.RLock()
        self._newest: dict[tuple[str, str], tuple[int, int, JournalEntry]] = {}  # our last write per target

    def _setting(self, name: str) -> Any:
        from engine.config import ConfigError, defaults, load_config

        try:
            return getattr(load_config(self.home.root).memory, name)
        except ConfigError:
            return getattr(defaults().memory, name)

    @property
    def max_entries(self) -> int:
        """`memory.journal_max_entries` from the home's config (its default when the config is broken)."""
        if self._max_entries is None:
            self._max_entries = int(self._setting("journal_max_entries"))
        return self._max_entries

    @property
    def fsync(self) -> bool:
        """`memory.journal_fsync`: make each entry durable before the write returns."""
        if self._fsync is None:
            self._fsync = bool(self._setting("journal_fsync"))
        return self._fsync

    def close(self) -> None:
        if not hasattr(self, "blobs"):
            return  # __init__ did not get far
        self.blobs.close()
        for fd in (self._fd, self._lock_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fd = self._lock_fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

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
        if not is_writer(who):
            raise ValueError(
                f"Unknown writer {who!r}; use one of {', '.join(WHO)}, or {OUTSIDE_AGENT}CLIENT."
            )
        entry = JournalEntry(
            id=_new_id(),
            at=time.time(),
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
        try:
            with self._locked():
                reopened = self._fd is None
                fd = self._journal_fd()  # first: notices a prune by another process before blobs are trusted
                reopened = reopened or self._reopened
                # Blobs are written under the lock too, so a concurrent prune cannot delete one in between.
                for text, content_hash in ((before, entry.before_hash), (after, entry.after_hash)):
                    if text is not None and content_hash is not None:
                        # a prune replaces journal and pack together: an unchanged journal vouches for it
                        self.blobs.store(content_hash, text.encode("utf-8"), check_replaced=reopened)
                size = self._append(fd, line)
                self._newest[(kind, target)] = (self._inode, size, entry)
                if size >= self.max_entries * MIN_LINE_BYTES:
                    self._maybe_prune()
        except OSError as exc:
            raise WriteError(describe_os_error(exc, self.path)) from exc
        return entry

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the journal's exclusive lock (flock on the sidecar `journal.jsonl.lock`)."""
        with self._thread_lock:  # flock does not exclude threads sharing one descriptor
            if self._lock_fd is None:
                self._ensure_folder()
                lock_path = self.path.with_name(JOURNAL_FILE + ".lock")
                self._lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _journal_fd(self) -> int:
        """The open journal file, reopened when a prune (here or in another process) replaced it."""
        try:
            inode = os.stat(self.path).st_ino
        except FileNotFoundError:
            inode = 0
        self._reopened = False
        if self._fd is None or inode != self._inode:
            self._reopened = True
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            self._inode = os.fstat(self._fd).st_ino
        return self._fd

    def _ensure_folder(self) -> None:
        if not self.folder.is_dir():
            self.folder.mkdir(parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)

    def _append(self, fd: int, line: bytes) -> int:
        """Append one line (fencing off a line torn by an earlier crash); return the new file size."""
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
        if self.fsync:
            os.fsync(fd)
        return size + len(line)

    def _maybe_prune(self) -> None:
        limit = self.max_entries
        raw = self.path.read_bytes()
        lines = [line for line in raw.split(b"\n") if line.strip()]
        if len(lines) <= limit + max(1, int(limit * PRUNE_SLACK)):
            return
        kept = lines[-limit:]
        atomic_write_bytes(self.path, b"\n".join(kept) + b"\n", 0o600)
        referenced: set[str] = set()
        for raw_line in kept:
            entry = _parse_line(raw_line)
            if entry is not None:
                referenced.update(h for h in (entry.before_hash, entry.after_hash) if h)
        self.blobs.retain(referenced)

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
            entry = _parse_line(raw_line)
            if entry is None:
                continue
            if kind is not None and entry.kind != kind:
                continue
            if target is not None and entry.target != target:
                continue
            found.append(entry)
        if limit is not None:
            found = found[-limit:] if limit > 0 else []
        return found

    def last(self, kind: str | None = None, target: str | None = None) -> JournalEntry | None:
        """The newest entry for this kind and target, read from the end of the file (cheap on every write)."""
        try:
            if self._fd is None and not self.path.parent.is_dir():
                return None
            fd = self._journal_fd()  # the open file: no extra open
            if kind is not None and target is not None:
                mine = self._newest.get((kind, target))
                if mine and mine[0] == self._inode and mine[1] == os.fstat(fd).st_size:
                    return mine[2]  # nothing was appended since our own entry: it is the newest
            return _newest_matching(fd, kind, target)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise JournalError(f"Cannot read the journal {self.path}: {exc.strerror}.") from exc

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
        """The content stored under this hash, or None when there is none (pruned, or torn by a crash)."""
        if not content_hash:
            return None
        data = self.blobs.get(content_hash)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
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

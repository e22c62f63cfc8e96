"""The content hashes this process wrote recently, so a file watcher can tell its own writes from others'.

Every write primitive (`atomic_write_bytes`, the memory file write) notes the path and the hash of the
bytes *before* renaming them into place, so a watcher that wakes up right after the rename already
finds them. A note answers one question once: the watcher claims it when it sees that exact content,
and a later external write that happens to restore the same bytes is not mistaken for ours.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict, deque
from pathlib import Path

ABSENT = "absent"
"""The fingerprint of a file that does not exist (noted for deletions)."""
PATHS_KEPT = 512  # distinct paths remembered; the oldest are forgotten first
HASHES_PER_PATH = 8  # writes to one path that may land between two looks of the watcher


def key_of(path: Path | str) -> str:
    """One spelling per file: absolute, with symlinked folders resolved (the watcher sees real paths)."""
    return os.path.realpath(os.fspath(path))


def content_hash(data: bytes | str) -> str:
    """A short, stable fingerprint of file content (used to recognise our own writes)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


class SelfWrites:
    """A bounded, thread-safe record of (path, content hash) pairs this process has written."""

    def __init__(self, paths_kept: int = PATHS_KEPT) -> None:
        self.paths_kept = paths_kept
        self._lock = threading.Lock()
        self._notes: OrderedDict[str, deque[str]] = OrderedDict()

    def note(self, path: Path | str, data: bytes | str | None) -> None:
        """Remember that this process is writing `data` to `path` (None: it is removing the file)."""
        digest = ABSENT if data is None else content_hash(data)
        key = key_of(path)
        with self._lock:
            notes = self._notes.get(key)
            if notes is None:
                notes = self._notes[key] = deque(maxlen=HASHES_PER_PATH)
            self._notes.move_to_end(key)
            notes.append(digest)
            while len(self._notes) > self.paths_kept:
                self._notes.popitem(last=False)

    def claim(self, path: Path | str, digest: str) -> bool:
        """True (once) when `digest` is what this process last wrote to `path`; older notes are dropped."""
        key = key_of(path)
        with self._lock:
            notes = self._notes.get(key)
            if not notes or digest not in notes:
                return False
            while notes and notes[0] != digest:  # writes before this one are settled too
                notes.popleft()
            notes.popleft()
            if not notes:
                del self._notes[key]
            return True

    def pending(self, path: Path | str) -> bool:
        with self._lock:
            return bool(self._notes.get(key_of(path)))

    def clear(self) -> None:
        with self._lock:
            self._notes.clear()


REGISTRY = SelfWrites()
"""The registry shared by every engine write in this process (the app's saves, the agent's tools)."""


def note(path: Path | str, data: bytes | str | None) -> None:
    REGISTRY.note(path, data)

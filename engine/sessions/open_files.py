"""Which database files this process holds open in SQLite, so their header is read only before that.

SQLite's locks are POSIX record locks, which belong to the process, not to a file descriptor:
closing *any* descriptor of the file drops every lock the process holds on it, those of SQLite's
own connections included. Reading a header with `open()` while a store was open therefore let
another program (`sqlite3 state.db`, `hws sessions list`) believe it was alone, checkpoint, and
delete the write-ahead log this process was still writing to: the messages after that were lost.

So the header is checked only by the first opener of a file in this process, under a lock that
every other opener of the same file waits on; later openers rely on that check.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

_guard = threading.Lock()
_holders: dict[str, int] = {}  # real path -> stores (and stores being opened) of this process


def claim(path: Path, check: Callable[[Path], None]) -> str:
    """Count one more store on `path`; the first one runs `check(path)` (which may raise) first."""
    key = os.path.realpath(path)
    with _guard:
        if not _holders.get(key):
            check(path)
        _holders[key] = _holders.get(key, 0) + 1
    return key


def release(key: str) -> None:
    """One store on the file is closed (or failed to open)."""
    with _guard:
        left = _holders.get(key, 0) - 1
        if left > 0:
            _holders[key] = left
        else:
            _holders.pop(key, None)

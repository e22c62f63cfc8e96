"""A skill folder's fingerprint, the same digest Hermes Agent records in `.hub/lock.json`.

Hermes walks every file under the folder (hidden ones too, directory symlinks not followed), sorts
the paths part by part, and hashes each relative POSIX path, a NUL and the file's bytes; the lock
keeps `sha256:` and the first 16 hex digits. hws computes the same so that either tool sees the
other's installs as unchanged. One deliberate difference: a symlink that leads out of the folder is
hashed by its target's name, never by the bytes it points at, so a skill cannot make hws read (and
fingerprint) a file elsewhere on the machine; such a skill is refused by the guard anyway.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

CHUNK_BYTES = 1 << 16  # read size while hashing; the digest does not depend on it


def _entries(folder: Path) -> list[Path]:
    """Every non-directory entry under `folder`, not descending into directory symlinks."""
    found: list[Path] = []
    for current, _dirs, files in os.walk(folder, followlinks=False):
        found += [Path(current) / name for name in files]
    return found


def _hash_file(hasher: Any, path: Path) -> None:
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            hasher.update(chunk)


def _stays_inside(path: Path, base: Path) -> bool:
    try:
        return path.resolve(strict=True).is_relative_to(base)
    except (OSError, RuntimeError):
        return False


def content_digest(folder: Path) -> str:
    """The full SHA-256 over each file's relative path and bytes, in Hermes' order."""
    folder = Path(folder)
    hasher = hashlib.sha256()
    if not folder.is_dir():
        _hash_file(hasher, folder)
        return hasher.hexdigest()
    base = folder.resolve()
    for path in sorted(_entries(folder), key=lambda item: item.relative_to(folder).parts):
        if not path.is_file():  # FIFOs, devices, sockets, broken links and links to folders
            continue
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink() and not _stays_inside(path, base):
            hasher.update(rel.encode("utf-8", "surrogateescape") + b"\x00")
            hasher.update(os.readlink(path).encode("utf-8", "surrogateescape"))
            continue
        hasher.update(rel.encode("utf-8", "surrogateescape") + b"\x00")
        try:
            _hash_file(hasher, path)
        except OSError:
            continue  # unreadable: the guard reports it; the fingerprint goes on without its bytes
    return hasher.hexdigest()


def content_hash(folder: Path) -> str:
    """The fingerprint Hermes' lock file keeps: `sha256:` and 16 hex digits."""
    return f"sha256:{content_digest(folder)[:16]}"

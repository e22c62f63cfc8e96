"""Crash-safe file writes and cross-process locks, shared by every store that writes to the home."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.storage import self_writes


class WriteError(Exception):
    """A write could not be made; the old file is intact and the message says why."""


def describe_os_error(exc: OSError, path: Path) -> str:
    """One sentence for the OS errors a user can actually hit while we write."""
    if exc.errno == errno.ENOSPC:
        return f"No space left on the device holding {path}; free some space and retry."
    if exc.errno in (errno.EROFS,):
        return f"{path} is on a read-only file system; nothing was changed."
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"Permission denied writing {path}; check the folder's owner and mode."
    if exc.errno == errno.EFBIG:
        return f"Writing {path} would pass the file-size limit of this process; nothing was changed."
    if exc.errno == errno.EDQUOT:
        return f"Disk quota exceeded writing {path}; free some space and retry."
    return f"Could not write {path}: {exc.strerror or exc}."


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to a temp file beside `path`, fsync it, then rename it over `path`.

    Readers see the old file or the new one, never a partial one; on failure the old file stays.
    """
    path = Path(path)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600
    replace_with(path, data, mode=mode)
    _fsync_dir(path.parent)


def replace_with(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    tmp_prefix: str = "",
    before_rename: Callable[[], None] | None = None,
) -> None:
    """The core of every write here: a temp file beside `path`, fsync, the self-write noted, rename.

    `before_rename` may raise to stop the write; the temp file never stays, and an OSError becomes
    a WriteError with a sentence. The folder is not fsynced (callers decide).
    """
    fd, tmp_name = tempfile.mkstemp(prefix=tmp_prefix or f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        if before_rename is not None:
            before_rename()
        _note_self_write(path, data)
        os.replace(tmp_name, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise WriteError(describe_os_error(exc, path)) from exc
        raise


class Changed(WriteError):
    """Someone who takes no lock changed the file between our read and our write; nothing was written."""


def compare_and_replace(
    path: Path, data: bytes, expected: bytes | None, *, mode: int | None = None, tmp_prefix: str = ""
) -> bytes:
    """An atomic write that happens only if `path` still holds `expected` (None: does not exist).

    Writers that take no lock (a shell `>>`, an editor) can change a file between a locked reader's
    read and its rename; this checks just before the rename and raises Changed instead of
    overwriting their edit. Text appended to the old file in the instant between the check and the
    rename is carried over to the new one. Returns the bytes now on disk.
    """
    path = Path(path)
    old_fd = -1
    try:
        old_fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        if expected is not None:
            raise Changed(f"{path} was removed while it was being written; nothing was written.") from None
    except OSError as exc:
        raise WriteError(describe_os_error(exc, path)) from exc
    try:
        if mode is None:
            mode = os.fstat(old_fd).st_mode & 0o777 if old_fd >= 0 else 0o600

        def unchanged() -> None:
            now = _read_fd(old_fd) if old_fd >= 0 else None
            if now != expected or (old_fd < 0 and path.exists()):
                raise Changed(f"{path} was changed by another program while it was being written.")

        replace_with(path, data, mode=mode, tmp_prefix=tmp_prefix, before_rename=unchanged)
        if old_fd >= 0 and expected is not None:
            late = _read_fd(old_fd)
            if late != expected and late.startswith(expected):  # appended during the rename: keep it
                tail = late[len(expected) :]
                for _ in range(5):
                    current = path.read_bytes()
                    with contextlib.suppress(Changed):
                        return compare_and_replace(
                            path, current + tail, current, mode=mode, tmp_prefix=tmp_prefix
                        )
        return data
    finally:
        if old_fd >= 0:
            os.close(old_fd)


def _read_fd(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _note_self_write(path: Path, data: bytes) -> None:
    """Tell the self-write registry (read by the workstation's file watcher) before the rename lands."""
    self_writes.note(path, data)


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def file_lock(target: Path) -> Iterator[None]:
    """Hold an exclusive lock on `<target>.lock` (Hermes' sidecar convention) for a read-modify-write.

    flock locks die with their process, so a crash never leaves a stale lock behind.
    """
    lock_path = target.with_name(target.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise WriteError(describe_os_error(exc, lock_path)) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

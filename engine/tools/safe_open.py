"""Opening the path a file tool judged, and nothing else: links are checked when the file is opened.

The tools judge a path after resolving every symlink in it. Between that judgement and the read or
the write, a folder on the way can be swapped for a symlink (by a command the model started, or by
another program). So the judged path is opened one folder at a time from `/`, each with
O_NOFOLLOW, the final name is opened with O_NOFOLLOW relative to the folder held, and a write's
temp file and rename happen relative to that same folder: a symlink swapped in after the check is
refused instead of followed. A file that is another name (a hard link) for one of the home's
protected files is refused under any name but its own.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from engine.storage import self_writes
from engine.storage.atomic import describe_os_error
from engine.tools.errors import ToolError

# O_PATH: a folder that may be searched but not listed can still be walked through.
_FOLDER_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not block the open
# The home's files no other name may reach: its control files, the session database, the memory files.
PROTECTED_NAMES = ("config.yaml", ".env", "auth.json", "SOUL.md", "state.db", "state.db-wal", "state.db-shm")


def _swapped(where: Path, doing: str) -> ToolError:
    return ToolError(
        f"{where} is a symlink now, though it was not when the path was checked (something replaced it "
        f"while the tool waited); nothing was {doing}. Look at the folder again before retrying."
    )


def _child_folder(parent: int, name: str, where: Path, create: bool, doing: str) -> int:
    for _ in range(2):
        try:
            fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=parent)
            continue
        except OSError as exc:
            if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                raise
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                raise _swapped(where, doing) from None
            raise ToolError(f"{where} is not a folder.") from None
        if not stat.S_ISDIR(os.fstat(fd).st_mode):  # O_PATH with O_NOFOLLOW could hold the link itself
            os.close(fd)
            raise _swapped(where, doing)
        return fd
    raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(where))


def open_folder(path: Path, *, create: bool = False, doing: str = "read") -> int:
    """A descriptor of folder `path` (absolute, symlinks resolved), reached from `/` without following a
    link; `create` makes missing folders on the way. FileNotFoundError when one is missing."""
    fd = os.open("/", _FOLDER_FLAGS)
    try:
        where = Path("/")
        for name in path.parts[1:]:
            where = where / name
            child = _child_folder(fd, name, where, create, doing)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def held_folder(path: Path, *, create: bool = False, doing: str = "read") -> Iterator[int]:
    fd = open_folder(path, create=create, doing=doing)
    try:
        yield fd
    finally:
        os.close(fd)


def protected_inodes(home_root: Path) -> dict[tuple[int, int], Path]:
    """(device, inode) of the home's protected files, each with the path that is its own name."""
    candidates = [home_root / name for name in PROTECTED_NAMES]
    with contextlib.suppress(OSError):
        candidates += [p for p in (home_root / "memories").iterdir() if p.suffix == ".md"]
    found: dict[tuple[int, int], Path] = {}
    for path in candidates:
        with contextlib.suppress(OSError, RuntimeError):
            info = path.stat()
            if stat.S_ISREG(info.st_mode):
                found[(info.st_dev, info.st_ino)] = path.resolve()
    return found


def refuse_other_name(info: os.stat_result, path: Path, shown: str, home_root: Path, doing: str) -> None:
    """Refuse a file that is a hard link to one of the home's protected files, under another name."""
    if info.st_nlink <= 1 or not stat.S_ISREG(info.st_mode):
        return
    own = protected_inodes(home_root).get((info.st_dev, info.st_ino))
    if own is not None and own != path:
        raise ToolError(
            f"{shown} is another name (a hard link) for the home's {own.name}; file tools never open that "
            f"file under another name, so nothing was {doing}."
        )


def open_entry(folder: int, name: str, path: Path, shown: str, home_root: Path, doing: str) -> int:
    """A read-only descriptor of `name` in `folder`, not following a link; regular files and folders only."""
    info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise _swapped(path, doing)
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe); reading it could block.")
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(path, doing) from None
        raise
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
        os.close(fd)
        raise ToolError(f"{shown} was replaced while it was being opened; nothing was {doing}. Retry.")
    try:
        refuse_other_name(opened, path, shown, home_root, doing)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_path(path: Path, shown: str, home_root: Path) -> int:
    """A read-only descriptor of the checked path `path` (a file or a folder), opened without following
    a link anywhere on the way. FileNotFoundError when it does not exist."""
    if path == Path(path.anchor):
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    with held_folder(path.parent) as folder:
        return open_entry(folder, path.name, path, shown, home_root, "read")


def read_entry(folder: int, name: str, path: Path, shown: str, home_root: Path) -> tuple[bytes, int] | None:
    """The bytes and mode of file `name` in `folder`, or None when it does not exist."""
    try:
        fd = open_entry(folder, name, path, shown, home_root, "written")
    except FileNotFoundError:
        return None
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise ToolError(f"{shown} is a folder, not a file.")
    with os.fdopen(fd, "rb") as handle:
        return handle.read(), stat.S_IMODE(info.st_mode)


def replace_entry(folder: int, name: str, data: bytes, mode: int, path: Path) -> None:
    """Write `data` as `name` in `folder` atomically: a temp file beside it, fsync, rename, all relative
    to the folder held, so neither the folder nor the name can be redirected by a link."""
    temp = f".{name}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder
        )
        try:
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
                handle.flush()
                os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        self_writes.note(path, data)
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        if isinstance(exc, OSError):
            raise ToolError(describe_os_error(exc, path)) from None
        raise
    with contextlib.suppress(OSError):  # the rename is durable once its folder is synced
        listing = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder)
        try:
            os.fsync(listing)
        finally:
            os.close(listing)

"""Whether a working folder fits the checkpoint limits, found before anything is copied.

git walks a whole tree before it lists the first name, so a folder far too large (a home folder) is
found first by a bounded count of its entries (`too_many_entries`, once per session), which stops at
its bound. Then the listing is git's own (`ls-files --cached --others --exclude-standard`, so
.gitignore and the excludes count exactly as they will when the folder is saved), summed as it is
read and stopped at the first limit passed, before any file is copied.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from engine.checkpoints.git import GitError, ShadowGit

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_files: int
    max_total_bytes: int
    max_file_bytes: int


@dataclass(frozen=True)
class Survey:
    """What the folder holds: its files and their bytes, the files too large to keep, and the verdict."""

    files: int
    total_bytes: int
    large: tuple[str, ...]  # paths (from the top) over max_file_bytes: left out of the checkpoint
    over: str = ""  # the limit passed, as words ("more than 20,000 files"); empty when it fits


def too_many_entries(root: Path, skip: frozenset[str], bound: int) -> bool:
    """Whether `root` holds more than `bound` files and folders, counted without following links and
    without entering `skip` folders; stops counting at `bound`. git lists a folder only after walking
    all of it, so this bounds what a huge tree costs before git is asked."""
    count = 0
    stack = [root]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    count += 1
                    if count > bound:
                        return True
                    if entry.name not in skip and entry.is_dir(follow_symlinks=False):
                        stack.append(Path(entry.path))
        except OSError:
            continue  # unreadable: git cannot list it either
    return False


def survey(git: ShadowGit, limits: Limits, timeout: float) -> Survey:
    """Count the files git would save, stopping at the first limit passed; GitError past `timeout`."""
    process = git.popen("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    files = total = 0
    large: list[str] = []
    over = ""
    pending = b""
    try:
        assert process.stdout is not None
        while not over:
            chunk = process.stdout.read(65536)
            if not chunk:
                break
            names = (pending + chunk).split(b"\0")
            pending = names.pop()
            for raw in names:
                size = _size(git, raw)
                if size is None:
                    continue
                if size > limits.max_file_bytes:
                    large.append(os.fsdecode(raw))
                    continue
                files += 1
                total += size
                if files > limits.max_files:
                    over = f"more than {limits.max_files:,} files (checkpoints.max_files)"
                    break
                if total > limits.max_total_bytes:
                    megabytes = limits.max_total_bytes // MIB
                    over = f"more than {megabytes:,} MiB of files (checkpoints.max_total_size_mb)"
                    break
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
    if not over and process.returncode not in (0, None):
        if process.returncode < 0:
            raise GitError(f"listing the folder took longer than {timeout:.0f} s (checkpoints.timeout)")
        raise GitError(f"git ls-files failed (exit {process.returncode})")
    return Survey(files, total, tuple(large), over)


def _size(git: ShadowGit, raw: bytes) -> int | None:
    """The bytes a listed path holds (a link counts as its target's name); None when it is gone."""
    try:
        info = os.lstat(os.path.join(os.fsencode(git.work_tree), raw))
    except OSError:
        return None  # listed from the index but deleted since: nothing to save
    if stat.S_ISREG(info.st_mode):
        return info.st_size
    return 0 if stat.S_ISLNK(info.st_mode) or stat.S_ISDIR(info.st_mode) else None

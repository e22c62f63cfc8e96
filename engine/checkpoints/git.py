"""The shadow repository: `git` run with its own GIT_DIR under the home and the project as its work tree.

Every call is isolated from what could run code or change bytes: no system or global git config (a
`filter.*.clean` there, or an `.gitattributes` naming it, would run a program), the repository's
own config rewritten before use, hooks pointed at /dev/null, and every attribute that converts
content (`text`, `eol`, `filter`, `ident`, `working-tree-encoding`) unset, so a checkpoint holds the
files byte for byte and a restore writes them back the same. Paths are literal pathspecs, never
patterns.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

GIT = "git"
LOCK_NAME = "hws.lock"
PROJECT_NAME = "hws-project"  # the folder this repository saves, for a person who looks inside

CONFIG = """\
# Written by hws before every use: the shadow repository of one working folder's checkpoints.
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = false
\tsymlinks = true
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\thooksPath = /dev/null
\tquotePath = false
[gc]
\tauto = 0
[advice]
\taddEmbeddedRepo = false
"""

# Highest precedence of all attribute files: no conversion of any file, whatever the project says.
ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_CALL_OPTIONS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false")


class GitError(Exception):
    """A git call failed; the message is a sentence with git's own words at the end."""


class ShadowGit:
    """One shadow repository (`git_dir`) over one working folder (`work_tree`)."""

    def __init__(self, git_dir: Path, work_tree: Path, timeout: float) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.timeout = timeout

    # -- running git ------------------------------------------------------------------------------

    def env(self, index: Path | None = None) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.work_tree),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_TERMINAL_PROMPT="0",
            GIT_LITERAL_PATHSPECS="1",
            GIT_AUTHOR_NAME="hws",
            GIT_AUTHOR_EMAIL="hws@localhost",
            GIT_COMMITTER_NAME="hws",
            GIT_COMMITTER_EMAIL="hws@localhost",
            LC_ALL="C",
        )
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        return env

    def argv(self, args: Sequence[str]) -> list[str]:
        return [GIT, *_CALL_OPTIONS, *args]

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        index: Path | None = None,
        deadline: float | None = None,
    ) -> bytes:
        """git's stdout; GitError when it fails or runs past `deadline` (a time.monotonic() value)."""
        timeout = self.timeout if deadline is None else max(0.1, deadline - time.monotonic())
        try:
            done = subprocess.run(
                self.argv(args),
                input=stdin,
                capture_output=True,
                env=self.env(index),
                cwd=self.work_tree,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"git {args[0]} took longer than {timeout:.0f} s (checkpoints.timeout)") from exc
        except FileNotFoundError as exc:
            raise GitError("git is not installed; checkpoints need the git command") from exc
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            errors = [line for line in said if line.startswith(("error:", "fatal:"))]
            detail = (errors or said or [f"exit {done.returncode}"])[
                0
            ]  # the cause, not `adding files failed`
            raise GitError(f"git {args[0]} failed: {detail}")
        return done.stdout

    def popen(self, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.argv(args),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=self.env(),
            cwd=self.work_tree,
        )

    # -- the repository ---------------------------------------------------------------------------

    def prepare(self, excludes: Sequence[str]) -> None:
        """Create the repository on first use, then (every time) its config, attributes and excludes."""
        from engine.home import make_private_dir

        make_private_dir(self.git_dir.parent)
        if not (self.git_dir / "HEAD").is_file():
            make_private_dir(self.git_dir)
            self.run("init", "--quiet")
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        _write_if_changed(self.git_dir / "config", CONFIG)
        _write_if_changed(info / "attributes", ATTRIBUTES)
        _write_if_changed(info / "exclude", "".join(f"{line}\n" for line in excludes))
        _write_if_changed(self.git_dir / PROJECT_NAME, f"{self.work_tree}\n")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One checkpoint operation at a time on this repository (the workstation and `hws run` share it)."""
        from engine.home import make_private_dir

        make_private_dir(self.git_dir.parent)
        deadline = time.monotonic() + self.timeout
        with open(self.git_dir.parent / f"{self.git_dir.name}.{LOCK_NAME}", "a+b") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise GitError("another checkpoint of this folder is still being taken") from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _write_if_changed(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    with contextlib.suppress(OSError):
        if not path.is_symlink() and path.read_bytes() == data:
            return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def pattern_for(path: str) -> str | None:
    """An exclude line that matches exactly this one path from the top (None when no line can)."""
    if "\n" in path or "\r" in path:
        return None
    escaped = "".join(f"\\{ch}" if ch in "\\*?[]!# " else ch for ch in path)
    return f"/{escaped}"

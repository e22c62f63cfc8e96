"""Take, list, compare and restore the checkpoints of one working folder.

A checkpoint is a parentless commit of the shadow repository, named by a ref
`refs/hws-checkpoints/<time>`; its message holds the reason (the call that prompted it), the session
and the turn. Taking one is `git add -A` into the shadow index (whose stat cache makes an unchanged
folder cheap), then `write-tree`; when the tree is the newest checkpoint's, nothing new is made.
A restore takes a checkpoint of the folder as it is first (the undo), then `git restore` writes back
the chosen checkpoint's files and removes the files made since (all of the folder, or one path).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from engine.checkpoints.git import GitError, ShadowGit, pattern_for
from engine.checkpoints.survey import MIB, Limits, survey, too_many_entries
from engine.config import Config
from engine.home import Home

REF_PREFIX = "refs/hws-checkpoints/"
TURN_PREFIX = "refs/hws-turns/"  # <session>/<turn>: the checkpoint that holds the folder as the turn began
ID_LENGTH = 12
_FIELD, _RECORD = "\x1f", "\x1e"
_FORMAT = (
    "%1f".join(
        [
            "%(refname)",
            "%(objectname)",
            "%(tree)",
            "%(creatordate:unix)",
            "%(contents:subject)",
            "%(contents:body)",
        ]
    )
    + "%1e"
)
_TRAILER = re.compile(r"^(Session|Turn|Files): ?(.*)$", re.MULTILINE)


class CheckpointError(Exception):
    """What went wrong with a checkpoint, as one sentence a person can act on."""


@dataclass(frozen=True)
class Checkpoint:
    """One saved state of the folder."""

    id: str  # the commit's first 12 hex digits: what a person types
    commit: str
    tree: str
    ref: str
    created: float  # unix time
    reason: str
    session_id: str
    turn: int
    files: int

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "commit": self.commit,
            "created": self.created,
            "reason": self.reason,
            "session_id": self.session_id,
            "turn": self.turn,
            "files": self.files,
        }


@dataclass(frozen=True)
class Change:
    """One path that differs between two states, seen from the first: `added`, `modified` or `removed`."""

    status: str
    path: str
    lines_added: int | None = None  # None for a binary file
    lines_removed: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "path": self.path,
            "lines_added": self.lines_added,
            "lines_removed": self.lines_removed,
        }


@dataclass(frozen=True)
class Taken:
    """What `take` did: a new checkpoint, the newest one again (`unchanged`), or nothing (`skipped`)."""

    checkpoint: Checkpoint | None
    unchanged: bool = False
    skipped: str = ""  # why nothing was saved, as one sentence


@dataclass(frozen=True)
class Restored:
    """A restore: the checkpoint written back, the checkpoint of before (restore it to undo), and what
    changed, seen from the folder as it was (`added`: brought back, `removed`: made since, deleted)."""

    target: Checkpoint
    undo: Checkpoint
    changes: tuple[Change, ...]
    path: str = ""


def shadow_dir(home: Home, project: Path) -> Path:
    """Where one folder's checkpoints live: by the hash of its resolved path, so any folder name works."""
    key = hashlib.sha256(os.fsencode(project)).hexdigest()[:16]
    return home.journal_dir / "checkpoints" / key


class CheckpointStore:
    """The checkpoints of `project` (a folder), kept in the home's shadow repository for it."""

    def __init__(self, home: Home, config: Config, project: Path) -> None:
        self.home = home
        self.project = project.resolve()
        section = config.checkpoints
        self.limits = Limits(
            int(section.max_files), int(section.max_total_size_mb) * MIB, int(section.max_file_size_mb) * MIB
        )
        self.keep = int(section.max_snapshots)
        self.max_walked = int(section.max_entries_walked)
        self._walked = False  # the bounded count is made once per store (an agent keeps one)
        self.exclude_dirs = [str(name) for name in section.exclude or ()]
        self.timeout = float(section.timeout)
        self.git = ShadowGit(shadow_dir(home, self.project), self.project, self.timeout)

    # -- taking -----------------------------------------------------------------------------------

    def refusal(self) -> str:
        """Why this folder is never checkpointed ("" when it may be)."""
        if not self.project.is_dir():
            return f"{self.project} is not a folder"
        home = self.home.root.resolve()
        if self.project == home or home in self.project.parents:
            return "the working folder is inside the agent's home, whose files the engine journals itself"
        return ""

    def take(self, reason: str, *, session_id: str = "", turn: int = 0) -> Taken:
        """Save the folder now (or say why not); never raises for a folder that cannot be saved."""
        refused = self.refusal()
        if refused:
            return Taken(None, skipped=f"No checkpoint: {refused}.")
        try:
            with self.git.locked():
                return self._take(reason, session_id, turn, time.monotonic() + self.timeout)
        except (GitError, OSError) as exc:
            return Taken(None, skipped=f"No checkpoint of {self.project}: {exc}.")

    def _take(self, reason: str, session_id: str, turn: int, deadline: float) -> Taken:
        if not self._walked:
            skip = frozenset({".git", *(name.strip("/") for name in self.exclude_dirs)})
            if too_many_entries(self.project, skip, self.max_walked):
                return Taken(
                    None,
                    skipped=(
                        f"No checkpoint of {self.project}: it holds more than {self.max_walked:,} files and "
                        "folders (checkpoints.max_entries_walked); run hws in the project's own folder, or "
                        "raise the limit in config.yaml."
                    ),
                )
            self._walked = True
        excludes = self._excludes()
        self.git.prepare(excludes)
        found = survey(self.git, self.limits, max(0.1, deadline - time.monotonic()))
        if found.over:
            return Taken(
                None,
                skipped=(
                    f"No checkpoint of {self.project}: it holds {found.over}; raise the limit in config.yaml "
                    "or list what need not be saved in .gitignore."
                ),
            )
        if found.large:
            lines = [pattern_for(path) for path in found.large]
            self.git.prepare([*excludes, *(line for line in lines if line)])
        tree = self._index_tree(None, deadline)
        newest = self._newest()
        if newest is not None and newest.tree == tree:
            self._mark_turn(session_id, turn, newest.commit)
            return Taken(newest, unchanged=True)
        message = f"{_one_line(reason)}\n\nSession: {session_id}\nTurn: {turn}\nFiles: {found.files}\n"
        commit = self.git.run("commit-tree", tree, stdin=message.encode("utf-8"), deadline=deadline)
        commit_id = commit.decode().strip()
        ref = f"{REF_PREFIX}{time.time_ns():020d}"
        self.git.run("update-ref", ref, commit_id, "", deadline=deadline)
        self._mark_turn(session_id, turn, commit_id)
        self._prune()
        created = self._find_ref(ref)
        assert created is not None
        return Taken(created)

    def _mark_turn(self, session_id: str, turn: int, commit: str) -> None:
        """Remember which checkpoint holds the folder as turn `turn` began (an unchanged one is no new
        checkpoint, so the turn is found by this ref, not by the checkpoints' own list)."""
        if session_id and turn > 0:
            self.git.run("update-ref", f"{_turn_prefix(session_id)}{turn:06d}", commit)

    def before_turn(self, session_id: str, turn: int) -> Checkpoint | None:
        """The checkpoint holding the folder as it was before turn `turn` of `session_id` (or the first
        turn after it that changed anything) changed it; None when no turn since changed the folder."""
        if not (self.git.git_dir / "HEAD").is_file():
            return None
        try:
            out = self.git.run("for-each-ref", "--format=%(refname) %(objectname)", _turn_prefix(session_id))
        except GitError as exc:
            raise CheckpointError(f"The checkpoints of {self.project} cannot be read: {exc}.") from exc
        marks = sorted(
            (int(name.rsplit("/", 1)[1]), commit)
            for name, _, commit in (line.partition(" ") for line in out.decode().splitlines())
            if name.rsplit("/", 1)[1].isdigit() and int(name.rsplit("/", 1)[1]) >= turn
        )
        by_commit = {c.commit: c for c in self.checkpoints()}
        return next((by_commit[commit] for _turn, commit in marks if commit in by_commit), None)

    def _index_tree(self, index: Path | None, deadline: float) -> str:
        """The folder as a tree of the shadow repository (through `index`, else the shadow's own)."""
        self.git.run("add", "--all", "--", ".", index=index, deadline=deadline)
        ignored = self.git.run("ls-files", "-z", "--cached", "--ignored", "--exclude-standard", index=index)
        if ignored.strip(b"\0"):  # saved before it was ignored (or grew too large): out of the index
            self.git.run(
                "rm",
                "--cached",
                "--quiet",
                "--ignore-unmatch",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                stdin=ignored,
                index=index,
                deadline=deadline,
            )
        return self.git.run("write-tree", index=index, deadline=deadline).decode().strip()

    def _excludes(self) -> list[str]:
        """What is never saved: the tool folders of the config, what the project's .git/info/exclude and
        git's global ignore file leave out, and the home when it lies inside the folder."""
        lines = ["# written by hws before every checkpoint"]
        lines += [f"{name.strip('/')}/" for name in self.exclude_dirs if name.strip("/")]
        for extra in (self.project / ".git" / "info" / "exclude", _global_ignore_file()):
            if extra is not None and extra.is_file():
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    lines += extra.read_text(encoding="utf-8").splitlines()
        home = self.home.root.resolve()
        if self.project in home.parents:
            line = pattern_for(home.relative_to(self.project).as_posix())
            if line:
                lines.append(f"{line}/")
        return lines

    def _prune(self) -> None:
        """Keep the newest `max_snapshots`; objects only the dropped ones held are deleted."""
        every = self.checkpoints()
        dropped = every[self.keep :]
        if not dropped:
            return
        for old in dropped:
            self.git.run("update-ref", "-d", old.ref)
        gone = {old.commit for old in dropped}
        marks = self.git.run("for-each-ref", "--format=%(refname) %(objectname)", TURN_PREFIX)
        for name, _, commit in (line.partition(" ") for line in marks.decode().splitlines()):
            if commit in gone:
                self.git.run("update-ref", "-d", name)
        self.git.run("prune", "--expire=now")

    # -- reading ----------------------------------------------------------------------------------

    def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint of the folder, newest first (none when it never had one)."""
        if not (self.git.git_dir / "HEAD").is_file():
            return []
        try:
            out = self.git.run("for-each-ref", f"--format={_FORMAT}", "--sort=-refname", REF_PREFIX)
        except GitError as exc:
            raise CheckpointError(f"The checkpoints of {self.project} cannot be read: {exc}.") from exc
        return [_parse(record) for record in out.decode("utf-8", "replace").split(_RECORD) if record.strip()]

    def find(self, ident: str) -> Checkpoint:
        """The checkpoint whose id starts with `ident` (at least 4 hex digits)."""
        wanted = ident.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{4,40}", wanted):
            raise CheckpointError(
                f"{ident!r} is not a checkpoint id; `hws checkpoints list` shows them (12 hex digits)."
            )
        matches = [c for c in self.checkpoints() if c.commit.startswith(wanted)]
        if not matches:
            raise CheckpointError(
                f"No checkpoint {ident} for {self.project}; `hws checkpoints list` shows them."
            )
        if len(matches) > 1:
            raise CheckpointError(f"{ident} names {len(matches)} checkpoints; give more of its digits.")
        return matches[0]

    def _newest(self) -> Checkpoint | None:
        every = self.checkpoints()
        return every[0] if every else None

    def _find_ref(self, ref: str) -> Checkpoint | None:
        return next((c for c in self.checkpoints() if c.ref == ref), None)

    # -- comparing --------------------------------------------------------------------------------

    def current_tree(self) -> str:
        """The folder as it is now, as a tree (no checkpoint is made; the shadow index is left alone)."""
        refused = self.refusal()
        if refused:
            raise CheckpointError(f"The folder cannot be compared: {refused}.")
        deadline = time.monotonic() + self.timeout
        try:
            with self.git.locked():
                self.git.prepare(self._excludes())
                found = survey(self.git, self.limits, self.timeout)
                if found.over:
                    raise CheckpointError(f"{self.project} holds {found.over}, so it is not compared.")
                if found.large:
                    lines = [pattern_for(path) for path in found.large]
                    self.git.prepare([*self._excludes(), *(line for line in lines if line)])
                scratch = self.git.git_dir / "hws-compare.index"
                index = self.git.git_dir / "index"
                scratch.unlink(missing_ok=True)
                if index.is_file():  # its stat cache: unchanged files are not read again
                    scratch.write_bytes(index.read_bytes())
                try:
                    return self._index_tree(scratch, deadline)
                finally:
                    scratch.unlink(missing_ok=True)
        except GitError as exc:
            raise CheckpointError(f"The folder cannot be compared with its checkpoints: {exc}.") from exc

    def changes(self, old_tree: str, new_tree: str, path: str = "") -> list[Change]:
        """What differs from `old_tree` to `new_tree` (under `path` when given), in path order."""
        spec = ["--", path] if path else []
        try:
            status = self.git.run(
                "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, new_tree, *spec
            )
            counts = self.git.run(
                "diff-tree", "-r", "-z", "--no-renames", "--numstat", old_tree, new_tree, *spec
            )
        except GitError as exc:
            raise CheckpointError(f"The checkpoints cannot be compared: {exc}.") from exc
        lines: dict[str, tuple[int | None, int | None]] = {}
        for entry in counts.decode("utf-8", "replace").split("\0"):
            parts = entry.split("\t", 2)
            if len(parts) == 3:
                lines[parts[2]] = (_count(parts[0]), _count(parts[1]))
        fields = status.decode("utf-8", "replace").split("\0")
        found = []
        for letter, name in zip(fields[0::2], fields[1::2], strict=False):
            if not letter:
                continue
            kind = {"A": "added", "D": "removed"}.get(letter[0], "modified")
            added, removed = lines.get(name, (None, None))
            found.append(Change(kind, name, added, removed))
        return found

    def changes_since(self, checkpoint: Checkpoint, path: str = "") -> list[Change]:
        """What changed in the folder since `checkpoint` (what restoring it would undo)."""
        return self.changes(checkpoint.tree, self.current_tree(), self.relative(path) if path else "")

    def patch_since(self, checkpoint: Checkpoint, path: str = "") -> str:
        """The unified diff from `checkpoint` to the folder now."""
        return self.patch(checkpoint.tree, self.current_tree(), self.relative(path) if path else "")

    def patch(self, old_tree: str, new_tree: str, path: str = "") -> str:
        """The unified diff from `old_tree` to `new_tree` (under `path` when given)."""
        spec = ["--", path] if path else []
        try:
            out = self.git.run(
                "diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color",
                old_tree, new_tree, *spec,
            )  # fmt: skip
        except GitError as exc:
            raise CheckpointError(f"The checkpoint cannot be compared: {exc}.") from exc
        return out.decode("utf-8", "replace")

    def relative(self, path: str) -> str:
        """`path` (absolute, or from the folder's top) as a path from the top; a sentence when outside."""
        given = Path(path)
        joined = given if given.is_absolute() else self.project / given
        parts: list[str] = []
        for part in joined.parts[1:]:  # lexically: a link in the path is not followed out of the folder
            if part == "..":
                if parts:
                    parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        normal = Path("/", *parts)
        try:
            inside = normal.relative_to(self.project)
        except ValueError:
            raise CheckpointError(f"{path} is not inside {self.project}.") from None
        if not inside.parts:
            return ""
        if inside.parts[0] == ".git":
            raise CheckpointError("The project's own .git is never saved nor restored.")
        return inside.as_posix()

    # -- restoring --------------------------------------------------------------------------------

    def restore(self, target: Checkpoint, path: str = "") -> Restored:
        """Write `target` back (all of the folder, or `path`), after a checkpoint of now that undoes it."""
        where = self.relative(path) if path else ""
        taken = self.take(f"before restoring {target.id}" + (f" ({where})" if where else ""))
        if taken.checkpoint is None:
            raise CheckpointError(
                f"{taken.skipped} Nothing was restored: without a checkpoint of now it could not be undone."
            )
        undo = taken.checkpoint
        changes = self.changes(undo.tree, target.tree, where)
        if (
            where
            and not changes
            and not self._holds(target.tree, where)
            and not self._holds(undo.tree, where)
        ):
            raise CheckpointError(f"{where} is neither in checkpoint {target.id} nor in {self.project}.")
        if changes:
            try:
                with self.git.locked():
                    self.git.run(
                        "restore", f"--source={target.commit}", "--staged", "--worktree", "--", where or "."
                    )
            except GitError as exc:
                raise CheckpointError(
                    f"The restore of {target.id} stopped part way: {exc}. Restore {undo.id} to go back."
                ) from exc
        return Restored(target, undo, tuple(changes), where)

    def _holds(self, tree: str, path: str) -> bool:
        try:
            return bool(self.git.run("ls-tree", "--name-only", tree, "--", path).strip())
        except GitError:
            return False


def _parse(record: str) -> Checkpoint:
    ref, commit, tree, created, subject, body = (record.strip("\n").split(_FIELD) + [""] * 6)[:6]
    trailers = dict(_TRAILER.findall(body))
    return Checkpoint(
        commit[:ID_LENGTH],
        commit,
        tree,
        ref,
        float(created or 0),
        subject,
        trailers.get("Session", "").strip(),
        int(trailers.get("Turn", "0").strip() or 0),
        int(trailers.get("Files", "0").strip() or 0),
    )


def _turn_prefix(session_id: str) -> str:
    return f"{TURN_PREFIX}{re.sub(r'[^A-Za-z0-9_-]', '_', session_id)}/"


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line[:200] or "checkpoint"


@functools.cache
def _global_ignore_file() -> Path | None:
    """git's global ignore file (`core.excludesFile`, else ~/.config/git/ignore), read-only."""
    try:
        done = subprocess.run(
            ["git", "config", "--global", "--path", "core.excludesFile"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    named = done.stdout.strip()
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "git" / "ignore"

"""Where the agent keeps what it knows: resolving `$HERMES_HOME`, first-run seeding, and paths."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

HOME_ENV = "HERMES_HOME"
SUBDIRS = ("memories", "skills", "logs")
OWNER_ONLY = 0o700


class HomeError(Exception):
    """The home folder cannot be used; the message says why and what to do."""


def resolve_home_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The home folder: an explicit path, else `$HERMES_HOME`, else `~/.hermes`."""
    if explicit:
        return Path(explicit).expanduser()
    from_env = os.environ.get(HOME_ENV, "").strip()
    if from_env:
        return Path(from_env).expanduser()
    return Path.home() / ".hermes"


def default_soul_text() -> str:
    """The project's default persona, shipped with the engine."""
    return resources.files("engine").joinpath("assets/SOUL.md").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Home:
    """The paths of one `$HERMES_HOME`; `ensure()` creates what is missing and nothing else."""

    root: Path

    @classmethod
    def resolve(cls, explicit: str | os.PathLike[str] | None = None) -> Home:
        return cls(resolve_home_path(explicit).absolute())

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def skills(self) -> Path:
        return self.root / "skills"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def soul(self) -> Path:
        return self.root / "SOUL.md"

    @property
    def config_file(self) -> Path:
        return self.root / "config.yaml"

    @property
    def env_file(self) -> Path:
        return self.root / ".env"

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def journal_dir(self) -> Path:
        """Our own bookkeeping (write journal, skill history) lives apart from Hermes' files."""
        return self.root / "hws"

    @property
    def themes(self) -> Path:
        return self.root / "themes"

    def ensure(self) -> Home:
        """Create the home on first run; an existing Hermes Agent home is used as it is."""
        if self.root.exists() and not self.root.is_dir():
            raise HomeError(f"{self.root} exists but is not a folder; point {HOME_ENV} at a folder.")
        try:
            fresh = not self.root.exists()
            self.root.mkdir(parents=True, exist_ok=True)
            if fresh:
                os.chmod(self.root, OWNER_ONLY)
        except OSError as exc:
            raise HomeError(
                f"Cannot create the home at {self.root}: {exc.strerror}. "
                f"Check its permissions or set {HOME_ENV} to a folder you own."
            ) from exc
        try:
            for name in SUBDIRS:
                make_private_dir(self.root / name)
            if not self.soul.exists() and not self.soul.is_symlink():
                self._seed_soul()
        except OSError as exc:
            if os.access(self.root, os.W_OK):
                raise HomeError(
                    f"Cannot prepare the home at {self.root}: {exc.strerror}. "
                    f"Check its permissions or set {HOME_ENV} to a folder you own."
                ) from exc
            # A home that cannot be written is still read; write_problem says what cannot work.
        return self

    def write_problem(self) -> str:
        """One sentence on what cannot work because parts of the home cannot be written ('' if all can).

        A read-only home is still read: the panes show what is there. What fails is every write: the
        agent records each message in state.db, so it cannot run; memory and skill writes fail.
        """
        parts = [
            (self.root, "the home"),
            (self.state_db, "state.db"),
            (self.memories, "memories/"),
            (self.skills, "skills/"),
        ]
        blocked = [(path, name) for path, name in parts if path.exists() and not os.access(path, os.W_OK)]
        if not blocked:
            return ""
        names = {name for _path, name in blocked}
        why = "on a read-only file system" if _read_only_mount(blocked[0][0]) else "not writable by you"
        where = f"{self.root}" if "the home" in names else ", ".join(name for _p, name in blocked)
        lost = []
        if names & {"the home", "state.db"}:
            lost.append("the agent cannot run (it records every message in state.db)")
        if names & {"the home", "memories/"}:
            lost.append("memory cannot be written")
        if names & {"the home", "skills/"}:
            lost.append("skills cannot be written")
        subject = f"The home {where} is" if "the home" in names else f"In the home {self.root}, {where} is"
        return f"{subject} {why}: {'; '.join(lost)}. The panes show what is there."

    def _seed_soul(self) -> None:
        # O_EXCL: two first runs at once must not both write, and a user's file is never replaced.
        try:
            fd = os.open(self.soul, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(default_soul_text())

    def inside(self, path: Path) -> bool:
        """True when `path`, with symlinks resolved, stays inside the home."""
        try:
            path.resolve().relative_to(self.root.resolve())
        except (ValueError, RuntimeError, OSError):  # outside, a symlink loop, or unreadable
            return False
        return True


def make_private_dir(path: Path) -> None:
    """Create the folder (and its parents) readable by its owner only, as the home's folders are: a
    folder recreated after it was removed is 700 again, not the umask's 755."""
    if path.is_dir():
        return
    path.mkdir(mode=OWNER_ONLY, parents=True, exist_ok=True)
    os.chmod(path, OWNER_ONLY)


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False

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
            for name in SUBDIRS:
                sub = self.root / name
                if not sub.exists():
                    sub.mkdir()
                    os.chmod(sub, OWNER_ONLY)
            if not self.soul.exists() and not self.soul.is_symlink():
                self._seed_soul()
        except PermissionError as exc:
            raise HomeError(
                f"Cannot create the home at {self.root}: {exc.strerror}. "
                f"Check its permissions or set {HOME_ENV} to a folder you own."
            ) from exc
        return self

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

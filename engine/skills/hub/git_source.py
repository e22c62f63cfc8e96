"""Skills in a git repository, cloned shallow with the `git` CLI into the home's cache.

Both layouts are read: anthropics/skills' `skills/<name>/SKILL.md` and Hermes'
`skills/<category>/<name>/SKILL.md` (the category is kept for the install).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from engine.skills.discovery import SKILL_FILE
from engine.skills.hub.model import Fetched, HubSkill, Source, SourceError, describe
from engine.skills.hub.spec import SourceSpec

STAMP = ".hws-fetched"
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})


def _git(args: list[str], timeout: float, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "GIT_CONFIG_NOSYSTEM": "1"}
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError as exc:
        raise SourceError(
            "The `git` command is not installed; the skills hub needs it for git sources."
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise SourceError(
            f"git {args[0]} took longer than {timeout:.0f} s (skills.hub_fetch_timeout)."
        ) from exc
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SourceError(f"git {args[0]} failed: {detail}")
    return done.stdout.strip()


class GitSource(Source):
    """One repository at one ref: its skills below `spec.path`."""

    def __init__(self, spec: SourceSpec, url: str, cache_root: Path, trust: str, ttl: float, timeout: float):
        self.spec = spec.text
        self.parsed = spec
        self.url = url
        self.trust = trust
        self.ttl = ttl
        self.timeout = timeout
        key = hashlib.sha256(f"{url}@{spec.ref}".encode()).hexdigest()[:16]
        self.checkout = cache_root / key

    def refresh(self, fresh: bool) -> Path:
        """The checkout, cloned again when asked or older than the cache's time to live."""
        stamp = self.checkout / STAMP
        if not fresh and stamp.is_file() and time.time() - stamp.stat().st_mtime < self.ttl:
            return self.checkout
        self.checkout.parent.mkdir(parents=True, exist_ok=True)
        incoming = self.checkout.with_name(self.checkout.name + f".new{os.getpid()}")
        shutil.rmtree(incoming, ignore_errors=True)
        branch = ["--branch", self.parsed.ref] if self.parsed.ref else []
        _git(["clone", "--quiet", "--depth", "1", *branch, "--", self.url, str(incoming)], self.timeout)
        (incoming / STAMP).write_text(self.url, encoding="utf-8")
        old = self.checkout.with_name(self.checkout.name + f".old{os.getpid()}")
        if self.checkout.exists():
            os.replace(self.checkout, old)
        os.replace(incoming, self.checkout)
        shutil.rmtree(old, ignore_errors=True)
        return self.checkout

    def commit(self) -> str:
        return _git(["rev-parse", "HEAD"], self.timeout, cwd=self.checkout)

    def identifier(self, rel: str) -> str:
        """Hermes' github identifier `owner/repo/path/to/skill`; `URL#path` for other repositories."""
        if self.parsed.kind == "github":
            return f"{self.parsed.location}/{rel}"
        return f"{self.url}#{rel}"

    def rel_of(self, identifier: str) -> str:
        if self.parsed.kind == "github":
            prefix = self.parsed.location + "/"
            return identifier[len(prefix) :] if identifier.startswith(prefix) else identifier
        return identifier.rsplit("#", 1)[-1]

    def skills(self, fresh: bool = False) -> list[HubSkill]:
        checkout = self.refresh(fresh)
        root = checkout / self.parsed.path if self.parsed.path else checkout
        if not root.is_dir():
            raise SourceError(f"{self.spec}: the repository has no folder {self.parsed.path!r}.")
        found = []
        for folder in _skill_folders(root):
            rel = folder.relative_to(checkout).as_posix()
            name, description, tags = describe(folder, folder.name)
            skill = HubSkill(name, description, self.parsed.kind, self.identifier(rel), self.trust, tags)
            found.append(replace(skill, category=_category(root, folder), tap=self.spec))
        return sorted(found, key=lambda s: (s.category, s.name))

    def fetch(self, identifier: str, work: Path) -> Fetched:
        checkout = self.refresh(fresh=True)
        rel = self.rel_of(identifier)
        folder = checkout / rel
        if ".." in rel.split("/") or not (folder / SKILL_FILE).is_file():
            raise SourceError(f"{self.spec}: no skill at {rel!r} (no {SKILL_FILE} there).")
        target = work / folder.name
        shutil.copytree(folder, target, symlinks=True, ignore=shutil.ignore_patterns(*SKIP_DIRS))
        name, description, tags = describe(target, folder.name)
        skill = HubSkill(name, description, self.parsed.kind, identifier, self.trust, tags, tap=self.spec)
        metadata = {"repo_url": self.url, "ref": self.parsed.ref, "commit": self.commit(), "path": rel}
        return Fetched(target, skill, metadata)


def _skill_folders(root: Path) -> list[Path]:
    """Every folder below `root` holding a SKILL.md, not looking inside a skill nor in hidden folders."""
    if (root / SKILL_FILE).is_file():  # the spec names one skill's folder
        return [root]
    found: list[Path] = []
    for current, dirs, files in os.walk(root):
        if SKILL_FILE in files:
            found.append(Path(current))
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith((".", "_")))
    return found


def _category(root: Path, folder: Path) -> str:
    """The category folder a skill sits in (Hermes' `skills/<category>/<name>`), "" when flat."""
    if folder == root:
        return ""
    parts = [p for p in folder.parent.relative_to(root).parts if p not in (".", "skills")]
    return parts[-1] if parts else ""

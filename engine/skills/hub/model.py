"""What every hub source shares: a listed skill, a fetched one, the source interface and its error."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.skills import frontmatter as fm
from engine.skills.discovery import SKILL_FILE


class SourceError(Exception):
    """A source cannot be reached or read; the message says which and why."""


@dataclass(frozen=True)
class HubSkill:
    """One skill a source offers, as search and the hub screen show it."""

    name: str
    description: str
    source: str  # Hermes' source id: github, git, well-known, url
    identifier: str  # what fetch() takes back, in Hermes' shape for github and well-known
    trust: str
    tags: tuple[str, ...] = ()
    category: str = ""
    tap: str = ""  # the tap (source spec) it was found through

    def matches(self, text: str) -> bool:
        """Name, description or a tag holds every word of `text` (case-insensitive)."""
        haystack = " ".join((self.name, self.description, *self.tags)).lower()
        return all(word in haystack for word in text.lower().split())


@dataclass
class Fetched:
    """A skill's files in a local folder, with where they came from (kept in the lock entry)."""

    folder: Path
    skill: HubSkill
    metadata: dict[str, Any] = field(default_factory=dict)  # ref, commit, url ...


class Source(ABC):
    """A place skills come from: lists what it offers and fetches one into a folder of its own."""

    spec: str

    @abstractmethod
    def skills(self, fresh: bool = False) -> list[HubSkill]:
        """Every skill offered; `fresh` asks the source again instead of a cached copy."""

    @abstractmethod
    def fetch(self, identifier: str, work: Path) -> Fetched:
        """The skill's files under `work` (a folder the caller owns and removes)."""


SAFE_PART = re.compile(r"^[A-Za-z0-9._+@=,-]+$")


def safe_relpath(rel: str) -> str:
    """A relative file path from a remote index or archive, refused when it could leave the folder."""
    rel = rel.replace("\\", "/").strip()
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or rel.startswith("/") or any(p == ".." or not SAFE_PART.match(p) for p in parts):
        raise SourceError(f"The source lists the file path {rel!r}, which is not a plain relative path.")
    return "/".join(parts)


def describe(folder: Path, fallback_name: str) -> tuple[str, str, tuple[str, ...]]:
    """(name, description, tags) from a skill folder's SKILL.md frontmatter."""
    try:
        text = (folder / SKILL_FILE).read_text(encoding="utf-8", errors="replace")
        meta = fm.parse_lenient(text).meta
    except (OSError, fm.FrontmatterError):
        meta = {}
    name = meta.get("name")
    name = name if isinstance(name, str) and fm.name_error(name) is None else fallback_name
    description = fm.one_line(str(meta.get("description") or ""))
    return name, description, _tags(meta)


def _tags(meta: dict[str, Any]) -> tuple[str, ...]:
    """Tags at the top, under `metadata:` or under `metadata.hermes:` (Hermes' place for them)."""
    extra = meta.get("metadata") if isinstance(meta.get("metadata"), dict) else {}
    hermes = extra.get("hermes") if isinstance(extra.get("hermes"), dict) else {}
    tags = meta.get("tags") or extra.get("tags") or hermes.get("tags") or ()
    if isinstance(tags, str):
        tags = tags.split(",")
    if not isinstance(tags, list | tuple):
        return ()
    return tuple(str(t).strip() for t in tags if str(t).strip())

"""Skills served over HTTPS: a site's `/.well-known/skills/index.json` (the agentskills convention:
each skill's name, description and files, served beside the index), and a direct URL of a skill
archive or of a single SKILL.md."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from engine.skills.discovery import SKILL_FILE
from engine.skills.hub.download import Limits, get_bytes, is_archive, unpack
from engine.skills.hub.model import Fetched, HubSkill, Source, SourceError, describe, safe_relpath
from engine.skills.hub.spec import SourceSpec

WELL_KNOWN_PREFIX = "well-known:"


class WellKnownSource(Source):
    """The skills a site lists in its `/.well-known/skills/index.json`; always community trust."""

    def __init__(self, spec: SourceSpec, limits: Limits, ttl: float) -> None:
        self.spec = spec.text
        self.index_url = spec.location
        self.base = self.index_url.rsplit("/", 1)[0]
        self.limits = limits
        self.ttl = ttl
        self._index: tuple[float, list[dict[str, Any]]] | None = None

    def entries(self, fresh: bool = False) -> list[dict[str, Any]]:
        if self._index and not fresh and time.time() - self._index[0] < self.ttl:
            return self._index[1]
        try:
            data = json.loads(get_bytes(self.index_url, self.limits))
        except ValueError as exc:
            raise SourceError(f"{self.index_url} is not a JSON skills index: {exc}.") from exc
        skills = data.get("skills") if isinstance(data, dict) else None
        if not isinstance(skills, list):
            raise SourceError(f"{self.index_url} has no `skills` list; it is not a skills index.")
        entries = [e for e in skills if isinstance(e, dict) and isinstance(e.get("name"), str)]
        self._index = (time.time(), entries)
        return entries

    def identifier(self, name: str) -> str:
        return f"{WELL_KNOWN_PREFIX}{self.base}/{name}"

    def skills(self, fresh: bool = False) -> list[HubSkill]:
        found = []
        for entry in self.entries(fresh):
            tags = entry.get("tags") if isinstance(entry.get("tags"), list) else []
            found.append(
                HubSkill(
                    entry["name"],
                    str(entry.get("description") or ""),
                    "well-known",
                    self.identifier(entry["name"]),
                    "community",
                    tuple(str(t) for t in tags),
                    tap=self.spec,
                )
            )
        return found

    def fetch(self, identifier: str, work: Path) -> Fetched:
        name = identifier.rsplit("/", 1)[-1]
        entry = next((e for e in self.entries(fresh=True) if e["name"] == name), None)
        if entry is None:
            raise SourceError(f"{self.index_url} no longer lists a skill named {name!r}.")
        files = entry.get("files") if isinstance(entry.get("files"), list) else [SKILL_FILE]
        target = work / safe_relpath(name)
        for rel in [safe_relpath(str(f)) for f in files]:
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(get_bytes(f"{self.base}/{name}/{rel}", self.limits))
        if not (target / SKILL_FILE).is_file():
            raise SourceError(f"{self.index_url} lists {name!r} without a {SKILL_FILE}.")
        skill_name, description, tags = describe(target, name)
        skill = HubSkill(skill_name, description, "well-known", identifier, "community", tags, tap=self.spec)
        return Fetched(target, skill, {"index_url": self.index_url, "files": [str(f) for f in files]})


class UrlSource(Source):
    """One skill at a URL: an archive of its folder (.zip, .tar.gz) or its SKILL.md alone."""

    def __init__(self, spec: SourceSpec, limits: Limits) -> None:
        self.spec = spec.text
        self.url = spec.location
        self.limits = limits

    def skills(self, fresh: bool = False) -> list[HubSkill]:
        from tempfile import TemporaryDirectory

        with TemporaryDirectory(prefix="hws-url-") as work:
            return [self.fetch(self.url, Path(work)).skill]

    def fetch(self, identifier: str, work: Path) -> Fetched:
        data = get_bytes(self.url, self.limits)
        if is_archive(self.url):
            folder = unpack(data, self.url, work / "unpacked", self.limits.max_bytes)
        else:
            folder = work / "skill"
            folder.mkdir(parents=True)
            (folder / SKILL_FILE).write_bytes(data)
        stem = self.url.split("?")[0].rstrip("/").rsplit("/", 2)
        fallback = stem[-2] if stem[-1].lower() == "skill.md" else stem[-1].split(".")[0]
        name, description, tags = describe(folder, fallback)
        if folder.name != name:  # the install takes its name from the frontmatter or the folder
            folder = folder.rename(folder.with_name(name))
        skill = HubSkill(name, description, "url", self.url, "community", tags, tap=self.spec)
        return Fetched(folder, skill, {"url": self.url})

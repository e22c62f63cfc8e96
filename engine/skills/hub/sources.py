"""From a spec (or a lock entry) to its source, with the trust its skills install under.

Trust by source, as Hermes has it: builtin for the skills shipped with the agent; trusted for the
publishers named in `skills.hub_trusted_repos` (anthropics/skills, openai/skills, ...); community for
everything else (a caution verdict needs --force, a dangerous one never installs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.skills.hub.download import Limits
from engine.skills.hub.git_source import GitSource
from engine.skills.hub.model import Source, SourceError
from engine.skills.hub.spec import SourceSpec, parse_spec
from engine.skills.hub.web_sources import WELL_KNOWN_PREFIX, UrlSource, WellKnownSource


@dataclass(frozen=True)
class SourceSettings:
    """The settings every source is opened with (skills.hub_* in config.yaml)."""

    cache: Path  # where git sources are cloned
    github_url: str
    trusted_repos: tuple[str, ...]
    ttl: float
    limits: Limits

    @classmethod
    def from_config(cls, home_root: Path, skills: Any) -> SourceSettings:
        return cls(
            home_root / "cache" / "skills-hub" / "git",
            str(skills.hub_github_url).rstrip("/"),
            tuple(str(r) for r in skills.hub_trusted_repos),
            float(skills.hub_cache_ttl),
            Limits.from_settings(skills),
        )

    def trust_for(self, spec: SourceSpec) -> str:
        trusted = {r.lower() for r in self.trusted_repos}
        if spec.kind == "github" and spec.location.lower() in trusted:
            return "trusted"
        return "community"


def open_spec(spec: SourceSpec, settings: SourceSettings) -> Source:
    """The source a parsed spec names."""
    if spec.kind == "well-known":
        return WellKnownSource(spec, settings.limits, settings.ttl)
    if spec.kind == "url":
        return UrlSource(spec, settings.limits)
    url = f"{settings.github_url}/{spec.location}.git" if spec.kind == "github" else spec.location
    trust = settings.trust_for(spec)
    return GitSource(spec, url, settings.cache, trust, settings.ttl, settings.limits.timeout)


def open_source(text: str, settings: SourceSettings) -> Source:
    """The source a spec as written names (SourceError when it names none)."""
    return open_spec(parse_spec(text), settings)


def source_of_entry(entry: dict[str, Any], settings: SourceSettings) -> Source:
    """The source a lock entry came from, ours or one Hermes wrote (github, well-known, url)."""
    kind = str(entry.get("source", ""))
    identifier = str(entry.get("identifier", ""))
    meta = entry.get("metadata") if isinstance(entry.get("metadata"), dict) else {}
    ref = str(meta.get("ref") or "")
    if kind == "github":
        owner, repo, *_rest = [*identifier.split("/"), "", ""]
        return open_spec(SourceSpec("github", f"{owner}/{repo}", "", ref, f"{owner}/{repo}"), settings)
    if kind == "git":
        url = str(meta.get("repo_url") or identifier.rsplit("#", 1)[0])
        return open_spec(SourceSpec("git", url, "", ref, url), settings)
    if kind == "well-known" and identifier.startswith(WELL_KNOWN_PREFIX):
        base = identifier[len(WELL_KNOWN_PREFIX) :].rsplit("/", 1)[0]
        return open_spec(SourceSpec("well-known", f"{base}/index.json", text=base), settings)
    if kind == "url":
        return open_spec(SourceSpec("url", identifier, text=identifier), settings)
    raise SourceError(
        f"Skills from the source {kind!r} cannot be checked by hws (not a hub source it reads)."
    )

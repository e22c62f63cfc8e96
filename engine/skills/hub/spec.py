"""Source specs as people write them: `owner/repo[/path][@ref]`, a git URL or local repository
(`URL[#path][@ref]`), an HTTPS site with `/.well-known/skills`, or a URL of an archive or a SKILL.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.skills.hub.model import SourceError

GITHUB_SHAPE = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+(/[^@#\s]*)?(@[\w./+-]+)?$")
WELL_KNOWN = "/.well-known/skills"


@dataclass(frozen=True)
class SourceSpec:
    """A parsed spec: which kind of source, where, and (for git) the path inside and the ref."""

    kind: str  # github | git | well-known | url
    location: str  # owner/repo, a clone URL, a site's index URL, or the file's URL
    path: str = ""  # folder inside the repository ("" = the whole repository)
    ref: str = ""  # branch or tag ("" = the default branch)
    text: str = ""  # the spec as written

    @property
    def repo(self) -> str:
        """The `repo` of a Hermes tap entry: owner/repo for GitHub, the location otherwise."""
        return self.location


def _split_ref(text: str) -> tuple[str, str]:
    """`text@ref` when the last `@` comes after the last `/` (so `git@host:` stays whole)."""
    at = text.rfind("@")
    if at > text.rfind("/") and at > 0 and ":" not in text[at:]:
        return text[:at], text[at + 1 :]
    return text, ""


def _git_location(text: str) -> SourceSpec:
    body, ref = _split_ref(text)
    location, _, path = body.partition("#")
    if location.startswith(("/", ".", "~")):
        location = str(Path(location).expanduser().resolve())
    return SourceSpec("git", location, path.strip("/"), ref, text)


def parse_spec(text: str) -> SourceSpec:
    """Which source a spec names; a spec that names none is refused with the shapes that work."""
    text = text.strip()
    if not text:
        raise SourceError("Give a source: owner/repo[/path][@ref], a git URL or path, or an HTTPS URL.")
    if text.startswith(("/", ".", "~", "file://", "git@", "ssh://")) or text.endswith(".git"):
        return _git_location(text)
    if text.startswith(("https://", "http://")):
        lower = text.lower().split("?")[0]
        if lower.endswith(("/skill.md", ".zip", ".tar.gz", ".tgz", ".tar")):
            return SourceSpec("url", text, text=text)
        if ".git#" in text or ".git@" in text:
            return _git_location(text)
        if WELL_KNOWN in text or not re.match(r"^https?://(github\.com|gitlab\.com)/", text):
            site = text.split(WELL_KNOWN)[0].rstrip("/")
            return SourceSpec("well-known", f"{site}{WELL_KNOWN}/index.json", text=text)
        return _git_location(text)
    if GITHUB_SHAPE.match(text):
        body, ref = _split_ref(text)
        owner, repo, *rest = body.split("/")
        return SourceSpec("github", f"{owner}/{repo}", "/".join(rest).strip("/"), ref, text)
    raise SourceError(
        f"{text!r} is not a source: give owner/repo[/path][@ref], a git URL or local repository "
        "(URL[#path][@ref]), an https:// site serving /.well-known/skills, or a URL of a skill archive "
        "or a SKILL.md."
    )

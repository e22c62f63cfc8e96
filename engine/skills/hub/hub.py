"""The skills hub of one home: taps, search, and install, check, update and uninstall of hub skills.

Every install goes through the local installer (quarantine → guard → trust policy by source → atomic
move into skills/), so a skill from the hub meets exactly the checks a local folder meets.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.skills.fingerprint import content_hash
from engine.skills.guard import GuardReport, scan_folder
from engine.skills.history import new_change_id
from engine.skills.hub.diff import folder_diff
from engine.skills.hub.model import Fetched, HubSkill, Source, SourceError
from engine.skills.hub.records import HubLock, TapFile, audit
from engine.skills.hub.sources import SourceSettings, open_source, source_of_entry
from engine.skills.hub.spec import SourceSpec, parse_spec
from engine.skills.install import HUB_DIR, Installer, InstallOutcome, Origin
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager

UP_TO_DATE, BEHIND, UNAVAILABLE = "up_to_date", "update_available", "unavailable"


class HubError(Exception):
    """A hub request that cannot be done as asked; the message says why and what to do."""


@dataclass
class SearchResult:
    skills: list[HubSkill] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # taps that could not be read, one sentence each


@dataclass
class CheckResult:
    """An installed hub skill compared with its source."""

    name: str
    source: str
    identifier: str
    status: str  # up_to_date | update_available | unavailable
    installed_hash: str = ""
    latest_hash: str = ""
    edited_locally: bool = False
    commit: str = ""
    detail: str = ""


@dataclass
class UpdateResult:
    name: str
    status: str  # updated | up_to_date | edited | refused | unavailable
    message: str
    diff: str = ""
    outcome: InstallOutcome | None = None


@dataclass
class Preview:
    """A hub skill as the hub screen shows it before install."""

    skill: HubSkill
    text: str
    files: list[str]
    report: GuardReport


def tap_spec(tap: dict[str, Any]) -> str:
    """The spec a taps.json entry stands for (Hermes' `{repo, path}`, hws' optional `kind` and `ref`)."""
    repo, path = str(tap["repo"]), str(tap.get("path") or "").strip("/")
    ref = f"@{tap['ref']}" if tap.get("ref") else ""
    kind = tap.get("kind", "github")
    if kind == "github":
        return f"{repo}/{path}{ref}" if path else f"{repo}{ref}"
    if kind == "git":
        return f"{repo}#{path}{ref}" if path else f"{repo}{ref}"
    return repo


def tap_entry(spec: SourceSpec) -> dict[str, Any]:
    """The taps.json entry for a spec: Hermes' `{repo, path}`, plus `kind` and `ref` when needed."""
    entry: dict[str, Any] = {"repo": spec.repo if spec.kind != "well-known" else spec.text.rstrip("/")}
    entry["path"] = f"{spec.path}/" if spec.path else ""
    if spec.kind != "github":
        entry["kind"] = spec.kind
    if spec.ref:
        entry["ref"] = spec.ref
    return entry


class SkillsHub:
    """Taps, search and the install life cycle of hub skills in one home."""

    def __init__(self, library: SkillLibrary, who: str = "user") -> None:
        self.library = library
        self.home = library.home
        self.hub = self.home.skills / HUB_DIR
        self.settings = SourceSettings.from_config(self.home.root, library.settings)
        self.lock = HubLock(self.hub)
        self.tap_file = TapFile(self.hub)
        self.installer = Installer(library, who)

    # taps and search

    def tap_specs(self) -> list[str]:
        """The default taps (skills.hub_default_taps), then the ones added, without repeats."""
        specs = [str(s) for s in self.library.settings.hub_default_taps]
        specs += [tap_spec(t) for t in self.tap_file.taps()]
        return list(dict.fromkeys(specs))

    def add_tap(self, text: str) -> tuple[bool, list[HubSkill]]:
        """Add a tap once its source answers; (added, the skills it offers)."""
        spec = parse_spec(text)
        if spec.kind == "url":
            raise HubError(f"{text} is one skill, not a tap; install it with `hws skills install {text}`.")
        skills = self.open(text).skills(fresh=True)
        return self.tap_file.add(tap_entry(spec)), skills

    def remove_tap(self, text: str) -> int:
        spec = parse_spec(text)
        entry = tap_entry(spec)
        return self.tap_file.remove(entry["repo"], entry["path"] if spec.path else None)

    def open(self, spec: str) -> Source:
        return open_source(spec, self.settings)

    def browse(self, fresh: bool = False) -> SearchResult:
        """Every skill of every tap (a tap that cannot be read is a problem, not an error)."""
        result = SearchResult()
        for spec in self.tap_specs():
            try:
                result.skills += self.open(spec).skills(fresh)
            except SourceError as exc:
                result.problems.append(f"{spec}: {exc}")
        return result

    def search(self, text: str, fresh: bool = False) -> SearchResult:
        found = self.browse(fresh)
        found.skills = [s for s in found.skills if s.matches(text)]
        return found

    # install

    def resolve(self, target: str) -> HubSkill:
        """The one skill `target` names: a source holding one skill, or a skill's name in the taps."""
        if "/" in target or ":" in target:
            offered = self.open(target).skills(fresh=True)
            if len(offered) == 1:
                return offered[0]
            names = ", ".join(s.name for s in offered[:8]) or "none"
            raise HubError(f"{target} holds {len(offered)} skills ({names}); name one of them.")
        found = self.browse()
        named = [s for s in found.skills if s.name == target]
        if not named:
            extra = f" ({'; '.join(found.problems)})" if found.problems else ""
            raise HubError(f"No tap offers a skill named '{target}'{extra}; `hws skills search` finds one.")
        rank = {"builtin": 0, "trusted": 1, "community": 2}
        return sorted(named, key=lambda s: rank.get(s.trust, 3))[0]

    @contextmanager
    def fetched(self, skill: HubSkill) -> Iterator[Fetched]:
        """The skill's files in a fresh folder under `.hub/quarantine/`, removed afterwards."""
        with self._fetch_from(self.open(skill.tap or skill.identifier), skill) as got:
            yield got

    def preview(self, skill: HubSkill) -> Preview:
        """The skill's SKILL.md, its files and the guard's report, fetched into quarantine, not installed."""
        with self.fetched(skill) as got:
            report = scan_folder(got.folder, skill.name, skill.source, skill.trust)
            files = sorted(p.relative_to(got.folder).as_posix() for p in got.folder.rglob("*") if p.is_file())
            text = (got.folder / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        return Preview(skill, text, files, report)

    def install(
        self, target: str | HubSkill, category: str | None = None, force: bool = False
    ) -> InstallOutcome:
        """Fetch, then quarantine → guard → trust policy → move; refused when the name is taken."""
        skill = self.resolve(target) if isinstance(target, str) else target
        with self.fetched(skill) as got:
            origin = Origin(skill.source, skill.identifier, _metadata(got, skill))
            where = skill.category if category is None else category
            return self.installer.install(got.folder, where, skill.trust, force, origin=origin, replace=False)

    # check, update, uninstall

    def installed(self, name: str | None = None) -> dict[str, dict[str, Any]]:
        """Lock entries of skills from hub sources (not local folders), or just `name`'s."""
        entries = {n: e for n, e in self.lock.entries().items() if e.get("source") != "local"}
        if name is None:
            return entries
        if name not in entries:
            raise HubError(f"'{name}' was not installed from the hub (no entry in skills/.hub/lock.json).")
        return {name: entries[name]}

    def folder_of(self, name: str, entry: dict[str, Any]) -> Path:
        """The installed folder a lock entry names, refused when it could point outside skills/."""
        rel = str(entry.get("install_path") or "")
        parts = [p for p in rel.split("/") if p]
        if not parts or parts[-1] != name or any(p in ("..", ".") for p in parts) or rel.startswith("/"):
            raise HubError(f"The lock entry of '{name}' names the folder {rel!r}, which is not its own.")
        folder = self.home.skills.joinpath(*parts)
        for depth in range(1, len(parts) + 1):
            if self.home.skills.joinpath(*parts[:depth]).is_symlink():
                raise HubError(f"The folder of '{name}' ({rel}) passes through a symlink; not touched.")
        return folder

    def _latest(self, name: str, entry: dict[str, Any]) -> tuple[CheckResult, Iterator[Fetched] | None]:
        identifier = str(entry.get("identifier", ""))
        result = CheckResult(name, str(entry.get("source", "")), identifier, UNAVAILABLE)
        result.installed_hash = str(entry.get("content_hash", ""))
        folder = self.folder_of(name, entry)
        result.edited_locally = folder.is_dir() and content_hash(folder) != result.installed_hash
        try:
            source = source_of_entry(entry, self.settings)
        except SourceError as exc:
            result.detail = str(exc)
            return result, None
        skill = HubSkill(name, "", result.source, identifier, str(entry.get("trust_level", "community")))
        return result, self._fetch_from(source, skill)

    @contextmanager
    def _fetch_from(self, source: Source, skill: HubSkill) -> Iterator[Fetched]:
        work = self.hub / "quarantine" / f"fetch-{secrets.token_hex(4)}"
        work.mkdir(parents=True)
        try:
            yield source.fetch(skill.identifier, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def check(self, name: str | None = None) -> list[CheckResult]:
        """Each installed hub skill against its source: up to date, behind, or unavailable."""
        results = []
        for skill_name, entry in sorted(self.installed(name).items()):
            result, fetching = self._latest(skill_name, entry)
            if fetching is not None:
                try:
                    with fetching as got:
                        _compare(result, got)
                except SourceError as exc:
                    result.detail = str(exc)
            results.append(result)
        return results

    def update(self, name: str | None = None, force: bool = False) -> list[UpdateResult]:
        """Bring hub skills up to their source, showing the diff and guarding again; a skill edited
        since install is left alone without `force` (with it, the history keeps the edited version)."""
        return [self._update_one(n, e, force) for n, e in sorted(self.installed(name).items())]

    def _update_one(self, name: str, entry: dict[str, Any], force: bool) -> UpdateResult:
        result, fetching = self._latest(name, entry)
        if fetching is None:
            return UpdateResult(name, UNAVAILABLE, f"'{name}' cannot be updated: {result.detail}")
        try:
            with fetching as got:
                _compare(result, got)
                if result.status == UP_TO_DATE:
                    return UpdateResult(name, UP_TO_DATE, f"'{name}' is up to date.")
                folder = self.folder_of(name, entry)
                diff = folder_diff(folder, got.folder)
                if result.edited_locally and not force:
                    return UpdateResult(name, "edited", _edited_message(name), diff)
                self._keep_local_edits(name, folder)
                origin = Origin(result.source, result.identifier, _metadata(got, got.skill))
                trust = str(entry.get("trust_level") or got.skill.trust)
                outcome = self.installer.install(got.folder, "", trust, force, origin=origin, replace=True)
        except SourceError as exc:
            return UpdateResult(name, UNAVAILABLE, f"'{name}' cannot be updated: {exc}")
        status = "updated" if outcome.installed else "refused"
        return UpdateResult(name, status, outcome.message, diff, outcome)

    def _keep_local_edits(self, name: str, folder: Path) -> None:
        """Record hand edits in the skill's history before the update replaces them."""
        files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
        with SkillManager(self.library, "user", self.installer.history).lock():
            self.installer.history.sync_external(name, files)

    def uninstall(self, name: str) -> str:
        """Remove a hub skill (archived, each file recorded in its history) and its lock entry."""
        entry = self.lock.get(name)
        if entry is None:
            raise HubError(
                f"'{name}' was not installed from the hub or a folder (no lock entry); not removed."
            )
        folder = self.folder_of(name, entry)
        if folder.is_dir():
            self._keep_local_edits(name, folder)
            with SkillManager(self.library, "user", self.installer.history).lock():
                self.installer.retire(folder, name, new_change_id())
        self.lock.remove(name)
        audit(
            self.hub,
            "UNINSTALL",
            name,
            str(entry.get("source")),
            str(entry.get("trust_level")),
            "n/a",
            "user_request",
        )
        return f"Uninstalled '{name}' from skills/{entry.get('install_path')} (kept in skills/.archive/)."


def _compare(result: CheckResult, got: Fetched) -> None:
    result.latest_hash = content_hash(got.folder)
    result.commit = str(got.metadata.get("commit", ""))
    result.status = UP_TO_DATE if result.latest_hash == result.installed_hash else BEHIND


def _metadata(got: Fetched, skill: HubSkill) -> dict[str, str]:
    meta = {k: str(v) for k, v in got.metadata.items() if isinstance(v, str | int)}
    if skill.tap:
        meta["tap"] = skill.tap
    return meta


def _edited_message(name: str) -> str:
    return (
        f"'{name}' was edited here since it was installed; it is left as it is. "
        f"`hws skills update {name} --force` replaces it (the edited version stays in "
        f"`hws skills history {name}`)."
    )

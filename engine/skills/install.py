"""`hws skills install PATH`: copy a skill folder into quarantine, scan it, install it if policy allows.

Installed skills are recorded in Hermes' lock file (`skills/.hub/lock.json`) with their source, trust
level, verdict and content hash, and every step is appended to `skills/.hub/audit.log`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.skills import frontmatter as fm
from engine.skills.discovery import SKILL_FILE, read_head
from engine.skills.guard import (
    ALLOW,
    HIGH,
    Decision,
    GuardFinding,
    GuardLimits,
    GuardReport,
    scan_folder,
    special_kind,
)
from engine.skills.history import SkillHistory, new_change_id, read_for_journal
from engine.skills.hub.records import HubLock, audit
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager
from engine.text.printable import printable
from engine.threats.redact import home_redactor

HUB_DIR = ".hub"
COPY_SKIP = shutil.ignore_patterns(".git", "node_modules", "__pycache__", ".venv", "venv", ".DS_Store")


def special_entries(source: Path) -> list[tuple[str, str]]:
    """(relative path, kind) of every FIFO, device or socket in a folder: never opened, never copied."""
    found = []
    for current, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules", "__pycache__", ".venv", "venv")]
        for name in files:
            path = Path(current) / name
            try:
                kind = special_kind(os.lstat(path).st_mode)
            except OSError:
                continue
            if kind:
                found.append((path.relative_to(source).as_posix(), kind))
    return found


def _copy_skip(folder: str, names: list[str]) -> set[str]:
    """COPY_SKIP, and every FIFO, device or socket (copying a FIFO blocks, a device never ends)."""
    ignored = set(COPY_SKIP(folder, names))
    for name in names:
        try:
            if special_kind(os.lstat(os.path.join(folder, name)).st_mode):
                ignored.add(name)
        except OSError:
            ignored.add(name)
    return ignored


class InstallError(Exception):
    """The folder cannot be installed at all (not a skill, too big, bad name); the message says why."""


@dataclass(frozen=True)
class Origin:
    """Where an installed skill came from, as its lock entry records it (Hermes' source ids)."""

    source: str  # local | github | git | well-known | url
    identifier: str
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class InstallOutcome:
    report: GuardReport
    decision: Decision
    installed: bool
    message: str
    path: Path | None = None


def _measure(source: Path, max_files: int, max_bytes: int) -> None:
    count = size = 0
    for current, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules", "__pycache__", ".venv", "venv")]
        for name in files:
            count += 1
            try:
                size += os.lstat(os.path.join(current, name)).st_size
            except OSError:
                continue
            if count > max_files or size > max_bytes:
                raise InstallError(
                    f"{source} holds more than {max_files:,} files or {max_bytes // 2**20:,} MiB; "
                    "that is not a skill folder (check the path)."
                )


def skill_name_of(source: Path) -> str:
    """The name a folder installs under: its frontmatter name if valid, else the folder name."""
    try:
        text, _ = read_head(source / SKILL_FILE)
        meta = fm.parse_lenient(text).meta
    except (OSError, fm.FrontmatterError) as exc:
        raise InstallError(f"{source / SKILL_FILE} cannot be read as a skill: {exc}") from exc
    declared = meta.get("name")
    if isinstance(declared, str) and fm.name_error(declared) is None:
        return declared
    if fm.name_error(source.name) is None:
        return source.name
    raise InstallError(
        f"Neither the frontmatter name nor the folder name of {source} is a valid skill name. {fm.NAME_RULE}"
    )


class Installer:
    """Installs skill folders into one home."""

    def __init__(self, library: SkillLibrary, who: str = "user") -> None:
        self.library = library
        self.home = library.home
        self.settings = library.settings
        self.hub = self.home.skills / HUB_DIR
        self.history = SkillHistory(self.home)
        self.who = who

    def scan(self, source: Path, trust: str = "community") -> GuardReport:
        """The guard's report on a folder as it stands, installed or not."""
        source = Path(source)
        if not source.is_dir():
            raise InstallError(f"{source} is not a folder.")
        limits = GuardLimits.from_config(self.settings)
        return scan_folder(source, source.name, "local", trust, limits)

    def install(
        self,
        source: Path,
        category: str = "",
        trust: str = "community",
        force: bool = False,
        review: Callable[[GuardReport, Path], str | None] | None = None,
        *,
        origin: Origin | None = None,
        replace: bool | None = None,
    ) -> InstallOutcome:
        """Copy into quarantine, scan, and place the skill if the policy (and `review`, when given, for
        a report with uncertain findings) allows it.

        `origin` is what the lock entry records (a local folder when not given); `replace` lets an
        existing skill of that name be replaced (by default only with `force`)."""
        source = Path(source).expanduser()
        if not source.is_dir():
            raise InstallError(f"{source} is not a folder; give the path of a skill folder holding SKILL.md.")
        if not (source / SKILL_FILE).is_file():
            raise InstallError(f"{source} has no {SKILL_FILE}; it is not a skill folder.")
        if category:
            problem = fm.name_error(category, "category")
            if problem:
                raise InstallError(problem)
        _measure(source, int(self.settings.install_max_files), int(self.settings.install_max_mb) * 2**20)
        name = skill_name_of(source)
        origin = origin or Origin("local", str(source.resolve()))
        quarantine = self.hub / "quarantine" / f"{name}-{secrets.token_hex(4)}"
        quarantine.parent.mkdir(parents=True, exist_ok=True)
        specials = special_entries(source)
        shutil.copytree(source, quarantine, symlinks=True, ignore=_copy_skip)
        try:
            self._refuse_secrets(quarantine, name)
            limits = GuardLimits.from_config(self.settings)
            report = scan_folder(quarantine, name, origin.source, trust, limits)
            report.findings += [
                GuardFinding(
                    "special_file", "structure", HIGH, printable(rel), kind, f"{kind}; it was not copied"
                )
                for rel, kind in specials
            ]
            decision = report.decision(force)
            if decision.action == ALLOW and review is not None and report.uncertain:
                report.refused_by_review = review(report, quarantine) or ""
                decision = report.decision(force)
            if decision.action != ALLOW:
                audit(self.hub, "BLOCKED", name, origin.source, trust, report.verdict, _blocked_extra(report))
                return InstallOutcome(
                    report, decision, False, f"Skill '{name}' was not installed: {decision.reason}"
                )
            replacing = force if replace is None else replace
            taken = (  # what frees the name: --force where it replaces, else the skill's own commands
                "use --force to replace it (the old one is archived and stays in the history)."
                if replace is None
                else f"installing from a source never replaces it: `hws skills update {name}` brings a hub "
                f"skill up to date, `hws skills uninstall {name}` removes one."
            )
            return self._place(quarantine, origin, name, category, report, decision, replacing, taken)
        finally:
            shutil.rmtree(quarantine, ignore_errors=True)

    def _refuse_secrets(self, folder: Path, name: str) -> None:
        """A skill holding a known secret or a key's shape is never installed, not even with force."""
        redactor = home_redactor(self.home.root)
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            secret = redactor.find(path.read_bytes().decode("utf-8", errors="ignore"))
            if secret is not None:
                shown = path.relative_to(folder).as_posix().encode("unicode_escape").decode("ascii")
                raise InstallError(
                    f"Skill '{name}' was not installed: {shown} contains {secret}; secrets are never "
                    "stored in skills. Take it out of the file (refer to the variable that holds it) and "
                    "install again."
                )

    def _place(
        self,
        quarantine: Path,
        origin: Origin,
        name: str,
        category: str,
        report: GuardReport,
        decision: Decision,
        replacing: bool,
        taken: str,
    ) -> InstallOutcome:
        """Move the checked skill in; `taken` says what to do when its name is taken and not replaced."""
        manager = SkillManager(self.library, self.who, self.history)
        with manager.lock():
            existing = self.library.catalog().get(name)
            tag = new_change_id()  # replacing and installing form one change in the history
            target = self.home.skills / category / name if category else self.home.skills / name
            replaced = None
            if existing is not None and not existing.read_only:
                if not replacing:
                    message = f"A skill named '{name}' already exists at {existing.skill_dir}; {taken}"
                    return InstallOutcome(report, Decision("block", message), False, message)
                replaced = self.retire(existing.skill_dir, name, tag)
                target = existing.skill_dir if not category else target
            elif target.exists():
                message = f"{target} already exists and is not a skill; move it aside first."
                return InstallOutcome(report, Decision("block", message), False, message)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(quarantine, target)
            files = sorted(p for p in target.rglob("*") if p.is_file() and not p.is_symlink())
            for path in files:
                after = read_for_journal(path)
                before = replaced.get(self.history.rel(path)) if replaced else None
                if after != before:
                    summary = f"installed from {origin.identifier} (change {tag})"
                    self.history.record(name, path, "install", self.who, before, after, summary)
            self._lock_entry(name, origin, target, report, files)
        action = "UPDATE" if replaced is not None else "INSTALL"
        audit(self.hub, action, name, origin.source, report.trust, report.verdict, report.content_hash)
        shown = target.relative_to(self.home.root)
        return InstallOutcome(report, decision, True, f"Skill '{name}' installed at {shown}.", target)

    def retire(self, folder: Path, name: str, tag: str) -> dict[str, str | None]:
        """Archive a skill about to be replaced, journaling each of its files as deleted."""
        old = {
            self.history.rel(p): read_for_journal(p)
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink()
        }
        for rel, text in old.items():
            summary = f"replaced by install (change {tag})"
            self.history.record(name, self.home.root / rel, "delete", self.who, text, None, summary)
        archive = self.home.skills / ".archive" / f"{name}.{time.strftime('%Y%m%dT%H%M%S')}"
        if archive.exists():  # a second retirement within the same second
            archive = archive.with_name(f"{archive.name}.{secrets.token_hex(2)}")
        archive.parent.mkdir(parents=True, exist_ok=True)
        os.replace(folder, archive)
        return old

    def _lock_entry(
        self, name: str, origin: Origin, target: Path, report: GuardReport, files: list[Path]
    ) -> None:
        HubLock(self.hub).record(
            name,
            {
                "source": origin.source,
                "identifier": origin.identifier,
                "trust_level": report.trust,
                "scan_verdict": report.verdict,
                "content_hash": report.content_hash,
                "install_path": target.relative_to(self.home.skills).as_posix(),
                "files": [p.relative_to(target).as_posix() for p in files],
                "metadata": dict(origin.metadata),
            },
        )


def _blocked_extra(report: GuardReport) -> str:
    return (report.refused_by_review and "refused_by_review") or f"{len(report.findings)}_findings"

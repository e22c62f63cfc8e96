"""skill_manage: the agent writes its own skills — create, patch, edit, delete, write_file, remove_file.

Every write is atomic and made under one lock for all skills; every change is journaled (who, when,
before, after). Agent writes are scanned by the guard after they land; a change that makes the skill
invalid, or that adds a critical finding, is rolled back completely and nothing is journaled.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.skills import frontmatter as fm
from engine.skills.discovery import SKILL_FILE, SUPPORT_DIRS, Catalog, Skill
from engine.skills.guard import CRITICAL, GuardLimits, GuardReport, scan_folder
from engine.skills.history import SkillHistory, binary_placeholder, new_change_id, read_for_journal
from engine.skills.library import SkillLibrary
from engine.skills.paths import PathRefused, relative_path_error, resolve_inside
from engine.skills.view import error, find_skill, linked_files
from engine.storage.atomic import (
    Changed,
    WriteError,
    atomic_write_bytes,
    atomic_write_text,
    compare_and_replace,
    file_lock,
)
from engine.storage.journal import OUTSIDE_AGENT
from engine.threats.redact import home_redactor

ACTIONS = ("create", "patch", "edit", "delete", "write_file", "remove_file")
SECRET_CHECKED_FIELDS = ("content", "new_string", "file_content")  # the text a write would store
GUARDED_WRITERS = frozenset({"agent", "review"})  # and every other agent's, `mcp:CLIENT`
PREVIEW_CHARS = 500
ARCHIVE_DIR = ".archive"


@dataclass
class _Change:
    """The files one action touched, with what they held before, so the action can be undone whole."""

    skill_dir: Path
    skills_root: Path
    before: dict[Path, bytes | None] = field(default_factory=dict)
    created_dir: Path | None = None
    new_dirs: list[Path] = field(default_factory=list)  # folders a write had to create, undone on rollback

    def _remember(self, path: Path) -> None:
        if path not in self.before:
            try:
                self.before[path] = path.read_bytes()
            except FileNotFoundError:
                self.before[path] = None

    def write(self, path: Path, text: str, read: bytes | None = None) -> None:
        """Write `path`; refused (Changed) if it no longer holds what was `read` (or what it held just now).

        The check is against writers that take no lock, such as the user's editor: their edit is never
        silently overwritten.
        """
        self._remember(path)
        missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
        path.parent.mkdir(parents=True, exist_ok=True)
        self.new_dirs += [p for p in missing if p not in self.new_dirs]
        expected = read if read is not None else self.before[path]
        if expected is None:
            atomic_write_text(path, text, 0o644)
        else:
            compare_and_replace(path, text.encode("utf-8"), expected, mode=0o644)

    def remove(self, path: Path) -> None:
        self._remember(path)
        path.unlink()

    def rollback(self) -> None:
        if self.created_dir is not None:
            shutil.rmtree(self.created_dir, ignore_errors=True)
            _prune_empty_parents(self.created_dir.parent, [self.skills_root])
            return
        for path, data in self.before.items():
            with contextlib.suppress(OSError, WriteError):
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write_bytes(path, data)
        for folder in sorted(self.new_dirs, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty again


def _prune_empty_parents(folder: Path, stop_at: Any) -> None:
    """Remove empty category folders left behind (never a skills root)."""
    roots = {Path(os.path.abspath(p)) for p in stop_at}
    while folder.name and Path(os.path.abspath(folder)) not in roots:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def _whitespace_pattern(old: str) -> re.Pattern[str] | None:
    """`old` with every run of whitespace made flexible: the fallback when an exact match fails."""
    words = old.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in words))


class SkillManager:
    """Runs skill_manage actions for one writer (`agent`, `review`, `user`)."""

    def __init__(
        self, library: SkillLibrary, who: str = "agent", history: SkillHistory | None = None
    ) -> None:
        self.library = library
        self.home = library.home
        self.settings = library.settings
        self.who = who
        self.history = history or SkillHistory(self.home)

    # -- plumbing ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """One lock for every skill write, so creates cannot race on a name and restores see a still tree."""
        self.home.journal_dir.mkdir(parents=True, exist_ok=True)
        with file_lock(self.home.journal_dir / "skills"):
            yield

    def _guard_on(self) -> bool:
        guarded = self.who in GUARDED_WRITERS or self.who.startswith(OUTSIDE_AGENT)
        return bool(self.settings.guard_agent_created) and guarded

    def _scan(self, skill_dir: Path, name: str) -> GuardReport:
        return scan_folder(skill_dir, name, "agent", "agent-created", GuardLimits.from_config(self.settings))

    def _new_criticals(self, before: GuardReport | None, after: GuardReport) -> list[Any]:
        """Critical findings this change added; those already there are the owner's business."""
        seen = {(f.rule, f.file, f.match) for f in before.findings} if before else set()
        return [f for f in after.findings if f.severity == CRITICAL and (f.rule, f.file, f.match) not in seen]

    def existing(self, catalog: Catalog, name: object) -> tuple[Skill | None, dict[str, Any] | None]:
        skill, problem = find_skill(catalog, name)
        if problem:
            return None, problem
        assert skill is not None
        if skill.read_only:
            return None, error(
                f"Skill '{skill.name}' lives in an external folder ({skill.skill_dir}) and is read-only "
                "here; create a local skill instead."
            )
        if skill.skill_dir.is_symlink():
            return None, error(
                f"Skill '{skill.name}' is a symlink ({skill.skill_dir}); it is not changed here."
            )
        return skill, None

    def _finish(
        self,
        change: _Change,
        name: str,
        action: str,
        message: str,
        before_report: GuardReport | None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Guard, then journal, then report; a blocked or invalid result is rolled back entirely."""
        result: dict[str, Any] = {"success": True, "message": message, "name": name, "action": action}
        if self._guard_on() and change.skill_dir.exists():
            report = self._scan(change.skill_dir, name)
            blocked = self._new_criticals(before_report, report)
            if blocked:
                change.rollback()
                shown = "; ".join(f"{f.file}:{f.line} {f.rule} ({f.description})" for f in blocked[:5])
                return error(
                    f"The skills guard blocked this change to '{name}' (dangerous: {shown}). "
                    "Nothing was changed; rewrite it without that content.",
                    findings=[f.__dict__ for f in blocked],
                )
            if report.verdict != "safe":
                result["guard"] = {
                    "verdict": report.verdict,
                    "findings": [
                        f"{f.severity} {f.file}:{f.line} {f.rule}" for f in report.sorted_findings()[:5]
                    ],
                }
        version = ""
        summary = f"{message} (change {new_change_id()})" if len(change.before) > 1 else message
        for path, old in change.before.items():
            new = read_for_journal(path)
            old_text = None if old is None else _decode(old)
            if old_text != new:
                entry = self.history.record(name, path, action, self.who, old_text, new, summary)
                version = entry.id
        result["version"] = version
        counted = {"create": "create", "patch": "patch", "edit": "patch"}.get(action)
        if counted and version:
            self.library.usage.bump(name, counted, self.who)
        if extra:
            result.update(extra)
        return result

    # -- actions -----------------------------------------------------------------------------------

    def run(
        self, args: dict[str, Any], precondition: Callable[[], dict[str, Any] | None] | None = None
    ) -> dict[str, Any]:
        """Dispatch one skill_manage call (the tool's argument dict) and return the tool's result dict.

        `precondition` runs under the skills lock before the action; a dict it returns is the result
        and nothing is written (the editor checks there that the file is still as it loaded it).
        """
        action = args.get("action")
        if action not in ACTIONS:
            return error(f"Unknown action {action!r}; use one of: {', '.join(ACTIONS)}.")
        if not args.get("name"):
            return error("name is required.")
        refused = self.secret_refusal(args)
        if refused is not None:
            return refused
        try:
            with self.lock():
                refused = precondition() if precondition is not None else None
                if refused is not None:
                    return refused
                handler = getattr(self, f"_{action}")
                return handler(args)
        except Changed as exc:
            return error(
                f"Could not {action} skill '{args.get('name')}': {exc} Nothing was changed; read it again "
                "and retry."
            )
        except (WriteError, OSError) as exc:
            return error(f"Could not {action} skill '{args.get('name')}': {exc}")

    def secret_refusal(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """A write whose text holds a known secret or a key's shape is refused, the secret never echoed."""
        redactor = home_redactor(self.home.root)
        for field_name in SECRET_CHECKED_FIELDS:
            text = args.get(field_name)
            secret = redactor.find(text) if isinstance(text, str) else None
            if secret is not None:
                return error(
                    f"The skill's {field_name} contains {secret}; secrets are never stored in skills. "
                    "Nothing was written: refer to the variable that holds it (`$NAME`) instead."
                )
        return None

    def content_problem(self, content: object, name: str) -> str | None:
        problem = fm.content_error(content)
        if problem:
            return problem
        assert isinstance(content, str)
        limit = int(self.settings.max_skill_chars)
        if len(content) > limit:
            return (
                f"SKILL.md content is {len(content):,} characters; the limit is {limit:,}. "
                "Move long reference material into references/ files."
            )
        declared = fm.frontmatter_name(content)
        if declared != name:
            return f"Frontmatter name '{declared}' must match the skill name '{name}'."
        return None

    def _create(self, args: dict[str, Any]) -> dict[str, Any]:
        name, content, category = args.get("name"), args.get("content"), args.get("category") or ""
        problem = fm.name_error(name)
        if problem:
            return error(problem)
        assert isinstance(name, str)
        if category:
            problem = fm.name_error(category, "category")
            if problem:
                return error(problem)
        problem = self.content_problem(content, name)
        if problem:
            return error(problem)
        catalog = self.library.catalog()
        clash = catalog.get(name)
        if clash is not None:
            return error(f"A skill named '{name}' already exists at {clash.skill_dir}.")
        skill_dir = self.home.skills / category / name if category else self.home.skills / name
        if skill_dir.exists():
            return error(f"A skill named '{name}' already exists at {skill_dir}.")
        change = _Change(skill_dir, self.home.skills, created_dir=skill_dir)
        skill_dir.mkdir(parents=True)
        try:
            change.write(skill_dir / SKILL_FILE, fm.normalise_text(str(content)))
        except BaseException:
            change.rollback()
            raise
        result = self._finish(
            change,
            name,
            "create",
            f"Skill '{name}' created.",
            None,
            {
                "path": str(skill_dir),
                "skill_md": str(skill_dir / SKILL_FILE),
                "hint": "Add detail with skill_manage(action='write_file', file_path='references/…').",
            },
        )
        return result

    def _edit(self, args: dict[str, Any]) -> dict[str, Any]:
        skill, problem = self.existing(self.library.catalog(), args.get("name"))
        if problem:
            return problem
        assert skill is not None
        content = args.get("content")
        bad = self.content_problem(content, skill.name)
        if bad:
            return error(bad)
        before = self._scan(skill.skill_dir, skill.name) if self._guard_on() else None
        self.history.sync_external(skill.name, [skill.skill_md])
        change = _Change(skill.skill_dir, self.home.skills)
        change.write(skill.skill_md, fm.normalise_text(str(content)))
        return self._finish(change, skill.name, "edit", f"Skill '{skill.name}' updated.", before)

    def support_path(self, skill: Skill, file_path: object) -> tuple[Path | None, str, dict[str, Any] | None]:
        problem = relative_path_error(file_path)
        if problem:
            return None, "", error(problem)
        assert isinstance(file_path, str)
        rel = file_path.strip().removeprefix("./")
        parts = Path(rel).parts
        if len(parts) < 2 or parts[0] not in SUPPORT_DIRS:
            allowed = ", ".join(f"{d}/" for d in SUPPORT_DIRS)
            return (
                None,
                rel,
                error(f"File path must be inside one of {allowed} and name a file (got '{rel}')."),
            )
        try:
            return resolve_inside(skill.skill_dir, rel), rel, None
        except PathRefused as exc:
            return None, rel, error(str(exc))

    def _patch(self, args: dict[str, Any]) -> dict[str, Any]:
        skill, problem = self.existing(self.library.catalog(), args.get("name"))
        if problem:
            return problem
        assert skill is not None
        old, new = args.get("old_string"), args.get("new_string")
        if not isinstance(old, str) or not old:
            return error("old_string is required: the exact text to replace.")
        if not isinstance(new, str):
            return error("new_string is required (use an empty string to delete the text).")
        file_path = args.get("file_path") or SKILL_FILE
        if file_path == SKILL_FILE:
            target, rel = skill.skill_md, SKILL_FILE
        else:
            target, rel, problem = self.support_path(skill, file_path)
            if problem:
                return problem
            assert target is not None
        if not target.is_file():
            return error(f"'{rel}' does not exist in skill '{skill.name}'.")
        raw = target.read_bytes()
        try:
            text = fm.normalise_text(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return error(f"'{rel}' is not UTF-8 text; it cannot be patched.")
        replaced, count = self.replace_text(text, old, new, bool(args.get("replace_all")))
        if replaced is None:
            preview = text[:PREVIEW_CHARS]
            if count == 0:
                return error(f"old_string was not found in {rel}.", file_preview=preview)
            return error(
                f"old_string matches {count} places in {rel}; include more surrounding text to make it "
                "unique, or set replace_all=true.",
                file_preview=preview,
            )
        if rel == SKILL_FILE:
            bad = self.content_problem(replaced, skill.name)
            if bad:
                return error(f"The patch would leave SKILL.md invalid: {bad} Nothing was changed.")
        elif len(replaced.encode("utf-8")) > int(self.settings.max_support_file_bytes):
            return error(f"The patch would make {rel} larger than the limit; nothing was changed.")
        before = self._scan(skill.skill_dir, skill.name) if self._guard_on() else None
        self.history.sync_external(skill.name, [target])
        change = _Change(skill.skill_dir, self.home.skills)
        change.write(target, replaced, read=raw)
        plural = "" if count == 1 else "s"
        message = f"Patched {rel} in skill '{skill.name}' ({count} replacement{plural})."
        return self._finish(change, skill.name, "patch", message, before, {"replacements": count})

    @staticmethod
    def replace_text(text: str, old: str, new: str, replace_all: bool) -> tuple[str | None, int]:
        count = text.count(old)
        if count == 1 or (count > 1 and replace_all):
            return text.replace(old, new), count
        if count > 1:
            return None, count
        pattern = _whitespace_pattern(old)  # fall back to a match that ignores whitespace differences
        if pattern is None:
            return None, 0
        matches = list(pattern.finditer(text))
        if len(matches) == 1 or (matches and replace_all):
            return pattern.sub(lambda _m: new, text), len(matches)
        return None, len(matches)

    def _write_file(self, args: dict[str, Any]) -> dict[str, Any]:
        skill, problem = self.existing(self.library.catalog(), args.get("name"))
        if problem:
            return problem
        assert skill is not None
        target, rel, problem = self.support_path(skill, args.get("file_path"))
        if problem:
            return problem
        assert target is not None
        content = args.get("file_content")
        if not isinstance(content, str):
            return error("file_content is required: the full text of the file.")
        size = len(content.encode("utf-8"))
        limit = int(self.settings.max_support_file_bytes)
        if size > limit:
            return error(f"file_content is {size:,} bytes; the limit for a support file is {limit:,} bytes.")
        if target.is_dir():
            return error(f"'{rel}' is a folder; name a file inside it.")
        before = self._scan(skill.skill_dir, skill.name) if self._guard_on() else None
        self.history.sync_external(skill.name, [target])
        change = _Change(skill.skill_dir, self.home.skills)
        change.write(target, content)
        return self._finish(
            change, skill.name, "write_file", f"File '{rel}' written to skill '{skill.name}'.", before
        )

    def _remove_file(self, args: dict[str, Any]) -> dict[str, Any]:
        skill, problem = self.existing(self.library.catalog(), args.get("name"))
        if problem:
            return problem
        assert skill is not None
        target, rel, problem = self.support_path(skill, args.get("file_path"))
        if problem:
            return problem
        assert target is not None
        if not target.is_file():
            available = [f for group in linked_files(skill.skill_dir).values() for f in group]
            return error(f"File '{rel}' not found in skill '{skill.name}'.", available_files=available[:50])
        self.history.sync_external(skill.name, [target])
        change = _Change(skill.skill_dir, self.home.skills)
        change.remove(target)
        _prune_empty_parents(target.parent, [skill.skill_dir])
        return self._finish(
            change, skill.name, "remove_file", f"File '{rel}' removed from skill '{skill.name}'.", None
        )

    def _delete(self, args: dict[str, Any]) -> dict[str, Any]:
        catalog = self.library.catalog()
        skill, problem = self.existing(catalog, args.get("name"))
        if problem:
            return problem
        assert skill is not None
        absorbed = args.get("absorbed_into")
        if absorbed:
            other = catalog.get(str(absorbed))
            if other is None:
                return error(f"absorbed_into '{absorbed}' is not an existing skill.")
            if other.name == skill.name:
                return error("absorbed_into cannot be the skill being deleted.")
        if self.library.usage.is_pinned(skill.name):
            return error(f"Skill '{skill.name}' is pinned; unpin it before deleting it.")
        skills_root = Path(os.path.abspath(self.home.skills))
        folder = Path(os.path.abspath(skill.skill_dir))
        if folder == skills_root or not folder.is_relative_to(skills_root):
            return error(
                f"Refusing to delete {skill.skill_dir}: it is not a skill folder inside {skills_root}."
            )
        files = sorted(p for p in skill.skill_dir.rglob("*") if p.is_file() and not p.is_symlink())
        self.history.sync_external(skill.name, files)
        contents = {p: read_for_journal(p) for p in files}
        archive = self.home.skills / ARCHIVE_DIR / f"{skill.name}.{time.strftime('%Y%m%dT%H%M%S')}"
        archive.parent.mkdir(parents=True, exist_ok=True)
        os.replace(skill.skill_dir, archive)  # kept, not destroyed: binaries cannot live in the journal
        _prune_empty_parents(skill.skill_dir.parent, [self.home.skills])
        message = f"Skill '{skill.name}' deleted." + (f" Absorbed into '{absorbed}'." if absorbed else "")
        version = ""
        summary = f"{message} (change {new_change_id()})" if len(contents) > 1 else message
        for path, text in contents.items():
            version = self.history.record(skill.name, path, "delete", self.who, text, None, summary).id
        self.library.usage.bump(skill.name, "delete", self.who)
        return {
            "success": True,
            "message": message,
            "name": skill.name,
            "action": "delete",
            "version": version,
            "archived_to": str(archive),
        }


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return binary_placeholder(data)

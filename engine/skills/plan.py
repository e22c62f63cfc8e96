"""What a skill_manage call would change, worked out without writing: for staging a write for approval.

`plan_change` runs the manager's own checks (name, frontmatter, size, the secret scan, the file path,
a patch's match) and returns each file the call would touch with its bytes now and its text after
(None: absent). A call that would fail is the same error the manager gives, so the model hears at
once; the guard's scan runs when the person approves and the write is made (engine/write_approval.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.skills import frontmatter as fm
from engine.skills.discovery import SKILL_FILE
from engine.skills.manage import ACTIONS, SkillManager
from engine.skills.view import error, linked_files


@dataclass(frozen=True)
class SkillPlan:
    """The files one call would change: path -> (bytes now or None, text after or None)."""

    name: str
    action: str
    files: dict[Path, tuple[bytes | None, str | None]] = field(default_factory=dict)
    gist: str = ""


def plan_change(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    """The plan of one skill_manage call, or the error dict the call itself would return."""
    action = args.get("action")
    if action not in ACTIONS:
        return error(f"Unknown action {action!r}; use one of: {', '.join(ACTIONS)}.")
    if not args.get("name"):
        return error("name is required.")
    refused = manager.secret_refusal(args)
    if refused is not None:
        return refused
    try:
        planned = _PLANNERS[str(action)](manager, args)
    except OSError as exc:
        return error(f"Could not {action} skill '{args.get('name')}': {exc}")
    if isinstance(planned, dict):
        return planned
    return SkillPlan(planned.name, planned.action, planned.files, gist(planned))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _create(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    name, content, category = args.get("name"), args.get("content"), args.get("category") or ""
    problem = fm.name_error(name)
    if problem:
        return error(problem)
    assert isinstance(name, str)
    if category:
        problem = fm.name_error(category, "category")
        if problem:
            return error(problem)
    problem = manager.content_problem(content, name)
    if problem:
        return error(problem)
    clash = manager.library.catalog().get(name)
    if clash is not None:
        return error(f"A skill named '{name}' already exists at {clash.skill_dir}.")
    skills = manager.home.skills
    skill_dir = skills / str(category) / name if category else skills / name
    if skill_dir.exists():
        return error(f"A skill named '{name}' already exists at {skill_dir}.")
    return SkillPlan(name, "create", {skill_dir / SKILL_FILE: (None, fm.normalise_text(str(content)))})


def _edit(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    skill, problem = manager.existing(manager.library.catalog(), args.get("name"))
    if problem:
        return problem
    assert skill is not None
    content = args.get("content")
    bad = manager.content_problem(content, skill.name)
    if bad:
        return error(bad)
    return SkillPlan(
        skill.name, "edit", {skill.skill_md: (_read(skill.skill_md), fm.normalise_text(str(content)))}
    )


def _patch(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    skill, problem = manager.existing(manager.library.catalog(), args.get("name"))
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
        found, rel, problem = manager.support_path(skill, file_path)
        if problem:
            return problem
        assert found is not None
        target = found
    if not target.is_file():
        return error(f"'{rel}' does not exist in skill '{skill.name}'.")
    raw = target.read_bytes()
    try:
        text = fm.normalise_text(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return error(f"'{rel}' is not UTF-8 text; it cannot be patched.")
    replaced, count = manager.replace_text(text, old, new, bool(args.get("replace_all")))
    if replaced is None:
        if count == 0:
            return error(f"old_string was not found in {rel}.", file_preview=text[:500])
        return error(
            f"old_string matches {count} places in {rel}; include more surrounding text to make it "
            "unique, or set replace_all=true.",
            file_preview=text[:500],
        )
    if rel == SKILL_FILE:
        bad = manager.content_problem(replaced, skill.name)
        if bad:
            return error(f"The patch would leave SKILL.md invalid: {bad} Nothing was changed.")
    elif len(replaced.encode("utf-8")) > int(manager.settings.max_support_file_bytes):
        return error(f"The patch would make {rel} larger than the limit; nothing was changed.")
    return SkillPlan(skill.name, "patch", {target: (raw, replaced)})


def _write_file(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    skill, problem = manager.existing(manager.library.catalog(), args.get("name"))
    if problem:
        return problem
    assert skill is not None
    target, rel, problem = manager.support_path(skill, args.get("file_path"))
    if problem:
        return problem
    assert target is not None
    content = args.get("file_content")
    if not isinstance(content, str):
        return error("file_content is required: the full text of the file.")
    size = len(content.encode("utf-8"))
    limit = int(manager.settings.max_support_file_bytes)
    if size > limit:
        return error(f"file_content is {size:,} bytes; the limit for a support file is {limit:,} bytes.")
    if target.is_dir():
        return error(f"'{rel}' is a folder; name a file inside it.")
    return SkillPlan(skill.name, "write_file", {target: (_read(target), content)})


def _remove_file(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    skill, problem = manager.existing(manager.library.catalog(), args.get("name"))
    if problem:
        return problem
    assert skill is not None
    target, rel, problem = manager.support_path(skill, args.get("file_path"))
    if problem:
        return problem
    assert target is not None
    if not target.is_file():
        available = [f for group in linked_files(skill.skill_dir).values() for f in group]
        return error(f"File '{rel}' not found in skill '{skill.name}'.", available_files=available[:50])
    return SkillPlan(skill.name, "remove_file", {target: (target.read_bytes(), None)})


def _delete(manager: SkillManager, args: dict[str, Any]) -> SkillPlan | dict[str, Any]:
    catalog = manager.library.catalog()
    skill, problem = manager.existing(catalog, args.get("name"))
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
    if manager.library.usage.is_pinned(skill.name):
        return error(f"Skill '{skill.name}' is pinned; unpin it before deleting it.")
    skills_root = Path(os.path.abspath(manager.home.skills))
    folder = Path(os.path.abspath(skill.skill_dir))
    if folder == skills_root or not folder.is_relative_to(skills_root):
        return error(f"Refusing to delete {skill.skill_dir}: it is not a skill folder inside {skills_root}.")
    files = sorted(p for p in skill.skill_dir.rglob("*") if p.is_file() and not p.is_symlink())
    return SkillPlan(skill.name, "delete", {path: (path.read_bytes(), None) for path in files})


_PLANNERS = {
    "create": _create,
    "edit": _edit,
    "patch": _patch,
    "write_file": _write_file,
    "remove_file": _remove_file,
    "delete": _delete,
}


def gist(plan: SkillPlan) -> str:
    """One line a person decides on: what the call does to which skill, and how much."""
    name = plan.name
    if plan.action in ("create", "edit"):
        ((_path, (_before, after)),) = plan.files.items()
        text = after or ""
        try:
            described = fm.one_line(str(fm.parse_lenient(text).meta.get("description") or ""))
        except fm.FrontmatterError:
            described = ""
        size = f"{len(text):,} chars"
        verb = "create" if plan.action == "create" else "rewrite"
        return f"{verb} '{name}'" + (f" — {str(described)[:140]}" if described else "") + f" ({size})"
    if plan.action == "patch":
        ((path, (before, after)),) = plan.files.items()
        old_lines = (before or b"").decode("utf-8", "replace").splitlines()
        new_lines = (after or "").splitlines()
        return f"patch '{name}' {path.name} ({len(old_lines)} → {len(new_lines)} lines)"
    if plan.action == "write_file":
        ((path, _change),) = plan.files.items()
        return f"write {path.parent.name}/{path.name} in '{name}'"
    if plan.action == "remove_file":
        ((path, _change),) = plan.files.items()
        return f"remove {path.parent.name}/{path.name} from '{name}'"
    return f"delete skill '{name}' ({len(plan.files)} file{'s' if len(plan.files) != 1 else ''})"

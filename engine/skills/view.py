"""Tier 2 (a whole SKILL.md plus its linked files) and Tier 3 (one support file), as tool results."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path
from typing import Any

from engine.config import Config, defaults
from engine.skills import frontmatter as fm
from engine.skills.discovery import IGNORED_DIRS, SKILL_FILE, SUPPORT_DIRS, Catalog, Skill
from engine.skills.guard import special_kind
from engine.skills.needs import CONFIG_PREFIX, SkillNeeds, needs_from, readiness, settings_note
from engine.skills.paths import PathRefused, is_inside, resolve_inside, skill_name_error
from engine.text import tokens

LINK_GROUPS = (*SUPPORT_DIRS, "examples")
MAX_LISTED_FILES = 200
BINARY_SNIFF_BYTES = 8192


def error(message: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": message, **extra}


def find_skill(catalog: Catalog, name: object) -> tuple[Skill | None, dict[str, Any] | None]:
    """The skill called `name` (or `category/name`), or an error result naming close matches."""
    problem = skill_name_error(name)
    if problem:
        return None, error(problem)
    assert isinstance(name, str)
    name = name.strip()
    skill = catalog.get(name)
    if skill is None and "/" in name:
        category, _, short = name.rpartition("/")
        candidate = catalog.get(short)
        if candidate is not None and candidate.category == category:
            skill = candidate
    if skill is None:
        names = catalog.names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        near = [n for n in names if n not in close and len(n) > 2 and (n in name or name in n)]
        close += near[: 3 - len(close)]
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return None, error(f"Skill '{name}' not found.{hint} Use skills_list to see every skill.")
    return skill, None


def linked_files(skill_dir: Path) -> dict[str, list[str]]:
    """Every file beside SKILL.md, grouped by top folder (references, scripts, …; `other` for the rest)."""
    groups: dict[str, list[str]] = {}
    count = 0
    for current, dirs, files in os.walk(skill_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.startswith("."))
        rel_dir = Path(current).relative_to(skill_dir)
        for filename in sorted(files):
            if filename.startswith(".") or (not rel_dir.parts and filename == SKILL_FILE):
                continue
            rel = (rel_dir / filename).as_posix()
            top = rel_dir.parts[0] if rel_dir.parts else ""
            groups.setdefault(top if top in LINK_GROUPS else "other", []).append(rel)
            count += 1
            if count >= MAX_LISTED_FILES:
                groups.setdefault("other", []).append(f"… more files not listed (over {MAX_LISTED_FILES})")
                return groups
    return groups


def read_text_capped(path: Path, max_chars: int) -> tuple[str, bool, int]:
    """(text, truncated, size) of a UTF-8 text file, replacing bad bytes; raises OSError."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        data = handle.read(max_chars * 4 + 4)
    text = data.decode("utf-8", errors="replace")
    truncated = len(text) > max_chars or size > len(data)
    return text[:max_chars], truncated, size


def view_skill(
    skill: Skill,
    max_chars: int,
    config: Config | None = None,
    template_vars: bool = True,
    session_id: str = "",
) -> dict[str, Any]:
    """Tier 2: the whole SKILL.md (template variables filled in), the list of its other files, and
    where its declared settings stand (secrets by name, config values by value)."""
    if not is_inside(skill.skill_dir, skill.skill_md):
        return error(f"{skill.skill_md} is a symlink out of its skill's folder; it is not read.")
    try:
        text, truncated, size = read_text_capped(skill.skill_md, max_chars)
    except OSError as exc:
        return error(f"Cannot read {skill.skill_md}: {exc.strerror or exc}.")
    text = fm.normalise_text(text)
    warnings = list(skill.warnings)
    try:
        meta = fm.parse_lenient(text).meta
    except fm.FrontmatterError as exc:
        meta = {}
        warnings.append(f"line {exc.line}: {exc.reason}")
    if template_vars:
        text = text.replace("${HERMES_SKILL_DIR}", str(skill.skill_dir))
        if session_id:
            text = text.replace("${HERMES_SESSION_ID}", session_id)
    if truncated:
        text += f"\n\n[...truncated: showing {max_chars:,} of {size:,} bytes of SKILL.md]"
    links = linked_files(skill.skill_dir)
    result: dict[str, Any] = {
        "success": True,
        "name": skill.name,
        "description": skill.description,
        "category": skill.category,
        "tags": list(skill.tags),
        "related_skills": list(skill.related_skills),
        "content": text,
        "path": str(skill.skill_md),
        "skill_dir": str(skill.skill_dir),
        "linked_files": links,
        "tokens": tokens.count(text),
        "read_only": skill.read_only,
    }
    if links:
        first = next(iter(links.values()))[0]
        result["usage_hint"] = (
            f"Open a linked file with skill_view(name='{skill.name}', file_path='{first}')."
        )
    result.update(_settings(needs_from(meta), config or defaults()))
    if warnings:
        result["warnings"] = warnings
    return result


def _settings(needs: SkillNeeds, config: Config) -> dict[str, Any]:
    """The fields of a Tier 2 result about the skill's declared settings (none when it declares none)."""
    if not needs:
        return {}
    ready = readiness(needs, config.secret, config.raw)
    fields: dict[str, Any] = {}
    if needs.env:
        fields["required_environment_variables"] = [need.name for need in needs.env]
        fields["missing_required_environment_variables"] = list(ready.missing_env)
    if needs.config:
        fields["skill_config"] = ready.config_values
        fields["missing_config"] = [f"{CONFIG_PREFIX}.{key}" for key in ready.missing_config]
    if needs.env or needs.config:
        fields["setup_needed"] = not ready.ready
        fields["settings_note"] = settings_note(needs, ready, config.path or Path("config.yaml"))
    if needs.compatibility:
        fields["compatibility"] = needs.compatibility
    return fields


def view_file(skill: Skill, file_path: object, max_chars: int) -> dict[str, Any]:
    """Tier 3: one file of the skill; binaries are described, never dumped."""
    if not isinstance(file_path, str):
        return error("file_path must be a relative path such as 'references/api.md'.")
    file_path = file_path.strip().removeprefix("./")
    try:
        target = resolve_inside(skill.skill_dir, file_path)
    except PathRefused as exc:
        return error(str(exc))
    try:
        info = target.stat()
    except OSError:
        available = [f for group in linked_files(skill.skill_dir).values() for f in group]
        return error(f"File '{file_path}' not found in skill '{skill.name}'.", available_files=available[:50])
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return error(
            f"'{file_path}' is {special_kind(info.st_mode) or 'not a regular file'}; it is not read."
        )
    if target.is_dir():
        inside = sorted(
            p.relative_to(skill.skill_dir).as_posix()
            for p in target.iterdir()
            if is_inside(skill.skill_dir, p)
        )
        return error(f"'{file_path}' is a folder; name one of its files.", available_files=inside[:50])
    try:
        with open(target, "rb") as handle:
            head = handle.read(BINARY_SNIFF_BYTES)
        size = target.stat().st_size
        if _looks_binary(head):
            content = f"[Binary file: {file_path}, size: {size} bytes]"
            return {
                "success": True,
                "name": skill.name,
                "file_path": file_path,
                "content": content,
                "binary": True,
                "size": size,
                "tokens": tokens.count(content),
            }
        text, truncated, size = read_text_capped(target, max_chars)
    except OSError as exc:
        return error(f"Cannot read '{file_path}': {exc.strerror or exc}.")
    text = fm.normalise_text(text)
    if truncated:
        text += f"\n\n[...truncated: showing {max_chars:,} characters of {size:,} bytes]"
    return {
        "success": True,
        "name": skill.name,
        "file_path": file_path,
        "content": text,
        "binary": False,
        "size": size,
        "truncated": truncated,
        "tokens": tokens.count(text),
    }


def _looks_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 3  # a multi-byte character cut at the sniff boundary is fine
    return False

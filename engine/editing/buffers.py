"""The files a person may edit beside the agent, and how a buffer is loaded, checked and saved.

Every save goes through the store that owns the file: memory through `MemoryStore.write_all`, a
skill through `SkillManager` (so the skill history records it), SOUL.md through `engine.prompt.soul`. Each
checks, under its lock, that the file still holds what the buffer was loaded from (by content
hash); if not, nothing is written and the result carries the text on disk, so the editor can show
both versions instead of overwriting either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.editing import checks as edit_checks
from engine.storage.self_writes import content_hash

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

KINDS = ("soul", "memory", "user", "skill", "skill_file")
ABSENT = "absent"  # the digest a save expects when the file was deleted and the buffer is to be written back
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


class EditError(Exception):
    """A file that cannot be opened for editing; the message says why in one sentence."""


@dataclass(frozen=True)
class EditTarget:
    """One editable file: what it is, where it lives, and which store saves it."""

    kind: str
    label: str  # as a person names it: "SOUL.md", "USER.md", "skills/web/navbar/SKILL.md"
    path: Path
    skill: str = ""  # the skill's name, for SKILL.md and support files
    rel: str = ""  # the support file's path inside its skill folder

    @property
    def language(self) -> str | None:
        """The highlighting the editor uses: markdown for the prose files, yaml for .yaml support files."""
        suffix = self.path.suffix.lower()
        if suffix in MARKDOWN_SUFFIXES:
            return "markdown"
        if suffix in edit_checks.YAML_SUFFIXES:
            return "yaml"
        return None

    @property
    def suffix(self) -> str:
        return self.path.suffix or ".txt"


@dataclass(frozen=True)
class Loaded:
    """A file's text as the buffer starts from it, and the hash a save will compare against."""

    target: EditTarget
    text: str
    digest: str


@dataclass(frozen=True)
class SaveResult:
    """`saved`, `unchanged`, `refused` (reason in `message`) or `conflict` (the disk's text in `disk`)."""

    status: str
    message: str
    text: str = ""  # what is on disk after a save (the store may normalise what it writes)
    digest: str = ""
    disk: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("saved", "unchanged")


def digest_of(text: str) -> str:
    return content_hash(text)


# -- which files --------------------------------------------------------------------------------


def soul_target(home: Home) -> EditTarget:
    return EditTarget("soul", "SOUL.md", home.soul)


def memory_target(home: Home, target: str) -> EditTarget:
    name = "MEMORY.md" if target == "memory" else "USER.md"
    return EditTarget(target, name, home.memories / name)


def skill_targets(home: Home, config: Config) -> list[EditTarget]:
    """Every local skill's SKILL.md and support files (external skill folders are read-only)."""
    from engine.skills.library import SkillLibrary
    from engine.skills.view import linked_files

    targets: list[EditTarget] = []
    for skill in SkillLibrary(home, config).catalog().skills:
        if skill.read_only or skill.skill_dir.is_symlink():
            continue
        rel_dir = _home_rel(home, skill.skill_dir)
        targets.append(EditTarget("skill", f"{rel_dir}/SKILL.md", skill.skill_md, skill.name))
        for group in linked_files(skill.skill_dir).values():
            for rel in group:
                if rel.startswith("…"):
                    continue
                targets.append(
                    EditTarget("skill_file", f"{rel_dir}/{rel}", skill.skill_dir / rel, skill.name, rel)
                )
    return targets


def all_targets(home: Home, config: Config) -> list[EditTarget]:
    """Every file the editor offers: SOUL.md, MEMORY.md, USER.md, then the skills' files."""
    return [
        soul_target(home),
        memory_target(home, "memory"),
        memory_target(home, "user"),
        *skill_targets(home, config),
    ]


def find_target(home: Home, config: Config, name: str) -> EditTarget:
    """A target by what a person would type: `SOUL.md`, `user`, `skills/x/SKILL.md`, or a skill's name."""
    wanted = name.strip().removeprefix("./")
    lowered = wanted.lower()
    fixed = {
        "soul": soul_target(home),
        "soul.md": soul_target(home),
        "memory": memory_target(home, "memory"),
        "memory.md": memory_target(home, "memory"),
        "memories/memory.md": memory_target(home, "memory"),
        "user": memory_target(home, "user"),
        "user.md": memory_target(home, "user"),
        "memories/user.md": memory_target(home, "user"),
    }
    if lowered in fixed:
        return fixed[lowered]
    skills = skill_targets(home, config)
    for target in skills:
        if wanted in (target.label, target.label.removeprefix("skills/")):
            return target
    for target in skills:
        if target.kind == "skill" and target.skill == wanted:
            return target
    raise EditError(f"No editable file is called {name!r}; ctrl+o lists them.")


def _home_rel(home: Home, path: Path) -> str:
    return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(home.root))).as_posix()


# -- loading ------------------------------------------------------------------------------------


def load(home: Home, config: Config, target: EditTarget) -> Loaded:
    """The file's text (a missing memory file or SOUL.md opens empty); raises EditError with a sentence."""
    path = target.path
    if path.is_symlink() and not home.inside(path):
        raise EditError(
            f"{target.label} is a symlink out of the home ({os.path.realpath(path)}); not opened."
        )
    limit = int(config.editor.max_file_bytes)
    try:
        size = path.stat().st_size
        if size > limit:
            raise EditError(
                f"{target.label} is {size:,} bytes; the editor opens files up to {limit:,} "
                "(editor.max_file_bytes). ctrl+g opens it in your own editor."
            )
        data = path.read_bytes()
    except FileNotFoundError:
        if target.kind in ("skill", "skill_file"):
            raise EditError(f"{target.label} no longer exists.") from None
        data = b""
    except IsADirectoryError:
        raise EditError(f"{target.label} is a folder.") from None
    except OSError as exc:
        raise EditError(f"Cannot read {target.label}: {exc.strerror}.") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EditError(
            f"{target.label} is not UTF-8 text (bad byte at offset {exc.start}); it is not opened here."
        ) from exc
    return Loaded(target, text, content_hash(data))


def disk_text(target: EditTarget) -> str | None:
    """What the file holds now (None when missing or unreadable as text)."""
    try:
        return target.path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# -- checking -----------------------------------------------------------------------------------


def memory_limit(config: Config, kind: str) -> int:
    key = "memory_char_limit" if kind == "memory" else "user_char_limit"
    return int(getattr(config.memory, key))


def check(
    config: Config, target: EditTarget, text: str, on_disk: str | None = None
) -> edit_checks.CheckResult:
    """Every problem a save of `text` would have (`on_disk`: the file now, so old guard findings pass)."""
    if target.kind in ("memory", "user"):
        return edit_checks.check_memory(text, target.label, memory_limit(config, target.kind))
    if target.kind == "soul":
        return edit_checks.check_soul(text, int(config.get("context_file_max_chars")))
    if target.kind == "skill":
        return edit_checks.check_skill_md(text, target.skill, int(config.skills.max_skill_chars), on_disk)
    return edit_checks.check_support_file(
        text, target.rel, int(config.skills.max_support_file_bytes), on_disk
    )


# -- saving -------------------------------------------------------------------------------------


def save(home: Home, config: Config, target: EditTarget, text: str, expect: str | None) -> SaveResult:
    """Check, then write through the file's store if it still hashes to `expect` (None: overwrite)."""
    result = check(config, target, text, disk_text(target))
    if not result.ok:
        return SaveResult("refused", f"Not saved: {result.reason()}")
    if target.kind in ("memory", "user"):
        return _save_memory(home, config, target, text, expect)
    if target.kind == "soul":
        return _save_soul(home, target, text, expect)
    return _save_skill(home, config, target, text, expect)


def _save_memory(home: Home, config: Config, target: EditTarget, text: str, expect: str | None) -> SaveResult:
    from engine.memory.store import MemoryStore

    store = MemoryStore.open(home, target.kind, config, who="user")
    outcome = store.write_all(text, expect=expect)
    if outcome.get("conflict"):
        disk = str(outcome.get("disk", ""))
        return SaveResult("conflict", outcome["error"], disk=disk, digest=content_hash(disk))
    if not outcome.get("success"):
        return SaveResult("refused", f"Not saved: {outcome['error']}")
    saved = store.read_raw()
    return SaveResult("saved", f"{target.label} saved ({outcome['usage']}).", saved, content_hash(saved))


def _save_soul(home: Home, target: EditTarget, text: str, expect: str | None) -> SaveResult:
    from engine.prompt.soul import SoulFile

    outcome = SoulFile(home).save(text, expect=expect)
    if outcome.status == "conflict":
        return SaveResult("conflict", outcome.message, disk=outcome.disk, digest=outcome.digest)
    if outcome.status == "refused":
        return SaveResult("refused", f"Not saved: {outcome.message}")
    return SaveResult(outcome.status, outcome.message, text, outcome.digest)


def _save_skill(home: Home, config: Config, target: EditTarget, text: str, expect: str | None) -> SaveResult:
    from engine.skills.library import SkillLibrary
    from engine.skills.manage import SkillManager

    conflict: dict[str, Any] = {}

    def still_as_loaded() -> dict[str, Any] | None:
        if expect is None:
            return None
        try:
            data = target.path.read_bytes()
        except FileNotFoundError:
            data = None
        if (data is None and expect == ABSENT) or (data is not None and content_hash(data) == expect):
            return None
        disk = "" if data is None else data.decode("utf-8", errors="replace")
        conflict.update(disk=disk, gone=data is None)
        return {"success": False, "error": f"{target.label} changed on disk since it was opened."}

    manager = SkillManager(SkillLibrary(home, config), who="user")
    if target.kind == "skill" and expect == ABSENT and not target.path.exists():
        args = {
            "action": "create",
            "name": target.skill,
            "content": text,
            "category": _category(home, target),
        }
    elif target.kind == "skill":
        args = {"action": "edit", "name": target.skill, "content": text}
    else:
        args = {"action": "write_file", "name": target.skill, "file_path": target.rel, "file_content": text}
    outcome = manager.run(args, precondition=still_as_loaded)
    if conflict:
        if conflict["gone"]:  # the choice is the person's: write the buffer back, or let it go
            return SaveResult(
                "conflict",
                f"{target.label} was deleted on disk since it was opened. Nothing was written.",
                disk="",
                digest=ABSENT,
            )
        disk = str(conflict["disk"])
        return SaveResult(
            "conflict", outcome["error"] + " Nothing was written.", disk=disk, digest=content_hash(disk)
        )
    if not outcome.get("success"):
        return SaveResult("refused", f"Not saved: {outcome.get('error', 'the skill store refused it')}")
    saved = disk_text(target) or ""
    return SaveResult("saved", outcome.get("message", f"{target.label} saved."), saved, content_hash(saved))


def _category(home: Home, target: EditTarget) -> str:
    """The category folder a deleted SKILL.md lived in ('' when it sat directly under skills/)."""
    folder = Path(os.path.abspath(target.path)).parent.parent
    skills = Path(os.path.abspath(home.skills))
    return "" if folder == skills else folder.relative_to(skills).as_posix()

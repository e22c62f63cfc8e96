"""A person's `/skill-name [instruction]`: the skill is loaded (Tier 2) into that turn's user message.

The message has Hermes Agent's shape (an activation note, the whole SKILL.md, the skill's folder, its
files, then the instruction), so a session stored by one program reads the same in the other; the
load is recorded in the session's tiers and announced as a `SkillLoaded`, as a `skill_view` call is.
Only what a person typed is a command: a pasted or piped text goes as it is (the caller decides).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.skills.tools import SkillTools

INVOCATION_PREFIX = '[IMPORTANT: The user has invoked the "'
SKILL_MARKER = "The full skill content is loaded below.]"
INSTRUCTION_MARKER = "The user has provided the following instruction alongside the skill invocation: "
DIRECTORY_NOTE = (
    "Resolve any relative paths in this skill (e.g. `scripts/foo.js`, `templates/config.yaml`) against "
    "that directory, then run them with the terminal tool using the absolute path."
)
_COMMAND = re.compile(r"/([\w.-]+)(?:\s+(.*))?", re.DOTALL)
_NAME_IN_NOTE = re.compile(re.escape(INVOCATION_PREFIX) + r'([^"]*)"')


def skill_command(text: str) -> tuple[str, str] | None:
    """`/name rest` → (name, rest) when `text` has the shape of a skill command; None otherwise."""
    found = _COMMAND.fullmatch(text.strip())
    if found is None:
        return None
    return found.group(1), (found.group(2) or "").strip()


def turn_message(skills: SkillTools, text: str) -> tuple[str, str]:
    """(the user message to send, a warning or ""): `/name instruction` naming a skill the model is
    offered becomes that skill's invocation; any other text comes back as it is."""
    parsed = skill_command(text)
    if parsed is None:
        return text, ""
    name, instruction = parsed
    offered, _excluded = skills.library.visible(skills.library.catalog())
    if name not in {skill.name for skill in offered}:
        return text, ""
    loaded = skills.skill_view({"name": name})  # records Tier 2 and emits SkillLoaded
    if not loaded.get("success"):
        return text, f"/{name} was sent as typed: {loaded.get('error', 'the skill could not be read.')}"
    return invocation_message(loaded, instruction), ""


def invocation_message(loaded: dict[str, Any], instruction: str) -> str:
    """The user message for a loaded skill (a `skill_view` result) and the person's instruction."""
    name = str(loaded["name"])
    parts = [
        f'{INVOCATION_PREFIX}{name}" skill, indicating they want you to follow its instructions. '
        + SKILL_MARKER,
        "",
        str(loaded.get("content", "")).strip(),
        "",
        f"[Skill directory: {loaded['skill_dir']}]",
        DIRECTORY_NOTE,
    ]
    if loaded.get("settings_note"):
        parts += ["", str(loaded["settings_note"])]
    files = [path for group in (loaded.get("linked_files") or {}).values() for path in group]
    if files:
        parts += ["", "[This skill has supporting files (paths relative to the skill directory above):]"]
        parts += [f"- {path}" for path in files]
        parts.append(f'\nLoad any of these with skill_view(name="{name}", file_path="<path>").')
    if instruction:
        parts += ["", f"{INSTRUCTION_MARKER}{instruction}"]
    return "\n".join(parts)


def describe_invocation(content: str) -> str | None:
    """A stored invocation as the person typed it (`/name instruction`); None for any other message."""
    if not content.startswith(INVOCATION_PREFIX) or SKILL_MARKER not in content:
        return None
    found = _NAME_IN_NOTE.match(content)
    name = found.group(1) if found else ""
    at = content.rfind(INSTRUCTION_MARKER)
    instruction = " ".join(content[at + len(INSTRUCTION_MARKER) :].split()) if at >= 0 else ""
    return f"/{name} {instruction}".rstrip()

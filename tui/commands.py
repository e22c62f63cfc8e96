"""Slash commands, and the catalog entries (skills, sessions) the input and the palette offer.

The skills and sessions stores fill the catalogs (`SkillEntry`, `SessionEntry`) through the app's
hooks; until they land, the catalogs are empty. The palette's providers are in `tui/palette.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from widgets.prompt import SlashCommand

SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "start a new session"),
    SlashCommand("compress", "compress the conversation now", args="[focus]"),
    SlashCommand(
        "model", "show the model; with a name, switch to it and keep it in config.yaml", args="[name]"
    ),
    SlashCommand(
        "memory",
        "show the memory pane; pending writes: list, approve or reject",
        args="[pending|approve ID|reject ID]",
    ),
    SlashCommand(
        "skills",
        "show the skills pane; pending writes: list, approve, reject or diff",
        args="[pending|approve ID|reject ID|diff ID]",
    ),
    SlashCommand("sessions", "browse and search past sessions"),
    SlashCommand("title", "name this session (no name: say its title)", args="[name]"),
    SlashCommand("edit", "edit files side by side (SOUL.md, memory, skills)", args="[file] [file]"),
    SlashCommand("identity", "SOUL.md and USER.md beside what the provider observed"),
    SlashCommand("undo", "undo the last memory or skill write"),
    SlashCommand("rollback", "list the working folder's checkpoints by turn; restore one"),
    SlashCommand("retry", "send the last message again"),
    SlashCommand("copy", "copy the last reply"),
    SlashCommand("theme", "switch the theme and keep it in config.yaml (no name: pick one)", args="[name]"),
    SlashCommand("help", "show the keys and commands"),
)


@dataclass(frozen=True)
class SkillEntry:
    """A skill the palette and `/name` completion offer."""

    name: str
    description: str = ""
    category: str = ""


@dataclass(frozen=True)
class SessionEntry:
    """A past session the palette offers to open."""

    session_id: str
    title: str = ""
    when: str = ""


def parse_slash(text: str) -> tuple[str, str] | None:
    """`/compress keep the API notes` → ("compress", "keep the API notes"); None for plain text."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    if not name or "\n" in name:
        return None
    return name, rest.strip()


def skill_commands(entries: Iterable[SkillEntry]) -> list[SlashCommand]:
    return [SlashCommand(e.name, e.description or "invoke this skill", kind="skill") for e in entries]

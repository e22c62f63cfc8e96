"""Slash commands, and the command palette's providers for skills and sessions.

The skills and sessions stores fill the catalogs (`SkillEntry`, `SessionEntry`) through the app's
hooks; until they land, the catalogs are empty and the palette simply offers no skill or session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from widgets.prompt import SlashCommand

if TYPE_CHECKING:
    from tui.app import HwsApp

SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "start a new session"),
    SlashCommand("compress", "compress the conversation now", args="[focus]"),
    SlashCommand("model", "show the model and how to change it"),
    SlashCommand("memory", "show the memory pane"),
    SlashCommand("skills", "show the skills pane"),
    SlashCommand("sessions", "browse and search past sessions"),
    SlashCommand("undo", "undo the last memory or skill write"),
    SlashCommand("retry", "send the last message again"),
    SlashCommand("copy", "copy the last reply"),
    SlashCommand("theme", "switch the theme (no name: pick one)", args="[name]"),
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


class _CatalogProvider(Provider):
    """Shared search over a list of (title, help, callback) triples."""

    def items(self) -> list[tuple[str, str, Callable[[], Any]]]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in self.items():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.items():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


class SkillCommands(_CatalogProvider):
    """Palette entries `skill: name` that put `/name ` in the input."""

    def items(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app: HwsApp = self.app  # type: ignore[assignment]
        return [
            (
                f"skill: {entry.name}",
                entry.description or "invoke this skill",
                partial(app.invoke_skill, entry.name),
            )
            for entry in app.skill_entries
        ]


class SessionCommands(_CatalogProvider):
    """Palette entries `session: title` that open a past session."""

    def items(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app: HwsApp = self.app  # type: ignore[assignment]
        return [
            (
                f"session: {entry.title or entry.session_id}",
                f"{entry.when}  {entry.session_id}".strip(),
                partial(app.open_session, entry.session_id),
            )
            for entry in app.session_entries
        ]

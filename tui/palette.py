"""The command palette's providers for skills, sessions and background processes; imported when the palette
first opens."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from tui.app import HwsApp


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


class ProcessCommands(_CatalogProvider):
    """Palette entries: list the session's background processes, and kill a running one."""

    def items(self) -> list[tuple[str, str, Callable[[], Any]]]:
        app: HwsApp = self.app  # type: ignore[assignment]
        running = app.main_screen.process_feed.entries()
        found: list[tuple[str, str, Callable[[], Any]]] = [
            ("processes: list", f"{len(running)} running in this session", app.list_processes)
        ]
        for process_id, command, where in running:
            kill = partial(app.kill_process, process_id)
            found.append((f"process: kill {process_id} {command}", where, kill))
        return found

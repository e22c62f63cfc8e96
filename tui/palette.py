"""The command palette: every workstation action (slash commands included), and the providers for skills,
sessions and background processes; imported when the palette first opens."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.command import DiscoveryHit, Hit, Hits, Provider

from tui.commands import SLASH_COMMANDS

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


def workstation_commands(app: HwsApp) -> Iterable[SystemCommand]:
    """Every workstation action, for the palette (slash commands included)."""
    main = app.main_screen
    entries: list[tuple[str, str, Callable[[], Any]]] = [
        ("Focus the transcript", "f1", lambda: main.action_show_pane("transcript")),
        ("Focus the memory pane", "f2", lambda: main.action_show_pane("memory")),
        ("Focus the budget pane", "f3", lambda: main.action_show_pane("budget")),
        ("Focus the skills pane", "f4", lambda: main.action_show_pane("skills")),
        ("Focus the compression pane", "f5", lambda: main.action_show_pane("compression")),
        ("Focus the input", "esc", main.action_focus_input),
        ("Toggle the side panes", "ctrl+b", main.action_toggle_side),
        ("Sessions", "ctrl+r · browse and search past sessions", app.action_sessions),
        ("Edit files", "ctrl+e · SOUL.md, memory and skills side by side", app.open_editor),
        ("Identity", "f6 · SOUL.md and USER.md beside what was observed", app.action_identity),
        (
            "Start a new session now",
            "ctrl+n · reads SOUL.md, skills and memory again",
            app.action_new_session_now,
        ),
        ("Show the keys", "f12 · every binding and its id", app.action_show_keys),
        ("Choose the model", "provider, model, key; writes config.yaml (hws setup)", app.open_setup),
        ("Interrupt the turn", "ctrl+c", app.action_interrupt),
        (
            "Rewind to the selected message",
            "ctrl+z in the transcript · alt+up selects one of yours; its text goes back in the input",
            main.transcript.action_rewind_here,
        ),
        (
            "Branch before the selected message",
            "ctrl+f in the transcript · a copy goes on from there; the original stays resumable",
            main.transcript.action_branch_here,
        ),
        (
            "Copy the last reply",
            "y in the transcript, or /copy",
            lambda: app.copy_to_clipboards(main.transcript.last_reply, "the last reply"),
        ),
    ]
    for command in SLASH_COMMANDS:
        if command.name in ("copy", "help", "sessions", "edit", "identity"):
            continue
        entries.append((f"/{command.name}", command.help, _slash_runner(app, command.name)))
    for title, help_text, callback in entries:
        yield SystemCommand(title, help_text, callback)


def _slash_runner(app: HwsApp, name: str) -> Callable[[], Any]:
    async def run() -> None:
        await app.commands.run_slash_command(name, "")

    return run

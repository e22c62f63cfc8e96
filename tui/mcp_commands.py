"""The workstation's MCP commands: `/mcp` (the servers, turned on and off), `/reload-mcp`.

Both apply config.yaml's `mcp_servers` from the agent's next model call and say so in the
transcript, since the tool list of that call (and so its cached prefix) changes.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from tui import messages

if TYPE_CHECKING:
    from tui.app import HwsApp
    from tui.screens.mcp import McpRow


class McpCommands:
    """What `/mcp` and `/reload-mcp` do, on the app they are given."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.app.main_screen.post_message(messages.Notice(text, level, icon))

    def _hub(self) -> Any:
        return getattr(self.app.agent, "mcp", None) if self.app.agent is not None else None

    # /mcp:server:prompt in the completion

    def offer_prompts(self) -> None:
        """The input's completion: the skills, every ready server's prompts as `/mcp:server:prompt`, and
        its resources as `@server:name`."""
        from tui.commands import skill_commands
        from widgets.message_input import SlashCommand

        entries = skill_commands(self.app.skill_entries)
        resources: list[SlashCommand] = []
        hub = self._hub()
        if hub is not None:
            from engine.mcp.references import prompt_commands, resource_references

            entries += [SlashCommand(name, about, kind="mcp") for name, about in prompt_commands(hub)]
            resources = [SlashCommand(n, about, kind="resource") for n, about in resource_references(hub)]
        self.app.main_screen.prompt.set_resources(resources)
        self.app.main_screen.set_skill_commands(entries)

    # /mcp

    def open_screen(self) -> None:
        from tui.screens.mcp import McpScreen

        self.app.push_screen(McpScreen(self.rows(), self._note()))
        hub = self._hub()
        if hub is not None and any(c.state == "starting" for c in hub.connections.values()):
            self.app.run_worker(
                partial(self._show_when_started, None),
                group="mcp",
                description="show the MCP servers once started",
                exit_on_error=False,
            )

    async def _show_when_started(self, note: str | None) -> None:
        """Draw the rows again once every starting server is ready or has failed (bounded by its timeout)."""
        hub = self._hub()
        if hub is not None:
            await hub.wait_started(float(self.app.config.mcp.connect_timeout))
        self._show_rows(note)
        self.offer_prompts()

    def _note(self) -> str:
        if self._hub() is not None:
            return ""
        why = self.app.agent_problem or "the agent has not started its servers yet"
        return f"Servers as config.yaml names them ({why}); they start with the agent."

    def rows(self) -> list[McpRow]:
        """The servers: as the agent's hub has them, else as config.yaml names them."""
        from tui.screens.mcp import McpRow

        hub = self._hub()
        if hub is not None:
            return [
                McpRow(
                    v.name,
                    v.state != "disabled",
                    v.state,
                    v.trust,
                    v.tools,
                    v.schema_tokens,
                    v.deferred,
                    v.where,
                    v.error,
                    v.flags,
                    v.left_out,
                )
                for v in hub.views()
            ]
        from engine.config import load_config
        from engine.mcp.servers import read_servers

        config = load_config(self.app.home.root)
        return [
            McpRow(
                s.name,
                s.enabled,
                "not started" if s.enabled else "disabled",
                s.trust_level(config),
                0,
                0,
                False,
                s.where,
            )
            for s in read_servers(config).servers
        ]

    def set_enabled(self, name: str, enabled: bool) -> None:
        self.app.run_worker(
            partial(self._set_enabled, name, enabled),
            group="mcp",
            description="turn an MCP server on or off",
            exit_on_error=False,
        )

    async def _set_enabled(self, name: str, enabled: bool) -> None:
        from engine.config_edit import ConfigEditError
        from engine.mcp.config_write import set_enabled

        word = "on" if enabled else "off"
        try:
            found = await asyncio.to_thread(set_enabled, self.app.home.config_file, name, enabled)
        except (ConfigEditError, OSError) as exc:
            self._say(f"MCP server `{name}` not turned {word}: {exc}", "warning", "!")
            return
        if not found:
            self._say(f"MCP server `{name}` is no longer in {self.app.config_path_label}.", "warning", "!")
            return
        said = f"MCP server `{name}` turned {word} (enabled: {str(enabled).lower()} in config.yaml)."
        reloaded = await self.reload(quiet=True)
        said = f"{said} {reloaded}" if reloaded else said
        self._say(said)
        self._show_rows(said)  # a server turned on shows `starting`, then its tools once it has listed them
        if enabled:
            await self._show_when_started(None)
        self.offer_prompts()
        self.app.pane_feeds.refresh("budget")

    def _show_rows(self, note: str | None) -> None:
        from tui.screens.mcp import McpScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, McpScreen):
                screen.show_rows(self.rows(), note)

    # /reload-mcp

    def reload_command(self) -> None:
        self.app.run_worker(
            self._reload_and_say, group="mcp", description="reload the MCP servers", exit_on_error=False
        )

    async def _reload_and_say(self) -> None:
        said = await self.reload()
        if said:
            self._say(said)

    async def reload(self, quiet: bool = False) -> str:
        """config.yaml's `mcp_servers` as it is now, from the agent's next model call: the sentence to
        say ('' when there is no agent to apply it, said unless `quiet`)."""
        reload = getattr(self.app.agent, "reload_mcp", None) if self.app.agent is not None else None
        if reload is None:
            if not quiet:
                why = self.app.agent_problem or "this agent uses no MCP servers"
                self._say(f"/reload-mcp needs the agent: {why}.", "warning")
            return ""
        try:
            return str(await reload())
        except Exception as exc:  # a config.yaml that cannot be read: its message is the sentence
            self._say(f"MCP servers not reloaded: {exc}", "warning", "!")
            return ""

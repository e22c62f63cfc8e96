"""The MCP servers of an agent: started in the background, their tools offered or deferred, reloaded.

    hub = McpHub(home, config, emit=..., session_id=lambda: agent.session_id)
    hub.start()                                   # returns at once; servers connect in the background
    tools = hub.schemas(base, window_tokens)      # the tool list of the next call
    registry = await hub.registry_for(name)       # the registry that runs a tool, or None
    await hub.reload(config)                      # /reload-mcp: applies at the next call
    await hub.stop()

A server's tools join the tool list when it is ready, appended after those already sent, so the
cached prefix of earlier calls stays valid. When a server's schemas would take the MCP tools past
`mcp.defer_share` of the context window, its tools are deferred: the model gets `tool_search`
instead, and the schemas it finds are appended to the next call. With no server configured the
tool list is the built-in one, unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.events import Event, Status
from engine.home import Home
from engine.mcp.adapt import ToolNote, adapt_tool
from engine.mcp.connection import FAILED, READY, STARTING, ServerConnection
from engine.mcp.servers import ServerList, ServerSpec, read_servers
from engine.mcp.tool_search import SEARCH_TOOL, search_tool
from engine.prompt.build import tool_schema_tokens
from engine.tools.registry import Tool, ToolRegistry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerView:
    """One server as `hws mcp list`, `hws doctor` and `/mcp` show it."""

    name: str
    state: str
    where: str
    transport: str
    trust: str
    tools: int
    schema_tokens: int
    deferred: bool
    error: str
    flags: tuple[str, ...]  # `tool: where: pattern ids` for each description cut as an injection
    left_out: tuple[str, ...]  # `tool: why` for each tool not offered


class McpHub:
    """The configured MCP servers, their tools, and which schemas each call carries."""

    def __init__(
        self,
        home: Home,
        config: Config,
        *,
        emit: Callable[[Event], object] | None = None,
        session_id: Callable[[], str] = lambda: "",
        servers: ServerList | None = None,
        log_dir: Path | bool | None = True,
    ) -> None:
        self.home = home
        self.log_dir = home.logs if log_dir is True else (log_dir or None)  # False/None: stderr is dropped
        self.config = config
        self.servers = servers if servers is not None else read_servers(config)
        self._emit = emit
        self._session_id = session_id
        self.connections: dict[str, ServerConnection] = {}
        self.registry = ToolRegistry()  # every MCP tool (offered or deferred) and `tool_search`
        self.notes: dict[str, list[ToolNote]] = {}
        self.deferred: dict[str, Tool] = {}  # tool name -> tool, searchable and not yet sent
        self.deferred_servers: set[str] = set()
        self.sent: list[dict[str, Any]] = []  # MCP schemas sent with every call, in the order they joined
        self._sent_names: set[str] = set()
        self.window_tokens = 0  # the context window the share is measured against
        self._watchers: set[asyncio.Task[None]] = set()
        self._exact = True
        self._sent_count: tuple[tuple[int, bool], int] = ((0, True), 0)

    @property
    def configured(self) -> bool:
        return bool(self.servers.servers)

    # -- starting and stopping --------------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background; config problems are said, one line each."""
        for problem in self.servers.problems:
            self._say("warning", problem)
        for spec in self.servers.servers:
            self._start(spec)

    def _start(self, spec: ServerSpec) -> None:
        connection = ServerConnection(spec, self.config, self.log_dir)
        self.connections[spec.name] = connection
        connection.start()
        if spec.enabled:
            task = asyncio.create_task(self._settle(connection), name=f"mcp-settle-{spec.name}")
            self._watchers.add(task)
            task.add_done_callback(self._watchers.discard)

    async def _settle(self, connection: ServerConnection) -> None:
        if await connection.wait():
            self._add_tools(connection)
        else:
            self._say(
                "warning",
                f"MCP server `{connection.name}` did not start: {connection.error} The agent goes on "
                f"without its tools (hws mcp test {connection.name}).",
            )

    async def wait_started(self, timeout: float | None = None) -> None:
        """Wait until every server is ready or has failed (tests, `hws mcp list`, the bench)."""
        pending = [c.wait() for c in self.connections.values() if c.state == STARTING]
        if pending:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*pending), timeout)
        for _ in range(3):  # let the settle tasks register what the servers listed
            await asyncio.sleep(0)
        if self._watchers:
            await asyncio.wait(list(self._watchers), timeout=timeout)

    async def stop(self) -> None:
        """Stop every server (their processes end)."""
        for task in list(self._watchers):
            task.cancel()
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    # -- tools ------------------------------------------------------------------------------------

    def _add_tools(self, connection: ServerConnection) -> None:
        limit = int(self.config.mcp.description_max_chars)
        notes: list[ToolNote] = []
        tools: list[Tool] = []
        for listed in connection.tools:
            if not connection.spec.wants(str(listed.name)):
                continue
            tool, note = adapt_tool(connection, listed, limit)
            notes.append(note)
            if tool is not None and tool.name not in self.registry:
                tools.append(tool)
        self.notes[connection.name] = notes
        for tool in tools:
            self.registry.register(tool)
        schemas = [t.schema() for t in tools]
        if self._over_share(schemas):
            self.deferred_servers.add(connection.name)
            self.deferred.update((t.name, t) for t in tools)
            if SEARCH_TOOL not in self.registry:
                self.registry.register(search_tool(self))
            self._send(self.registry.get(SEARCH_TOOL))
        else:
            for tool in tools:
                self._send(tool)
        for note in notes:
            for flag in note.flags:
                self._say(
                    "warning",
                    f"MCP tool `{note.name}`: a description was cut as a prompt injection ({flag}).",
                )

    def _over_share(self, schemas: list[dict[str, Any]]) -> bool:
        share = float(self.config.mcp.defer_share)
        window = self.window_tokens or int(self.config.model.fallback_context_length)
        sent = tool_schema_tokens(self.sent, self._exact) if self.sent else 0
        added = tool_schema_tokens(schemas, self._exact) if schemas else 0
        return sent + added > share * window

    def _send(self, tool: Tool | None) -> None:
        if tool is None or tool.name in self._sent_names:
            return
        self._sent_names.add(tool.name)
        self.sent.append(tool.schema())

    def choose(self, names: list[str]) -> list[str]:
        """Deferred tools the model found: their schemas join the next call (appended); the names added."""
        added = []
        for name in names:
            tool = self.deferred.get(name)
            if tool is not None and name not in self._sent_names:
                self._send(tool)
                added.append(name)
        return added

    def schemas(self, base: list[dict[str, Any]], window_tokens: int = 0) -> list[dict[str, Any]]:
        """The next call's tools: the built-in ones, then the MCP schemas in the order they joined."""
        if window_tokens:
            self.window_tokens = window_tokens
        return [*base, *self.sent] if self.sent else base

    def sent_tokens(self, exact: bool = True) -> int:
        """What the MCP schemas sent with every call cost (counted again only when the list grew)."""
        key = (len(self.sent), exact)
        if self._sent_count[0] != key:
            self._sent_count = (key, tool_schema_tokens(self.sent, exact) if self.sent else 0)
        return self._sent_count[1]

    async def registry_for(self, name: str) -> ToolRegistry | None:
        """The registry that runs `name`: this one when it is an MCP tool (waiting for a server that is
        still starting and may offer it), else None."""
        if name in self.registry:
            return self.registry
        if not name.startswith("mcp_") and name != SEARCH_TOOL:
            return None
        starting = [
            c
            for c in self.connections.values()
            if c.state == STARTING and (name == SEARCH_TOOL or name.startswith(_prefix(c)))
        ]
        if starting:
            await self.wait_started(max(c.spec.start_timeout(self.config) for c in starting))
        return self.registry if name in self.registry else None

    # -- reload -----------------------------------------------------------------------------------

    async def reload(self, config: Config) -> str:
        """Apply `mcp_servers` as config.yaml holds it now: changed servers restart, removed ones stop.

        The tool list of the next call changes, so its cached prefix starts anew; the sentence says so.
        """
        servers = read_servers(config)
        self.config = config
        old = {name: c.spec for name, c in self.connections.items()}
        new = {s.name: s for s in servers.servers}
        failed = {n for n, c in self.connections.items() if c.state == FAILED}
        changed = [n for n in new if n not in old or n in failed or _differs(old[n], new[n])]
        removed = [n for n in old if n not in new or n in changed]
        for name in removed:
            await self.connections.pop(name).stop()
        self.servers = servers
        self._reset_tools()
        for name in changed:
            self._start(new[name])
        for name, connection in self.connections.items():
            if name not in changed and connection.state == READY:
                self._add_tools(connection)
        for problem in servers.problems:
            self._say("warning", problem)
        gone = [n for n in removed if n not in new]
        parts = [
            f"restarting {', '.join(changed)}" if changed else "",
            f"stopped {', '.join(gone)}" if gone else "",
        ]
        what = "; ".join(p for p in parts if p) or "nothing changed"
        sentence = (
            f"MCP servers reloaded ({what}); the tool list of the next call changes, "
            "so its cached prefix starts anew."
        )
        return sentence  # the caller says it (the workstation's /reload-mcp)

    def _reset_tools(self) -> None:
        self.registry = ToolRegistry()
        self.notes.clear()
        self.deferred.clear()
        self.deferred_servers.clear()
        self.sent = []
        self._sent_names.clear()

    # -- what is shown ----------------------------------------------------------------------------

    def views(self) -> list[ServerView]:
        views = []
        for spec in self.servers.servers:
            connection = self.connections.get(spec.name)
            notes = self.notes.get(spec.name, [])
            offered = [n for n in notes if not n.problem]
            schemas = [self.registry.get(n.name).schema() for n in offered if n.name in self.registry]  # type: ignore[union-attr]
            state = (
                connection.state if connection is not None else ("stopped" if spec.enabled else "disabled")
            )
            left_out = [f"{n.tool}: {n.problem}" for n in notes if n.problem]
            if connection is not None and connection.listed_more:
                left_out.append(f"{connection.listed_more} more tools past mcp.max_tools")
            views.append(
                ServerView(
                    name=spec.name,
                    state=state,
                    where=spec.where,
                    transport=spec.transport,
                    trust=spec.trust_level(self.config),
                    tools=len(offered),
                    schema_tokens=tool_schema_tokens(schemas, self._exact) if schemas else 0,
                    deferred=spec.name in self.deferred_servers,
                    error=connection.error if connection is not None and connection.state == FAILED else "",
                    flags=tuple(f"{n.tool}: {f}" for n in notes for f in n.flags),
                    left_out=tuple(left_out),
                )
            )
        return views

    def _say(self, level: str, text: str) -> None:
        log.info("%s", text)
        if self._emit is not None:
            try:
                self._emit(Status(self._session_id(), level, text))
            except Exception:  # the UI's trouble is not the server's
                log.exception("could not show an MCP line")


def _prefix(connection: ServerConnection) -> str:
    from engine.mcp.adapt import tool_name

    return tool_name(connection.name, "")


def _differs(a: ServerSpec, b: ServerSpec) -> bool:
    return dataclasses.replace(a, line=0) != dataclasses.replace(b, line=0)


def look(
    home: Home, config: Config, servers: ServerList | None = None, *, log_dir: bool = True
) -> tuple[McpHub, list[ServerView]]:
    """Start the servers (all, or `servers`), wait until each is ready or failed, and stop them: the hub
    (what they offered is still there) and the servers as they were (`hws mcp list`, doctor, prompt)."""

    async def run() -> tuple[McpHub, list[ServerView]]:
        hub = McpHub(home, config, servers=servers, log_dir=log_dir)
        hub.window_tokens = int(config.model.context_length or config.model.fallback_context_length)
        hub.start()
        try:
            limit = max((s.start_timeout(config) for s in hub.servers.servers), default=1.0)
            await hub.wait_started(limit + 5)
            views = hub.views()
        finally:
            await hub.stop()
        return hub, views

    return asyncio.run(run())

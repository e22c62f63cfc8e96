"""One MCP server's session, held open by a task of its own for as long as the agent runs.

The SDK's client must be entered and left in the same task, so `start` spawns that task: it
connects, lists the tools, and then waits until `stop`. Calls come from the turn's tasks; a call
that is cancelled (ctrl+c) or times out sends MCP's cancellation to the server (the SDK does).
Nothing here raises into the agent: a server that fails to start or dies is a `state` and a
sentence in `error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

from engine.config import Config
from engine.mcp.servers import ResolveError, ServerSpec, resolved

log = logging.getLogger(__name__)

STARTING, READY, FAILED, STOPPED, DISABLED = "starting", "ready", "failed", "stopped", "disabled"
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


class McpCallError(Exception):
    """A call that did not come back (timeout, a server that died, a refused request); a sentence."""


class ServerConnection:
    """A server's state (`starting`, `ready`, `failed`, `stopped`), its tools once listed, and its calls."""

    def __init__(self, spec: ServerSpec, config: Config, log_dir: Path | None = None) -> None:
        self.spec = spec
        self.config = config
        self.log_dir = log_dir
        self.state = STARTING if spec.enabled else DISABLED
        self.error = ""
        self.tools: list[Any] = []  # mcp_types.Tool, as the server listed them (before any filter)
        self.listed_more = 0  # tools past `mcp.max_tools`, left out
        self.resources: list[Any] = []  # mcp_types.Resource, when the server offers resources
        self.prompts: list[Any] = []  # mcp_types.Prompt, when the server offers prompts
        self.started_s = 0.0  # seconds from start to tools listed
        self.server_name = ""  # what the server calls itself
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._errlog: IO[str] | None = None
        self._stopping = False

    @property
    def name(self) -> str:
        return self.spec.name

    def start(self) -> None:
        """Start connecting in the background (returns at once); `wait` for the outcome."""
        if self._task is not None or self.state == DISABLED:
            self._settled.set()
            return
        self._task = asyncio.create_task(self._watch(), name=f"mcp-{self.name}")

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until the server is ready or has failed; True when it is ready."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)
        return self.state == READY

    async def stop(self) -> None:
        """Leave the session and end the server (its process, for a command)."""
        self._stopping = True
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self.state in (STARTING, READY):
            self.state = STOPPED
        self._settled.set()

    async def call(self, tool: str, arguments: dict[str, Any], progress: ProgressFn | None = None) -> Any:
        """Call `tool` on the server; McpCallError (a sentence) when no answer comes back."""
        if self.state != READY or self._client is None:
            raise McpCallError(self._not_ready())
        timeout = self.spec.call_timeout(self.config)
        try:
            async with asyncio.timeout(timeout):
                return await self._client.call_tool(tool, arguments, progress_callback=progress)
        except TimeoutError:
            raise McpCallError(
                f"The MCP server `{self.name}` did not answer within {timeout:g} s; the call was cancelled. "
                f"Raise its `timeout` in config.yaml if it needs longer."
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if (self._task is not None and self._task.done()) or _closed(exc):
                self._died(exc)
                raise McpCallError(
                    f"The MCP server `{self.name}` stopped during the call ({_reason(exc)}); "
                    "it is not used again until /reload-mcp."
                ) from None
            raise McpCallError(f"The MCP server `{self.name}` refused the call: {_reason(exc)}") from None

    def _not_ready(self) -> str:
        if self.state == STARTING:
            return f"The MCP server `{self.name}` is still starting; try again in a moment."
        if self.state == FAILED:
            return f"The MCP server `{self.name}` is not running: {self.error}"
        return f"The MCP server `{self.name}` is {self.state}."

    def _died(self, exc: BaseException) -> None:
        if self.state == READY:
            self.state = FAILED
            self.error = f"it stopped ({_reason(exc)})."
        self._stop.set()

    async def _watch(self) -> None:
        """Run the session, giving up on a start that takes longer than the server's connect timeout."""
        started = time.perf_counter()
        limit = self.spec.start_timeout(self.config)
        run = asyncio.create_task(self._run(started))
        try:
            await asyncio.wait_for(asyncio.shield(self._settled.wait()), limit)
        except TimeoutError:
            self._fail(f"it did not start within {limit:g} s (mcp.connect_timeout).")
            run.cancel()
        with contextlib.suppress(BaseException):
            await run
        if self.state == READY and self._stopping:
            self.state = STOPPED
        elif self.state == READY:  # the session ended by itself: the server went away
            self.state = FAILED
            self.error = "it stopped."
        self._close_errlog()

    async def _run(self, started: float) -> None:
        from mcp import Client
        from mcp_types import Implementation

        try:
            spec = resolved(self.spec, self.config)
            transport = await self._transport(spec)
            client = Client(transport, client_info=Implementation(name="hws", version="0.1.0"))
            async with client:
                self._client = client
                self.server_name = client.server_info.name if client.server_info else ""
                await self._list_tools(client)
                await self._list_extras(client)
                self.started_s = time.perf_counter() - started
                self.state = READY
                self._settled.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            if self.state == STARTING:
                self._fail("it was stopped before it had started.")
        except ResolveError as exc:
            self._fail(str(exc))
        except BaseException as exc:  # a server's failure is a state, never the agent's crash
            log.info("MCP server %s: %s", self.name, exc, exc_info=True)
            if self.state == READY:
                self._died(exc)
            else:
                where = (
                    f"; its messages are in logs/mcp-{self.name}.log"
                    if self.spec.transport == "stdio"
                    else ""
                )
                self._fail(f"it could not start ({_reason(exc)}{where}).")
        finally:
            self._client = None
            self._settled.set()

    def _fail(self, sentence: str) -> None:
        if self.state in (STARTING, READY):
            self.state = FAILED
            self.error = sentence
        self._settled.set()

    async def _list_tools(self, client: Any) -> None:
        cap = int(self.config.mcp.max_tools)
        tools: list[Any] = []
        cursor: str | None = None
        for _page in range(100):  # a paginator that never ends cannot hold the start
            listed = await client.list_tools(cursor=cursor)
            tools.extend(listed.tools)
            cursor = listed.next_cursor
            if not cursor or len(tools) > cap:
                break
        self.listed_more = max(len(tools) - cap, 0)
        self.tools = tools[:cap]

    async def _list_extras(self, client: Any) -> None:
        """The resources and prompts the server says it offers (`@server:resource`, `/mcp:server:prompt`);
        a server that lists them wrongly still offers its tools."""
        capabilities = client.server_capabilities
        cap = int(self.config.mcp.max_tools)
        try:
            if capabilities.resources is not None:
                self.resources = list((await client.list_resources()).resources)[:cap]
            if capabilities.prompts is not None:
                self.prompts = list((await client.list_prompts()).prompts)[:cap]
        except Exception as exc:  # resources and prompts are extras: the tools still count
            log.info("MCP server %s listed no resources or prompts: %s", self.name, exc)

    async def read_resource(self, uri: str) -> Any:
        """A resource's contents (ReadResourceResult); McpCallError (a sentence) when none come back."""
        return await self._request(f"read `{uri}`", lambda c: c.read_resource(uri))

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """A prompt's messages (GetPromptResult); McpCallError (a sentence) when none come back."""
        return await self._request(f"give the prompt `{name}`", lambda c: c.get_prompt(name, arguments))

    async def _request(self, what: str, send: Callable[[Any], Awaitable[Any]]) -> Any:
        if self.state != READY or self._client is None:
            raise McpCallError(self._not_ready())
        timeout = self.spec.call_timeout(self.config)
        try:
            async with asyncio.timeout(timeout):
                return await send(self._client)
        except TimeoutError:
            raise McpCallError(f"The MCP server `{self.name}` did not {what} within {timeout:g} s.") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise McpCallError(f"The MCP server `{self.name}` could not {what}: {_reason(exc)}") from None

    async def _transport(self, spec: ServerSpec) -> Any:
        if spec.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env=spec.env or None, cwd=spec.cwd or None
            )
            return stdio_client(params, errlog=self._open_errlog())
        from mcp.shared._httpx_utils import create_mcp_http_client

        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(spec.url, headers=spec.headers or None)
        from mcp.client.streamable_http import streamable_http_client

        return _http_transport(
            streamable_http_client, create_mcp_http_client(headers=spec.headers or None), spec.url
        )

    def _open_errlog(self) -> IO[str]:
        """Where the server's stderr goes: logs/mcp-NAME.log in the home (never the person's terminal)."""
        if self.log_dir is not None:
            with contextlib.suppress(OSError):
                self.log_dir.mkdir(parents=True, exist_ok=True)
                self._errlog = open(self.log_dir / f"mcp-{self.name}.log", "a", encoding="utf-8")  # noqa: SIM115
                return self._errlog
        self._errlog = open("/dev/null", "w", encoding="utf-8")  # noqa: SIM115
        return self._errlog

    def _close_errlog(self) -> None:
        if self._errlog is not None:
            with contextlib.suppress(OSError):
                self._errlog.close()
            self._errlog = None


@contextlib.asynccontextmanager
async def _http_transport(make: Any, http_client: Any, url: str) -> Any:
    """The streamable HTTP transport with its HTTP client closed when it is left."""
    async with http_client, make(url, http_client=http_client) as streams:
        yield streams


def _closed(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(word in text for word in ("closed", "connection", "broken pipe", "eof"))


def _reason(exc: BaseException) -> str:
    """An exception as a short clause (the first of a group's exceptions)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().rstrip(".") or type(exc).__name__
    return text.splitlines()[0][:200]

"""`hws acp` as a real subprocess, driven by the ACP SDK's client side: what it sends, what it answers."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    DeniedOutcome,
    RequestPermissionResponse,
    TextContentBlock,
)

from tests.support.fault_support import hws_env

WAIT = 60.0  # upper bound for one request in these tests; never a timing claim


@dataclass
class RecordingClient:
    """An ACP client that keeps every update and answers each permission request as `answer` says."""

    answer: str = "once"  # the option id to pick, or "cancel" to cancel the request
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    initialized: Any = None  # the agent's answer to `initialize`

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.permissions.append((tool_call, options))
        if self.answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self.arrived.set()

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: type) -> list[Any]:
        return [update for _, update in self.updates if isinstance(update, kind)]

    def text(self, kind: type = AgentMessageChunk) -> str:
        return "".join(u.content.text for u in self.of(kind) if isinstance(u.content, TextContentBlock))

    async def wait_for(self, kind: type) -> Any:
        async with asyncio.timeout(WAIT):
            while not self.of(kind):
                self.arrived.clear()
                await self.arrived.wait()
        return self.of(kind)[0]


@asynccontextmanager
async def hws_acp(
    home: Path, cwd: Path, client: RecordingClient, *args: str
) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """`hws acp ARGS` started as an editor starts it, initialised; yields the connection and the process."""
    env = hws_env(home)
    async with spawn_agent_process(
        client, sys.executable, "-m", "tui.main", "acp", *args, env=env, cwd=str(cwd)
    ) as (conn, process):
        async with asyncio.timeout(WAIT):
            client.initialized = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        yield conn, process


async def prompt(conn: ClientSideConnection, session_id: str, text: str) -> Any:
    async with asyncio.timeout(WAIT):
        return await conn.prompt(session_id=session_id, prompt=[text_block(text)])

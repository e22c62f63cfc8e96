"""Shared set-up for the agent tests: a scripted server, a real home, and an agent wired to both."""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.agent.turns import Agent
from engine.config import load_config
from engine.events import Event
from engine.home import Home
from engine.llm.direct import DirectLLMClient
from engine.llm.settings import ModelSettings
from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore

WAIT = 15.0  # upper bound for background work in tests; never a timing assertion


def serve(text: str) -> ScriptedModelServer:
    return ScriptedModelServer.from_yaml(textwrap.dedent(text)).start()


def write_config(home_root: Path, **sections: dict[str, Any]) -> None:
    home_root.mkdir(parents=True, exist_ok=True)
    (home_root / "config.yaml").write_text(yaml.safe_dump(sections), encoding="utf-8")


def client_for(server: ScriptedModelServer, **settings: Any) -> DirectLLMClient:
    options: dict[str, Any] = {"model": "scripted", "retry_base_delay": 0.01, "stale_timeout": 10.0}
    options.update(settings)
    return DirectLLMClient(ModelSettings(base_url=server.base_url, **options))


@dataclass
class Rig:
    """An agent, its home and working folder, and every background event it sent."""

    agent: Agent
    home: Home
    cwd: Path
    background: list[Event] = field(default_factory=list)

    async def turn(self, text: str) -> list[Event]:
        return [event async for event in self.agent.run_turn(text)]

    async def settle(self) -> None:
        assert await self.agent.wait_background(WAIT), "the background review did not finish"


def make_rig(
    server: ScriptedModelServer, hermes_home: Path, tmp_path: Path, *, cwd: Path | None = None, **options: Any
) -> Rig:
    home = Home.resolve(hermes_home).ensure()
    config = load_config(home.root)
    if cwd is None:
        cwd = tmp_path / "project"
        cwd.mkdir(exist_ok=True)
    background: list[Event] = []
    client = options.pop("client", None) or client_for(server)
    agent = Agent(
        home,
        config,
        cwd=cwd,
        client=client,
        aux_client=options.pop("aux_client", client),
        on_background=background.append,
        **options,
    )
    return Rig(agent, home, cwd, background)


def of_type(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def text_of(events: list[Event]) -> str:
    from engine.events import TextDelta

    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def stored_messages(home: Home, session_id: str) -> list[Any]:
    store = await SessionStore.open(home.state_db)
    try:
        return await store.get_messages(session_id)
    finally:
        await store.close()


async def stored_session(home: Home, session_id: str) -> Any:
    store = await SessionStore.open(home.state_db)
    try:
        return await store.get_session(session_id)
    finally:
        await store.close()


async def wait_for(condition: Any, timeout: float = WAIT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)

"""MCP: what servers cost the first turn, a call, and every request's fixed tokens.

- first token of a session's first turn with 3 servers configured, beside none (the servers start in
  the background: the first token must not wait for them), and how long the servers took to start;
- per-call overhead of an MCP tool (an echo over stdio) beside a built-in tool doing nothing;
- the fixed tokens of every request with 3 servers (time, git, a 200-tool server), offered in full
  and deferred behind `tool_search`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from bench.common import Figure, Options, median, temp_home
from engine.config import load_config
from engine.events import TextDelta
from engine.home import Home
from engine.prompt.build import tool_schema_tokens
from engine.tools.context import ToolContext
from engine.tools.registry import Tool, default_registry

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _servers(many: bool = True) -> dict[str, Any]:
    support = {"command": sys.executable, "args": ["-m", "tests.support.mcp_servers"], "cwd": str(ROOT)}
    servers: dict[str, Any] = {
        "time": {"command": str(BIN / "mcp-server-time"), "trust": "allow"},
        "git": {"command": str(BIN / "mcp-server-git"), "trust": "allow"},
    }
    kind = "many" if many else "faulty"
    servers[kind] = {**support, "args": [*support["args"], kind], "trust": "allow"}
    return servers


def _write(root: Path, servers: dict[str, Any], **sections: Any) -> None:
    data = {"mcp_servers": servers, **sections} if servers else sections
    (root / "config.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


async def _first_token(root: Path, base_url: str) -> tuple[float, float]:
    """Milliseconds to the first token of a new session's first turn; and until its servers were up."""
    from engine.agent.turns import Agent
    from engine.llm.direct import DirectLLMClient
    from engine.llm.settings import ModelSettings

    home = Home(root).ensure()
    client = DirectLLMClient(ModelSettings(base_url=base_url, model="scripted"))
    agent = Agent(home, load_config(root), cwd=root, client=client, aux_client=client, exact_tokens=False)
    started = time.perf_counter()
    first = 0.0
    async for event in agent.run_turn("hello"):
        if isinstance(event, TextDelta) and not first:
            first = (time.perf_counter() - started) * 1000
    servers_up = 0.0
    if agent.mcp is not None:
        await agent.mcp.wait_started(60)
        servers_up = (time.perf_counter() - started) * 1000
    await agent.close()
    return first, servers_up


async def _startup_figures(runs: int) -> list[Figure]:
    from engine.model_server.server import ScriptedModelServer

    server = ScriptedModelServer.from_yaml("rules:\n  - reply: {text: Hello there.}\n").start()
    try:
        bare, with_servers, up = [], [], []
        for _ in range(runs):
            with temp_home() as root:
                _write(root, {})
                bare.append((await _first_token(root, server.base_url))[0])
            with temp_home() as root:
                _write(root, _servers(many=False))
                first, servers_up = await _first_token(root, server.base_url)
                with_servers.append(first)
                up.append(servers_up)
    finally:
        server.stop()
    extra = median(with_servers) - median(bare)
    return [
        Figure("first token, no MCP server", median(bare), "ms"),
        Figure(
            "first token, 3 MCP servers starting",
            median(with_servers),
            "ms",
            "≤ +50 ms",
            f"{median(bare):,.0f} ms without",
            met=extra <= 50,
        ),
        Figure("3 MCP servers up (from the turn's start)", median(up), "ms", "", "in the background"),
    ]


async def _call_figures(runs: int) -> list[Figure]:
    from engine.mcp.hub import McpHub

    async def noop(args: dict[str, Any], ctx: ToolContext) -> str:
        return "ok"

    with temp_home() as root:
        _write(root, {"faulty": _servers(many=False)["faulty"]})
        home, config = Home(root).ensure(), load_config(root)
        ctx = ToolContext(home, config, root, session_id="bench")
        registry = default_registry()
        registry.register(Tool("noop", "bench", "Do nothing.", {"type": "object", "properties": {}}, noop))
        hub = McpHub(home, config)
        hub.start()
        await hub.wait_started(60)
        try:
            built_in = await _samples(lambda: registry.dispatch("noop", "{}", ctx), runs)
            mcp = await _samples(lambda: hub.registry.dispatch("mcp_faulty_echo", '{"text": "x"}', ctx), runs)
        finally:
            await hub.stop()
    return [
        Figure("call, built-in tool doing nothing", median(built_in), "ms"),
        Figure(
            "call, MCP echo over stdio",
            median(mcp),
            "ms",
            "",
            f"+{median(mcp) - median(built_in):,.2f} ms over a built-in",
        ),
    ]


async def _samples(call: Any, runs: int) -> list[float]:
    for _ in range(3):
        await call()
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def _token_figures() -> list[Figure]:
    from engine.mcp.hub import McpHub

    base = tool_schema_tokens(default_registry().schemas())
    figures = []
    for share, label in ((1.0, "offered in full"), (0.0, "deferred behind tool_search")):
        with temp_home() as root:
            _write(root, _servers(), mcp={"defer_share": share})
            home, config = Home(root).ensure(), load_config(root)
            hub = McpHub(home, config)
            hub.start()
            await hub.wait_started(60)
            tokens = hub.sent_tokens()
            count = len(hub.sent)
            await hub.stop()
        figures.append(
            Figure(
                f"fixed tokens, 3 MCP servers {label}",
                base + tokens,
                "tokens",
                "",
                f"{base:,} built-in; MCP {tokens:,} in {count} schemas",
            )
        )
    return figures


def run(options: Options) -> list[Figure]:
    runs = 3 if options.quick else 7
    figures = asyncio.run(_startup_figures(runs))
    figures += asyncio.run(_call_figures(30 if options.quick else 200))
    figures += asyncio.run(_token_figures())
    return figures

"""The tool layer: what a call costs besides the tool's own work, and what the schemas cost in tokens."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import Figure, Options, median, temp_home
from engine.config import defaults
from engine.home import Home
from engine.text import tokens
from engine.tools.context import ToolContext
from engine.tools.registry import Tool, default_registry
from engine.tools.terminal_session import close_terminal

PROMPT_AND_SCHEMA_BUDGET = 5000  # tokens: system prompt plus every tool schema, empty memory, no skills
HERMES_SCHEMA_CHARS = 47_000  # Hermes Agent 0.19.0: JSON schemas of its 27 default tools
HERMES_TOOLS = 27
# The file, search, terminal and todo schemas may take a quarter of the budget; the system prompt and
# the memory, skills and session_search schemas share the rest.
SHARE = PROMPT_AND_SCHEMA_BUDGET // 4


async def _noop(args: dict[str, Any], ctx: ToolContext) -> str:
    return "ok"


async def _samples(call: Callable[[], Awaitable[object]], runs: int, warmup: int = 5) -> list[float]:
    for _ in range(warmup):
        await call()
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def _dispatch_figures(runs: int) -> list[Figure]:
    with temp_home() as root, tempfile.TemporaryDirectory(prefix="hws-bench-cwd-") as cwd_name:
        cwd = Path(cwd_name)
        (cwd / "app.py").write_text("".join(f"line_{n} = {n}\n" for n in range(200)))
        registry = default_registry()
        registry.register(Tool("noop", "bench", "Do nothing.", {"type": "object", "properties": {}}, _noop))
        ctx = ToolContext(Home(root).ensure(), defaults(), cwd, session_id="bench")
        noop = await _samples(lambda: registry.dispatch("noop", "{}", ctx), runs)
        read = await _samples(lambda: registry.dispatch("read_file", '{"path": "app.py"}', ctx), runs)
        flip = iter(range(10**9))

        def patch() -> Awaitable[object]:
            n = next(flip)
            old, new = ("line_7 = 7", "line_7 = 8") if n % 2 == 0 else ("line_7 = 8", "line_7 = 7")
            return registry.dispatch(
                "patch", json.dumps({"path": "app.py", "old_string": old, "new_string": new}), ctx
            )

        patched = await _samples(patch, runs)
        shell_runs = max(runs // 10, 5)
        term = await _samples(lambda: registry.dispatch("terminal", '{"command": "true"}', ctx), shell_runs)
        await close_terminal(ctx)
        fresh_config = defaults()
        fresh_config.sections["terminal"].values["persistent"] = False
        fresh_ctx = ToolContext(Home(root).ensure(), fresh_config, cwd, session_id="bench-fresh")
        fresh = await _samples(
            lambda: registry.dispatch("terminal", '{"command": "true"}', fresh_ctx), shell_runs
        )
        broken = await _samples(lambda: registry.dispatch("read_file", '{"path": ', ctx), runs)
    return [
        Figure(
            "dispatch overhead (no-op tool)",
            median(noop) * 1000,
            "µs",
            "< 100 µs",
            met=median(noop) < 0.1,
            note="parse + validate + handler + cap + previews",
        ),
        Figure("dispatch of broken JSON", median(broken) * 1000, "µs", note="error result built"),
        Figure("read_file, 200-line file", median(read), "ms", note="median, includes the thread hop"),
        Figure("patch, 200-line file", median(patched), "ms", note="median, atomic write with fsync"),
        Figure(
            "terminal `true`, persistent shell",
            median(term),
            "ms",
            note=f"median of {len(term)}, the session's shell (in the sandbox when it starts)",
        ),
        Figure(
            "terminal `true`, fresh bash",
            median(fresh),
            "ms",
            note=f"median of {len(fresh)}, a new bash (and sandbox) per call (terminal.persistent: false)",
        ),
        Figure(
            "persistent shell vs fresh bash",
            median(fresh) / median(term) if median(term) else 0.0,
            "×",
            note="per-call time of a fresh bash over the persistent shell's, same run",
        ),
    ]


def _schema_figures() -> list[Figure]:
    registry = default_registry()
    text = json.dumps(registry.schemas())
    total = tokens.count(text)
    per_tool = {t.name: tokens.count(json.dumps(t.schema())) for t in registry}
    hermes_tokens = tokens.estimate("x" * HERMES_SCHEMA_CHARS)
    biggest = max(per_tool, key=lambda name: per_tool[name])
    return [
        Figure(
            f"tool schemas, {len(registry)} tools",
            total,
            "tokens",
            f"<= {SHARE:,} of the {PROMPT_AND_SCHEMA_BUDGET:,} shared with the prompt",
            baseline=f"Hermes: {HERMES_SCHEMA_CHARS:,} chars ~{hermes_tokens:,} tok, {HERMES_TOOLS} tools",
            note=f"{len(text):,} chars; largest {biggest} ({per_tool[biggest]} tokens)",
            met=total <= SHARE,
        ),
        Figure(
            "tokens per tool schema",
            total / len(registry),
            "tokens",
            baseline=f"Hermes: ~{hermes_tokens // HERMES_TOOLS:,} tokens",
            note=", ".join(f"{name} {n}" for name, n in per_tool.items()),
        ),
        *_configured_figures(),
    ]


def _configured_figures() -> list[Figure]:
    """What clarify and the web tools add to the agent's list: by default, and with a search backend."""
    from engine.tools import delegate
    from engine.tools.knowledge import agent_registry

    config = defaults()
    base = tokens.count(json.dumps(agent_registry().schemas()))
    default_list = agent_registry(config)
    config.sections["web"].values["search_backend"] = "searxng"
    full = agent_registry(config)
    added = {t.name: tokens.count(json.dumps(t.schema())) for t in full if t.toolset in ("clarify", "web")}
    default_added = sum(n for name, n in added.items() if name in default_list)
    return [
        Figure(
            "clarify + web tools, default config",
            default_added,
            "tokens",
            note=f"the agent's list {base:,} -> {tokens.count(json.dumps(default_list.schemas())):,} tokens; "
            + ", ".join(f"{name} {n}" for name, n in added.items())
            + " (web_search only with web.search_backend)",
        ),
        Figure(
            "delegate_task, offered while delegation.enabled",
            tokens.count(json.dumps(delegate.TOOL.schema())),
            "tokens",
            note="a configured tool, outside the built-in total; delegation.enabled: false drops it",
        ),
    ]


def run(options: Options) -> list[Figure]:
    runs = 200 if options.quick else 2000
    return [*asyncio.run(_dispatch_figures(runs)), *_schema_figures()]

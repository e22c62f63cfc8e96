"""The agent's tools: a registry with JSON schemas and a dispatcher that never raises.

Adding a tool is a `Tool(...)` value in any module plus one line where the agent builds its
registry (`registry.register(MEMORY)`), or a module named in `TOOL_MODULES` that exposes `TOOLS`:

    async def _memory(args: dict, ctx: ToolContext) -> dict:
        result = ctx.resource("memory").add(args["target"], args["content"])  # raise ToolError to refuse
        await ctx.send(MemoryWritten(ctx.session_id, args["target"], "add", "agent", result["id"], "..."))
        return result  # a dict or text; ToolResult(content, ok, summary, display) for more control

    def _preview(args: Mapping, width: int) -> str:  # `memory   +user "User hates light…"`
        return f"+{args.get('target')} " + quoted(str(args.get("content", "")), width - 6)

    MEMORY = Tool("memory", "memory", "Save durable facts…", {"type": "object", ...}, _memory, _preview)

The agent calls `registry.call_detail(name, raw_args, width)` for the ToolCalled line, then
`await registry.dispatch(name, raw_args, ctx)`, whose `ToolOutcome` carries the text for the model
(`content`), `ok`, the one-line result `summary` and any UI-only `display` (diffs).

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "context": "ApprovalRequest Decision SessionState TodoItem ToolContext deny_all drop_event",
        "errors": "ToolError",
        "registry": "Tool ToolOutcome ToolRegistry ToolResult parse_arguments",
    },
)

if TYPE_CHECKING:
    from engine.tools.context import ApprovalRequest as ApprovalRequest
    from engine.tools.context import Decision as Decision
    from engine.tools.context import SessionState as SessionState
    from engine.tools.context import TodoItem as TodoItem
    from engine.tools.context import ToolContext as ToolContext
    from engine.tools.context import deny_all as deny_all
    from engine.tools.context import drop_event as drop_event
    from engine.tools.errors import ToolError as ToolError
    from engine.tools.registry import Tool as Tool
    from engine.tools.registry import ToolOutcome as ToolOutcome
    from engine.tools.registry import ToolRegistry as ToolRegistry
    from engine.tools.registry import ToolResult as ToolResult
    from engine.tools.registry import parse_arguments as parse_arguments

# Modules whose `TOOLS` list makes up the default registry, in the order their schemas are sent.
TOOL_MODULES: tuple[str, ...] = ("engine.tools.builtin",)


def default_registry(modules: tuple[str, ...] = TOOL_MODULES) -> ToolRegistry:
    """A fresh registry holding every tool of `modules` (a module that is missing is a bug, not skipped)."""
    from engine.tools.registry import ToolRegistry

    registry = ToolRegistry()
    for name in modules:
        for tool in importlib.import_module(name).TOOLS:
            registry.register(tool)
    return registry

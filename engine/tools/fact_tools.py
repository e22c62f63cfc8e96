"""`fact_store` and `fact_feedback`: the fact store's tools, offered while it is the memory provider.

The store is the session's `facts` resource (opened by the agent when `memory.provider` is
`holographic`); calls run off the event loop. Every write passes the store's guard (the secret check
and the threat scanner) before anything reaches the file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.providers.facts import tools as fact_tools
from engine.providers.facts.shown import call_with_event
from engine.tools.context import ToolContext
from engine.tools.preview import one_line, quoted
from engine.tools.registry import Tool, ToolResult

FACT_TOOLSET = "facts"
_NOT_OPEN = "The fact store is not open in this session; set `memory.provider: holographic` to use it."


def _preview_store(args: Mapping[str, Any], width: int) -> str:
    action = str(args.get("action") or "?")
    entities = args.get("entities")
    subject = args.get("content") or args.get("query") or args.get("entity") or args.get("fact_id")
    if isinstance(entities, list) and entities:
        subject = " + ".join(str(e) for e in entities)
    if subject is None or subject == "":
        return one_line(action, width)
    return one_line(f"{action} " + quoted(str(subject), max(width - len(action) - 1, 8)), width)


def _preview_feedback(args: Mapping[str, Any], width: int) -> str:
    return one_line(f"{args.get('action') or '?'} fact {args.get('fact_id', '?')}", width)


def _summary(tool: str, args: dict[str, Any], result: dict[str, Any]) -> str:
    if "error" in result:
        return f"error: {result['error']}"
    if tool == "fact_feedback":
        return f"fact {result['fact_id']}: trust {result['old_trust']:.2f} -> {result['new_trust']:.2f}"
    action = str(args.get("action") or "")
    if action == "add":
        return f"fact {result['fact_id']} {result['status']}"
    if "count" in result:
        return f"{result['count']} found"
    for key in ("updated", "removed"):
        if key in result:
            return key if result[key] else f"no fact {args.get('fact_id')}"
    return "ok"


def _handler(tool: str) -> Any:
    async def handle(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        store = ctx.resources.get("facts")
        if store is None:
            return ToolResult({"error": _NOT_OPEN}, ok=False, summary=f"error: {_NOT_OPEN}")
        result, written = await asyncio.to_thread(call_with_event, store, tool, args)
        if written is not None:
            await ctx.send(replace(written, session_id=ctx.session_id))
        return ToolResult(result, ok="error" not in result, summary=_summary(tool, args, result))

    return handle


FACT_STORE_TOOL = Tool(
    "fact_store",
    FACT_TOOLSET,
    fact_tools.FACT_STORE_DESCRIPTION,
    fact_tools.FACT_STORE_PARAMETERS,
    _handler("fact_store"),
    _preview_store,
)
FACT_FEEDBACK_TOOL = Tool(
    "fact_feedback",
    FACT_TOOLSET,
    fact_tools.FACT_FEEDBACK_DESCRIPTION,
    fact_tools.FACT_FEEDBACK_PARAMETERS,
    _handler("fact_feedback"),
    _preview_feedback,
)
TOOLS = (FACT_STORE_TOOL, FACT_FEEDBACK_TOOL)

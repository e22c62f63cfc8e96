"""`tool_search`: what the model gets instead of deferred MCP schemas, to find the tools it needs.

It ranks the deferred tools by the words of the query found in their names and descriptions; the
schemas of those it returns are appended to the next call's tool list, so the model then calls
them by name like any other tool.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.registry import Tool, ToolResult

if TYPE_CHECKING:
    from engine.mcp.hub import McpHub

SEARCH_TOOL = "tool_search"
_WORD = re.compile(r"[a-z0-9]+")

DESCRIPTION = (
    "Find tools of the connected MCP servers that are not loaded yet, by what they do. The tools found "
    "are loaded: call them by name in your next step."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "Words for what the tool should do."}},
    "required": ["query"],
    "additionalProperties": False,
}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def rank(query: str, tools: dict[str, Tool], limit: int) -> list[Tool]:
    """The tools whose name and description share the most words with `query` (name words count twice)."""
    wanted = _words(query)
    scored = []
    for order, tool in enumerate(tools.values()):
        name_words = _words(tool.name)
        text_words = _words(tool.description)
        score = 2 * len(wanted & name_words) + len(wanted & text_words)
        if score:
            scored.append((-score, order, tool))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [tool for _, _, tool in scored[:limit]]


def search_tool(hub: McpHub) -> Tool:
    async def handler(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = str(arguments.get("query") or "").strip()
        if not query:
            raise ToolError('Say in a few words what the tool should do, e.g. {"query": "create issue"}.')
        found = rank(query, hub.deferred, int(ctx.config.mcp.search_results))
        if not found:
            return ToolResult(
                {"found": [], "note": "No deferred tool matches those words; try other words."},
                summary="no match",
            )
        hub.choose([t.name for t in found])
        return ToolResult(
            {
                "found": [{"name": t.name, "description": t.description} for t in found],
                "note": "These tools are loaded now: call them by name.",
            },
            summary=f"{len(found)} tool(s): {', '.join(t.name for t in found)}",
        )

    return Tool(SEARCH_TOOL, "mcp", DESCRIPTION, PARAMETERS, handler)

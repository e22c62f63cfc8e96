"""The tools over the agent's own knowledge: `memory`, the three skill tools and `session_search`.

Thin wrappers: the stores do the work (`engine.memory.store.Memory`, `engine.skills.tools.SkillTools`,
`engine.sessions.session_search`); here they become registry tools that find their store in
`ctx.resources` (`memory`, `skills`, `sessions`, optionally `summarizer`), run blocking file work
off the event loop, and report writes as events. Skill events come from `SkillTools` itself (its
`emit`); memory events are sent here, because `Memory` does not know about events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.events import MemoryWritten, WriteStaged
from engine.skills.tools import SKILL_MANAGE_SCHEMA, SKILL_VIEW_SCHEMA, SKILLS_LIST_SCHEMA
from engine.tools.context import ToolContext
from engine.tools.preview import one_line, quoted
from engine.tools.registry import Tool, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from engine.config import Config
    from engine.storage.journal import JournalEntry

KNOWLEDGE_TOOLSETS = ("memory", "skills")  # what the background review may use
MEMORY_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "replace", "remove"]},
        "target": {"type": "string", "enum": ["memory", "user"]},
        "content": {"type": "string", "description": "add/replace: the entry's new text."},
        "old_text": {"type": "string", "description": "replace/remove: a short unique part of the entry."},
        "operations": {
            "type": "array",
            "description": "Several changes to one target at once, all or nothing.",
            "items": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                    "content": {"type": "string"},
                    "old_text": {"type": "string"},
                },
                "required": ["action"],
            },
        },
    },
    "required": ["target"],
    "additionalProperties": False,
}
MEMORY_DESCRIPTION = (
    "Your persistent memory, shown in your system prompt at the start of every session. target=user: "
    "who the user is (preferences, corrections, habits); target=memory: facts about the environment "
    "(machines, projects, conventions, quirks). Short declarative entries; never task progress (the "
    "conversation is recorded) or procedures (those are skills). When full, replace or remove entries."
)


def _preview_memory(args: Mapping[str, Any], width: int) -> str:
    target = str(args.get("target") or "memory")
    operations = args.get("operations")
    if isinstance(operations, list) and operations:
        return f"{target}: {len(operations)} changes"
    action = str(args.get("action") or "")
    sign = {"add": "+", "replace": "~", "remove": "-"}.get(action, "?")
    text = str(args.get("content") or args.get("old_text") or "")
    return f"{sign}{target} " + quoted(text, max(width - len(target) - 2, 8))


async def _second_opinion(kind: str, texts: list[str], ctx: ToolContext) -> str | None:
    """The refusal sentence when the auxiliary reviewer judges an uncertain write unsafe, else None.

    Only with `security.aux_review` on (the agent then offers a `second_opinion` resource), and only for
    texts the threat patterns leave uncertain; everything else was settled by the patterns.
    """
    review = ctx.resources.get("second_opinion")
    if review is None:
        return None
    from engine.threats.review import refusal, uncertain_notes

    notes = await asyncio.to_thread(uncertain_notes, texts)
    if not notes:
        return None
    opinion = await review(kind, "\n\n".join(t for t in texts if t), notes)
    return refusal(kind, opinion) if opinion.refuses else None


def _written_texts(args: dict[str, Any], *keys: str) -> list[str]:
    """The new text a memory or skill call would write (its operations' contents included)."""
    texts = [str(args[k]) for k in keys if isinstance(args.get(k), str)]
    operations = args.get("operations")
    if isinstance(operations, list):
        texts += [
            str(op["content"])
            for op in operations
            if isinstance(op, dict) and isinstance(op.get("content"), str)
        ]
    return texts


async def _memory(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    memory = ctx.resource("memory")
    target = str(args.get("target") or "memory")
    refused = await _second_opinion("memory write", _written_texts(args, "content"), ctx)
    if refused:
        return ToolResult({"success": False, "error": refused}, ok=False, summary=f"error: {refused}")

    written: list[JournalEntry] = []  # the journal entry of the change, as the store wrote it
    result = await asyncio.to_thread(memory.tool_call, args, written.append)
    ok = bool(result.get("success"))
    message = str(result.get("message") or result.get("error") or "")
    if result.get("staged"):
        from engine.memory.staging import memory_payload, memory_summary

        pending_id = str(result["pending_id"])
        summary = memory_summary(memory_payload(args, target))
        action_name = str(args.get("action") or "batch")
        await ctx.send(WriteStaged(ctx.session_id, "memory", pending_id, action_name, summary, memory.who))
        return ToolResult(result, ok=True, summary=f"staged for approval ({pending_id})")
    if written and ok:
        entry = written[-1]
        await ctx.send(MemoryWritten(ctx.session_id, target, entry.action, memory.who, entry.id, message))
        _tell_provider(args, target, ctx)
    summary = f"{target}: {message}" if ok else f"error: {message}"
    return ToolResult(result, ok=ok, summary=summary)


def _tell_provider(args: dict[str, Any], target: str, ctx: ToolContext) -> None:
    """Hand each entry a memory call added to the memory provider (a fact store records it as a fact)."""
    host = ctx.resources.get("memory_provider")
    if host is None:
        return
    operations = args.get("operations")
    changes = operations if isinstance(operations, list) and operations else [args]
    for change in changes:
        if isinstance(change, dict) and isinstance(change.get("content"), str):
            host.memory_written(str(change.get("action") or ""), target, change["content"])


def _preview_skill_list(args: Mapping[str, Any], width: int) -> str:
    return one_line(str(args.get("category") or "all"), width)


def _preview_skill_view(args: Mapping[str, Any], width: int) -> str:
    name = str(args.get("name") or "")
    path = args.get("file_path")
    return one_line(f"{name}/{path}" if path else name, width)


def _preview_skill_manage(args: Mapping[str, Any], width: int) -> str:
    detail = f"{args.get('action') or '?'} {args.get('name') or ''}"
    if args.get("file_path"):
        detail += f" {args['file_path']}"
    return one_line(detail, width)


def _skill_handler(tool: str) -> Any:
    async def handle(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        skills = ctx.resource("skills")
        if tool == "skill_manage":
            texts = _written_texts(args, "content", "new_string", "file_content")
            refused = await _second_opinion("skill write", texts, ctx)
            if refused:
                return ToolResult({"success": False, "error": refused}, ok=False, summary=f"error: {refused}")
        result = await asyncio.to_thread(skills.call, tool, args)
        ok = bool(result.get("success", True))
        if result.get("staged"):
            summary = f"staged for approval ({result['pending_id']})"
        elif ok:
            summary = str(result.get("message") or "")
            if not summary and tool == "skills_list":
                summary = f"{result.get('count', 0)} skills"
            if not summary and tool == "skill_view":
                summary = f"{result.get('tokens', 0)} tokens"
        else:
            summary = f"error: {result.get('error', '')}"
        return ToolResult(result, ok=ok, summary=summary or "ok")

    return handle


def _preview_search(args: Mapping[str, Any], width: int) -> str:
    if args.get("query"):
        return quoted(str(args["query"]), width)
    if args.get("session_id"):
        return one_line(f"read {args['session_id']}", width)
    return "recent conversations"


async def _session_search(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    from engine.sessions.session_search import session_search

    store = ctx.resource("sessions")
    result = await session_search(
        store, args, current_session_id=ctx.session_id, summarizer=ctx.resources.get("summarizer")
    )
    ok = bool(result.get("success", True))
    summary = "" if ok else f"error: {result.get('error', '')}"
    if ok:
        found = result.get("results") or result.get("sessions") or result.get("messages")
        summary = f"{len(found)} found" if isinstance(found, list) else "ok"
    return ToolResult(result, ok=ok, summary=summary)


def _from_schema(schema: dict[str, Any], toolset: str, handler: Any, preview: Any) -> Tool:
    return Tool(schema["name"], toolset, schema["description"], schema["parameters"], handler, preview)


def _session_search_schema() -> dict[str, Any]:
    from engine.sessions.session_search import SESSION_SEARCH_SCHEMA

    return SESSION_SEARCH_SCHEMA


MEMORY_TOOL = Tool("memory", "memory", MEMORY_DESCRIPTION, MEMORY_PARAMETERS, _memory, _preview_memory)
SKILL_TOOLS = (
    _from_schema(SKILLS_LIST_SCHEMA, "skills", _skill_handler("skills_list"), _preview_skill_list),
    _from_schema(SKILL_VIEW_SCHEMA, "skills", _skill_handler("skill_view"), _preview_skill_view),
    _from_schema(SKILL_MANAGE_SCHEMA, "skills", _skill_handler("skill_manage"), _preview_skill_manage),
)


def session_search_tool() -> Tool:
    return _from_schema(_session_search_schema(), "session_search", _session_search, _preview_search)


def knowledge_tools() -> tuple[Tool, ...]:
    """memory, skills_list, skill_view, skill_manage, session_search, in the order their schemas go out."""
    return (MEMORY_TOOL, *SKILL_TOOLS, session_search_tool())


def agent_registry(config: Config | None = None) -> ToolRegistry:
    """Every tool the agent offers: its knowledge tools first, then the tool layer's built-ins, then
    (given the session's config) `clarify` and the web tools its `web` section turns on."""
    from engine.tools.registry import default_registry

    registry = ToolRegistry(knowledge_tools())
    for tool in default_registry():
        registry.register(tool)
    if config is not None:
        from engine.tools.offered import configured_tools

        for tool in configured_tools(config):
            registry.register(tool)
    return registry

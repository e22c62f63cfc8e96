"""One subagent: a child agent that runs a delegated task in a fresh context and a session of its own.

The child's system prompt is the parent's frozen prompt (identity, memory snapshot, skills index)
followed by a short subagent layer; its only user message is the task. Its tools are the parent's
built-in ones minus `delegate_task` (no grandchildren) and `clarify` (nobody to ask a question of);
memory and skill writes are refused unless `delegation.allow_memory`. Its approvals go to the person
naming the child. Every message is recorded in the child's session (source `subagent`, its parent
the delegating session); its usage goes to that session and to `SubagentProgress`, never to the
parent's own counters.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.events import Event, SubagentFinished, SubagentProgress, SubagentStarted
from engine.tools.loop import assistant_entry, tool_entry
from engine.tools.registry import Tool, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from engine.llm.chunks import AssistantMessage, ToolCall
    from engine.llm.client import LLMClient
    from engine.sessions.store import SessionStore
    from engine.tools.context import ToolContext
    from engine.tools.delegate import TaskSpec

log = logging.getLogger("engine.agent")

SOURCE = "subagent"
WHO = "subagent"
SUBAGENT_MARK = "You are a subagent"  # the subagent layer's first words (scenarios match on them)
BLOCKED_TOOLS = ("delegate_task", "clarify")
KNOWLEDGE_WRITES = ("memory", "skill_manage", "fact_feedback")
FACT_WRITES = ("add", "update", "remove")  # fact_store's actions that change the store
NO_MEMORY = (
    "Subagents do not write memory or skills (delegation.allow_memory is off): put what is worth "
    "keeping in your final summary; the parent agent decides."
)

Record = Callable[..., Awaitable[Any]]  # (session_id, role, content, **fields) -> the message id
Emit = Callable[[Event], None]


def subagent_layer(allow_memory: bool) -> str:
    """The text after the parent's prompt that makes a child of it."""
    memory = (
        "You may save to memory and skills."
        if allow_memory
        else "Memory and skills are read-only for you; say in your summary what is worth keeping."
    )
    return (
        f"# Subagent\n{SUBAGENT_MARK} working on one task the parent agent delegated to you, in a fresh "
        "conversation: you know nothing of its conversation beyond the task. Work with your tools, then "
        "end with a concise summary (what you did, what you found, files changed, problems); the parent "
        f"sees only that summary. {memory}"
    )


def task_message(spec: TaskSpec) -> str:
    return f"{spec.goal}\n\nContext:\n{spec.context}" if spec.context.strip() else spec.goal


async def _refuse(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult({"success": False, "error": NO_MEMORY}, ok=False, summary="refused: read-only")


def child_registry(parent: ToolRegistry, toolsets: tuple[str, ...], allow_memory: bool) -> ToolRegistry:
    """The parent's tools for a child: some toolsets (all when none are named), never the blocked ones;
    the knowledge writes answer with a refusal unless memory is allowed."""
    known = {tool.toolset for tool in parent}
    wanted = [name for name in toolsets if name in known] or None
    registry = ToolRegistry()
    for tool in parent.subset(toolsets=wanted):
        if tool.name in BLOCKED_TOOLS:
            continue
        if tool.name in KNOWLEDGE_WRITES and not allow_memory:
            tool = Tool(tool.name, tool.toolset, NO_MEMORY, {"type": "object"}, _refuse, tool.preview)
        elif tool.name == "fact_store" and not allow_memory:  # its searches stay; its writes are refused
            tool = Tool(
                tool.name, tool.toolset, tool.description, tool.parameters, _reads_only(tool), tool.preview
            )
        registry.register(tool)
    return registry


def _reads_only(tool: Tool) -> Any:
    async def handler(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if str(args.get("action") or "") in FACT_WRITES:
            return await _refuse(args, ctx)
        return await tool.handler(args, ctx)

    return handler


@dataclass
class ChildOutcome:
    """What one child did: what the parent is told, and the counts the workstation shows."""

    index: int
    session_id: str
    status: str = "completed"
    summary: str = ""
    calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_s: float = 0.0
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task_index": self.index,
            "session_id": self.session_id,
            "status": self.status,
            "summary": self.summary,
            "api_calls": self.calls,
            "tool_calls": self.tool_calls,
            "tokens": {"input": self.prompt_tokens, "output": self.completion_tokens},
            "duration_seconds": round(self.duration_s, 2),
        }
        if self.error:
            out["error"] = self.error
        return out


@dataclass(frozen=True)
class ChildJob:
    """One task as the delegation hands it to a child."""

    index: int
    spec: TaskSpec
    max_turns: int
    call_id: str  # the parent's delegate_task call
    parent_session_id: str
    background: bool = False


@dataclass
class ChildParts:
    """What a child runs on: the parent's store, a model client, its tools and the parent's sinks."""

    store: SessionStore
    client: LLMClient
    registry: ToolRegistry
    ctx: ToolContext
    emit: Emit
    record: Record
    system_prompt: str


class ChildRun:
    """One child from its session's start to its summary; `run` never raises but for cancellation."""

    def __init__(self, job: ChildJob, parts: ChildParts, session_id: str) -> None:
        self.job = job
        self.parts = parts
        self.outcome = ChildOutcome(job.index, session_id)

    @property
    def session_id(self) -> str:
        return self.outcome.session_id

    async def run(self) -> ChildOutcome:
        job, outcome = self.job, self.outcome
        started = time.monotonic()
        self._emit_started()
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.parts.system_prompt},
            {"role": "user", "content": task_message(job.spec)},
        ]
        try:
            await self.parts.record(self.session_id, "user", messages[1]["content"])
            outcome.status = await self._loop(messages)
        except asyncio.CancelledError:
            outcome.status = "interrupted"
            await self._finish(started, "interrupted")
            raise
        except Exception as exc:  # a model or store failure ends this child, never the parent's turn
            log.warning("subagent %s failed: %s", self.session_id, exc)
            outcome.status, outcome.error = "failed", f"{type(exc).__name__}: {exc}"
        await self._finish(started, outcome.status)
        return outcome

    async def _loop(self, messages: list[dict[str, Any]]) -> str:
        outcome = self.outcome
        schemas = self.parts.registry.schemas() or None
        while outcome.calls < self.job.max_turns:
            reply = await self.parts.client.complete(messages, tools=schemas)
            await self._record_reply(reply)
            messages.append(assistant_entry(reply))
            if not reply.tool_calls:
                outcome.summary = reply.content.strip()
                return "completed" if outcome.summary else "failed"
            for call in reply.tool_calls:
                self._progress("tool_called", call.id, call.name, self._detail(call))
            results = await asyncio.gather(*(self._run_tool(call) for call in reply.tool_calls))
            messages.extend(results)
        outcome.summary = outcome.summary or f"Stopped after {self.job.max_turns} model calls (max_turns)."
        return "max_turns"

    def _detail(self, call: ToolCall) -> str:
        width = int(self.parts.ctx.config.tool_output.preview_chars)
        return self.parts.registry.call_detail(call.name, call.arguments, width)

    async def _record_reply(self, reply: AssistantMessage) -> None:
        outcome = self.outcome
        outcome.calls += 1
        if reply.content:
            outcome.summary = reply.content.strip()
        await self.parts.record(
            self.session_id,
            "assistant",
            reply.content,
            tool_calls=[c.as_dict() for c in reply.tool_calls] or None,
            finish_reason=reply.finish_reason,
            reasoning=reply.reasoning or None,
        )
        usage = reply.usage
        if usage is not None:
            outcome.prompt_tokens += usage.prompt_tokens
            outcome.completion_tokens += usage.completion_tokens
            try:
                await self.parts.store.record_usage(
                    self.session_id,
                    input_tokens=usage.prompt_tokens,
                    output_tokens=usage.completion_tokens,
                    cache_read_tokens=usage.cached_tokens,
                    model=reply.model or self.parts.client.settings.model or None,
                )
            except Exception:  # counters are not worth the child's work
                log.warning("subagent usage not recorded", exc_info=True)
        self._progress("usage")

    async def _run_tool(self, call: ToolCall) -> dict[str, Any]:
        parts = self.parts
        result = await parts.registry.dispatch(call.name, call.arguments, parts.ctx, call.id)
        self.outcome.tool_calls += 1
        await parts.record(
            self.session_id,
            "tool",
            result.content,
            tool_call_id=call.id,
            tool_name=call.name,
            outcome={"ok": result.ok, "summary": result.summary, "duration_s": result.duration_s},
        )
        self._progress("tool_finished", call.id, call.name, result.summary, result.ok, result.duration_s)
        return tool_entry(call.id, result.content)

    def _progress(
        self,
        step: str,
        call_id: str = "",
        name: str = "",
        preview: str = "",
        ok: bool = True,
        took: float = 0,
    ) -> None:
        outcome = self.outcome
        self.parts.emit(
            SubagentProgress(
                self.job.parent_session_id,
                self.session_id,
                self.job.call_id,
                step,
                call_id,
                name,
                preview,
                ok,
                took,
                outcome.calls,
                outcome.prompt_tokens,
                outcome.completion_tokens,
            )
        )

    def _emit_started(self) -> None:
        job = self.job
        self.parts.emit(
            SubagentStarted(
                job.parent_session_id, self.session_id, job.call_id, job.index, job.spec.goal, job.background
            )
        )

    async def _finish(self, started: float, status: str) -> None:
        """End the child's session, close its terminal, and say how it ended."""
        from engine.tools.terminal_session import close_terminal

        outcome, job = self.outcome, self.job
        outcome.duration_s = time.monotonic() - started
        try:
            await close_terminal(self.parts.ctx)
            await self.parts.store.end_session(self.session_id, f"subagent_{status}")
        except Exception:  # the child's end is said all the same
            log.warning("ending subagent session %s failed", self.session_id, exc_info=True)
        self.parts.emit(
            SubagentFinished(
                job.parent_session_id,
                self.session_id,
                job.call_id,
                job.index,
                status,
                outcome.summary or outcome.error,
                outcome.tool_calls,
                outcome.calls,
                outcome.prompt_tokens,
                outcome.completion_tokens,
                outcome.duration_s,
                job.background,
            )
        )

"""The agent's delegation: `delegate_task` runs here, up to `delegation.max_concurrent` children at once.

Each child (engine/agent/subagent.py) is an asyncio task on the agent's loop, in a session of its own
(source `subagent`, parent the delegating session, `_delegate_from` in its model config so lineage
never takes it for a compression continuation). In the foreground the tool call waits for every
child and returns their summaries with their session ids; with `background: true` it returns at once
and each result joins the parent's conversation as a message when the child ends. `interrupt`
stops the background children; the foreground ones stop with the turn that waits for them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from engine.agent.subagent import (
    SOURCE,
    WHO,
    ChildJob,
    ChildOutcome,
    ChildParts,
    ChildRun,
    Emit,
    Record,
    child_registry,
    subagent_layer,
)
from engine.tools.context import SessionState, ToolContext
from engine.tools.preview import one_line
from engine.tools.registry import ToolResult

if TYPE_CHECKING:
    from engine.agent.parts import AgentParts
    from engine.llm.client import LLMClient
    from engine.sessions.store import SessionStore
    from engine.tools.delegate import TaskSpec

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
ASKER_GOAL_CHARS = 48  # of the goal, in the name a child's questions carry


def result_message(outcome: ChildOutcome, goal: str) -> str:
    """How a background child's result joins the parent's conversation."""
    return (
        f"[Background subagent {outcome.index} ({outcome.session_id}) {outcome.status}: "
        f"{one_line(goal, ASKER_GOAL_CHARS * 2)}]\n{outcome.summary or outcome.error}"
    )


class Delegation:
    """Runs the children of one agent; its sinks and store are the parent's."""

    def __init__(
        self,
        parts: AgentParts,
        *,
        store: Callable[[], SessionStore],
        prompt_text: Callable[[], str],
        emit: Emit,
        record: Record,
        deliver: Callable[[str], Awaitable[None]],
        spawn: Spawn,
    ) -> None:
        self.parts = parts
        self._store = store
        self._prompt_text = prompt_text
        self._emit = emit
        self._record = record
        self._deliver = deliver
        self._spawn = spawn
        self._slots: asyncio.Semaphore | None = None
        self._client: LLMClient | None = None
        self.background: set[asyncio.Task[None]] = set()

    @property
    def client(self) -> LLMClient:
        """The children's model: `delegation.*` when it names one, else the agent's own."""
        if self._client is None:
            from engine.llm.direct import DirectLLMClient
            from engine.llm.settings import delegation_settings

            settings = delegation_settings(self.parts.config, self.parts.client.settings)
            self._client = (
                self.parts.client
                if settings is None
                else DirectLLMClient(settings, home_root=self.parts.home.root)
            )
        return self._client

    def slots(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(int(self.parts.config.delegation.max_concurrent))
        return self._slots

    async def delegate(
        self, specs: list[TaskSpec], ctx: ToolContext, *, max_turns: int, background: bool
    ) -> ToolResult:
        """Run `specs` as children of the session `ctx` serves (the `delegate_task` tool's work)."""
        jobs = [
            ChildJob(n, spec, max_turns, ctx.call_id, ctx.session_id, background)
            for n, spec in enumerate(specs, 1)
        ]
        children = [await self._open_child(job, ctx) for job in jobs]
        if background:
            for child in children:
                task = self._spawn(self._in_background(child))
                self.background.add(task)
                task.add_done_callback(self.background.discard)
            ids = [child.session_id for child in children]
            said = f"{len(ids)} subagent(s) started in the background; each result arrives as a message."
            content = {"status": "started", "background": True, "session_ids": ids, "note": said}
            return ToolResult(content, summary=f"{len(ids)} started in the background")
        started = time.monotonic()
        outcomes = await asyncio.gather(*(self._limited(child) for child in children))
        done = sum(o.status == "completed" for o in outcomes)
        content = {
            "results": [o.as_dict() for o in outcomes],
            "total_duration_seconds": round(time.monotonic() - started, 2),
        }
        return ToolResult(content, ok=done > 0, summary=f"{done}/{len(outcomes)} completed")

    async def _limited(self, child: ChildRun) -> ChildOutcome:
        async with self.slots():
            return await child.run()

    async def _in_background(self, child: ChildRun) -> None:
        outcome = await self._limited(child)
        await self._deliver(result_message(outcome, child.job.spec.goal))

    async def _open_child(self, job: ChildJob, parent: ToolContext) -> ChildRun:
        """The child's session in state.db, its tools and its context."""
        parts, section = self.parts, self.parts.config.delegation
        allow_memory = bool(section.allow_memory)
        prompt = f"{self._prompt_text()}\n\n{subagent_layer(allow_memory)}"
        store = self._store()
        record = await store.create_session(
            source=SOURCE,
            model=self.client.settings.model or None,
            system_prompt=prompt,
            parent_session_id=job.parent_session_id,
            cwd=str(parts.cwd),
            model_config={"_delegate_from": job.parent_session_id},
        )
        ctx = await self._child_context(job, parent, record.id, allow_memory)
        registry = child_registry(parts.registry, job.spec.toolsets, allow_memory)
        child_parts = ChildParts(store, self.client, registry, ctx, self._emit, self._record, prompt)
        return ChildRun(job, child_parts, record.id)

    async def _child_context(
        self, job: ChildJob, parent: ToolContext, session_id: str, allow_memory: bool
    ) -> ToolContext:
        """The parent's home, sandbox, approver and session approvals; its own tool state and stores."""
        from engine.skills.tiers import SessionTiers
        from engine.skills.tools import SkillTools

        skills = SkillTools(
            parent.home,
            parent.config,
            tiers=SessionTiers(session_id),
            session_id=session_id,
            who=WHO,
            emit=self._emit,
        )
        resources: dict[str, Any] = {
            "skills": skills,
            **{k: v for k, v in parent.resources.items() if k in ("sessions", "summarizer")},
        }
        if allow_memory:
            from engine.memory.store import Memory

            memory = await asyncio.to_thread(Memory, parent.home, parent.config, who=WHO)
            memory.session_id = session_id
            resources["memory"] = memory
        return ToolContext(
            home=parent.home,
            config=parent.config,
            cwd=parent.cwd,
            session_id=session_id,
            approve=parent.approve,
            emit=self._emit,
            yolo=parent.yolo,
            state=SessionState(approvals=parent.state.approvals),  # what the person allowed holds here too
            resources=resources,
            asker=f"subagent {job.index}: {one_line(job.spec.goal, ASKER_GOAL_CHARS)}",
        )

    def interrupt(self) -> bool:
        """Stop the background children (ctrl+c); True when one was running."""
        running = [task for task in self.background if not task.done()]
        for task in running:
            task.cancel()
        return bool(running)

    async def close(self) -> None:
        if self._client is not None and self._client is not self.parts.client:
            await self._client.aclose()
        self._client = None

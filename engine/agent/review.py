"""The background review: after a nudge, the auxiliary model looks back and saves what it learned.

It runs beside the conversation, never in front of it: a copy of the history, the session's own
system prompt (so a shared model hits the prompt cache), one review message, and only the memory
and skill tools, through `run_tool_loop`. Its stores write as `who="review"`, so every change it
makes arrives as a `MemoryWritten` / `SkillChanged` event like any other, and is journaled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.prompt.nudges import NOTHING_TO_SAVE, Nudge, review_prompt
from engine.tools.context import ToolContext, deny_all
from engine.tools.loop import STOP_ERROR, STOP_MAX_ITERATIONS, ToolLoopResult, run_tool_loop
from engine.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from engine.config import Config
    from engine.events import Event
    from engine.home import Home
    from engine.llm.client import LLMClient

REVIEW_TOOLS = ("memory", "skills_list", "skill_view", "skill_manage")
WHO = "review"


@dataclass(frozen=True)
class ReviewJob:
    """Everything one review needs, captured when the turn ended (the conversation goes on)."""

    session_id: str
    system_prompt: str
    history: tuple[dict[str, Any], ...]
    nudges: tuple[Nudge, ...]
    tool_calls: int


def review_context(
    home: Home, config: Config, cwd: Path, session_id: str, emit: Callable[[Event], object]
) -> ToolContext:
    """Stores that write as `review`, an approver that declines everything, and the background sink."""
    from engine.memory.store import Memory
    from engine.skills.tiers import SessionTiers
    from engine.skills.tools import SkillTools

    memory = Memory(home, config, who=WHO)
    memory.session_id = session_id
    skills = SkillTools(
        home, config, tiers=SessionTiers(session_id), session_id=session_id, who=WHO, emit=emit
    )
    return ToolContext(
        home=home,
        config=config,
        cwd=cwd,
        session_id=session_id,
        approve=deny_all,
        emit=emit,
        yolo=False,
        resources={"memory": memory, "skills": skills},
    )


def review_messages(job: ReviewJob) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": job.system_prompt},
        *job.history,
        {"role": "user", "content": review_prompt(job.nudges, job.tool_calls)},
    ]


async def run_review(
    client: LLMClient,
    job: ReviewJob,
    registry: ToolRegistry,
    ctx: ToolContext,
    *,
    max_iterations: int,
    on_retry: Callable[[Any], None] | None = None,
) -> ToolLoopResult:
    """One review: the loop over the knowledge tools only, whatever `registry` holds besides."""
    tools = registry.subset(names=REVIEW_TOOLS)
    return await run_tool_loop(
        client, review_messages(job), tools, ctx, max_iterations=max_iterations, on_retry=on_retry
    )


def describe(result: ToolLoopResult, nudges: Sequence[Nudge]) -> tuple[str, str]:
    """(level, sentence) for the status line once a review is over."""
    kinds = ", ".join(n.kind for n in nudges)
    writes = [run for run in result.runs if run.ok and run.name in ("memory", "skill_manage")]
    if result.stopped == STOP_ERROR:
        return "warning", f"Background review ({kinds}) failed: {result.error}"
    if writes:
        done: list[str] = []
        staged: list[str] = []
        for run in writes:
            args = run.arguments
            if run.name == "memory":
                what = f"{args.get('target') or 'memory'} {args.get('action') or 'batch'}"
            else:
                what = f"skill {args.get('action')} {args.get('name')}"
            (staged if run.outcome.summary.startswith("staged for approval") else done).append(what)
        parts = ([f"saved: {'; '.join(done)}"] if done else []) + (
            [f"staged for your approval: {'; '.join(staged)}"] if staged else []
        )
        tail = " (stopped at the iteration cap)" if result.stopped == STOP_MAX_ITERATIONS else ""
        return "info", f"Background review ({kinds}) {'; '.join(parts)}{tail}."
    said = result.text.strip() or NOTHING_TO_SAVE
    return "info", f"Background review ({kinds}): {said[:200]}"

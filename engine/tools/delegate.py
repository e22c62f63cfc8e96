"""`delegate_task`: hand self-contained tasks to subagents, each in a fresh context and its own session.

The tool only reads and checks the arguments; the agent's `Delegation` (engine/agent/delegation.py,
found as the `delegation` resource) runs the children and returns their summaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.tools.context import ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import one_line, quoted
from engine.tools.registry import Tool, ToolResult

NAME = "delegate_task"
DESCRIPTION = (
    "Hand self-contained tasks to subagents (fresh context each; you get their summaries). Put paths, "
    "errors and constraints in `context`. `tasks` run at once; background: results come later as a message."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "goal": {"type": "string"},
        "context": {"type": "string"},
        "tasks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"goal": {"type": "string"}, "context": {"type": "string"}},
                "required": ["goal"],
            },
        },
        "toolsets": {"type": "array", "items": {"type": "string"}},
        "max_turns": {"type": "integer"},
        "background": {"type": "boolean"},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class TaskSpec:
    """One delegated task as the model gave it."""

    goal: str
    context: str = ""
    toolsets: tuple[str, ...] = ()


def task_specs(args: Mapping[str, Any], max_tasks: int) -> list[TaskSpec]:
    """The tasks of a call: `tasks`, or the one `goal`; a ToolError says what is missing or too many."""
    raw = args.get("tasks")
    if raw:
        if not isinstance(raw, list) or not all(isinstance(t, Mapping) for t in raw):
            raise ToolError(
                'delegate_task `tasks` must be a list of objects, each {"goal": ..., "context": ...}.'
            )
        items = raw
    elif str(args.get("goal") or "").strip():
        items = [args]
    else:
        raise ToolError("delegate_task needs a `goal`, or `tasks` with a goal each.")
    if len(items) > max_tasks:
        raise ToolError(
            f"delegate_task takes at most {max_tasks} tasks per call (delegation.max_tasks); "
            "split the work or hand over fewer."
        )
    specs = []
    for number, item in enumerate(items, 1):
        goal = str(item.get("goal") or "").strip()
        if not goal:
            raise ToolError(f"Task {number} has no `goal`; say what the subagent should do.")
        toolsets = tuple(str(t) for t in item.get("toolsets") or args.get("toolsets") or ())
        specs.append(TaskSpec(goal, str(item.get("context") or args.get("context") or ""), toolsets))
    return specs


async def delegate_task(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    delegation = ctx.resource("delegation")
    section = ctx.config.delegation
    specs = task_specs(args, int(section.max_tasks))
    background = bool(args.get("background"))
    if background and not bool(section.background):
        raise ToolError("Background subagents are off (delegation.background); call again without it.")
    wanted = int(args.get("max_turns") or 0)
    limit = int(section.max_turns)
    max_turns = min(wanted, limit) if wanted > 0 else limit
    return await delegation.delegate(specs, ctx, max_turns=max_turns, background=background)


def _preview(args: Mapping[str, Any], width: int) -> str:
    tasks = args.get("tasks")
    mode = " (background)" if args.get("background") else ""
    if isinstance(tasks, list) and tasks:
        first = tasks[0].get("goal", "") if isinstance(tasks[0], Mapping) else ""
        return one_line(f"{len(tasks)}x{mode}: {first}", width)
    return quoted(str(args.get("goal") or ""), max(width - len(mode), 8)) + mode


TOOL = Tool(NAME, "delegation", DESCRIPTION, PARAMETERS, delegate_task, _preview)

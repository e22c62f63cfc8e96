"""`todo`: the session's task list, kept in memory and returned in full after every change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.tools.context import SessionState, TodoItem, ToolContext
from engine.tools.errors import ToolError
from engine.tools.preview import one_line, quoted
from engine.tools.registry import Tool, ToolResult

STATUSES = ("pending", "in_progress", "done", "cancelled")
_MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]", "cancelled": "[-]"}

DESCRIPTION = (
    "Session task list for multi-step work. add `items`; update task `id` with `text` and/or `status`; "
    "complete task `id`; list. Returns the whole list."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "update", "complete", "list"]},
        "items": {"type": "array", "items": {"type": "string"}},
        "id": {"type": "integer"},
        "text": {"type": "string"},
        "status": {"type": "string", "enum": list(STATUSES)},
    },
    "required": ["action"],
    "additionalProperties": False,
}


def render(state: SessionState) -> str:
    """The list as the model and the compressor see it: one `id. [mark] text` line per task."""
    if not state.todos:
        return "The task list is empty."
    lines = [f"{t.id}. {_MARKS[t.status]} {t.text}" for t in state.todos]
    done = sum(t.status == "done" for t in state.todos)
    lines.append(f"({done}/{len(state.todos)} done; [>] in progress, [-] cancelled)")
    return "\n".join(lines)


def _find(state: SessionState, item_id: Any) -> TodoItem:
    if item_id is None:
        raise ToolError("This action needs `id`, the number of a task in the list.")
    for item in state.todos:
        if item.id == item_id:
            return item
    ids = ", ".join(str(t.id) for t in state.todos) or "none yet"
    raise ToolError(f"There is no task {item_id}; the task ids are: {ids}.")


async def todo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    state = ctx.state
    action = args["action"]
    if action == "add":
        items = [text.strip() for text in args.get("items") or [] if text.strip()]
        if not items and args.get("text"):
            items = [args["text"].strip()]
        if not items:
            raise ToolError("add needs `items`, a list of task texts.")
        for text in items:
            state.todos.append(TodoItem(state.next_todo_id, text))
            state.next_todo_id += 1
    elif action == "update":
        item = _find(state, args.get("id"))
        if not args.get("text") and not args.get("status"):
            raise ToolError("update needs `text`, `status` or both.")
        item.text = args.get("text") or item.text
        item.status = args.get("status") or item.status
    elif action == "complete":
        _find(state, args.get("id")).status = "done"
    done = sum(t.status == "done" for t in state.todos)
    return ToolResult(render(state), summary=f"{done}/{len(state.todos)} done")


def _preview(args: Mapping[str, Any], width: int) -> str:
    action = str(args.get("action", ""))
    if action == "add":
        items = args.get("items") or []
        first = items[0] if items and isinstance(items[0], str) else ""
        more = f" +{len(items) - 1}" if len(items) > 1 else ""
        return f"add {quoted(first, width - 8)}{more}" if first else "add"
    if action in ("update", "complete"):
        return one_line(f"{action} #{args.get('id', '?')} {args.get('status') or ''}", width)
    return action


TOOL = Tool("todo", "todo", DESCRIPTION, PARAMETERS, todo, _preview)

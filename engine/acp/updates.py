"""Engine events as ACP `session/update`s: message and thought chunks, tool calls, diffs and the plan.

`ToolCalls` remembers, between a call's `ToolCalled` and its `ToolFinished`, what an edited file held
before, so a finished `write_file` or `patch` shows the client its diff. The todo tool's list goes out
as the plan after every change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import ToolCallLocation, ToolKind

from engine.events import Event, ReasoningDelta, TextDelta, ToolCalled, ToolFinished
from engine.tools.context import TodoItem
from engine.tools.preview import format_call

EDITING_TOOLS = ("write_file", "patch")
TOOL_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "write_file": "edit",
    "patch": "edit",
    "search_files": "search",
    "session_search": "search",
    "terminal": "execute",
    "process": "execute",
    "todo": "think",
    "web_fetch": "fetch",
}
PLAN_STATUS = {"pending": "pending", "in_progress": "in_progress", "done": "completed"}
MOST_DIFF_BYTES = 1_000_000  # a file larger than this is shown without its diff


def tool_kind(name: str) -> ToolKind:
    return TOOL_KINDS.get(name, "other")


def plan_from(todos: Sequence[TodoItem]) -> Any:
    """The todo list as an ACP plan (cancelled tasks are left out: a plan has no such state)."""
    entries = [plan_entry(t.text, status=PLAN_STATUS[t.status]) for t in todos if t.status in PLAN_STATUS]  # type: ignore[arg-type]
    return update_plan(entries)


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MOST_DIFF_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None


class ToolCalls:
    """The tool calls of one session, as the client sees them."""

    def __init__(
        self, cwd: Path, redact: Callable[[str], str], todos: Callable[[], Sequence[TodoItem]]
    ) -> None:
        self.cwd = cwd
        self.redact = redact
        self.todos = todos
        self.before: dict[str, tuple[Path, str | None]] = {}  # call id -> edited file, its text before

    def _path(self, arguments: dict[str, Any]) -> Path | None:
        raw = arguments.get("path")
        if not isinstance(raw, str) or not raw.strip():
            return None
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.cwd / path

    def updates(self, event: Event) -> list[Any]:
        """The updates one engine event makes (none for what the client has no place for)."""
        if isinstance(event, TextDelta):
            return [update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ReasoningDelta):
            return [update_agent_thought_text(event.text)] if event.text else []
        if isinstance(event, ToolCalled):
            return [self.started(event)]
        if isinstance(event, ToolFinished):
            return self.finished(event)
        return []

    def started(self, event: ToolCalled) -> Any:
        path = self._path(event.arguments)
        if event.name in EDITING_TOOLS and path is not None:
            self.before[event.call_id] = (path, _read_text(path))
        return start_tool_call(
            event.call_id,
            format_call(event.name, event.preview).strip(),
            kind=tool_kind(event.name),
            status="in_progress",
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=event.arguments,
        )

    def finished(self, event: ToolFinished) -> list[Any]:
        content: list[Any] = [tool_content(text_block(event.result))] if event.result else []
        edited = self.before.pop(event.call_id, None)
        if event.ok and edited is not None:
            path, old = edited
            new = _read_text(path)
            if new is not None:
                old_text = None if old is None else self.redact(old)
                content.insert(0, tool_diff_content(str(path), self.redact(new), old_text))
        status = "completed" if event.ok else "failed"
        done = [update_tool_call(event.call_id, status=status, content=content, raw_output=event.preview)]
        if event.name == "todo" and event.ok:
            done.append(plan_from(self.todos()))
        return done

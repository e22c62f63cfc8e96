"""A subagent in the transcript: one foldable block per child, under the `delegate_task` call that made it.

Its head says which task, how it stands and what it cost (its own model calls and tokens, never
counted in the parent's); unfolded (the default) it lists the child's tool calls as they run, and
when it ends, its summary. A click or enter folds it to its head.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content
from textual.events import Click
from textual.reactive import reactive

from widgets.gauge import format_tokens
from widgets.transcript_blocks import Block, format_duration, one_line

if TYPE_CHECKING:
    from engine import events

STATUS_MARK = {
    "completed": ("✓", "$success"),
    "failed": ("✗", "$error"),
    "interrupted": ("■", "$warning"),
    "max_turns": ("■", "$warning"),
}
SUMMARY_LINES = 6  # of a finished child's summary shown unfolded


@dataclass
class ChildStep:
    """One tool call of the child, as far as it went."""

    name: str
    preview: str
    done: bool = False
    ok: bool = True
    result: str = ""
    duration_s: float = 0.0


class SubagentBlock(Block):
    """One child agent: its task, its live tool calls, its token count and, at the end, its summary."""

    DEFAULT_CSS = """
    SubagentBlock {
        margin: 0 0 0 3;
        padding: 0 1;
        border-left: outer $primary 50%;
    }
    SubagentBlock.-cursor {
        padding-left: 1;
    }
    SubagentBlock.-failed {
        border-left: outer $error;
    }
    """

    expanded: reactive[bool] = reactive(True, layout=True)

    def __init__(self, event: events.SubagentStarted, preview_chars: int = 60) -> None:
        super().__init__("")
        self.started = event
        self.preview_chars = preview_chars
        self.steps: dict[str, ChildStep] = {}
        self.calls = 0
        self.tokens = 0
        self.finished: events.SubagentFinished | None = None

    @property
    def child_session_id(self) -> str:
        return self.started.child_session_id

    @property
    def running(self) -> bool:
        return self.finished is None

    def progress(self, event: events.SubagentProgress) -> None:
        self.calls = event.calls
        self.tokens = event.prompt_tokens + event.completion_tokens
        if event.step == "tool_called":
            self.steps[event.tool_call_id] = ChildStep(event.name, event.preview)
        elif event.step == "tool_finished":
            step = self.steps.setdefault(event.tool_call_id, ChildStep(event.name, ""))
            step.done, step.ok, step.result, step.duration_s = True, event.ok, event.preview, event.duration_s
        self.refresh(layout=True)

    def finish(self, event: events.SubagentFinished) -> None:
        self.finished = event
        self.calls = event.calls
        self.tokens = event.prompt_tokens + event.completion_tokens
        self.set_class(event.status == "failed", "-failed")
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def _head(self) -> Content:
        started, done = self.started, self.finished
        where = "  [background]" if started.background else ""
        parts: list[tuple[str, str] | str] = [
            ("▾ " if self.expanded else "▸ ", "dim"),
            (f"subagent {started.index}", "bold $accent"),
            "  ",
            one_line(started.goal, self.preview_chars),
            (where, "dim italic"),
        ]
        if done is None:
            parts.append(("  running…", "dim italic"))
        else:
            mark, style = STATUS_MARK.get(done.status, ("■", "$warning"))
            parts += [(f"  {mark} {done.status}", style), (f" {format_duration(done.duration_s)}", "dim")]
        plural = "s" if self.calls != 1 else ""
        parts.append((f"  · {self.calls} call{plural} · {format_tokens(self.tokens)} tokens", "dim"))
        return Content.assemble(*parts)

    def _step_line(self, step: ChildStep, last: bool) -> Content:
        branch = "└ " if last else "├ "
        parts: list[tuple[str, str] | str] = [
            (branch, "dim"),
            (step.name, "bold $primary"),
            "  ",
            one_line(step.preview, self.preview_chars),
        ]
        if not step.done:
            parts.append(("  running…", "dim italic"))
        else:
            parts.append(("  ✓", "$success") if step.ok else ("  ✗", "$error"))
            if step.duration_s > 0:
                parts.append((f" {format_duration(step.duration_s)}", "dim"))
            if step.result:
                parts += ["  ", (one_line(step.result, self.preview_chars), "dim")]
        return Content.assemble(*parts)

    def render(self) -> Content:
        head = self._head()
        if not self.expanded:
            return head
        lines = [head]
        steps = list(self.steps.values())
        summary = self.finished.summary if self.finished is not None else ""
        for number, step in enumerate(steps):
            lines.append(self._step_line(step, last=number == len(steps) - 1 and not summary))
        if summary:
            rows = summary.splitlines()
            shown = "\n  ".join(rows[:SUMMARY_LINES]) + (
                f"\n  … {len(rows) - SUMMARY_LINES} more lines" if len(rows) > SUMMARY_LINES else ""
            )
            lines.append(Content.assemble(("└ summary: ", "dim"), shown))
        return Content("\n").join(lines)

    def copy_text(self) -> str:
        done = self.finished
        said = f"\n{done.status}: {done.summary}" if done is not None else "\nrunning"
        return f"subagent {self.started.index} ({self.child_session_id}): {self.started.goal}{said}"

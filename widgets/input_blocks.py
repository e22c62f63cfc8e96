"""Transcript blocks of what the person did besides sending a message: a steer that joined the running
turn, and a command run in the session's shell (`!CMD`), whose output the model never sees."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.events import Click
from textual.reactive import reactive

from widgets.transcript_blocks import Block, UserBlock, format_duration

if TYPE_CHECKING:
    from engine import events


class SteerBlock(UserBlock):
    """Text the person added to the running turn (`/steer`): the model read it at a tool boundary."""

    def render(self) -> Content:
        return Content.assemble(("you ↳ steer  ", "bold $secondary"), self.text)


class ShellBlock(Block):
    """`$ CMD` with its mark, duration and output: the first lines, all of them once clicked."""

    DEFAULT_CSS = """
    ShellBlock {
        margin-top: 1;
        color: $text-muted;
    }
    ShellBlock.-failed { color: $error; }
    """

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, event: events.ShellRan, shown_lines: int, attached: bool = False) -> None:
        super().__init__("")
        self.event = event
        self.shown_lines = shown_lines
        self.attached = attached  # `!!CMD`: the output goes with the next message
        self.set_class(not event.ok, "-failed")

    def render(self) -> Content:
        event = self.event
        mark = ("✓", "$success") if event.ok else ("✗", "$error")
        lines = event.output.rstrip("\n").splitlines()
        hidden = 0 if self.expanded else max(0, len(lines) - self.shown_lines)
        shown = lines if not hidden else lines[: self.shown_lines]
        where = "goes with your next message" if self.attached else "not sent to the model"
        parts: list[tuple[str, str] | str] = [
            ("$ ", "bold $primary"),
            (event.command, "bold"),
            "  ",
            mark,
            (f" {format_duration(event.duration_s)} · {event.summary} · {where}", "dim"),
        ]
        if shown:
            parts += ["\n", "\n".join(shown)]
        if hidden:
            parts += ["\n", (f"▸ {hidden} more lines: click to show them all", "dim")]
        return Content.assemble(*parts)

    def on_click(self, event: Click) -> None:
        event.stop()
        self.expanded = not self.expanded

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def copy_text(self) -> str:
        return f"$ {self.event.command}\n{self.event.output}"

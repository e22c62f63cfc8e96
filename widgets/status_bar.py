"""The status bar: model, context used / window with a bar, cost, session time, compressions, state."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from widgets.gauge import LEVEL_STYLE, GaugeLevels, format_tokens, gauge


@dataclass(frozen=True)
class StatusState:
    """Everything the status bar shows; the app replaces it as events arrive."""

    model: str = ""
    context_used: int = 0
    context_window: int = 128_000
    cost_usd: float | None = None  # None: no call of this session reported a cost (many providers never do)
    show_cost: bool = True
    compressions: int = 0
    working: bool = False
    note: str = ""
    note_level: str = "info"
    files: str = ""  # how the home is watched when not by file events ("files: polling every 1s")
    sandbox: str = ""  # what confines terminal commands when it is not the sandbox ("terminal: no sandbox")
    guarded: str = ""  # guarded settings changed on disk this session, until a click or a new session
    overfull: bool = False  # the conversation no longer fits the window and compression cannot help
    processes: int = 0  # background processes running in the session's terminal
    hints: str = "^p palette  ^r sessions  f12 keys"


def format_elapsed(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return "<1m"
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h{minutes % 60:02d}m"


class StatusBar(Widget):
    """One line at the bottom; its session clock ticks once a second."""

    DEFAULT_CSS = """
    StatusBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
    }
    """

    state: reactive[StatusState] = reactive(StatusState, layout=False)

    def __init__(
        self,
        state: StatusState | None = None,
        *,
        levels: GaugeLevels | None = None,
        clock: Callable[[], float] = time.monotonic,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        if state is not None:
            self.set_reactive(StatusBar.state, state)
        self.levels = levels or GaugeLevels()
        self.clock = clock
        self.started = clock()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def on_click(self) -> None:
        """A click acknowledges the guarded-settings warning."""
        if self.state.guarded:
            self.update_state(guarded="")

    def update_state(self, **changes: object) -> None:
        self.state = replace(self.state, **changes)  # type: ignore[arg-type]

    @property
    def context_fraction(self) -> float:
        window = self.state.context_window
        return self.state.context_used / window if window > 0 else 0.0

    def render(self) -> Content:
        state = self.state
        fraction = self.context_fraction
        level = self.levels.level(fraction)
        sep = (" │ ", "dim")
        model = state.model or "no model"
        parts: list[Content | tuple[str, str] | str] = [
            (f" {model}", "bold" if state.model else "italic $warning"),
            sep,
            f"{format_tokens(state.context_used)}/{format_tokens(state.context_window)} ",
            gauge(fraction, 8, self.levels),
            (f" {fraction * 100:.0f}%", LEVEL_STYLE[level]),
        ]
        if state.overfull:
            parts.append((" ⚠ too large for the window: /new starts fresh", "bold $error"))
        if state.show_cost:
            parts += [sep, f"${state.cost_usd:.2f}" if state.cost_usd is not None else ("$ –", "dim")]
        parts += [sep, format_elapsed(self.clock() - self.started)]
        parts += [sep, f"compressed {state.compressions}×"]
        parts += [sep, ("working…", "bold $accent") if state.working else ("idle", "")]
        if state.processes:
            parts += [sep, (f"⚙ {state.processes} running", "$accent")]
        if state.files:
            parts += [sep, (state.files, "$warning")]
        if state.sandbox:
            parts += [sep, (state.sandbox, "$warning")]
        if state.guarded:
            parts += [sep, (f"⚠ changed on disk: {state.guarded}", "bold $error")]
        if state.note:
            style = {"warning": "$warning", "error": "$error"}.get(state.note_level, "")
            parts += [sep, (state.note, style)]
        left = Content.assemble(*parts)
        right = Content(f"{state.hints} ")
        width = self.size.width
        gap = width - left.cell_length - right.cell_length
        if gap < 2:
            return left
        return Content.assemble(left, " " * gap, (right.plain, "dim"))

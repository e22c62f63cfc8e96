"""The budget pane: the context window split by prompt layer, conversation and tool schemas.

Each row gives tokens, the share of the window and a bar; rows in the stable cached prefix are
marked ■, rows rebuilt per call □. Below: the total against the window (coloured at 50 / 80 / 95 %),
where compression starts, and what the provider reported for the last call and the session (cached
tokens, totals, cost). The app reads the agent's prompt and history in a worker and hands the
numbers over (`show`); usage arrives with each `Usage` event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from widgets.gauge import LEVEL_STYLE, GaugeLevels, bar, format_tokens, gauge
from widgets.pane import Pane

if TYPE_CHECKING:
    from engine import events

LAYER_LABEL = {
    "identity": "identity",
    "guidance": "guidance",
    "skills": "skills index",
    "context_files": "context files",
    "memory": "memory",
    "user": "user profile",
    "session": "session",
    "stored": "stored prompt",
    "provider": "provider",
}
ROW_BAR = 10
WIDE_ROWS = 58
"""Below this many columns a row drops its share column (the bar still shows it): at 120 columns the
side panes are 46 wide, and every row wrapped onto two lines, pushing the totals out of view."""


@dataclass(frozen=True)
class BudgetLayer:
    name: str
    tokens: int
    cached: bool
    note: str = ""


@dataclass(frozen=True)
class McpShare:
    """What the MCP servers' tools cost on every call: the schemas sent, and the tools still deferred."""

    tokens: int = 0  # the MCP schemas every call carries (with `tool_search` when tools are deferred)
    tools: int = 0  # MCP tools whose schemas are sent
    deferred: int = 0  # MCP tools behind `tool_search`, not sent until the model finds them
    servers: int = 0  # servers configured


@dataclass(frozen=True)
class BudgetView:
    """The split of the next request, as the model will receive it."""

    window: int
    layers: tuple[BudgetLayer, ...] = ()
    conversation: int = 0
    tools: int = 0
    threshold: int = 0  # tokens at which compression starts; 0: compression is off
    preview: bool = False  # no session yet: the prompt the first message will get
    messages: int = 0
    terminal: str = ""  # where terminal commands run (`local`, `ssh dev@box`, `docker python:3.12`)
    mcp: McpShare | None = None  # the MCP servers' schemas; None when config.yaml names no server
    model: str = ""  # the model answering this session's calls ("" before an agent is built)
    provider: str = ""  # its provider's name, or the endpoint's host

    @property
    def prompt(self) -> int:
        return sum(layer.tokens for layer in self.layers)

    @property
    def mcp_tokens(self) -> int:
        return self.mcp.tokens if self.mcp is not None else 0

    @property
    def used(self) -> int:
        return self.prompt + self.conversation + self.tools + self.mcp_tokens

    @property
    def cached_prefix(self) -> int:
        """Tokens of the stable prefix: the tool schemas (built-in and MCP, appended as servers join) and
        the cached layers before the first uncached."""
        total = self.tools + self.mcp_tokens
        for layer in self.layers:
            if not layer.cached:
                break
            total += layer.tokens
        return total


@dataclass
class UsageTotals:
    """What the provider reported: the last call, and the sums over this window's calls."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    last: events.Usage | None = None


@dataclass
class ChildUsage:
    """One subagent's own calls and tokens, counted apart from the parent's."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    running: bool = True


class BudgetBody(VerticalScroll):
    DEFAULT_CSS = """
    BudgetBody {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    BudgetBody > Static {
        width: 1fr;
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    can_focus = True


class BudgetPane(Pane):
    """F3: where the context window goes."""

    pane_key = "F3"
    pane_title = "Budget"

    class ReloadRequested(Message):
        """The pane wants the prompt layers and the conversation measured again."""

    def __init__(self, context_window: int, levels: GaugeLevels | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._compact = False
        self._table_lines: list[str] = []
        self.levels = levels or GaugeLevels()
        self.view = BudgetView(context_window)
        self.totals = UsageTotals()
        self.subagents: dict[str, ChildUsage] = {}  # the subagents' usage, never in `totals`
        self.reported = 0  # the provider's count of the last request (+ its reply), until the history shrinks
        self.overfull = False  # the conversation no longer fits and compression cannot shorten it
        self.switched = ""  # why the session runs on a fallback provider, until another one is shown
        self._summarise()

    def compose_body(self) -> ComposeResult:
        with BudgetBody(id="budget-body", classes="pane-body"):
            yield Static(id="budget-table")

    def focus_target(self) -> Widget:
        return self if self.collapsed else self.query_one(BudgetBody)

    @property
    def context_window(self) -> int:
        return self.view.window

    @property
    def used(self) -> int:
        return self.view.used

    # What the app calls.

    def reload_from_disk(self) -> None:
        """Measure again (the prompt is frozen per session; the next session's preview may change)."""
        self.post_message(self.ReloadRequested())

    def show(self, view: BudgetView) -> None:
        if (view.model, view.provider) != (self.view.model, self.view.provider):
            self.switched = ""  # another provider (a /model switch): the fallback's reason is history
        self.view = self._at_least_reported(view)
        self._summarise()
        self._draw()

    def _at_least_reported(self, view: BudgetView) -> BudgetView:
        """The provider's count is the truth for the request just made (its reply joins the next one)."""
        if self.reported > view.used:
            from dataclasses import replace

            rest = self.reported - view.prompt - view.tools - view.mcp_tokens
            return replace(view, conversation=max(0, rest))
        return view

    def history_shrank(self) -> None:
        """A compression or a new session: the last reported count no longer bounds the next request."""
        self.reported = 0

    def usage(self, event: events.Usage) -> None:
        totals = self.totals
        totals.calls += 1
        totals.prompt_tokens += event.prompt_tokens
        totals.completion_tokens += event.completion_tokens
        totals.cached_tokens += event.cached_tokens
        totals.cost_usd += event.cost_usd
        totals.last = event
        self.reported = event.prompt_tokens + event.completion_tokens
        self.view = self._at_least_reported(self.view)
        self._summarise()
        self._draw()

    def subagent(
        self,
        child_session_id: str,
        calls: int = 0,
        prompt: int = 0,
        completion: int = 0,
        running: bool = True,
    ) -> None:
        """What a subagent has used so far (its totals, as its events say): a row of its own."""
        child = self.subagents.setdefault(child_session_id, ChildUsage())
        child.calls, child.running = max(child.calls, calls), running
        child.prompt_tokens = max(child.prompt_tokens, prompt)
        child.completion_tokens = max(child.completion_tokens, completion)
        self._draw()

    def provider_switched(self, event: events.ProviderSwitched) -> None:
        """The session went on with a fallback provider: name it, and which one failed."""
        from dataclasses import replace

        self.view = replace(self.view, model=event.model, provider=event.provider)
        self.switched = f"fallback; {event.failed} failed" + (f" ({event.reason})" if event.reason else "")
        self._draw()

    def reset_usage(self) -> None:
        self.totals = UsageTotals()
        self.subagents = {}
        self.reported = 0
        self._draw()

    def set_overfull(self, overfull: bool) -> None:
        """Say (or stop saying) under the total that the conversation does not fit the window."""
        self.overfull = overfull
        self._draw()

    def set_window(self, context_window: int) -> None:
        from dataclasses import replace

        self.show(replace(self.view, window=context_window))

    # Drawing.

    def _fraction(self, tokens: int) -> float:
        window = self.view.window
        return tokens / window if window > 0 else 0.0

    def _summarise(self) -> None:
        fraction = self._fraction(self.view.used)
        head = f"{format_tokens(self.view.used)} / {format_tokens(self.view.window)} "
        self.summary = Content.assemble(
            head,
            gauge(fraction, 10, self.levels),
            (f" {fraction * 100:.0f}%", LEVEL_STYLE[self.levels.level(fraction)]),
        )
        self.brief = f"{fraction * 100:.0f}%"

    def _row(self, label: str, tokens: int, mark: Content | str, style: str = "") -> Content:
        share = self._fraction(tokens)
        return Content.assemble(
            (f"{label:<14}", style or "bold"),
            (f"{format_tokens(tokens):>6} ", ""),
            ("" if self._compact else f"{share * 100:5.1f}% ", "dim"),
            (bar(share, ROW_BAR), "$primary"),
            " ",
            mark,
        )

    @staticmethod
    def _mcp_mark(share: McpShare, cached: Content, compact: bool) -> Content:
        """The MCP row's words: how many tools are sent, and how many wait behind `tool_search`."""
        gap = " " if compact else "  "
        sent = f"{share.tools} tools" if compact else f"{share.tools} tools sent"
        parts: list[Content | tuple[str, str]] = [cached, (f"{gap}{sent}", "dim")]
        if share.deferred:
            parts.append((f", {share.deferred} deferred", "$accent"))
        return Content.assemble(*parts)

    def render_table(self, width: int = 0) -> Content:
        """The table for a pane `width` columns wide (0: wide enough for every column)."""
        self._compact = 0 < width < WIDE_ROWS
        view = self.view
        compact = self._compact  # narrow: shorter words, so every line fits whole (none cut by "…")
        cached = Content.styled("■" if compact else "■ cached", "$success")
        ephemeral = Content.styled("□" if compact else "□ per call", "dim")
        lines: list[Content] = []
        if view.preview:
            preview = (
                "preview: your first message's prompt"
                if compact
                else "preview: the prompt your first message will get"
            )
            lines.append(Content.styled(preview, "dim italic"))
        for layer in view.layers:
            label = LAYER_LABEL.get(layer.name, layer.name)
            mark = cached if layer.cached else ephemeral
            gap = " " if compact else "  "
            if layer.name in ("memory", "user") and layer.cached:
                mark = Content.assemble(mark, (f"{gap}frozen", "dim"))
            if layer.note:
                mark = Content.assemble(mark, (f"{gap}{layer.note}", "$warning"))
            lines.append(self._row(label, layer.tokens, mark))
        lines.append(
            self._row("conversation", view.conversation, Content.styled(f"{view.messages} messages", "dim"))
        )
        lines.append(self._row("tool schemas", view.tools, cached))
        if view.mcp is not None:
            lines.append(self._row("MCP schemas", view.mcp.tokens, self._mcp_mark(view.mcp, cached, compact)))
        lines.append(Content.styled("─" * 40, "dim"))
        used = view.used
        fraction = self._fraction(used)
        level = self.levels.level(fraction)
        lines.append(
            Content.assemble(
                ("total".ljust(14), "bold"),
                (f"{format_tokens(used):>6} ", LEVEL_STYLE[level]),
                f"of {format_tokens(view.window)}" + (" " if compact else "  "),
                gauge(fraction, ROW_BAR - 2 if compact else ROW_BAR, self.levels),
                (f" {fraction * 100:.0f}%", LEVEL_STYLE[level]),
            )
        )
        if self.overfull:
            lines.append(
                Content.assemble(
                    ("does not fit".ljust(14), "bold $error"),
                    ("/new starts fresh; a short message lets compression cut an old paste", "$error"),
                )
            )
        lines.append(
            Content.assemble(
                ("cached prefix".ljust(14), "bold"),
                (f"{format_tokens(view.cached_prefix):>6} ", "$success"),
                ("tools + ■ layers" if compact else "stable across calls (tools + ■ layers)", "dim"),
            )
        )
        if view.threshold > 0:
            left = view.threshold - used
            to_go = f"{format_tokens(left)} to go" if left > 0 else "due at the next call"
            lines.append(
                Content.assemble(
                    ("compress at".ljust(14), "bold"),
                    (f"{format_tokens(view.threshold):>6} ", "$accent"),
                    (
                        f"({self._fraction(view.threshold) * 100:.0f}%) "
                        + (to_go if compact else f"── {to_go} ──▶"),
                        "dim",
                    ),
                )
            )
        else:
            lines.append(Content.styled("compression is off (compression.enabled)", "dim"))
        # Where terminal commands run takes the spacer's row, so the table is no taller for it.
        where = Content.assemble(("terminal on ", "dim"), view.terminal) if view.terminal else Content("")
        lines.append(where)
        if view.model or view.provider:
            lines.append(self._provider_line())
        lines += [self._usage_line(), self._totals_line(), *self._children_lines()]
        return Content("\n").join(lines)

    def _provider_line(self) -> Content:
        """Which model and provider answer now; after a fallback switch, why."""
        view = self.view
        at = f" at {view.provider}" if view.provider else ""
        parts: list[Content | str | tuple[str, str]] = [("model".ljust(14), "bold"), f"{view.model}{at}"]
        if self.switched:
            parts.append((f" · {self.switched}", "$warning"))
        return Content.assemble(*parts)

    def _children_lines(self) -> list[Content]:
        """The subagents, apart from the session's own calls: how many, their calls and tokens (none
        when the session delegated nothing)."""
        if not self.subagents:
            return []
        children = self.subagents.values()
        running = sum(child.running for child in children)
        calls = sum(child.calls for child in children)
        prompt = sum(child.prompt_tokens for child in children)
        out = sum(child.completion_tokens for child in children)
        count = len(self.subagents)
        line = Content.assemble(
            ("subagents ", "bold"),
            f"{count}" + (f" ({running} running)" if running else "") + " · ",
            f"{calls} call{'s' if calls != 1 else ''} · ",
            f"{format_tokens(prompt)} in · {format_tokens(out)} out",
        )
        return [line]

    def _usage_line(self) -> Content:
        last = self.totals.last
        if last is None:
            return Content.styled("last call: none yet", "dim")
        share = last.cached_tokens / last.prompt_tokens if last.prompt_tokens else 0.0
        parts: list[Content | str | tuple[str, str]] = [
            ("last call ", "bold"),
            f"{format_tokens(last.prompt_tokens)} in · ",
            (
                f"{format_tokens(last.cached_tokens)} cached"
                + ("" if self._compact else f" ({share * 100:.0f}%)"),
                "$success",
            ),
            f" · {format_tokens(last.completion_tokens)} out",
        ]
        if last.cost_usd and not self._compact:  # narrow: the session line and the status bar say it
            parts.append(f" · ${last.cost_usd:.3f}")
        return Content.assemble(*parts)

    def _totals_line(self) -> Content:
        totals = self.totals
        if not totals.calls:
            return Content.styled("session: no calls yet", "dim")
        compact = self._compact
        cost = f" · ${totals.cost_usd:.2f}" if totals.cost_usd else "" if compact else " · cost not reported"
        return Content.assemble(
            ("session ", "bold"),
            f"{totals.calls} call{'s' if totals.calls != 1 else ''} · ",
            f"{format_tokens(totals.prompt_tokens)} in · ",
            ("" if compact else f"{format_tokens(totals.cached_tokens)} cached · ", "$success"),
            f"{format_tokens(totals.completion_tokens)} out{cost}",
        )

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#budget-table", Static)
        content = self.render_table(table.content_region.width or self.content_region.width)
        self._table_lines = content.plain.split("\n")
        table.update(content)
        self.fit_height()

    def on_resize(self) -> None:
        width = self.query_one("#budget-table", Static).content_region.width
        if width and (0 < width < WIDE_ROWS) != self._compact:
            self._draw()

    def fit_height(self) -> None:
        """Beside the other panes, as tall as its table (up to 40% of the column), so the totals are
        in view: at 1.2fr they were scrolled off at 160x48 while the memory pane had rows to spare.
        Alone (the folded layout, zoomed) or hidden, the stylesheet decides."""
        side = self.parent
        alone = self.is_attached and (self.screen.has_class("-narrow") or self.is_maximized)
        if self.collapsed or alone or not isinstance(side, Widget) or side.size.height <= 0:
            if self.styles.has_rule("height"):
                self.styles.clear_rule("height")
            return
        wanted = 1 + len(self._table_lines)
        height = max(4, min(wanted, int(side.size.height * 0.4)))
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height

    def watch_collapsed(self, collapsed: bool) -> None:
        super().watch_collapsed(collapsed)
        self.fit_height()

    def on_mount(self) -> None:
        super().on_mount()
        self._draw()

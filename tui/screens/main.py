"""The main screen: transcript and input on the left, the live panes on the right.

Engine events arrive here as Messages (posted by the app's turn worker); the `@on` handlers below
are the only code that changes the panes. Below `tui.fold_below_columns` the side panes fold into a
tab line above the transcript: F2…F5 show one of them in the transcript's place, F1 brings the
conversation back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from tui import messages
from tui.process_feed import ProcessFeed
from widgets.budget_pane import BudgetPane, BudgetView
from widgets.compression_pane import CompressionPane
from widgets.facts_section import FactLine
from widgets.gauge import GaugeLevels
from widgets.input_blocks import ShellBlock, SteerBlock
from widgets.memory_pane import MemoryPane
from widgets.message_input import PromptBox, SlashCommand
from widgets.next_session import NextSessionBar
from widgets.pane import Pane
from widgets.paste_chips import PasteLimits
from widgets.queued_list import QueuedList
from widgets.skills_pane import SkillsPane
from widgets.status_bar import StatusBar, StatusState
from widgets.transcript import Transcript, TranscriptPane

PANE_IDS = ("transcript", "memory", "budget", "skills", "compression")


@dataclass(frozen=True)
class MainScreenSettings:
    """What the main screen is built from (all from config, so tests can fix every value)."""

    title: str = "hws"
    fold_below_columns: int = 110
    side_width_percent: int = 40
    prune_keep_lines: int = 1500
    prune_excess_lines: int = 1000
    tool_preview_chars: int = 72
    live_segment_chars: int = 2000
    show_reasoning: bool = True
    bell_on_complete: bool = False  # ring the terminal bell when a turn ends
    prompt_placeholder: str = ""
    commands: tuple[SlashCommand, ...] = ()
    prompt_max_lines: int = 8
    shell_output_lines: int = 20  # of a `!CMD`'s output, before a click shows it all
    history_size: int = 500
    memory_pane_entries: int = 200
    facts: bool = False  # the local fact store is the memory provider: the memory pane lists facts
    context_window: int = 128_000
    paste_limits: PasteLimits = field(default_factory=PasteLimits)
    levels: GaugeLevels = field(default_factory=GaugeLevels)
    status: StatusState = field(default_factory=StatusState)


class PaneTabs(Static):
    """The folded side panes as one line of tabs (narrow terminals only)."""

    def show(self, panes: list[Pane], current: str) -> None:
        parts: list[Content | str] = []
        for pane in panes:
            name = pane.id or ""
            label = Content.assemble(
                (f" {pane.pane_key} ", "bold"),
                pane.pane_title.split(" ─")[0],
                (f" {pane.brief}" if pane.brief else "", "dim"),
                " ",
            )
            style = "reverse" if name == current else ""
            parts.append(label.stylize(style).stylize(f"@click=screen.show_pane('{name}')"))
            parts.append(Content.styled("│", "dim"))
        self.update(Content.assemble(*parts[:-1]) if parts else "")


class MainScreen(Screen[None]):
    """The workstation's home: every pane of the running session."""

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#prompt-input"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f1",
            "show_pane('transcript')",
            "transcript",
            id="focus_transcript",
            tooltip="Focus the transcript (folded: bring it back)",
        ),
        Binding(
            "f2",
            "show_pane('memory')",
            "memory",
            id="focus_memory",
            tooltip="Focus the memory pane (folded: show it)",
        ),
        Binding(
            "f3",
            "show_pane('budget')",
            "budget",
            id="focus_budget",
            tooltip="Focus the budget pane (folded: show it)",
        ),
        Binding(
            "f4",
            "show_pane('skills')",
            "skills",
            id="focus_skills",
            tooltip="Focus the skills pane (folded: show it)",
        ),
        Binding(
            "f5",
            "show_pane('compression')",
            "compression",
            id="focus_compression",
            tooltip="Focus the compression pane (folded: show it)",
        ),
        Binding(
            "ctrl+b", "toggle_side", "side panes", id="toggle_side", tooltip="Show or hide the side panes"
        ),
        Binding("escape", "focus_input", "input", id="focus_input", tooltip="Back to the input", show=False),
        Binding(
            "ctrl+o",
            "answer_approval",
            "answer",
            id="answer_approval",
            tooltip="Move to the approval question waiting for an answer",
        ),
    ]

    shown: reactive[str] = reactive("transcript")
    """In the folded (narrow) layout, the pane that has the transcript's place."""

    def __init__(
        self,
        settings: MainScreenSettings,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.clock = clock
        self.wall_clock = wall_clock
        self.session_id = ""  # the conversation's session, as the messages told it
        self.files_note = ""  # what the status bar says of the file watcher ("" while it has events)
        self._turn_note = ""  # the status note a running turn set (a retry), cleared when it succeeds
        self._turn_failed = False
        self._layer_notes_said: set[str] = set()
        self.process_feed = ProcessFeed(self)
        self.HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (settings.fold_below_columns, "-wide")]

    def compose(self) -> ComposeResult:
        s = self.settings
        # The layout class the first resize would set, set now: the panes are styled once for the
        # terminal's width instead of twice (about 15 ms of a ~250 ms first frame, measured headless).
        self.update_classes(
            {name: name in self._get_breakpoint_classes(self.app.size.width, self.HORIZONTAL_BREAKPOINTS)
             for _, name in self.HORIZONTAL_BREAKPOINTS},
            update=False,
        )  # fmt: skip
        yield PaneTabs(id="pane-tabs")
        with Horizontal(id="body"):
            transcript = Transcript(
                prune_keep_lines=s.prune_keep_lines,
                prune_excess_lines=s.prune_excess_lines,
                tool_preview_chars=s.tool_preview_chars,
                live_segment_chars=s.live_segment_chars,
                show_reasoning=s.show_reasoning,
                paste_limits=s.paste_limits,
                id="transcript",
            )
            yield TranscriptPane(transcript, title=s.title, id="transcript-pane")
            with Vertical(id="side"):
                # Born with the class `watch_shown` would give them, so mounting restyles nothing.
                for pane in (
                    MemoryPane(s.levels, id="memory", max_entries=s.memory_pane_entries, facts=s.facts),
                    BudgetPane(s.context_window, s.levels, id="budget"),
                    SkillsPane(id="skills"),
                    CompressionPane(id="compression", clock=self.wall_clock),
                ):
                    pane.add_class("-not-shown")
                    yield pane
        yield NextSessionBar(id="next-session")
        yield QueuedList(id="queued")
        yield PromptBox(
            s.commands,
            placeholder=s.prompt_placeholder,
            history_size=s.history_size,
            max_lines=s.prompt_max_lines,
            paste_limits=s.paste_limits,
            id="prompt",
        )
        yield StatusBar(s.status, levels=s.levels, clock=self.clock, id="status")

    def on_mount(self) -> None:
        self._fit_side()
        self.watch_shown(self.shown)
        if self.files_note:  # the watcher spoke first
            self.status.update_state(files=self.files_note)

    def on_resize(self) -> None:
        self._fit_side()
        self.call_after_refresh(self.budget.fit_height)  # once the column has its new height

    def watch_maximized(self, maximized: Widget | None) -> None:
        """Zoomed, the budget fills the screen at once; back beside the others, its table's height."""
        if maximized is self.budget:
            self.budget.fit_height()
        else:
            self.call_after_refresh(self.budget.fit_height)

    def _fit_side(self) -> None:
        """The side column's share of a wide terminal; folded, the shown pane takes the width."""
        folded = self.size.width < self.settings.fold_below_columns
        self.query_one("#side").styles.width = "1fr" if folded else f"{self.settings.side_width_percent}%"

    # Panes.

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#transcript", Transcript)

    @property
    def prompt(self) -> PromptBox:
        return self.query_one("#prompt", PromptBox)

    @property
    def queued(self) -> QueuedList:
        return self.query_one("#queued", QueuedList)

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def memory(self) -> MemoryPane:
        return self.query_one("#memory", MemoryPane)

    @property
    def budget(self) -> BudgetPane:
        return self.query_one("#budget", BudgetPane)

    @property
    def skills(self) -> SkillsPane:
        return self.query_one("#skills", SkillsPane)

    @property
    def compression(self) -> CompressionPane:
        return self.query_one("#compression", CompressionPane)

    @property
    def next_session(self) -> NextSessionBar:
        return self.query_one("#next-session", NextSessionBar)

    # A file open beside the transcript (the editor's ctrl+t): it takes the side panes' place.

    @property
    def beside(self) -> Widget | None:
        return self.query_one("#side").query_children(".beside-editor").first() if self.is_editing else None

    @property
    def is_editing(self) -> bool:
        return self.has_class("-editing")

    async def open_beside(self, editor: Widget) -> None:
        """Show `editor` in the side column, in place of the panes, until `close_beside`."""
        await self.close_beside()
        editor.add_class("beside-editor")
        side = self.query_one("#side")
        await side.mount(editor, before=0)
        self.add_class("-editing")
        self.remove_class("-hide-side")
        if self.folded:
            self.shown = "memory"  # the folded layout shows the side column in the transcript's place

    async def close_beside(self) -> None:
        for editor in self.query(".beside-editor"):
            await editor.remove()
        self.remove_class("-editing")

    def pane(self, name: str) -> Pane:
        if name == "transcript":
            return self.query_one("#transcript-pane", Pane)
        return self.query_one(f"#{name}", Pane)

    def panes(self) -> list[Pane]:
        return [self.pane(name) for name in PANE_IDS]

    @property
    def folded(self) -> bool:
        return self.has_class("-narrow")

    def watch_shown(self, shown: str) -> None:
        self.set_class(shown != "transcript", "-showing-side")
        for name in PANE_IDS[1:]:
            self.pane(name).set_class(name != shown, "-not-shown")
        self._refresh_tabs()

    def action_show_pane(self, name: str) -> None:
        """Focus a pane; in the folded layout, show it in the transcript's place first."""
        if name not in PANE_IDS:
            return
        pane = self.pane(name)
        self.shown = name
        if name != "transcript":
            self.remove_class("-hide-side")
        if self.maximized is not None and self.maximized is not pane:
            self.minimize()
        target = pane.focus_target()
        if target.focusable:
            self.set_focus(target)  # now: focus() waits a message, and a key typed right after would miss
        else:  # folded away until the class change is laid out
            self.call_after_refresh(lambda: pane.focus_target().focus())

    def action_toggle_side(self) -> None:
        if self.folded:
            self.action_show_pane("transcript" if self.shown != "transcript" else "memory")
            return
        self.toggle_class("-hide-side")
        if self.has_class("-hide-side") and self.query_one("#side").has_focus_within:
            self.prompt.input.focus()

    def action_answer_approval(self) -> None:
        block = self.transcript.pending_approval()
        if block is None:
            self.notify("No question is waiting for an answer.", timeout=3)
            return
        if self.folded and self.shown != "transcript":
            self.shown = "transcript"
        block.scroll_visible(animate=False)
        block.take_focus()

    def action_focus_input(self) -> None:
        if self.folded and self.shown != "transcript":
            self.shown = "transcript"
        self.prompt.input.focus()

    def take_typing(self, event: events.Key) -> bool:
        """A printable key pressed while a pane has the focus is text for the input: the focus moves
        there at once (so the keys after it follow in order) and the key goes on to it.

        Left alone: a key the focused widget takes as text or as an answer (an editor beside the
        transcript, the approval question), and a key the person's keymap binds here on purpose.
        True when the key was taken for the input.
        """
        character = event.character
        if character is None or not character.isprintable():
            return False
        focused = self.focused
        if focused is self.prompt.input:
            return False
        if focused is not None and any(
            node.check_consume_key(event.key, character) for node in focused.ancestors_with_self
        ):
            return False
        bound = self.active_bindings.get(event.key)
        if bound is not None and bound.enabled and bound.binding.id:
            return False
        return self._typing_to_input()

    def take_paste(self) -> bool:
        """Text pasted while a pane has the focus is for the input too (a pane would drop it)."""
        focused = self.focused
        if isinstance(focused, (TextArea, Input)):  # the input, an editor beside the transcript
            return False
        return self._typing_to_input()

    def _typing_to_input(self) -> bool:
        prompt = self.prompt.input
        if self.folded and self.shown != "transcript":
            self.shown = "transcript"
        self.set_focus(prompt, scroll_visible=False)
        return self.focused is prompt

    @on(Pane.FocusRequested)
    def _pane_clicked(self, event: Pane.FocusRequested) -> None:
        self.action_show_pane(event.pane.id.removesuffix("-pane") if event.pane.id else "transcript")

    def _refresh_tabs(self) -> None:
        self.query_one(PaneTabs).show(self.panes(), self.shown)

    @on(Pane.SummaryChanged)
    def _summary_changed(self) -> None:
        # Kept current while hidden too: a terminal narrowed later folds the panes into this line.
        self._refresh_tabs()

    # Data the app hands over.

    def set_skill_commands(self, commands: list[SlashCommand]) -> None:
        self.prompt.set_skill_commands(commands)

    # What the app's workers read: the only way pane contents change besides engine events.

    @on(messages.MemoryRead)
    def _show_memory(self, message: messages.MemoryRead) -> None:
        if message.is_current():
            self.memory.show(message.view)

    @on(messages.BudgetRead)
    def _show_budget(self, message: messages.BudgetRead) -> None:
        if not message.is_current():
            return
        view = message.view
        self.budget.show(view)
        self.status.update_state(context_used=self.budget.used, context_window=view.window)
        self._say_layer_problems(view)

    @on(messages.SkillsRead)
    def _show_skills(self, message: messages.SkillsRead) -> None:
        if message.is_current():
            self.skills.show(message.view)

    @on(messages.VerdictsRead)
    def _show_verdicts(self, message: messages.VerdictsRead) -> None:
        if message.is_current():
            self.skills.set_verdicts(message.verdicts)

    @on(messages.LineageRead)
    def _show_lineage(self, message: messages.LineageRead) -> None:
        if message.is_current():
            self.compression.set_lineage(message.chain, message.branch_of, message.branches)

    def _say_layer_problems(self, view: BudgetView) -> None:
        """A file of the person's that reaches the prompt damaged (not UTF-8, blocked, cut): said once.

        The budget pane shows it as a note on its row, which a narrow pane drops.
        """
        said = self._layer_notes_said
        for layer in view.layers:
            if layer.name not in ("identity", "context_files") or not layer.note or layer.note in said:
                continue
            said.add(layer.note)
            what = "SOUL.md" if layer.name == "identity" else "the project's context file"
            self.post_message(messages.Notice(f"{what} in the prompt: {layer.note}", "warning", "!"))

    @on(messages.UserMessageStored)
    def _user_message_stored(self, message: messages.UserMessageStored) -> None:
        block = self.transcript.turn_user
        if block is not None and block.is_attached:
            self.transcript.tag_user(block, (message.event.session_id, message.event.message_id))

    @on(messages.TurnSteered)
    async def _show_steer(self, message: messages.TurnSteered) -> None:
        event = message.event
        block = SteerBlock(event.text, self.settings.paste_limits)
        if event.message_id is not None:
            block.ref = block.ref_end = (event.session_id, event.message_id)
        await self.transcript.add_block(block)

    @on(messages.ShellRan)
    async def _show_shell_output(self, message: messages.ShellRan) -> None:
        self._use_session(message.event.session_id)
        await self.transcript.add_block(
            ShellBlock(message.event, self.settings.shell_output_lines, message.attached)
        )

    @on(messages.SessionOpened)
    def _follow_opened_session(self, message: messages.SessionOpened) -> None:
        self._use_session(message.session_id)
        self._mark_stale(message)
        if message.resumed:
            self.transcript.open_history(message.session_id)

    @on(messages.ConversationReset)
    async def _start_over(self, message: messages.ConversationReset) -> None:
        await self.transcript.clear()
        same_session = message.reason == "model" and bool(message.session_id)
        if (
            not same_session
        ):  # a model switch goes on with the session: its calls, cost and compressions count
            self.compression.reset()
            self.budget.reset_usage()
            self.status.update_state(compressions=0, cost_usd=None)
            if self.memory.facts is not None:
                self.memory.facts.reset()
        self.skills.reset_session()
        self.status.update_state(working=False, note="", guarded="", overfull=False)
        self.budget.set_overfull(False)
        self.session_id = ""
        if message.reason == "model":  # the transcript was just cleared: this notice is the one that stays
            model = self.status.state.model or "another model"
            goes_on = f"; session {message.session_id} goes on" if message.session_id else ""
            # Providers keep a prompt cache per model and endpoint: the next call pays for the whole prompt.
            cache = "; the prompt cache starts over (the next call sends the whole prompt uncached)"
            text = f"Switching the model to {model}{message.detail}{goes_on}{cache}…"
        else:
            words = {"new": "New conversation", "resume": "Resuming"}
            target = f" {message.session_id}" if message.session_id else ""
            text = f"{words.get(message.reason, message.reason)}{target}…"
        await self.transcript.add_notice(text, "info", "↪")
        self._mark_stale(message)
        # A fresh conversation is for typing: the focus goes back to the input.
        self.action_focus_input()

    def _use_session(self, session_id: str) -> None:
        if session_id:
            self.session_id = session_id

    def _mark_stale(self, message: Message) -> None:
        """Tell the app this message was shown: it reads again what the message made stale."""
        self.app.post_message(messages.Shown(message))

    # Engine events: the only code that changes the panes.

    @on(messages.TurnSubmitted)
    async def _show_user_message(self, message: messages.TurnSubmitted) -> None:
        pane = self.pane("transcript")
        if pane.collapsed:  # hidden (f9), the message and its reply would go on out of sight
            pane.collapsed = False
        # Scrolled up to read, the person who sends wants to see the message and its reply: jump to
        # the newest output and follow it again.
        await self.transcript.action_follow()
        await self.transcript.add_user_message(message.text)
        self.status.update_state(working=True, note="")
        self._turn_note = ""
        self._turn_failed = False

    @on(messages.Notice)
    async def _add_notice(self, message: messages.Notice) -> None:
        await self.transcript.add_notice(message.text, message.level, message.icon)

    @on(messages.TurnStarted)
    def _mark_working(self, message: messages.TurnStarted) -> None:
        self.status.update_state(working=True)
        self._use_session(message.event.session_id)
        self._mark_stale(message)
        if self.memory.facts is not None:
            self.memory.facts.turn_started()

    @on(messages.TextDelta)
    async def _append_reply(self, message: messages.TextDelta) -> None:
        await self.transcript.append_reply(message.event.text)

    @on(messages.ReasoningDelta)
    async def _append_reasoning(self, message: messages.ReasoningDelta) -> None:
        await self.transcript.append_reasoning(message.event.text)

    @on(messages.ToolCalled)
    async def _add_tool_block(self, message: messages.ToolCalled) -> None:
        await self.transcript.tool_called(message.event)

    @on(messages.ToolProgress)
    def _show_tool_progress(self, message: messages.ToolProgress) -> None:
        self.transcript.tool_progress(message.event)

    @on(messages.ToolFinished)
    async def _finish_tool_block(self, message: messages.ToolFinished) -> None:
        await self.transcript.tool_finished(message.event)

    @on(messages.ApprovalNeeded)
    async def _ask_approval(self, message: messages.ApprovalNeeded) -> None:
        if self.folded:
            self.shown = "transcript"
        await self.transcript.ask_approval(message.event, message.future)

    @on(messages.ClarifyNeeded)
    async def _ask_clarify(self, message: messages.ClarifyNeeded) -> None:
        if self.folded:
            self.shown = "transcript"
        await self.transcript.ask_clarify(message.event, message.future)

    @on(messages.UnsavedMessages)
    async def _say_unsaved_messages(self, message: messages.UnsavedMessages) -> None:
        event = message.event
        if event.waiting:
            text = (
                "state.db is locked by another program: this conversation's newest messages are kept in "
                f"{event.journal} and written once the lock is released"
            )
            await self.transcript.add_notice(text, "warning", "⚠")
        else:
            await self.transcript.add_notice("the kept messages are written to state.db", icon="✓")

    @on(messages.ApprovedBySession)
    async def _say_approved_by_session(self, message: messages.ApprovedBySession) -> None:
        event = message.event
        await self.transcript.add_notice(
            f"ran without asking: this session allows {event.scope} ({event.tool} {event.command})", icon="✓"
        )

    @on(messages.MemoryWritten)
    async def _note_memory_write(self, message: messages.MemoryWritten) -> None:
        event = message.event
        self.memory.memory_written()
        self._mark_stale(message)
        who = "" if event.who == "agent" else f" by {event.who}"
        await self.transcript.add_notice(
            f"memory {event.action} ({event.target}){who}: {event.message}", icon="✎"
        )

    @on(messages.FactWritten)
    def _note_fact_write(self, message: messages.FactWritten) -> None:
        section = self.memory.facts
        if section is not None:
            event = message.event
            section.fact_written(
                FactLine(event.fact_id, event.content, event.trust, event.category, event.action)
            )

    @on(messages.FactsRecalled)
    def _note_facts_recalled(self, message: messages.FactsRecalled) -> None:
        section = self.memory.facts
        if section is not None:
            section.facts_recalled(
                FactLine(f.fact_id, f.content, f.trust, f.category) for f in message.event.facts
            )

    @on(messages.SkillChanged)
    async def _note_skill_change(self, message: messages.SkillChanged) -> None:
        event = message.event
        self.skills.skill_changed(event)
        self._mark_stale(message)
        who = "" if event.who == "agent" else f" by {event.who}"
        await self.transcript.add_notice(f"skill {event.name} {event.action}{who}: {event.message}", icon="✚")

    @on(messages.WriteStaged)
    async def _note_staged_write(self, message: messages.WriteStaged) -> None:
        event = message.event
        pane_key = "F2" if event.subsystem == "memory" else "F4"
        self._mark_stale(message)
        who = "" if event.who == "agent" else f" by {event.who}"
        name, pending_id = event.subsystem, event.pending_id
        how = f"{pane_key}, then ctrl+a approves or ctrl+x rejects; or /{name} approve {pending_id}"
        text = f"{name} write{who} waits for your approval ({pending_id}): {event.summary} — {how}"
        await self.transcript.add_notice(text, "warning", "⏸")

    @on(messages.SkillLoaded)
    def _mark_skill_loaded(self, message: messages.SkillLoaded) -> None:
        self.skills.skill_loaded(message.event)
        self._mark_stale(message)

    @on(messages.NudgeFired)
    async def _say_nudge(self, message: messages.NudgeFired) -> None:
        await self.transcript.add_notice(f"nudge ({message.event.nudge}): {message.event.reason}", icon="›")

    @on(messages.CheckpointTaken)
    async def _say_checkpoint(self, message: messages.CheckpointTaken) -> None:
        event = message.event
        if not event.unchanged:  # a turn whose folder had not changed since the last one says nothing
            files = f"{event.files:,} file{'' if event.files == 1 else 's'}"
            said = f"checkpoint {event.checkpoint_id} of {files} before {event.reason} (/rollback)"
            await self.transcript.add_notice(said, icon="⛁")

    @on(messages.CheckpointSkipped)
    async def _say_checkpoint_skipped(self, message: messages.CheckpointSkipped) -> None:
        await self.transcript.add_notice(message.event.message, "warning", "!")

    @on(messages.SubagentStarted)
    async def _add_subagent_block(self, message: messages.SubagentStarted) -> None:
        await self.transcript.subagent_started(message.event)
        self.budget.subagent(message.event.child_session_id)

    @on(messages.SubagentProgress)
    def _show_subagent_progress(self, message: messages.SubagentProgress) -> None:
        event = message.event
        self.transcript.subagent_progress(event)
        self.budget.subagent(
            event.child_session_id, event.calls, event.prompt_tokens, event.completion_tokens
        )

    @on(messages.SubagentFinished)
    async def _finish_subagent_block(self, message: messages.SubagentFinished) -> None:
        event = message.event
        await self.transcript.subagent_finished(event)
        tokens = (event.calls, event.prompt_tokens, event.completion_tokens)
        self.budget.subagent(event.child_session_id, *tokens, running=False)

    @on(messages.Usage)
    def _count_usage(self, message: messages.Usage) -> None:
        event = message.event
        self.budget.usage(event)
        cost = self.status.state.cost_usd
        if event.cost_usd:  # a provider that reports none leaves "$ –", not a made-up $0.00
            cost = (cost or 0.0) + event.cost_usd
        self.status.update_state(context_used=self.budget.used, cost_usd=cost)

    @on(messages.Status)
    async def _show_status_note(self, message: messages.Status) -> None:
        event = message.event
        self.status.update_state(note=event.text, note_level=event.level)
        if self.status.state.working:
            self._turn_note = event.text
        if event.reply_void and await self.transcript.void_reply():
            await self.transcript.add_notice(event.text, "warning", "↻")

    @on(messages.ProviderSwitched)
    async def _show_provider_switch(self, message: messages.ProviderSwitched) -> None:
        """A fallback provider took over: the budget pane names it; the status bar and transcript say so."""
        event = message.event
        self.budget.provider_switched(event)
        self.status.update_state(model=event.model)
        at = f" at {event.provider}" if event.provider else ""
        why = f" ({event.reason})" if event.reason else ""
        said = (
            f"{event.failed} failed{why}; this session goes on with {event.model}{at}, whose prompt cache "
            "starts cold. `/model NAME --provider P` switches back."
        )
        await self.transcript.add_notice(said, "warning", "⇄")

    @on(messages.GuardedSettingsChanged)
    async def _warn_guarded_settings(self, message: messages.GuardedSettingsChanged) -> None:
        event = message.event
        await self.transcript.add_notice(event.message, "warning" if event.changes else "info", "⚠")
        self.status.update_state(guarded=", ".join(event.changes))

    @on(messages.ErrorEvent)
    async def _show_error(self, message: messages.ErrorEvent) -> None:
        event = message.event
        self._turn_failed = True
        await self.transcript.add_notice(event.message, "error", "✗")
        # Retries are over by now: a retryable error is one worth sending again, not one being retried.
        note = "error (send again)" if event.retryable else "error"
        self.status.update_state(note=note, note_level="error")

    @on(messages.TurnFinished)
    async def _finish_turn(self, message: messages.TurnFinished) -> None:
        transcript = self.transcript
        await transcript.finish_turn(message.event)
        event = message.event
        if event.empty:
            await transcript.add_notice(
                "The model's reply was empty: nothing to show. Send again, or rephrase.", "warning", "∅"
            )
        if self._turn_note and self.status.state.note == self._turn_note and not self._turn_failed:
            self.status.update_state(note="")  # the retry it spoke of worked
        self._turn_note = ""
        self.status.update_state(working=False)
        if self.settings.bell_on_complete:
            self.app.bell()
        self._mark_stale(message)

    @on(messages.TurnAborted)
    async def _end_aborted_turn(self, message: messages.TurnAborted) -> None:
        await self.transcript.finish_turn(None, interrupted=message.reason == "interrupted")
        if message.error:
            await self.transcript.add_notice(message.error, "error", "✗")
        self.status.update_state(working=False)

    @on(messages.CompressionStarted)
    def _show_compression_start(self, message: messages.CompressionStarted) -> None:
        self.compression.compression_started(message.event)
        self.status.update_state(note="compressing…", note_level="info")

    @on(messages.CompressionPhase)
    def _show_compression_phase(self, message: messages.CompressionPhase) -> None:
        self.compression.compression_phase(message.event)

    @on(messages.CompressionFinished)
    async def _show_compression_result(self, message: messages.CompressionFinished) -> None:
        event = message.event
        self.compression.compression_finished(event)
        if not event.compressed:  # nothing dropped: /compress says why, the timeline shows it
            self.status.update_state(note="")
            self._mark_stale(message)
            return
        self.budget.history_shrank()
        self.status.update_state(compressions=self.status.state.compressions + 1, note="")
        self._mark_stale(message)
        await self.transcript.add_notice(
            f"compressed {event.tokens_before:,} → {event.tokens_after:,} tokens; "
            f"session {event.old_session_id} → {event.new_session_id}",
            icon="⇣",
        )

    @on(messages.SessionTitled)
    async def _say_title(self, message: messages.SessionTitled) -> None:
        event = message.event
        self._mark_stale(message)
        if event.by == "user":  # `/title` before the first message opened the session it names
            self._use_session(event.session_id)
            await self.transcript.add_notice(f"Titled this session “{event.title}”.", icon="✎")
            return
        if event.session_id != self.session_id:
            return  # a session left meanwhile (/new): its title shows in the sessions list
        await self.transcript.add_notice(
            f"This session is titled “{event.title}” · /title NAME renames it.", icon="✎"
        )

    @on(messages.ConversationTooLarge)
    async def _flag_overfull(self, message: messages.ConversationTooLarge) -> None:
        """Said once when the conversation stops fitting, and once when it fits again."""
        event = message.event
        self.status.update_state(overfull=not event.fits)
        self.budget.set_overfull(not event.fits)
        if event.fits:
            await self.transcript.add_notice(event.message, "info", "✓")
        else:
            await self.transcript.add_notice(event.message, "warning", "⚠")

    @on(messages.SessionResumed)
    async def _session_resumed(self, message: messages.SessionResumed) -> None:
        await self.transcript.add_notice(message.event.sentence, icon="↪")

    @on(messages.ConversationRewound)
    async def _take_back(self, message: messages.ConversationRewound) -> None:
        """The rewound exchanges leave the transcript and the message that opened them is back in the input,
        to edit and send again."""
        event = message.event
        transcript = self.transcript
        # Out of the window (pruned, or below a gap): the stored conversation is shown again.
        if not await transcript.take_back(event.session_id, event.message_ids):
            await transcript.clear()
            transcript.open_history(event.session_id)
        self.budget.history_shrank()
        self.prompt.set_text(event.text)
        self.action_focus_input()
        self._mark_stale(message)

    @on(messages.SessionChanged)
    async def _follow_session_change(self, message: messages.SessionChanged) -> None:
        event = message.event
        if event.reason == "branched":  # the blocks know the original's messages: show the branch's
            await self.transcript.clear()
            self.transcript.open_history(event.session_id)
        await self.transcript.add_notice(
            f"session {event.previous_session_id} → {event.session_id} ({event.reason})", icon="↪"
        )
        self._use_session(event.session_id)
        self._mark_stale(message)

    @on(messages.ProcessStarted)
    async def _process_started(self, message: messages.ProcessStarted) -> None:
        await self.process_feed.started(message.event)

    @on(messages.ProcessOutput)
    def _process_output(self, message: messages.ProcessOutput) -> None:
        self.process_feed.output(message.event)

    @on(messages.ProcessEnded)
    def _process_ended(self, message: messages.ProcessEnded) -> None:
        self.process_feed.ended(message.event)

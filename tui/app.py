"""The workstation app: owns the home, config, themes, keymap, the agent and the turn worker.

Workers call the engine and post Messages; the main screen's `@on` handlers change the panes. The
agent is built in a thread after the first frame (the model client is slow to import), so the
window opens at once, with or without a model.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen

from engine.config import Config
from engine.home import Home
from engine.mcp.references import PROMPT_PREFIX
from engine.text.sentences import sentence as end_sentence
from engine.text.tokens import estimate as estimate_tokens
from engine.tools.sandbox import sandbox_status
from themes.builtin import BUILTIN_THEMES, DEFAULT_THEME
from tui import heap, messages
from tui.agent_lifecycle import AgentLifecycle
from tui.agent_port import AgentPort, drive_turn, interrupt, kill_process, oversized
from tui.busy_input import BusyInput
from tui.commands import (
    SLASH_COMMANDS,
    SessionEntry,
    SkillEntry,
    SlashCommands,
    no_model_text,
    parse_slash,
)
from tui.history_feeds import HistoryFeeds
from tui.live_files import DriftComputed, LiveFiles
from tui.pane_feeds import PaneFeeds
from tui.staleness import CATALOGS, NEXT_SESSION, PANE_NAMES, session_of, stale_after
from tui.unsaved import UnsavedBuffers
from tui.watcher import HomeChanged, OwnWritesLanded, WatchStatus
from widgets.budget_pane import BudgetPane
from widgets.compression_pane import CompressionPane
from widgets.file_editor import FileEditor
from widgets.gauge import GaugeLevels
from widgets.memory_pane import MemoryPane
from widgets.message_input import PromptBox
from widgets.paste_chips import PasteLimits
from widgets.pending_list import PendingList
from widgets.queued_list import QueuedList
from widgets.skills_pane import SkillsPane
from widgets.status_bar import StatusState
from widgets.transcript import Transcript
from widgets.transcript_history import HistoryWanted

if TYPE_CHECKING:
    from engine.threats.redact import Redactor
    from tui.clipboard import CopyResult
    from tui.screens.editor import EditorScreen
    from tui.screens.identity import Fetch

AgentFactory = Callable[..., AgentPort]
"""`factory(home, config)` or `factory(home, config, resume=SESSION_ID)` (see `AgentBuilder`)."""
SkillSource = Callable[[], Sequence[SkillEntry]]
SessionSource = Callable[[], Sequence[SessionEntry]]

# Whole at 80 columns (the longer wording was cut at "· / for"); the notice above gives the config path.
PROMPT_PLACEHOLDER = "Message the agent · enter sends · shift+enter, ctrl+j: new line · / commands"
NO_MODEL_PLACEHOLDER = "No model configured: add `model:` to config.yaml (see above) · /help: keys"
SMALLEST_WINDOW = 1024  # tokens: no window is smaller (model.fallback_context_length's minimum), so a
# message shorter than this goes out without being measured against the window


def display_path(path: Path) -> str:
    """A path as a person reads it: `~/code/site` rather than `/home/dana/code/site`."""
    home = Path(os.environ.get("HOME", "") or Path.home())
    try:
        return "~/" + str(path.relative_to(home)) if path != home else "~"
    except ValueError:
        return str(path)


def _skill_commands() -> type[Any]:
    from tui.palette import SkillCommands

    return SkillCommands


def _session_commands() -> type[Any]:
    from tui.palette import SessionCommands

    return SessionCommands


def _process_commands() -> type[Any]:
    from tui.palette import ProcessCommands

    return ProcessCommands


class CopyDone(Message):
    """A copy finished in its thread; the app says which clipboard took the text."""

    def __init__(self, result: CopyResult, what: str, chars: int) -> None:
        super().__init__()
        self.result = result
        self.what = what
        self.chars = chars


class HwsApp(App[int], inherit_bindings=False):
    """Hermes Workstation."""

    TITLE = "hws"
    # Textual reads a screen's CSS_PATH when the screen is pushed, not for the default screen, so
    # the main screen's stylesheet (beside it in screens/) is loaded with the app.
    CSS_PATH = "screens/main.tcss"
    COMMANDS = App.COMMANDS | {_skill_commands, _session_commands, _process_commands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+q", "quit", "quit", id="quit", priority=True, tooltip="Quit hws (asks about unsaved edits)"
        ),
        Binding(
            "ctrl+c",
            "interrupt",
            "interrupt",
            id="interrupt",
            priority=True,
            tooltip="Interrupt the running turn (twice: clear the input)",
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "palette",
            id="command_palette",
            priority=True,
            tooltip="Open the command palette",
        ),
        Binding(
            "ctrl+r",
            "sessions",
            "sessions",
            id="sessions",
            priority=True,
            tooltip="Sessions: recall, browse and search",
        ),
        Binding("f12", "show_keys", "keys", id="show_keys", tooltip="Show every key and its id"),
        Binding(
            "ctrl+e",
            "edit",
            "edit files",
            id="edit_files",
            priority=True,
            tooltip="Edit SOUL.md, memory and skills side by side (esc: back)",
        ),
        Binding(
            "f6",
            "identity",
            "identity",
            id="identity",
            priority=True,  # the input (a TextArea) would take f6 for "select line"
            tooltip="SOUL.md and USER.md beside what was observed",
        ),
        Binding(
            "ctrl+n",
            "new_session_now",
            "new session",
            id="new_session_now",
            tooltip="Start a new session now (it reads SOUL.md, skills and memory from disk)",
        ),
    ]

    def __init__(
        self,
        home: Home,
        config: Config,
        *,
        agent: AgentPort | None = None,
        agent_factory: AgentFactory | None = None,
        skill_source: SkillSource | None = None,
        session_source: SessionSource | None = None,
        workdir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        resume: str | None = None,
        note: str = "",
        wall_clock: Callable[[], float] = time.time,
        offer_setup: bool = False,
        open_hub: bool = False,
    ) -> None:
        super().__init__()
        self.offer_setup = offer_setup  # with no model configured, open the setup screen first
        self.open_hub = open_hub  # `hws skills browse`: open on the skills hub screen
        self.handle_terminate = False  # `hws` sets it: SIGTERM quits as ctrl+q does (not under tests)
        self.home = home
        self.config = config
        self.agent: AgentPort | None = agent
        self.agent_factory = agent_factory
        self.session_id = ""
        self.resume_at = resume
        self.scripted_note = note
        self.agent_problem = "" if agent is not None else self._initial_agent_problem()
        self.skill_source = skill_source
        self.session_source = session_source
        self.skill_entries: list[SkillEntry] = []
        self.session_entries: list[SessionEntry] = []
        self.workdir = workdir if workdir is not None else Path.cwd()
        self._redactor: Redactor | None = None
        self.clock = clock
        self.wall_clock = wall_clock
        self.tui = config.tui
        self.turn_running = False
        self.turn_collections = heap.TurnCollections()  # no full collection while a reply streams
        self.last_sent = ""
        self.last_command = False  # the last message was a typed `/skill-name` (/retry loads it again)
        self.last_copy: CopyResult | None = None
        self.startup_warnings: list[str] = list(config.warnings)
        read_only = home.write_problem()  # said at start, not at the first message that fails
        if read_only:
            self.startup_warnings.append(read_only)
        self._last_interrupt = -1e9
        self._main: Any = None
        self.unsaved = UnsavedBuffers(self)
        self.editor_screen: EditorScreen | None = None  # made by the first ctrl+e, kept from then on
        self._setup_themes()
        self.history_feeds = HistoryFeeds(self)
        self.pane_feeds = PaneFeeds(self)
        self.commands = SlashCommands(self)
        self.lifecycle = AgentLifecycle(self)
        self.live_files = LiveFiles(self)
        self.busy_input = BusyInput(self)  # the queue, /steer, !CMD and the draft in $EDITOR
        self.identity_fetch: Fetch | None = None  # how the identity view reads the provider (tests fix it)

    # Start-up.

    def _initial_agent_problem(self) -> str:
        if not self.config.model_name:
            return "no model is configured"
        if self.agent_factory is None:
            return "no agent was given to this window"
        return ""

    def _setup_themes(self) -> None:
        from themes.user import load_user_themes

        for theme in BUILTIN_THEMES:
            self.register_theme(theme)
        loaded = load_user_themes(self.home.themes, self.home.root)
        for theme in loaded.themes:
            self.register_theme(theme)
        self.startup_warnings.extend(loaded.warnings)
        wanted = str(self.config.display.theme or DEFAULT_THEME)
        if wanted not in self.available_themes:
            self.startup_warnings.append(
                f"display.theme {wanted!r} is not a known theme; using {DEFAULT_THEME}. "
                "/theme lists the themes."
            )
            wanted = DEFAULT_THEME
        self.kept_theme = wanted  # the theme config.yaml holds (as far as this run knows)
        self._keeping = asyncio.Lock()  # settings are written in the order they were chosen
        self.theme = wanted

    def get_default_screen(self) -> Screen[Any]:
        from engine.providers.registry import fact_store_active
        from tui.screens.main import MainScreen, MainScreenSettings

        tui = self.tui
        levels = GaugeLevels(tui.gauge_warn, tui.gauge_high, tui.gauge_critical)
        window = int(self.config.model.context_length or tui.default_context_window)
        has_model = bool(self.config.model_name)
        placeholder = PROMPT_PLACEHOLDER if has_model else NO_MODEL_PLACEHOLDER
        settings = MainScreenSettings(
            title=f"hws ─ {display_path(self.workdir)}",
            fold_below_columns=tui.fold_below_columns,
            side_width_percent=tui.side_width_percent,
            prune_keep_lines=tui.prune_keep_lines,
            prune_excess_lines=tui.prune_excess_lines,
            tool_preview_chars=tui.tool_preview_chars,
            live_segment_chars=tui.live_segment_chars,
            show_reasoning=bool(self.config.display.show_reasoning),
            bell_on_complete=bool(self.config.display.bell_on_complete),
            prompt_placeholder=placeholder,
            commands=SLASH_COMMANDS,
            prompt_max_lines=tui.prompt_max_lines,
            shell_output_lines=tui.shell_output_lines,
            history_size=tui.history_size,
            memory_pane_entries=tui.memory_pane_entries,
            facts=fact_store_active(self.config),
            context_window=window,
            paste_limits=PasteLimits(
                int(self.config.display.paste_chip_lines), int(self.config.display.paste_chip_chars)
            ),
            levels=levels,
            status=StatusState(
                model=self.config.model_name,
                context_window=window,
                show_cost=bool(self.config.display.show_cost),
                sandbox=sandbox_status(self.config).status_text,
            ),
        )
        self._main = MainScreen(settings, clock=self.clock, wall_clock=self.wall_clock)
        return self._main

    @property
    def main_screen(self) -> Any:
        """The main screen (typed loosely so that importing the app does not import the screen)."""
        return self._main

    @property
    def config_path_label(self) -> str:
        return display_path(self.home.config_file)

    def on_mount(self) -> None:
        self._apply_keymap()
        self.live_files.start()
        if self.handle_terminate:
            self.lifecycle.quit_on_terminate()
        main = self.main_screen
        for warning in self.startup_warnings:  # a toast catches the eye; the transcript keeps it
            self.notify(warning, severity="warning", timeout=12)
            main.post_message(messages.Notice(warning, "warning", "!"))
        if not self.config.model_name:
            main.post_message(messages.Notice(no_model_text(self.config_path_label), "warning", "!"))
            if self.offer_setup:
                self.call_after_refresh(self.open_setup)
        if self.scripted_note:
            main.post_message(messages.Notice(self.scripted_note, "info", "i"))
        if self.open_hub:
            self.call_after_refresh(self.commands.hub.open_screen)
        if self.agent is None and self.agent_factory is not None and self.config.model_name:
            self.lifecycle.building = True  # from now: a message sent before the build begins is held too
            resume = self.resume_at
            self.call_after_refresh(
                lambda: self.lifecycle.request_agent(resume, "resume" if resume else "start")
            )
        elif self.agent is not None:
            self._adopt_given_agent()
        if self.skill_source is not None or self.session_source is not None:
            # In a thread: the session catalog runs its own event loop, and neither may hold up this one.
            self.call_after_refresh(self.reload_catalogs)
        self.call_after_refresh(self.pane_feeds.refresh)
        self.call_after_refresh(heap.settle)  # start-up's objects are never walked by a collection again

    async def on_unmount(self) -> None:
        self.live_files.stop()
        await self.history_feeds.close()

    # Live files: the watcher's news, the editors, the identity view.

    @on(WatchStatus)
    def _watch_status(self, message: WatchStatus) -> None:
        self.live_files.watch_status(message)

    @on(HomeChanged)
    def _home_changed(self, message: HomeChanged) -> None:
        self.live_files.route_changes(list(message.changes), external=True)

    @on(OwnWritesLanded)
    def _own_writes_landed(self, message: OwnWritesLanded) -> None:
        self.live_files.own_writes_landed(message)

    @on(DriftComputed)
    def _drift_computed(self, message: DriftComputed) -> None:
        self.live_files.drift_computed(message)

    @on(FileEditor.SaveRequested)
    def _save_file(self, message: FileEditor.SaveRequested) -> None:
        self.live_files.editor_controller.save(message.editor)

    @on(FileEditor.ExternalRequested)
    def _edit_externally(self, message: FileEditor.ExternalRequested) -> None:
        self.live_files.editor_controller.external(message.editor)

    @on(FileEditor.Changed)
    def _check_file(self, message: FileEditor.Changed) -> None:
        self.live_files.editor_controller.schedule_check(message.editor)

    @on(FileEditor.MoveRequested)
    async def _move_editor(self, message: FileEditor.MoveRequested) -> None:
        await self.live_files.move_editor(message)

    @on(messages.FilesToEdit)
    def _files_to_edit(self, message: messages.FilesToEdit) -> None:
        self.open_editor(*message.names)

    def open_editor(self, *names: str) -> None:
        """ctrl+e, `/edit`: the editor screen (with `names` opened in its panes the first time)."""
        self.live_files.open_editor(*names)

    def action_edit(self) -> None:
        self.live_files.edit()

    def action_identity(self) -> None:
        self.live_files.toggle_identity()

    def action_new_session_now(self) -> None:
        """ctrl+n: start a new session, which reads SOUL.md, the skills and memory from disk again.

        During a turn it starts nothing and says so: ctrl+c interrupts, then ctrl+n again."""
        key = self._keymap.get("new_session_now", "ctrl+n")
        self.commands.new_conversation(key.split(",")[0].strip())

    async def action_quit(self) -> None:
        """ctrl+q: a file modified in an editor is asked about first (save / discard / cancel)."""
        editors = self.unsaved.editors()
        if editors:
            self.unsaved.ask(editors, "quit", self.lifecycle.quit_now)
            return
        await self.lifecycle.quit_now()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit" and self._in_an_editor():
            return False  # inside an editor ctrl+e is line-end, as in any text field; esc leaves
        return super().check_action(action, parameters)

    def _in_an_editor(self) -> bool:
        if self.screen_stack and self.screen is self.editor_screen:
            return True
        focused = self.focused
        return focused is not None and any(isinstance(node, FileEditor) for node in focused.ancestors)

    async def on_event(self, event: events.Event) -> None:
        # Typing (or pasting) while a pane has the focus goes to the input: decided here, in the order
        # the keys arrive, so a word typed fast is never split between a pane and the input.
        main = self._main
        if (
            isinstance(event, (events.Key, events.Paste))
            and not event.is_forwarded
            and main is not None
            and self.screen_stack
            and self.screen is main
        ):
            if isinstance(event, events.Key):
                main.take_typing(event)
            else:
                main.take_paste()
        await super().on_event(event)

    @classmethod
    def binding_classes(cls) -> dict[str, type[DOMNode]]:
        """Every class whose bindings the keymap and the keys screen know (imports the screens)."""
        from textual.widgets import Markdown  # noqa: F401  (the transcript imports it anyway)

        from tui.screens.conflict import ConflictScreen
        from tui.screens.editor import EditorScreen
        from tui.screens.facts import FactsScreen
        from tui.screens.identity import IdentityScreen
        from tui.screens.keys import KeysScreen
        from tui.screens.main import MainScreen
        from tui.screens.oversized import OversizedScreen
        from tui.screens.session_view import SessionViewScreen
        from tui.screens.sessions import SessionsScreen
        from tui.screens.text_view import TextScreen
        from tui.screens.unsaved import UnsavedScreen
        from widgets.memory_pane import MemoryPane
        from widgets.message_input import PromptInput
        from widgets.pane import Pane
        from widgets.transcript_blocks import ApprovalBlock

        return {
            "app": cls,
            "main screen": MainScreen,
            "any pane": Pane,
            "transcript": Transcript,
            "input": PromptInput,
            "queued": QueuedList,
            "approval": ApprovalBlock,
            "memory pane": MemoryPane,
            "sessions": SessionsScreen,
            "past session": SessionViewScreen,
            "text view": TextScreen,
            "keys screen": KeysScreen,
            "editor screen": EditorScreen,
            "file editor": FileEditor,
            "conflict": ConflictScreen,
            "unsaved edits": UnsavedScreen,
            "too large": OversizedScreen,
            "identity view": IdentityScreen,
            "facts": FactsScreen,
        }

    def _apply_keymap(self) -> None:
        keys = dict(self.config.keys)
        if not keys:
            return
        from tui.keys import known_binding_ids, validate_keymap

        where = str(self.config.path or "config.yaml")
        keymap, warnings = validate_keymap(keys, known_binding_ids(self.binding_classes().values()), where)
        self.set_keymap(keymap)
        for warning in warnings:
            self.startup_warnings.append(warning)
            self.notify(warning, severity="warning", timeout=12)

    def _adopt_given_agent(self) -> None:
        """An agent handed to the constructor (tests, benchmarks) gets the background channel too."""
        if hasattr(self.agent, "on_background"):
            self.agent.on_background = self.lifecycle.background_event  # type: ignore[union-attr]

    @on(messages.AgentReady)
    def _agent_ready(self, message: messages.AgentReady) -> None:
        self.lifecycle.agent_ready(message)

    @on(messages.AgentUnavailable)
    def _agent_unavailable(self, message: messages.AgentUnavailable) -> None:
        self.lifecycle.agent_unavailable(message.reason)
        self.main_screen.post_message(
            messages.Notice(end_sentence(f"The agent cannot run: {message.reason}"), "warning", "!")
        )

    # What a message the main screen showed made stale.

    @on(messages.Shown)
    def _shown(self, shown: messages.Shown) -> None:
        message = shown.message
        session_id = session_of(message)
        if session_id and session_id != self.session_id:
            self.session_id = session_id
            self.pane_feeds.refresh()
        stale = stale_after(message)
        panes = [name for name in stale if name in PANE_NAMES]
        if panes:
            self.pane_feeds.refresh(*panes)
        if CATALOGS in stale:
            self.reload_catalogs()
        if NEXT_SESSION in stale and isinstance(message, messages.SkillChanged):
            self.live_files.skill_changed_on_disk(message.event.name)

    def on_hub_screen_search_requested(self, message: Any) -> None:
        """The hub screen asks for a search of the taps (HubScreen.SearchRequested)."""
        self.commands.hub.search(message.screen, message.text)

    def on_hub_screen_view_requested(self, message: Any) -> None:
        """The hub screen asks to read and scan a skill (HubScreen.ViewRequested)."""
        self.commands.hub.preview(message.screen, message.skill)

    def on_hub_screen_install_requested(self, message: Any) -> None:
        """The hub screen asks to install a skill (HubScreen.InstallRequested)."""
        self.commands.hub.install(message.screen, message.skill)

    def on_mcp_screen_enable_requested(self, message: Any) -> None:
        """`/mcp`: a server turned on or off (McpScreen.EnableRequested; the screen loads on first use)."""
        self.commands.mcp.set_enabled(message.name, message.enabled)

    # What the panes ask for.

    @on(MemoryPane.ReloadRequested)
    def _reload_memory(self) -> None:
        self.pane_feeds.refresh("memory")

    @on(BudgetPane.ReloadRequested)
    def _reload_budget(self) -> None:
        self.pane_feeds.refresh("budget")

    @on(SkillsPane.ReloadRequested)
    def _reload_skills(self) -> None:
        self.pane_feeds.refresh("skills")  # (a changed skill's verdict is stale by its folder's stamp)

    @on(CompressionPane.ReloadRequested)
    def _reload_lineage(self) -> None:
        self.pane_feeds.refresh("lineage")

    @on(MemoryPane.UndoRequested)
    def _undo_memory_entry(self, message: MemoryPane.UndoRequested) -> None:
        self.pane_feeds.undo_memory_entry(message.entry_id)

    @on(MemoryPane.DiffRequested)
    def _show_journal_diff(self, message: MemoryPane.DiffRequested) -> None:
        self.pane_feeds.show_journal_diff(message.entry_id)

    @on(PendingList.DecisionRequested)
    def _decide_pending(self, message: PendingList.DecisionRequested) -> None:
        self.pane_feeds.decide_pending(message.subsystem, message.pending_id, message.decision)

    @on(PendingList.DiffRequested)
    def _show_pending_diff(self, message: PendingList.DiffRequested) -> None:
        self.pane_feeds.show_pending_diff(message.subsystem, message.pending_id)

    @on(SkillsPane.OpenRequested)
    def _open_skill(self, message: SkillsPane.OpenRequested) -> None:
        self.pane_feeds.open_skill(message.name, message.path, message.warnings)

    @on(HistoryWanted)
    def _history_wanted(self, message: HistoryWanted) -> None:
        self.history_feeds.read_history_page(message)

    @work(thread=True, group="catalogs", exit_on_error=False, description="load skill and session catalogs")
    def reload_catalogs(self) -> None:
        """Read the skill and session catalogs (at start, and when the agent created a skill)."""
        if self.skill_source is not None or self.session_source is not None:
            self._load_catalogs()

    def _load_catalogs(self) -> None:
        if self.skill_source is not None:
            self.post_message(messages.SkillCatalogLoaded(list(self.skill_source())))
        if self.session_source is not None:
            self.post_message(messages.SessionCatalogLoaded(list(self.session_source())))

    @on(messages.SkillCatalogLoaded)
    def _skills_loaded(self, message: messages.SkillCatalogLoaded) -> None:
        self.skill_entries = [e for e in message.entries if isinstance(e, SkillEntry)]
        self.commands.mcp.offer_prompts()

    @on(messages.SessionCatalogLoaded)
    def _sessions_loaded(self, message: messages.SessionCatalogLoaded) -> None:
        self.session_entries = [e for e in message.entries if isinstance(e, SessionEntry)]

    # The conversation.

    @on(PromptBox.Submitted)
    async def _submitted(self, event: PromptBox.Submitted) -> None:
        await self.submit_typed(event.text, event.draft)

    @on(PromptBox.SteerSubmitted)
    def _steer_submitted(self, event: PromptBox.SteerSubmitted) -> None:
        self.busy_input.steer(event.text)

    @on(PromptBox.EmptySubmitted)
    def _empty_submitted(self) -> None:
        self.busy_input.send_next()

    @on(PromptBox.DraftEditRequested)
    def _edit_draft(self, event: PromptBox.DraftEditRequested) -> None:
        self.busy_input.edit_draft(event.text)

    @on(PromptBox.QueueWanted)
    def _queue_wanted(self) -> None:
        self.busy_input.focus_queue()

    @on(QueuedList.EditRequested)
    def _edit_queued(self, event: QueuedList.EditRequested) -> None:
        self.busy_input.edit(event.index)

    @on(QueuedList.DropRequested)
    def _drop_queued(self, event: QueuedList.DropRequested) -> None:
        self.busy_input.drop(event.index)

    async def submit_typed(self, text: str, draft: str) -> None:
        """What the person sent from the input (or the queue): a command, `!CMD`, a skill or a message."""
        # A command is what was typed: a paste that begins with "/" (a path) is not one.
        slash = parse_slash(text) if parse_slash(draft) is not None else None
        if slash is not None and slash[0] in {c.name for c in SLASH_COMMANDS}:
            await self.commands.run_slash_command(*slash)
            return
        server_prompt = slash is not None and slash[0].startswith(PROMPT_PREFIX)  # the agent sends its text
        if slash is not None and not server_prompt and slash[0] not in {e.name for e in self.skill_entries}:
            self.main_screen.post_message(
                messages.Notice(
                    f"/{slash[0]} is not a command or a skill; /help lists the commands.", "warning"
                )
            )
            return
        if self.turn_running:
            self.busy_input.typed_while_busy(text, draft)
            return
        if draft.startswith("!"):  # what was typed (a long paste is a chip)
            attach = draft.startswith("!!")
            self.busy_input.shell(text[2:] if attach else text[1:], attach)
            return
        # A typed `/skill-name`: the agent loads the skill into the message.
        self.send_to_agent(text, command=slash is not None)

    def _redact(self, text: str) -> str:
        if self._redactor is None:  # loaded with the first message: its patterns cost start-up time
            from engine.threats.redact import Redactor

            self._redactor = Redactor.from_config(self.config)
        return self._redactor(text)

    def send_to_agent(self, text: str, *, command: bool = False) -> None:
        """Start a turn with `text`, or explain why none can start; `command`: a typed `/skill-name`."""
        if self.turn_running:
            self.busy_input.typed_while_busy(text, text)
            return
        text = self.busy_input.attach_outputs(text)
        if self.agent is not None and estimate_tokens(text) >= SMALLEST_WINDOW:
            self._send_if_it_fits(text)
            return
        self._send_now(text, command)

    @work(exclusive=True, group="size-check", exit_on_error=False, description="measure the message")
    async def _send_if_it_fits(self, text: str) -> None:
        """A message too large for the model's window is not sent before the person says how to go on."""
        from engine.storage.atomic import WriteError
        from tui.screens.oversized import OversizedScreen

        agent = self.agent
        try:
            found = await oversized(agent, text)
        except Exception:  # measuring must never keep a message from going out
            found = None
        if found is None or agent is None:
            self._send_now(text)
            return
        folder = str(self.config.agent.oversized_folder)
        choice = await self.push_screen_wait(OversizedScreen(found.sentence(), folder))
        main = self.main_screen
        if choice is None:
            main.prompt.restore(text)
            return
        try:
            fitted = agent.fit_message(text, found, choice)  # type: ignore[attr-defined]
        except WriteError as exc:
            self.notify(f"The message could not be saved to a file: {exc}", severity="error", timeout=10)
            main.prompt.restore(text)
            return
        main.post_message(messages.Notice(fitted.note, "info", "i"))
        self._send_now(fitted.text)

    def _send_now(self, text: str, command: bool = False) -> None:
        main = self.main_screen
        self.last_sent, self.last_command = text, command
        main.post_message(messages.TurnSubmitted(self._redact(text)))  # a pasted key is not shown
        if self.agent is None and self.lifecycle.building:
            self.lifecycle.hold_message(text, command)
            return
        if self.agent is None:
            reason = self.agent_problem or "the agent is still starting"
            if reason == "no model is configured":
                sentence = (
                    "Not sent: no model is configured. Choose one with ctrl+p → Choose the model, or add "
                    f"one to {self.config_path_label} and restart."
                )
            else:
                sentence = end_sentence(f"Not sent: {reason}")
            main.post_message(messages.Notice(sentence, "warning", "!"))
            main.post_message(messages.TurnAborted("no agent"))
            return
        self.turn_running = True
        self.run_turn(text, command)

    @work(exclusive=True, group="turn", exit_on_error=False, description="agent turn")
    async def run_turn(self, text: str, command: bool = False) -> None:
        post = self.main_screen.post_message
        assert self.agent is not None
        finished = interrupted = False
        self.turn_collections.hold()

        def forward(message: Message) -> object:
            nonlocal finished, interrupted
            if isinstance(message, messages.TurnFinished):
                finished = True
                interrupted = message.event.interrupted
            self.busy_input.saw(message)
            return post(message)

        try:
            await drive_turn(self.agent, text, forward, command=command)
        except asyncio.CancelledError:
            interrupted = True
            post(messages.TurnAborted("interrupted"))
            raise
        except Exception as exc:  # the engine failed: the turn ends with a sentence, the app stays up
            post(messages.TurnAborted("error", f"The turn failed: {exc.__class__.__name__}: {exc}"))
        else:
            if not finished:
                post(messages.TurnAborted("ended"))
        finally:
            self.turn_running = False
            # After the screen has taken the turn's last message (its queue may trail the model's).
            self.main_screen.call_later(self.turn_collections.release)
            self.commands.mcp.offer_prompts()  # servers that started during the turn offer theirs now
            self.call_later(self.busy_input.turn_ended, interrupted)  # the queue goes on once this ends

    def action_interrupt(self) -> None:
        """ctrl+c: interrupt the turn; pressed twice in a row, clear the input."""
        now = self.clock()
        repeat = float(self.tui.interrupt_repeat_seconds)
        main = self.main_screen
        if now - self._last_interrupt <= repeat:
            self._last_interrupt = -1e9
            main.prompt.clear()
            return
        self._last_interrupt = now
        if self.turn_running or main.transcript.running_subagents:
            self.post_message(messages.InterruptRequested())
        elif main.prompt.text:
            self.notify("Press ctrl+c again to clear the input.", timeout=repeat)

    @on(messages.InterruptRequested)
    async def _interrupt_requested(self) -> None:
        if self.lifecycle.drop_held_message("interrupted"):
            return
        if self.agent is None:
            return
        if not self.turn_running:  # between turns only background subagents run: they stop
            if self.main_screen.transcript.running_subagents:
                self.notify("Stopping the subagents…", timeout=2)
                await interrupt(self.agent)
            return
        self.notify("Interrupting…", timeout=2)
        self.main_screen.transcript.deny_pending_approvals()  # a question left open would block the stop
        asked = await interrupt(self.agent)
        if not asked:
            self.workers.cancel_group(self, "turn")
        else:
            self.set_timer(float(self.tui.interrupt_grace_seconds), self._cancel_stuck_turn)

    def _cancel_stuck_turn(self) -> None:
        if self.turn_running:
            self.workers.cancel_group(self, "turn")

    async def kill_process(self, process_id: str) -> None:
        """The palette's `process: kill pN`: the agent kills it; the transcript says how it went."""
        said = await kill_process(self.agent, process_id)
        self.main_screen.post_message(messages.Notice(said, icon="⚙"))

    def list_processes(self) -> None:
        """The palette's `processes: list`: one notice naming each running background process."""
        running = self.main_screen.process_feed.entries()
        lines = [f"{pid} · {where} · {command}" for pid, command, where in running]
        text = "running background processes: " + ("; ".join(lines) if lines else "none")
        self.main_screen.post_message(messages.Notice(text, icon="⚙"))

    def switch_theme(self, name: str) -> None:
        if not name:
            self.action_change_theme()
            return
        if name not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            self.main_screen.post_message(messages.Notice(f"No theme {name!r}. Themes: {names}.", "warning"))
            return
        self.theme = name  # watch_theme keeps it in config.yaml

    def watch_theme(self, name: str) -> None:
        """Any switch after start-up (/theme NAME, the picker of /theme or ctrl+p) is kept in
        config.yaml, as Posting and Harlequin keep theirs: the next start opens in it."""
        if not self.is_mounted or name == self.kept_theme:
            return
        self.kept_theme = name
        self.keep_setting("theme", name)

    @work(group="keep-setting", exit_on_error=False, description="keep a setting in config.yaml")
    async def keep_setting(self, what: str, value: str) -> None:
        """Write `/theme` or `/model NAME` into config.yaml (comments kept) and say so, or say why not."""
        from engine.kept_settings import SettingNotKept, keep_setting

        label = "Theme" if what == "theme" else "Model"
        async with self._keeping:
            try:
                setting = await asyncio.to_thread(keep_setting, self.home, what, value)
            except SettingNotKept as exc:
                self.notify(f"{label} {value} for this run only: {exc}", severity="warning", timeout=12)
                return
        self.notify(f"{label} {value} kept: {setting} in {self.config_path_label}; the next start uses it.")

    # Screens (imported on first use).

    def open_setup(self) -> None:
        """The setup screen: choose the model, write config.yaml, check the endpoint. It opens on the
        settings in use, so saving it unchanged keeps a working setup."""
        from engine.cli.model_setup import current_choice
        from tui.screens.setup import SetupScreen

        screen = SetupScreen(self.home, float(self.config.setup.check_timeout), current_choice(self.config))
        self.push_screen(screen, self._setup_done)

    def _setup_done(self, config: Config | None) -> None:
        """The model was written: use it now (the agent is built again) instead of after a restart."""
        if config is None or not config.model_name:
            return
        from tui.agent_port import AgentBuilder

        self.config = config
        self.agent_problem = ""
        main = self.main_screen
        main.prompt.set_placeholder(PROMPT_PLACEHOLDER)
        main.status.update_state(model=config.model_name)
        where = f"{config.model_name} at {config.model.base_url}"
        if isinstance(self.agent_factory, AgentBuilder):  # a /model switch of this run gives way to it
            self.agent_factory = AgentBuilder(self.agent_factory.workdir, _without_model(self.agent_factory))
        if self.agent is None and self.agent_factory is not None:
            main.post_message(
                messages.Notice(
                    f"Model set: {where}; the agent starts with it now (no restart).", "info", "✓"
                )
            )
            self.lifecycle.request_agent(None, "start")
        elif self.agent is not None and self.agent_factory is not None and not self.turn_running:
            main.post_message(
                messages.Notice(f"Model set: {where}; this session goes on with it.", "info", "✓")
            )
            self.lifecycle.replace_agent("model_switch", self.session_id or None, "model")
        else:
            main.post_message(
                messages.Notice(
                    f"Model set: {where}; it answers from the next session (ctrl+n).", "info", "✓"
                )
            )

    def action_show_keys(self) -> None:
        from tui.screens.keys import KeysScreen

        if isinstance(self.screen, KeysScreen):
            self.pop_screen()
            return
        from tui.keys import binding_rows

        rows = binding_rows(self.binding_classes(), self._keymap)
        commands = [(c.name, c.help) for c in SLASH_COMMANDS]
        self.push_screen(KeysScreen(rows, commands))

    def invoke_skill(self, name: str) -> None:
        """Put `/name ` in the input, ready for the user's words."""
        prompt = self.main_screen.prompt
        prompt.set_text(f"/{name} ")
        prompt.input.focus()

    # Past sessions.

    def action_sessions(self) -> None:
        from tui.screens.sessions import SessionsScreen

        if isinstance(self.screen, SessionsScreen):
            self.screen.close()
            return
        screen = SessionsScreen(
            current=self.session_id,
            page_size=int(self.tui.sessions_page),
            state=self.history_feeds.sessions_list,
        )
        self.push_screen(screen, self.session_chosen)

    @on(messages.SessionsWanted)
    def _list_sessions(self, message: messages.SessionsWanted) -> None:
        self.history_feeds.list_sessions(message.screen, message.offset, message.limit)

    @on(messages.SessionsSearched)
    def _search_sessions(self, message: messages.SessionsSearched) -> None:
        self.history_feeds.search_sessions(message.screen, message.query)

    @on(messages.LineageWanted)
    def _lineage_rows(self, message: messages.LineageWanted) -> None:
        self.history_feeds.lineage_rows(message.screen, message.session_id)

    def session_chosen(self, choice: tuple[str, str, int | None] | None) -> None:
        """What the sessions screen closed with: ("open" | "resume", session id, message to show)."""
        if not choice:
            return
        action, session_id, around = choice
        if action == "resume":
            self.resume_session(session_id)
        else:
            self.view_session(session_id, around)

    def view_session(self, session_id: str, around: int | None = None) -> None:
        """Open a past session read-only (at `around`, a search hit, when given)."""
        from tui.screens.session_view import SessionViewScreen

        self.push_screen(SessionViewScreen(session_id, self.tui, around), self.session_chosen)

    def resume_session(self, session_id: str) -> None:
        """Continue a past conversation (at the tip of its compression chain) in the main window."""
        if self.turn_running:
            self.notify("Resuming waits for the running turn: ctrl+c interrupts it.", severity="warning")
            return
        if self.agent_factory is None:
            self.main_screen.post_message(
                messages.Notice("Resuming needs a model: configure one and restart.", "warning", "!")
            )
            return
        if session_id == self.session_id:
            self.notify("That is the conversation you are in.")
            return
        self.lifecycle.replace_agent("resumed_other", session_id, "resume")

    def open_session(self, session_id: str) -> None:
        """The palette's session entries: show the session read-only (r there resumes it)."""
        self.view_session(session_id)

    # Copying.

    @on(Transcript.AtMessage)
    def _at_message(self, event: Transcript.AtMessage) -> None:
        if event.action == "rewind":
            self.commands.rewind_to_message(event.message_id, event.key)
        else:
            self.commands.branch_at_message(event.message_id, event.key)

    @on(Transcript.CopyRequested)
    def _copy_requested(self, event: Transcript.CopyRequested) -> None:
        self.copy_to_clipboards(event.text, event.what)

    def copy_to_clipboards(self, text: str, what: str) -> None:
        if not text:
            self.notify(f"Nothing to copy: there is no {what.removeprefix('the ')} yet.", severity="warning")
            return
        self._copy_in_thread(text, what)

    @work(thread=True, group="clipboard", exit_on_error=False, description="copy to the clipboard")
    def _copy_in_thread(self, text: str, what: str) -> None:
        from tui.clipboard import copy_text

        result = copy_text(text, osc52=lambda t: self.call_from_thread(self.copy_to_clipboard, t))
        self.post_message(CopyDone(result, what, len(text)))

    @on(CopyDone)
    def _copied(self, event: CopyDone) -> None:
        self.last_copy = event.result
        severity = "information" if event.result.method != "osc52" else "warning"
        self.notify(event.result.sentence(event.what, event.chars), severity=severity, timeout=6)

    # The palette.

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from tui.palette import workstation_commands

        yield from super().get_system_commands(screen)
        yield from workstation_commands(self)


def _without_model(builder: Any) -> dict[str, dict[str, Any]]:
    """A builder's overrides without the model name (config.yaml names the model now)."""
    overrides = {name: dict(values) for name, values in (builder.overrides or {}).items()}
    overrides.get("model", {}).pop("default", None)
    return overrides

"""The slash commands: what `/new`, `/compress`, `/model`, `/undo`, `/retry` and the rest do.

A mixin of `HwsApp`. Commands that change the conversation wait for a running turn (ctrl+c
interrupts it first); the agent does the work in a worker and its events reach the panes through
the background channel.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import work

from tui import messages

if TYPE_CHECKING:
    from engine.config import Config
    from tui.agent_port import AgentPort


class SlashCommands:
    """Slash command dispatch (mixed into `HwsApp`)."""

    config: Config
    agent: AgentPort | None
    agent_factory: Any
    agent_problem: str
    session_id: str
    turn_running: bool
    last_sent: str

    if TYPE_CHECKING:
        main_screen: Any
        config_path_label: str

        def notify(self, message: str, **kwargs: Any) -> None: ...
        def action_show_keys(self) -> None: ...
        def action_sessions(self) -> None: ...
        def copy_to_clipboards(self, text: str, what: str) -> None: ...
        def switch_theme(self, name: str) -> None: ...
        def send_to_agent(self, text: str) -> None: ...
        def replace_agent(self, end_reason: str, resume: str | None, reason: str) -> Any: ...

        pane_feeds: Any
        history_feeds: Any

        def deliver(self, message: Any) -> None: ...

    async def run_slash_command(self, name: str, argument: str) -> None:
        main = self.main_screen
        if name == "help":
            self.action_show_keys()
        elif name == "copy":
            self.copy_to_clipboards(main.transcript.last_reply, "the last reply")
        elif name in ("memory", "skills"):
            main.action_show_pane(name)
            if argument:
                self.pending_command(name, argument)
        elif name == "sessions":
            self.action_sessions()
        elif name == "edit":
            self.open_editor(*argument.split()[:2])  # type: ignore[attr-defined]
        elif name == "identity":
            self.action_identity()  # type: ignore[attr-defined]
        elif name == "theme":
            self.switch_theme(argument)
        elif name == "model":
            self.model_command(argument)
        elif name == "retry":
            if self.last_sent:
                self.send_to_agent(self.last_sent)
            else:
                self._say("Nothing to retry yet.", "warning")
        elif name == "undo":
            if self._waits_for_turn(name):
                return
            self.pane_feeds.undo_last_write()
        elif name == "new":
            self.new_conversation()
        elif name == "compress":
            self.compress_command(argument)
        elif name == "title":
            self.title_command(argument)

    def _agent_command(self, name: str, argument: str) -> None:
        """The agent-side commands by name (ctrl+n, the next-session bar, call "new")."""
        if name == "new":
            self.new_conversation()
        elif name == "compress":
            self.compress_command(argument)
        elif name == "undo" and not self._waits_for_turn(name):
            self.pane_feeds.undo_last_write()

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.main_screen.post_message(messages.Notice(text, level, icon))

    def _waits_for_turn(self, name: str) -> bool:
        if self.turn_running:
            self.notify(f"/{name} waits for the running turn: ctrl+c interrupts it.", severity="warning")
            return True
        return False

    def _can_replace_agent(self, name: str) -> bool:
        if self.agent_factory is None:
            why = self.agent_problem or "this window was given a fixed agent"
            self._say(f"/{name} needs the agent: {why}.", "warning")
            return False
        return True

    # /memory and /skills: writes held back by memory.write_approval / skills.write_approval

    def pending_command(self, subsystem: str, argument: str) -> None:
        """`/memory pending`, `/skills approve ID`, `/skills reject ID`, `/skills diff ID`."""
        verb, _, rest = argument.partition(" ")
        pending_id = rest.strip()
        verb = verb.lower()
        if verb == "pending" and not pending_id:
            self.pane_feeds.list_pending(subsystem)
        elif verb in ("approve", "reject") and pending_id:
            self.pane_feeds.decide_pending(subsystem, pending_id, verb)
        elif verb == "diff" and pending_id:
            self.pane_feeds.show_pending_diff(subsystem, pending_id)
        else:
            self._say(
                f"/{subsystem} takes: pending, approve ID, reject ID or diff ID (the ids are in the "
                f"{subsystem} pane and in /{subsystem} pending).",
                "warning",
            )

    # /new

    def new_conversation(self) -> None:
        """End this session and start a fresh one (the transcript and the timeline start over)."""
        if self._waits_for_turn("new"):
            return
        own = getattr(self.agent, "new_session", None) if self.agent is not None else None
        if self.agent_factory is None and own is not None:  # a given agent that starts sessions itself
            self._own_new_session(own)
            return
        if not self._can_replace_agent("new"):
            return
        self.replace_agent("new_session", None, "new")

    @work(exclusive=True, group="turn", exit_on_error=False, description="start a new session")
    async def _own_new_session(self, new_session: Any) -> None:
        self.turn_running = True
        try:
            await self._drain(new_session())
        finally:
            self.turn_running = False
        self.deliver(messages.ConversationReset("new", ""))
        getattr(self, "session_restarted", lambda: None)()

    async def _drain(self, result: Any) -> Any:
        """An agent call's result: events of an async generator become Messages; a coroutine is awaited."""
        if hasattr(result, "__aiter__"):
            async for event in result:
                self.deliver(messages.to_message(event))
            return None
        if asyncio.iscoroutine(result):
            return await result
        return result

    # /compress [focus]

    def compress_command(self, focus: str) -> None:
        if self._waits_for_turn("compress"):
            return
        compress = getattr(self.agent, "compress", None) if self.agent is not None else None
        if compress is None:
            why = self.agent_problem or "this agent cannot compress"
            self._say(f"/compress needs the agent: {why}.", "warning")
            return
        self.turn_running = True
        self.main_screen.status.update_state(working=True, note="compressing…")
        self._compress(focus)

    @work(exclusive=True, group="turn", exit_on_error=False, description="compress the conversation")
    async def _compress(self, focus: str) -> None:
        main = self.main_screen
        try:
            call = self.agent.compress  # type: ignore[union-attr]
            outcome = await self._drain(call(focus) if focus else call())
        except Exception as exc:  # AgentBusy, AgentError: their message is the sentence
            main.post_message(messages.Notice(f"Not compressed: {exc}", "warning", "!"))
            outcome = None
        finally:
            self.turn_running = False
            main.status.update_state(working=False)
        getattr(self, "session_restarted", lambda: None)()
        if outcome is not None and not getattr(outcome, "compressed", True):
            note = str(getattr(outcome, "note", "") or "there was nothing to compress").rstrip(".")
            main.post_message(messages.Notice(f"Not compressed: {note}.", "info", "i"))

    # /title [name]

    def title_command(self, name: str) -> None:
        """Name this session, or (no name) say what it is called."""
        if not name:
            self._say_title()
            return
        set_title = getattr(self.agent, "set_title", None) if self.agent is not None else None
        if set_title is None:  # no agent yet (or one that keeps no sessions)
            why = self.agent_problem or "this agent keeps no sessions to name"
            self._say(f"/title needs the agent: {why}.", "warning")
            return
        self._set_title(set_title, name)

    @work(group="title", exit_on_error=False, description="name the session")
    async def _set_title(self, set_title: Any, name: str) -> None:
        try:
            titled = await set_title(name)
        except Exception as exc:  # StoreError, TitleConflict: their message is the sentence
            self._say(f"Not titled: {exc}", "warning", "!")
            return
        self.deliver(messages.to_message(titled))

    @work(group="title", exit_on_error=False, description="read the session's title")
    async def _say_title(self) -> None:
        title = ""
        if self.session_id:
            try:
                title = await self.history_feeds.reader.session_title(self.session_id)
            except Exception:  # an unreadable state.db: said as no title
                title = ""
        if title:
            self._say(f"This session is titled “{title}” · /title NAME renames it.")
        elif self.session_id:
            self._say("This session has no title yet: its first exchange names it, or /title NAME does.")
        else:
            self._say("No session yet: the first message starts one; /title NAME then names it.")

    # /model [name]

    def model_command(self, name: str) -> None:
        """`/model` says which model answers; `/model NAME` switches to another for this run."""
        from tui.agent_port import AgentBuilder

        model = self.config.model_name
        if not name:
            if not model:
                from tui.app import no_model_text

                self._say(no_model_text(self.config_path_label), "info", "i")
                return
            builder = self.agent_factory if isinstance(self.agent_factory, AgentBuilder) else None
            current = ((builder.overrides or {}).get("model", {}) if builder else {}).get("default") or model
            where = self.config.model.base_url or "the provider default"
            self._say(
                f"Model: {current} at {where}. `/model NAME` switches for this run (the conversation "
                f"goes on); model.default in {self.config_path_label} keeps it.",
                "info",
                "i",
            )
            return
        if self._waits_for_turn("model"):
            return
        if not isinstance(self.agent_factory, AgentBuilder):
            self._say(
                "/model NAME needs the workstation's own agent builder; restart with the model.", "warning"
            )
            return
        overrides = {k: dict(v) for k, v in (self.agent_factory.overrides or {}).items()}
        overrides.setdefault("model", {})["default"] = name
        self.agent_factory = AgentBuilder(self.agent_factory.workdir, overrides)
        resume = self.session_id or None
        self.main_screen.status.update_state(model=name)  # the reset's notice names it
        self.replace_agent("model_switch", resume, "model")

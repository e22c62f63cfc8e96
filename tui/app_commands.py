"""The slash commands: what `/new`, `/compress`, `/model`, `/undo`, `/retry` and the rest do.

A mixin of `HwsApp`. Commands that change the conversation wait for a running turn (ctrl+c
interrupts it first); the agent does the work in a worker and its events reach the panes through
the background channel.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import work

from engine.text.sentences import sentence
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
    last_command: bool

    if TYPE_CHECKING:
        main_screen: Any
        config_path_label: str

        def notify(self, message: str, **kwargs: Any) -> None: ...
        def action_show_keys(self) -> None: ...
        def action_sessions(self) -> None: ...
        def copy_to_clipboards(self, text: str, what: str) -> None: ...
        def switch_theme(self, name: str) -> None: ...
        def keep_setting(self, what: str, value: str) -> Any: ...
        def send_to_agent(self, text: str, *, command: bool = False) -> None: ...
        def replace_agent(self, end_reason: str, resume: str | None, reason: str) -> Any: ...
        def undo_last_write(self) -> None: ...
        def decide_pending(self, subsystem: str, pending_id: str, decision: str) -> None: ...
        def show_pending_diff(self, subsystem: str, pending_id: str) -> None: ...

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
                self.send_to_agent(self.last_sent, command=self.last_command)
            else:
                self._say("Nothing to retry yet.", "warning")
        elif name == "undo":
            if self._waits_for_turn(name):
                return
            self.undo_last_write()
        elif name == "new":
            self.new_conversation()
        elif name == "compress":
            self.compress_command(argument)
        elif name == "title":
            self.title_command(argument)
        elif name == "rollback" and not self._waits_for_turn(name):
            from tui.screens.rollback import RollbackScreen

            screen = RollbackScreen(self.home, self.config, self.workdir)  # type: ignore[attr-defined]
            self.push_screen(screen, lambda said: self._say(said) if said else None)  # type: ignore[attr-defined]

    def _agent_command(self, name: str, argument: str, key: str = "") -> None:
        """The agent-side commands by name (ctrl+n, the next-session bar, call "new"); `key` is the
        key that asked, named when the command must wait."""
        if name == "new":
            self.new_conversation(key)
        elif name == "compress":
            self.compress_command(argument)
        elif name == "undo" and not self._waits_for_turn(name):
            self.undo_last_write()

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.main_screen.post_message(messages.Notice(text, level, icon))

    def _waits_for_turn(self, name: str, key: str = "") -> bool:
        """True (and said in the transcript, where the person looks) when a turn is running: commands
        that change the conversation never cut into a turn; ctrl+c is the one key that does."""
        if not self.turn_running:
            return False
        asked = key or f"/{name}"
        sentence = f"{asked}: not now, the agent is still working; ctrl+c interrupts it, then {asked} again."
        self.notify(sentence, severity="warning")
        self._say(sentence, "warning", "!")
        return True

    def _can_replace_agent(self, name: str) -> bool:
        if self.agent_factory is None:
            why = self.agent_problem or "this window was given a fixed agent"
            self._say(sentence(f"/{name} needs the agent: {why}"), "warning")
            return False
        return True

    # /memory and /skills: writes held back by memory.write_approval / skills.write_approval

    def pending_command(self, subsystem: str, argument: str) -> None:
        """`/memory pending`, `/skills approve ID`, `/skills reject ID`, `/skills diff ID`."""
        verb, _, rest = argument.partition(" ")
        pending_id = rest.strip()
        verb = verb.lower()
        if verb == "pending" and not pending_id:
            self.list_pending(subsystem)
        elif verb in ("approve", "reject") and pending_id:
            self.decide_pending(subsystem, pending_id, verb)
        elif verb == "diff" and pending_id:
            self.show_pending_diff(subsystem, pending_id)
        else:
            self._say(
                f"/{subsystem} takes: pending, approve ID, reject ID or diff ID (the ids are in the "
                f"{subsystem} pane and in /{subsystem} pending).",
                "warning",
            )

    @work(thread=True, group="pending", exit_on_error=False, description="list the pending writes")
    def list_pending(self, subsystem: str) -> None:
        rows = self.readers.pending_rows(subsystem)  # type: ignore[attr-defined]
        if not rows:
            self._say(f"No {subsystem} write waits for your approval.", "info", "i")
            return
        lines = [f"{len(rows)} {subsystem} write{'s' if len(rows) != 1 else ''} waiting for your approval:"]
        for row in rows:
            problem = f" — ! {row.problem}" if row.problem else ""
            lines.append(f"  {row.pending_id}  {row.who}: {row.summary}{problem}")
        lines.append(f"/{subsystem} approve ID, /{subsystem} reject ID, /{subsystem} diff ID.")
        self._say("\n".join(lines), "info", "⏸")

    # /new

    def new_conversation(self, key: str = "") -> None:
        """End this session and start a fresh one (the transcript and the timeline start over)."""
        if self._waits_for_turn("new", key):
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
        self.main_screen.post_message(messages.ConversationReset("new", ""))
        getattr(self, "session_restarted", lambda: None)()

    async def _drain(self, result: Any) -> Any:
        """An agent call's result: events of an async generator become Messages; a coroutine is awaited."""
        if hasattr(result, "__aiter__"):
            async for event in result:
                self.main_screen.post_message(messages.to_message(event))
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
            self._say(sentence(f"/compress needs the agent: {why}"), "warning")
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
        self.main_screen.post_message(messages.to_message(titled))

    @work(group="title", exit_on_error=False, description="read the session's title")
    async def _say_title(self) -> None:
        title = ""
        if self.session_id:
            try:
                title = await self.history.session_title(self.session_id)  # type: ignore[attr-defined]
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
        """`/model` says which model answers; `/model NAME` switches to another and keeps it in config.yaml
        (a run whose model does not come from config.yaml, `--scripted`, switches for this run only)."""
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
                f"Model: {current} at {where}. `/model NAME` switches to another (the conversation goes "
                f"on) and keeps it as model.default in {self.config_path_label}.",
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
        # The model's endpoint set for this run (--scripted) is not config.yaml's: the file is left alone.
        endpoint_of_this_run = any(key != "default" for key in overrides.get("model", {}))
        overrides.setdefault("model", {})["default"] = name
        self.agent_factory = AgentBuilder(self.agent_factory.workdir, overrides)
        resume = self.session_id or None
        self.main_screen.status.update_state(model=name)  # the reset's notice names it
        self.replace_agent("model_switch", resume, "model")
        if endpoint_of_this_run:
            self.notify(
                f"Model {name} for this run only: this run's model is not the one in "
                f"{self.config_path_label}, which is left as it is."
            )
        else:
            self.keep_setting("model", name)

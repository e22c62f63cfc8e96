"""The slash commands: their list, the catalog entries the input and the palette offer, and what each does.

`SLASH_COMMANDS` is what the input completes and the keys screen lists; `SlashCommands` (held by the
app) runs them. Commands that change the conversation wait for a running turn (ctrl+c interrupts it
first); the agent does the work in the app's workers and its events reach the panes through the
background channel. The skills and sessions stores fill the catalogs (`SkillEntry`, `SessionEntry`);
the palette's providers are in `tui/palette.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.text.sentences import sentence
from tui import messages
from widgets.prompt import SlashCommand

if TYPE_CHECKING:
    from tui.app import HwsApp

SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "start a new session"),
    SlashCommand("compress", "compress the conversation now", args="[focus]"),
    SlashCommand(
        "model", "show the model; with a name, switch to it and keep it in config.yaml", args="[name]"
    ),
    SlashCommand(
        "memory",
        "show the memory pane; pending writes: list, approve or reject",
        args="[pending|approve ID|reject ID]",
    ),
    SlashCommand(
        "skills",
        "show the skills pane; pending writes: list, approve, reject or diff",
        args="[pending|approve ID|reject ID|diff ID]",
    ),
    SlashCommand("sessions", "browse and search past sessions"),
    SlashCommand("title", "name this session (no name: say its title)", args="[name]"),
    SlashCommand("reload-mcp", "apply config.yaml's mcp_servers from the next model call"),
    SlashCommand("edit", "edit files side by side (SOUL.md, memory, skills)", args="[file] [file]"),
    SlashCommand("identity", "SOUL.md and USER.md beside what the provider observed"),
    SlashCommand("undo", "take back the last exchanges; your message goes back into the input", args="[N]"),
    SlashCommand("revert", "undo the last memory or skill write"),
    SlashCommand(
        "branch", "go on in a copy of this conversation; the original stays resumable", args="[name]"
    ),
    SlashCommand("steer", "add a message to the running turn at its next tool boundary", args="TEXT"),
    SlashCommand("retry", "send the last message again"),
    SlashCommand("copy", "copy the last reply"),
    SlashCommand("theme", "switch the theme and keep it in config.yaml (no name: pick one)", args="[name]"),
    SlashCommand("help", "show the keys and commands"),
)


@dataclass(frozen=True)
class SkillEntry:
    """A skill the palette and `/name` completion offer."""

    name: str
    description: str = ""
    category: str = ""


@dataclass(frozen=True)
class SessionEntry:
    """A past session the palette offers to open."""

    session_id: str
    title: str = ""
    when: str = ""


def parse_slash(text: str) -> tuple[str, str] | None:
    """`/compress keep the API notes` → ("compress", "keep the API notes"); None for plain text."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    if not name or "\n" in name:
        return None
    return name, rest.strip()


def skill_commands(entries: Iterable[SkillEntry]) -> list[SlashCommand]:
    return [SlashCommand(e.name, e.description or "invoke this skill", kind="skill") for e in entries]


def no_model_text(config_path: str) -> str:
    return (
        "No model is configured, so the agent cannot answer yet; every pane still works.\n"
        "Choose one with ctrl+p → Choose the model: it writes config.yaml and starts the agent at once.\n"
        f"Or add a model to {config_path} by hand, for example:\n"
        "    model:\n"
        "      default: anthropic/claude-sonnet-4\n"
        "      base_url: https://openrouter.ai/api/v1\n"
        "and OPENROUTER_API_KEY=… to .env beside it (any OpenAI-compatible server works, e.g. "
        "base_url: http://localhost:11434/v1 for Ollama), then restart hws."
    )


class SlashCommands:
    """What each slash command does, on the app it is given."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app

    async def run_slash_command(self, name: str, argument: str) -> None:
        main = self.app.main_screen
        if name == "help":
            self.app.action_show_keys()
        elif name == "copy":
            self.app.copy_to_clipboards(main.transcript.last_reply, "the last reply")
        elif name in ("memory", "skills"):
            main.action_show_pane(name)
            if argument:
                self.pending_command(name, argument)
        elif name == "sessions":
            self.app.action_sessions()
        elif name == "edit":
            self.app.open_editor(*argument.split()[:2])
        elif name == "identity":
            self.app.action_identity()
        elif name == "theme":
            self.app.switch_theme(argument)
        elif name == "model":
            self.model_command(argument)
        elif name == "retry":
            if self.app.last_sent:
                self.app.send_to_agent(self.app.last_sent, command=self.app.last_command)
            else:
                self._say("Nothing to retry yet.", "warning")
        elif name == "steer":
            self.app.busy_input.steer(argument)
        elif name == "undo":
            self.rewind_command(argument)
        elif name == "revert":
            if self._waits_for_turn(name):
                return
            self.app.pane_feeds.undo_last_write()
        elif name == "branch":
            self.branch_command(argument)
        elif name == "new":
            self.new_conversation()
        elif name == "compress":
            self.compress_command(argument)
        elif name == "title":
            self.title_command(argument)
        elif name == "reload-mcp":
            self.app.run_worker(
                self._reload_mcp, group="mcp", description="reload the MCP servers", exit_on_error=False
            )

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.app.main_screen.post_message(messages.Notice(text, level, icon))

    def _waits_for_turn(self, name: str, key: str = "") -> bool:
        """True (and said in the transcript, where the person looks) when a turn is running: commands
        that change the conversation never cut into a turn; ctrl+c is the one key that does."""
        if not self.app.turn_running:
            return False
        asked = key or f"/{name}"
        sentence = f"{asked}: not now, the agent is still working; ctrl+c interrupts it, then {asked} again."
        self.app.notify(sentence, severity="warning")
        self._say(sentence, "warning", "!")
        return True

    def _can_replace_agent(self, name: str) -> bool:
        if self.app.agent_factory is None:
            why = self.app.agent_problem or "this window was given a fixed agent"
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
            self.app.pane_feeds.list_pending(subsystem)
        elif verb in ("approve", "reject") and pending_id:
            self.app.pane_feeds.decide_pending(subsystem, pending_id, verb)
        elif verb == "diff" and pending_id:
            self.app.pane_feeds.show_pending_diff(subsystem, pending_id)
        else:
            self._say(
                f"/{subsystem} takes: pending, approve ID, reject ID or diff ID (the ids are in the "
                f"{subsystem} pane and in /{subsystem} pending).",
                "warning",
            )

    # /new

    def new_conversation(self, key: str = "") -> None:
        """End this session and start a fresh one (the transcript and the timeline start over); `key` is
        the key that asked, named when the command must wait."""
        if self._waits_for_turn("new", key):
            return
        own = getattr(self.app.agent, "new_session", None) if self.app.agent is not None else None
        if self.app.agent_factory is None and own is not None:  # a given agent that starts sessions itself
            self.app.run_worker(
                partial(self._own_new_session, own),
                name="_own_new_session",
                group="turn",
                description="start a new session",
                exclusive=True,
                exit_on_error=False,
            )
            return
        if not self._can_replace_agent("new"):
            return
        self.app.lifecycle.replace_agent("new_session", None, "new")

    async def _own_new_session(self, new_session: Any) -> None:
        self.app.turn_running = True
        try:
            await self._drain(new_session())
        finally:
            self.app.turn_running = False
        self.app.main_screen.post_message(messages.ConversationReset("new", ""))
        self.app.live_files.session_restarted()

    async def _drain(self, result: Any) -> Any:
        """An agent call's result: events of an async generator become Messages; a coroutine is awaited."""
        if hasattr(result, "__aiter__"):
            async for event in result:
                self.app.main_screen.post_message(messages.to_message(event))
            return None
        if asyncio.iscoroutine(result):
            return await result
        return result

    # /compress [focus]

    def compress_command(self, focus: str) -> None:
        if self._waits_for_turn("compress"):
            return
        compress = getattr(self.app.agent, "compress", None) if self.app.agent is not None else None
        if compress is None:
            why = self.app.agent_problem or "this agent cannot compress"
            self._say(sentence(f"/compress needs the agent: {why}"), "warning")
            return
        self.app.turn_running = True
        self.app.main_screen.status.update_state(working=True, note="compressing…")
        self.app.run_worker(
            partial(self._compress, focus),
            name="_compress",
            group="turn",
            description="compress the conversation",
            exclusive=True,
            exit_on_error=False,
        )

    async def _compress(self, focus: str) -> None:
        main = self.app.main_screen
        try:
            call = self.app.agent.compress  # type: ignore[union-attr]
            outcome = await self._drain(call(focus) if focus else call())
        except Exception as exc:  # AgentBusy, AgentError: their message is the sentence
            main.post_message(messages.Notice(f"Not compressed: {exc}", "warning", "!"))
            outcome = None
        finally:
            self.app.turn_running = False
            main.status.update_state(working=False)
        self.app.live_files.session_restarted()
        if outcome is not None and not getattr(outcome, "compressed", True):
            note = str(getattr(outcome, "note", "") or "there was nothing to compress").rstrip(".")
            main.post_message(messages.Notice(f"Not compressed: {note}.", "info", "i"))

    # /undo [N] and /branch [name]: the conversation taken back, or forked

    def rewind_command(self, argument: str) -> None:
        """`/undo [N]`: take back the last N exchanges (1 by default); the message goes back in the input."""
        count = argument.strip() or "1"
        if not count.isdigit() or int(count) < 1:
            self._say(
                "/undo takes how many exchanges to take back: /undo, /undo 2 (/revert undoes a memory "
                "or skill write).",
                "warning",
            )
            return
        if self._waits_for_turn("undo"):
            return
        rewind = getattr(self.app.agent, "rewind", None) if self.app.agent is not None else None
        if rewind is None:
            why = self.app.agent_problem or "this agent keeps no conversation to take back"
            self._say(sentence(f"/undo needs the agent: {why}"), "warning")
            return
        self._in_turn_worker(partial(self._rewind, rewind, int(count)), "_rewind", "rewind the conversation")

    def _in_turn_worker(self, work: Any, name: str, description: str) -> None:
        """Run `work` as the turn group does (one at a time, no turn beside it)."""
        self.app.turn_running = True
        self.app.run_worker(
            work, name=name, group="turn", description=description, exclusive=True, exit_on_error=False
        )

    async def _rewind(self, rewind: Any, count: int) -> None:
        main = self.app.main_screen
        try:
            rewound = await rewind(count)
        except Exception as exc:  # AgentBusy, StoreError: their message is the sentence
            self._say(f"Nothing was rewound: {exc}", "warning", "!")
            return
        finally:
            self.app.turn_running = False
        main.post_message(messages.to_message(rewound))
        main.prompt.set_text(rewound.text)  # to edit and send again
        self._say(rewound.sentence, "info", "↶")

    def branch_command(self, name: str) -> None:
        """`/branch [name]`: go on in a copy of this conversation; the original stays resumable."""
        if self._waits_for_turn("branch"):
            return
        branch = getattr(self.app.agent, "branch", None) if self.app.agent is not None else None
        if branch is None:
            why = self.app.agent_problem or "this agent keeps no sessions to branch"
            self._say(sentence(f"/branch needs the agent: {why}"), "warning")
            return
        self._in_turn_worker(partial(self._branch, branch, name.strip() or None), "_branch", "branch it")

    async def _branch(self, branch: Any, name: str | None) -> None:
        try:
            branched = await branch(name)
        except Exception as exc:  # AgentBusy, StoreError, TitleConflict: their message is the sentence
            self._say(f"Not branched: {exc}", "warning", "!")
            return
        finally:
            self.app.turn_running = False
        self.app.main_screen.post_message(messages.to_message(branched))  # a SessionChanged: the new session
        self._say(branched.sentence, "info", "⑂")

    # /reload-mcp

    async def _reload_mcp(self) -> None:
        """config.yaml's `mcp_servers` as it is now, from the agent's next model call."""
        reload = getattr(self.app.agent, "reload_mcp", None) if self.app.agent is not None else None
        if reload is None:
            why = self.app.agent_problem or "this agent uses no MCP servers"
            self._say(f"/reload-mcp needs the agent: {why}.", "warning")
            return
        try:
            said = await reload()
        except Exception as exc:  # a config.yaml that cannot be read: its message is the sentence
            self._say(f"MCP servers not reloaded: {exc}", "warning", "!")
            return
        self._say(said)

    # /title [name]

    def title_command(self, name: str) -> None:
        """Name this session, or (no name) say what it is called."""
        if not name:
            self.app.run_worker(
                self._say_title, group="title", description="read the session's title", exit_on_error=False
            )
            return
        set_title = getattr(self.app.agent, "set_title", None) if self.app.agent is not None else None
        if set_title is None:  # no agent yet (or one that keeps no sessions)
            why = self.app.agent_problem or "this agent keeps no sessions to name"
            self._say(f"/title needs the agent: {why}.", "warning")
            return
        self.app.run_worker(
            partial(self._set_title, set_title, name),
            name="_set_title",
            group="title",
            description="name the session",
            exit_on_error=False,
        )

    async def _set_title(self, set_title: Any, name: str) -> None:
        try:
            titled = await set_title(name)
        except Exception as exc:  # StoreError, TitleConflict: their message is the sentence
            self._say(f"Not titled: {exc}", "warning", "!")
            return
        self.app.main_screen.post_message(messages.to_message(titled))

    async def _say_title(self) -> None:
        title = ""
        if self.app.session_id:
            try:
                title = await self.app.history_feeds.reader.session_title(self.app.session_id)
            except Exception:  # an unreadable state.db: said as no title
                title = ""
        if title:
            self._say(f"This session is titled “{title}” · /title NAME renames it.")
        elif self.app.session_id:
            self._say("This session has no title yet: its first exchange names it, or /title NAME does.")
        else:
            self._say("No session yet: the first message starts one; /title NAME then names it.")

    # /model [name]

    def model_command(self, name: str) -> None:
        """`/model` says which model answers; `/model NAME` switches to another and keeps it in config.yaml
        (a run whose model does not come from config.yaml, `--scripted`, switches for this run only)."""
        from tui.agent_port import AgentBuilder

        model = self.app.config.model_name
        if not name:
            if not model:
                self._say(no_model_text(self.app.config_path_label), "info", "i")
                return
            builder = self.app.agent_factory if isinstance(self.app.agent_factory, AgentBuilder) else None
            current = ((builder.overrides or {}).get("model", {}) if builder else {}).get("default") or model
            where = self.app.config.model.base_url or "the provider default"
            self._say(
                f"Model: {current} at {where}. `/model NAME` switches to another (the conversation goes "
                f"on) and keeps it as model.default in {self.app.config_path_label}.",
                "info",
                "i",
            )
            return
        if self._waits_for_turn("model"):
            return
        if not isinstance(self.app.agent_factory, AgentBuilder):
            self._say(
                "/model NAME needs the workstation's own agent builder; restart with the model.", "warning"
            )
            return
        overrides = {k: dict(v) for k, v in (self.app.agent_factory.overrides or {}).items()}
        # The model's endpoint set for this run (--scripted) is not config.yaml's: the file is left alone.
        endpoint_of_this_run = any(key != "default" for key in overrides.get("model", {}))
        overrides.setdefault("model", {})["default"] = name
        self.app.agent_factory = AgentBuilder(self.app.agent_factory.workdir, overrides)
        resume = self.app.session_id or None
        self.app.main_screen.status.update_state(model=name)  # the reset's notice names it
        self.app.lifecycle.replace_agent("model_switch", resume, "model")
        if endpoint_of_this_run:
            self.app.notify(
                f"Model {name} for this run only: this run's model is not the one in "
                f"{self.app.config_path_label}, which is left as it is."
            )
        else:
            self.app.keep_setting("model", name)

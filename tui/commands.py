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
from widgets.message_input import SlashCommand

if TYPE_CHECKING:
    from engine.events import ConversationRewound
    from tui.app import HwsApp

SLASH_COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("new", "start a new session"),
    SlashCommand("compress", "compress the conversation now", args="[focus]"),
    SlashCommand(
        "model",
        "show the model and provider; with a name, switch to it (kept in config.yaml); "
        "--provider P switches provider for this run",
        args="[name] [--provider P]",
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
    SlashCommand(
        "facts",
        "search the local fact store (no text: the most trusted facts); delete removes one",
        args="[text]",
    ),
    SlashCommand("sessions", "browse and search past sessions"),
    SlashCommand("title", "name this session (no name: say its title)", args="[name]"),
    SlashCommand("mcp", "the MCP servers: state, tools, schema tokens; turn one on or off"),
    SlashCommand("hub", "the skills hub: search the taps, read a skill and its guard verdict, install"),
    SlashCommand("reload-mcp", "apply config.yaml's mcp_servers from the next model call"),
    SlashCommand("edit", "edit files side by side (SOUL.md, memory, skills)", args="[file] [file]"),
    SlashCommand("identity", "SOUL.md and USER.md beside what the provider observed"),
    SlashCommand("undo", "take back the last exchanges; your message goes back into the input", args="[N]"),
    SlashCommand("revert", "undo the last memory or skill write"),
    SlashCommand(
        "branch", "go on in a copy of this conversation; the original stays resumable", args="[name]"
    ),
    SlashCommand("rollback", "list the working folder's checkpoints by turn; restore one", args="[ID]"),
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


def rollback_offer(rewound: ConversationRewound) -> str:
    """The rewound turns changed the folder's files: where they stand, and how to roll them back."""
    files = f"{rewound.files_changed} file{'' if rewound.files_changed == 1 else 's'}"
    where = rewound.project or "the working folder"
    return (
        f"The rewound turns changed files: {files} in {where} differ from checkpoint "
        f"{rewound.checkpoint_id}, taken before them. `/rollback {rewound.checkpoint_id}` shows the diff and "
        "restores it on enter; the files stay as they are unless you do."
    )


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
        from tui.fact_commands import FactCommands
        from tui.hub_work import HubWork
        from tui.mcp_commands import McpCommands

        self.app = app
        self.mcp = McpCommands(app)
        self.facts = FactCommands(app)
        self.hub = HubWork(app)

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
        elif name == "facts":
            self.facts.open_screen(argument)
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
        elif name == "rollback" and not self._waits_for_turn(name):
            from tui.screens.rollback import RollbackScreen

            chosen = argument.strip()
            screen = RollbackScreen(self.app.home, self.app.config, self.app.workdir, chosen=chosen)
            self.app.push_screen(screen, lambda said: self._say(said) if said else None)
        elif name == "mcp":
            self.mcp.open_screen()
        elif name == "hub":
            self.hub.open_screen()
        elif name == "reload-mcp":
            self.mcp.reload_command()

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

    # /undo [N] and /branch [name]: the conversation taken back, or forked; the transcript's ctrl+z and
    # ctrl+f do the same at one of the person's past messages

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
        rewind = self._conversation_call("rewind", "undo", "this agent keeps no conversation to take back")
        if rewind is not None:
            self._in_turn_worker(partial(self._rewind, partial(rewind, int(count))), "_rewind", "rewind it")

    def rewind_to_message(self, message_id: int, key: str = "") -> None:
        """Take back the person's message `message_id` and everything after it (it goes back in the input)."""
        rewind = self._conversation_call(
            "rewind", "undo", "this agent keeps no conversation to take back", key
        )
        if rewind is not None:
            call = partial(rewind, message_id=message_id)
            self._in_turn_worker(partial(self._rewind, call), "_rewind", "rewind it")

    def _conversation_call(self, method: str, name: str, missing: str, key: str = "") -> Any:
        """The agent's `method`, or None (said why) while a turn runs or the agent has none."""
        if self._waits_for_turn(name, key):
            return None
        call = getattr(self.app.agent, method, None) if self.app.agent is not None else None
        if call is None:
            why = self.app.agent_problem or missing
            self._say(sentence(f"{key or '/' + name} needs the agent: {why}"), "warning")
        return call

    def _in_turn_worker(self, work: Any, name: str, description: str) -> None:
        """Run `work` as the turn group does (one at a time, no turn beside it)."""
        self.app.turn_running = True
        self.app.run_worker(
            work, name=name, group="turn", description=description, exclusive=True, exit_on_error=False
        )

    async def _rewind(self, rewind: Any) -> None:
        try:
            rewound = await rewind()
        except Exception as exc:  # AgentBusy, StoreError: their message is the sentence
            self._say(f"Nothing was rewound: {exc}", "warning", "!")
            return
        finally:
            self.app.turn_running = False
        self.app.main_screen.post_message(messages.to_message(rewound))  # its text goes back in the input
        self._say(rewound.sentence, "info", "↶")
        if rewound.checkpoint_id:  # the files those turns changed: offered, never rolled back
            self._say(rollback_offer(rewound), "warning", "⛁")

    def branch_command(self, name: str) -> None:
        """`/branch [name]`: go on in a copy of this conversation; the original stays resumable."""
        branch = self._conversation_call("branch", "branch", "this agent keeps no sessions to branch")
        if branch is not None:
            self._in_turn_worker(partial(self._branch, branch, name.strip() or None), "_branch", "branch it")

    def branch_at_message(self, message_id: int, key: str = "") -> None:
        """Go on in a copy of the conversation as it was before the person's message `message_id`, with
        that message back in the input; the original stays as it is, resumable."""
        branch = self._conversation_call("branch", "branch", "this agent keeps no sessions to branch", key)
        rewind = getattr(self.app.agent, "rewind", None)
        if branch is None or rewind is None:
            return
        work = partial(self._branch_before, branch, rewind, message_id)
        self._in_turn_worker(work, "_branch", "branch it")

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

    async def _branch_before(self, branch: Any, rewind: Any, message_id: int) -> None:
        """The copy holds the conversation up to `message_id`; that last message is then taken back in it.
        Both are done before the screen hears of either, so the branch it shows is the rewound one."""
        try:
            branched = await branch(None, at_message_id=message_id)
        except Exception as exc:  # AgentBusy, StoreError: their message is the sentence
            self.app.turn_running = False
            self._say(f"Not branched: {exc}", "warning", "!")
            return
        try:
            rewound = await rewind()
        except Exception as exc:  # the copy is there, with the message still in it
            rewound = None
            self._say(f"Branched, but the message was not taken back: {exc}", "warning", "!")
        finally:
            self.app.turn_running = False
        main = self.app.main_screen
        main.post_message(messages.to_message(branched))
        self._say(branched.sentence, "info", "⑂")
        if rewound is not None:
            main.post_message(messages.to_message(rewound))  # its text goes back in the input

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

    # /model [name] [--provider P]

    def model_command(self, argument: str) -> None:
        """`/model` says which model and provider answer; `/model NAME [--provider P]` switches."""
        from tui.model_switch import ModelSwitch

        ModelSwitch(self.app).run(argument, lambda: self._waits_for_turn("model"))

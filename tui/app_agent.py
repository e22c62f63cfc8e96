"""The agent's life in the workstation: built after the first frame, started, replaced, closed.

A mixin of `HwsApp` (which owns the attributes named below). The agent is built in a thread; its
`on_background` is set at once, so review writes, provider status and `/compress` events (which
arrive on the event loop or on other threads) reach the main screen as Messages. `/new`, resuming
a past session and a `/model` switch close the agent and build the next one; quitting closes it
with `end_reason="user_exit"`. A message sent while the agent is being built is held and goes out
the moment it is ready (a person types at once; the model client takes a second or two to load).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

from tui import messages
from tui.agent_port import AgentUnavailableError, close, start

if TYPE_CHECKING:
    from engine import events
    from engine.config import Config
    from engine.home import Home
    from tui.agent_port import AgentPort
    from tui.unsaved import UnsavedBuffers


class AgentLifecycle:
    """Building, starting, replacing and closing the agent (mixed into `HwsApp`)."""

    home: Home
    config: Config
    agent: AgentPort | None
    agent_factory: Callable[..., AgentPort] | None
    agent_problem: str
    session_id: str
    turn_running: bool
    tui: Any
    unsaved: UnsavedBuffers
    agent_building: bool = False  # a build was asked for and has not reported back
    held_message: str = ""  # sent while the agent was being built: goes out when it is ready

    if TYPE_CHECKING:
        main_screen: Any

        def _run_turn(self, text: str) -> Any: ...
        def call_later(self, callback: Any, *args: Any) -> bool: ...

        def post_message(self, message: Any) -> bool: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def exit(self, result: Any = None) -> None: ...
        def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...

    # Building.

    def request_agent(self, resume: str | None = None, reason: str = "start") -> None:
        """Build the next agent in a thread (resuming `resume` when given)."""
        if self.agent_factory is None:
            return
        self.agent_building = True
        self._build_agent(resume, reason)

    @work(
        thread=True, exclusive=True, group="agent-setup", exit_on_error=False, description="build the agent"
    )
    def _build_agent(self, resume: str | None, reason: str) -> None:
        assert self.agent_factory is not None
        try:
            if resume is None:
                agent = self.agent_factory(self.home, self.config)
            else:
                agent = self.agent_factory(self.home, self.config, resume=resume)
        except AgentUnavailableError as exc:
            self.post_message(messages.AgentUnavailable(str(exc)))
            return
        except Exception as exc:  # a bug or an unexpected refusal: a sentence, never a crash
            self.post_message(messages.AgentUnavailable(f"the agent could not be built ({exc})"))
            return
        if hasattr(agent, "on_background"):
            agent.on_background = self.background_event  # type: ignore[attr-defined]
        self.post_message(messages.AgentReady(agent, resume, reason))

    def background_event(self, event: events.Event) -> None:
        """Events from outside a turn (review, provider, /compress), from any thread: into the UI."""
        from engine import events as engine_events

        if isinstance(event, engine_events.ApprovalNeeded):
            return  # background work never waits on the user (its approver declines)
        main = self.main_screen
        if main is not None:
            main.post_message(messages.to_message(event))  # post_message is thread-safe

    def agent_ready(self, message: messages.AgentReady) -> None:
        self.agent = message.agent  # type: ignore[assignment]
        self.agent_building = False
        self.agent_problem = ""
        if message.resume is not None:
            self._open_session(message.resume)  # sends a held message once the session is open
        else:
            self.send_held_message()
        if message.reason != "start":  # a new agent read SOUL.md, skills and memory again: compare anew
            getattr(self, "session_restarted", lambda: None)()

    def agent_unavailable(self, reason: str) -> None:
        self.agent_building = False
        self.agent_problem = reason
        self.drop_held_message("no agent", f"Not sent: the agent cannot run ({reason}).")

    # A message sent while the agent is being built.

    def hold_message(self, text: str) -> None:
        """Keep `text` (already in the transcript) until the agent is ready; meanwhile a turn is running."""
        self.held_message = text
        self.turn_running = True
        self.main_screen.post_message(
            messages.Notice("The agent is starting; this message goes out when it is ready.", "info", "…")
        )

    def send_held_message(self) -> None:
        text, self.held_message = self.held_message, ""
        if text and self.agent is not None:
            self.turn_running = True
            self._run_turn(text)

    def drop_held_message(self, reason: str, sentence: str = "") -> bool:
        """Forget a held message (interrupted, or no agent after all); False when none was held."""
        if not self.held_message:
            return False
        self.held_message = ""
        self.turn_running = False
        self.main_screen.post_message(messages.TurnAborted(reason, sentence))
        return True

    @work(exclusive=True, group="turn", exit_on_error=False, description="open the resumed session")
    async def _open_session(self, resume: str) -> None:
        agent = self.agent
        if agent is None:
            return
        self.turn_running = True
        opened = False
        try:
            session_id = await start(agent)
            opened = True
        except Exception as exc:
            self.main_screen.post_message(messages.Notice(f"Could not resume {resume}: {exc}", "error", "✗"))
            self.agent = None
            self.agent_problem = f"resuming {resume} failed"
            return
        finally:
            self.turn_running = opened and bool(self.held_message)  # the held message's turn is next
            if not opened:
                self.drop_held_message("no agent", f"Not sent: {self.agent_problem or 'the resume stopped'}.")
        self.main_screen.post_message(messages.SessionOpened(session_id or resume, resumed=True))
        if self.held_message:
            self.call_later(self.send_held_message)  # outside this worker: the turn group is exclusive

    # Replacing.

    @work(exclusive=True, group="turn", exit_on_error=False, description="start over")
    async def replace_agent(self, end_reason: str, resume: str | None, reason: str) -> None:
        """Close the agent (ending its session) and build the next; the transcript starts over."""
        old, self.agent = self.agent, None
        self.agent_problem = "the agent is starting"
        self.turn_running = True
        try:
            if old is not None:
                await self._close_quietly(old, end_reason)
        finally:
            self.turn_running = False
        self.session_id = ""
        self.main_screen.post_message(messages.ConversationReset(reason, resume or ""))
        self.request_agent(resume, reason)

    async def _close_quietly(self, agent: object, end_reason: str) -> None:
        wait = float(self.tui.close_wait_seconds)
        try:
            await asyncio.wait_for(close(agent, end_reason), timeout=wait)
        except TimeoutError:
            self.notify(
                f"The session did not close within {wait:g} s (tui.close_wait_seconds); its background "
                "review was stopped.",
                severity="warning",
            )
        except Exception as exc:  # closing must never keep the user from going on
            self.notify(f"Closing the session failed: {exc}", severity="warning")

    # Quitting.

    def quit_on_terminate(self) -> None:
        """SIGTERM (`kill`, a closing tmux server) quits as ctrl+q does: the session is closed and the
        terminal given back. Unhandled, it killed hws mid-screen and left the terminal in its mode."""
        import signal

        self._terminating = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not on this platform
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._terminate_requested)

    def _terminate_requested(self) -> None:
        if self._terminating:  # a second one: leave without waiting for the session to close
            self.exit(143)
            return
        self._terminating = True
        self.unsaved.log_lost("SIGTERM")  # nobody to ask: nothing is saved, the log says what was lost
        self.call_later(self.quit_now)

    async def quit_now(self) -> None:
        """End the session (`user_exit`), waiting a little for a background review, then exit."""
        agent, self.agent = self.agent, None
        if agent is not None:
            busy = getattr(agent, "busy", False) or self.turn_running
            if busy:
                with contextlib.suppress(Exception):
                    from tui.agent_port import interrupt

                    await interrupt(agent)
            if self.session_id:
                self.notify("Saving the session…", timeout=3)
            await self._close_quietly(agent, "user_exit")
        self.exit(0)

"""The agent's life in the workstation: built after the first frame, started, replaced, closed.

`AgentLifecycle` is held by the app, which keeps the agent itself (`app.agent`) and whether a turn
runs. The agent is built in a thread; its `on_background` is set at once, so review writes, provider
status and `/compress` events (which arrive on the event loop or on other threads) reach the main
screen as Messages. `/new`, resuming a past session and a `/model` switch close the agent and build
the next one; quitting closes it with `end_reason="user_exit"`. A message sent while the agent is
being built is held and goes out the moment it is ready (a person types at once; the model client
takes a second or two to load).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from functools import partial
from typing import TYPE_CHECKING

from tui import heap, messages
from tui.agent_port import AgentUnavailableError, close, start

if TYPE_CHECKING:
    from engine import events
    from tui.app import HwsApp


class AgentLifecycle:
    """Building, starting, replacing and closing the app's agent, and the message held meanwhile."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self.building = False  # a build was asked for and has not reported back
        self.held_message = ""  # sent while the agent was being built: goes out when it is ready
        self.held_command = False  # the held message is a typed `/skill-name`
        self._terminating = False

    # Building.
    def request_agent(self, resume: str | None = None, reason: str = "start") -> None:
        """Build the next agent in a thread (resuming `resume` when given)."""
        if self.app.agent_factory is None:
            return
        self.building = True
        self.app.run_worker(
            partial(self._build_agent, resume, reason),
            name="_build_agent",
            group="agent-setup",
            description="build the agent",
            exclusive=True,
            exit_on_error=False,
            thread=True,
        )

    def _build_agent(self, resume: str | None, reason: str) -> None:
        assert self.app.agent_factory is not None
        try:
            if resume is None:
                agent = self.app.agent_factory(self.app.home, self.app.config)
            else:
                agent = self.app.agent_factory(self.app.home, self.app.config, resume=resume)
        except AgentUnavailableError as exc:
            self.app.post_message(messages.AgentUnavailable(str(exc)))
            return
        except Exception as exc:  # a bug or an unexpected refusal: a sentence, never a crash
            self.app.post_message(messages.AgentUnavailable(f"the agent could not be built ({exc})"))
            return
        if hasattr(agent, "on_background"):
            agent.on_background = self.background_event  # type: ignore[attr-defined]
        self.app.post_message(messages.AgentReady(agent, resume, reason))

    def background_event(self, event: events.Event) -> None:
        """Events from outside a turn (review, provider, /compress), from any thread: into the UI."""
        from engine import events as engine_events

        if isinstance(event, engine_events.ApprovalNeeded):
            return  # background work never waits on the user (its approver declines)
        main = self.app.main_screen
        if main is not None:
            main.post_message(messages.to_message(event))  # post_message is thread-safe

    def agent_ready(self, message: messages.AgentReady) -> None:
        self.app.agent = message.agent  # type: ignore[assignment]
        self.building = False
        self.app.agent_problem = ""
        if message.resume is not None:
            self.app.run_worker(
                partial(self._open_session, message.resume),
                name="_open_session",
                group="turn",
                description="open the resumed session",
                exclusive=True,
                exit_on_error=False,
            )  # sends a held message once the session is open
        else:
            self.send_held_message()
        if message.reason != "start":  # a new agent read SOUL.md, skills and memory again: compare anew
            self.app.live_files.session_restarted()
        # measured by this agent: the window its endpoint already reported
        self.app.pane_feeds.refresh("budget")
        heap.settle()  # the agent's modules (the model client) are start-up's too

    def agent_unavailable(self, reason: str) -> None:
        self.building = False
        self.app.agent_problem = reason
        self.drop_held_message("no agent", f"Not sent: the agent cannot run ({reason}).")

    # A message sent while the agent is being built.

    def hold_message(self, text: str, command: bool = False) -> None:
        """Keep `text` (already in the transcript) until the agent is ready; meanwhile a turn is running."""
        self.held_message, self.held_command = text, command
        self.app.turn_running = True
        self.app.main_screen.post_message(
            messages.Notice("The agent is starting; this message goes out when it is ready.", "info", "…")
        )

    def send_held_message(self) -> None:
        text, self.held_message = self.held_message, ""
        if text and self.app.agent is not None:
            self.app.turn_running = True
            self.app.run_turn(text, self.held_command)

    def drop_held_message(self, reason: str, sentence: str = "") -> bool:
        """Forget a held message (interrupted, or no agent after all); False when none was held."""
        if not self.held_message:
            return False
        self.held_message = ""
        self.app.turn_running = False
        self.app.main_screen.post_message(messages.TurnAborted(reason, sentence))
        return True

    async def _open_session(self, resume: str) -> None:
        agent = self.app.agent
        if agent is None:
            return
        self.app.turn_running = True
        opened = False
        try:
            session_id = await start(agent)
            opened = True
        except Exception as exc:
            self.app.main_screen.post_message(
                messages.Notice(f"Could not resume {resume}: {exc}", "error", "✗")
            )
            self.app.agent = None
            self.app.agent_problem = f"resuming {resume} failed"
            return
        finally:
            self.app.turn_running = opened and bool(self.held_message)  # the held message's turn is next
            if not opened:
                self.drop_held_message(
                    "no agent", f"Not sent: {self.app.agent_problem or 'the resume stopped'}."
                )
        self.app.main_screen.post_message(messages.SessionOpened(session_id or resume, resumed=True))
        if self.held_message:
            self.app.call_later(self.send_held_message)  # outside this worker: the turn group is exclusive

    # Replacing.

    def replace_agent(self, end_reason: str, resume: str | None, reason: str, detail: str = "") -> None:
        """Close the agent (ending its session) and build the next; the transcript starts over."""
        work = partial(self._replace_agent, end_reason, resume, reason, detail)
        self.app.run_worker(
            work,
            name="replace_agent",
            group="turn",
            description="start over",
            exclusive=True,
            exit_on_error=False,
        )

    async def _replace_agent(self, end_reason: str, resume: str | None, reason: str, detail: str) -> None:
        old, self.app.agent = self.app.agent, None
        self.app.agent_problem = "the agent is starting"
        self.app.turn_running = True
        try:
            if old is not None:
                await self._close_quietly(old, end_reason)
        finally:
            self.app.turn_running = False
        self.app.session_id = ""
        self.app.main_screen.post_message(messages.ConversationReset(reason, resume or "", detail))
        self.request_agent(resume, reason)

    async def _close_quietly(self, agent: object, end_reason: str) -> None:
        wait = float(self.app.tui.close_wait_seconds)
        try:
            await asyncio.wait_for(close(agent, end_reason), timeout=wait)
        except TimeoutError:
            self.app.notify(
                f"The session did not close within {wait:g} s (tui.close_wait_seconds); its background "
                "review was stopped.",
                severity="warning",
            )
        except Exception as exc:  # closing must never keep the user from going on
            self.app.notify(f"Closing the session failed: {exc}", severity="warning")

    # Quitting.

    def quit_on_terminate(self) -> None:
        """SIGTERM (`kill`, a closing tmux server) and SIGHUP (the terminal closed) quit as ctrl+q does:
        the session is closed and the terminal, if it is still there, given back. Unhandled, they killed
        hws mid-screen, left the terminal in its mode and the session open in state.db."""
        self._terminating = False
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not on this platform
                loop.add_signal_handler(number, partial(self._terminate_requested, number))

    def _terminate_requested(self, number: int = signal.SIGTERM) -> None:
        if self._terminating:  # a second one: leave without waiting for the session to close
            self.app.exit(128 + number)
            return
        self._terminating = True
        if number == signal.SIGHUP:
            from tui.hangup import HangupSafeDriver

            driver = self.app._driver
            if isinstance(driver, HangupSafeDriver):
                driver.terminal_gone()
        # nobody to ask: nothing is saved, the log says what was lost
        self.app.unsaved.log_lost(signal.Signals(number).name)
        self.app.call_later(self.quit_now)

    async def quit_now(self) -> None:
        """End the session (`user_exit`), waiting a little for a background review, then exit."""
        agent, self.app.agent = self.app.agent, None
        if agent is not None:
            busy = getattr(agent, "busy", False) or self.app.turn_running
            if busy:
                with contextlib.suppress(Exception):
                    from tui.agent_port import interrupt

                    await interrupt(agent)
            if self.app.session_id:
                self.app.notify("Saving the session…", timeout=3)
            await self._close_quietly(agent, "user_exit")
        self.app.exit(0)

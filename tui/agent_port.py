"""What the workstation needs from the engine's agent, and the worker loop that drives one turn.

The agent is any object with `run_turn(text)`, an async iterator of engine events; it is called
with `command=True` for a typed `/skill-name` (the agent loads that skill into the message). Optional:
`interrupt()` (stop the turn cleanly, keeping what was said), `answer_approval(request_id,
decision)` (decision: "once", "session" or "deny"; for a `ClarifyNeeded` the person's answer, "" for
none), `start()`, `close(end_reason)`, `compress(focus)`,
`oversized(text)` with `fit_message(text, found, choice)` (a message too large for the window, found
before it is sent), `set_title(name)` (`/title`), `rewind(count)` (`/undo N`), `branch(name)`
(`/branch`), `steer(text)` with `take_steers()` (`/steer`), `run_user_shell(command)` (`!CMD`, an async
iterator of events as `run_turn` is), `kill_process(process_id)` (the palette kills a background
process), `context_window()` and `known_context_window()` (the window the budget pane measures
against: asked once a session is open, else only what is known), the attribute `on_background`
(events from outside a turn), and `client` (the model client: `/model` and the budget pane name its
model and provider). An approval travels as a Future inside the `ApprovalNeeded` Message;
the loop waits on it and hands the answer back before reading on.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.message import Message

from tui import messages

if TYPE_CHECKING:
    from engine import events
    from engine.config import Config
    from engine.home import Home


@runtime_checkable
class AgentPort(Protocol):
    def run_turn(self, text: str, *, command: bool = False) -> AsyncIterator[events.Event]: ...


class AgentUnavailableError(Exception):
    """The agent cannot be built; the message is the sentence the input shows."""


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def drive_turn(
    agent: AgentPort, text: str, post: Callable[[Message], object], *, command: bool = False
) -> None:
    """Run one turn, posting each engine event as its Message; answer approvals through Futures."""
    turn = agent.run_turn(text, command=True) if command else agent.run_turn(text)
    await drive_stream(agent, turn, post)


async def drive_stream(
    agent: object, stream: AsyncIterator[events.Event], post: Callable[[Message], object]
) -> None:
    """Post each event of `stream` (a turn, a `!CMD`) as its Message; answer approvals through Futures."""
    from engine import events

    async for event in stream:
        if isinstance(event, (events.ApprovalNeeded, events.ClarifyNeeded)):
            message = (
                messages.ApprovalNeeded(event)
                if isinstance(event, events.ApprovalNeeded)
                else messages.ClarifyNeeded(event)
            )
            post(message)
            try:
                decision = await message.future
            except asyncio.CancelledError:
                if not message.future.done():
                    message.future.cancel()
                raise
            answer = getattr(agent, "answer_approval", None)
            if answer is not None:
                await _maybe_await(answer(event.request_id, decision))
            continue
        post(messages.to_message(event))


def steer(agent: object, text: str) -> bool:
    """Hand `text` to the running turn for its next tool boundary; False when the agent cannot take it."""
    steering = getattr(agent, "steer", None)
    return bool(steering(text)) if steering is not None else False


def take_steers(agent: object) -> list[str]:
    """Steering text the turn ended without reaching a tool boundary for (to send as the next message)."""
    taking = getattr(agent, "take_steers", None)
    return list(taking()) if taking is not None else []


async def interrupt(agent: object) -> bool:
    """Ask the agent to stop its turn; False when it has no way to be asked."""
    stop = getattr(agent, "interrupt", None)
    if stop is None:
        return False
    await _maybe_await(stop())
    return True


async def oversized(agent: object, text: str) -> Any:
    """The agent's verdict on a message too large for its window (None: it fits, or it cannot tell)."""
    measure = getattr(agent, "oversized", None)
    if measure is None:
        return None
    return await _maybe_await(measure(text))


async def kill_process(agent: object, process_id: str) -> str:
    """Ask the agent to kill one of its session's background processes; the sentence it says."""
    killer = getattr(agent, "kill_process", None)
    if killer is None:
        return "This agent runs no background processes."
    return str(await _maybe_await(killer(process_id)))


async def start(agent: object) -> str:
    """Open the agent's session now (the real agent opens it on its first turn otherwise)."""
    opener = getattr(agent, "start", None)
    if opener is None:
        return ""
    return str(await _maybe_await(opener()) or "")


async def close(agent: object, end_reason: str) -> None:
    """End the agent's session and release its store and clients (nothing when it has no `close`)."""
    closer = getattr(agent, "close", None)
    if closer is not None:
        await _maybe_await(closer(end_reason=end_reason))


@dataclass
class AgentBuilder:
    """Builds the engine's agent for a home and config: `builder(home, config, resume=None)`.

    Called from a thread after the first frame, because the model client is slow to import; the
    app sets `on_background` on what it returns. `overrides` replaces config settings for this run
    only (the scripted model's URL, a `/model` switch), never the file.
    """

    workdir: Path | None = None
    overrides: dict[str, dict[str, Any]] | None = None

    def __call__(self, home: Home, config: Config, resume: str | None = None) -> AgentPort:
        config = with_overrides(config, self.overrides or {})
        if not config.model_name:
            raise AgentUnavailableError("no model is configured")
        from engine.agent.errors import AgentError
        from engine.agent.turns import create_agent

        try:
            return create_agent(home, config, source="tui", cwd=self.workdir, resume=resume)
        except AgentError as exc:  # a configuration the engine refuses: show its sentence
            raise AgentUnavailableError(str(exc).rstrip(".")) from exc


def build_agent(home: Home, config: Config, resume: str | None = None) -> AgentPort:
    """The engine's agent for this home and config; raises `AgentUnavailableError` with a sentence."""
    return AgentBuilder()(home, config, resume)


def with_overrides(config: Config, overrides: dict[str, dict[str, Any]]) -> Config:
    """A copy of `config` with some settings replaced (sections by name, settings by key)."""
    if not overrides:
        return config
    import dataclasses

    from engine.config import Section

    sections = dict(config.sections)
    for name, values in overrides.items():
        current = sections.get(name)
        merged = {**(current.values if current is not None else {}), **values}
        sections[name] = Section(name, merged)
    return dataclasses.replace(config, sections=sections)

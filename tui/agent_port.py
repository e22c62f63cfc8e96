"""What the workstation needs from the engine's agent, and the worker loop that drives one turn.

The agent is any object with `run_turn(text)`, an async iterator of engine events. Optional:
`interrupt()` (stop the turn cleanly, keeping what was said) and `answer_approval(request_id,
decision)` (decision: "once", "session" or "deny"). An approval travels as a Future inside the
`ApprovalNeeded` Message; the loop waits on it and hands the answer back before reading on.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual.message import Message

from tui import messages

if TYPE_CHECKING:
    from engine import events


@runtime_checkable
class AgentPort(Protocol):
    def run_turn(self, text: str) -> AsyncIterator[events.Event]: ...


class AgentUnavailableError(Exception):
    """The agent cannot be built; the message is the sentence the input shows."""


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def drive_turn(agent: AgentPort, text: str, post: Callable[[Message], object]) -> None:
    """Run one turn, posting each engine event as its Message; answer approvals through Futures."""
    from engine import events

    async for event in agent.run_turn(text):
        if isinstance(event, events.ApprovalNeeded):
            message = messages.ApprovalNeeded(event)
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


async def interrupt(agent: object) -> bool:
    """Ask the agent to stop its turn; False when it has no way to be asked."""
    stop = getattr(agent, "interrupt", None)
    if stop is None:
        return False
    await _maybe_await(stop())
    return True


def build_agent(home: Any, config: Any) -> AgentPort:
    """The engine's agent for this home and config; raises `AgentUnavailableError` with a sentence.

    Called from a thread after the first frame, because the model client is slow to import.
    """
    if not config.model_name:
        raise AgentUnavailableError("no model is configured")
    try:
        from engine import agent as agent_module  # type: ignore[attr-defined]
    except ImportError:
        raise AgentUnavailableError(
            "this build of hws has no agent yet (engine/agent.py is not installed); the panes work without it"
        ) from None
    factory = getattr(agent_module, "create_agent", None) or getattr(agent_module, "Agent", None)
    if factory is None:
        raise AgentUnavailableError("engine.agent offers neither create_agent() nor Agent")
    try:
        return factory(home, config)  # type: ignore[no-any-return]
    except Exception as exc:  # a configuration the engine refuses: show its sentence
        raise AgentUnavailableError(str(exc) or exc.__class__.__name__) from exc

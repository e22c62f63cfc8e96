"""Textual Messages: one per engine event, plus the workstation's own requests.

The engine emits plain dataclasses (`engine/events.py`); the turn worker wraps each in the Message
of the same name (`to_message`) and posts it to the main screen, whose `@on` handlers are the only
code that changes the panes. The flow of one turn reads like a sentence:
`TurnSubmitted → TurnStarted → TextDelta… → ToolCalled → ToolFinished → TurnFinished`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Generic, TypeVar

from textual.message import Message

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine import events
    from tui.screens.sessions import SessionsScreen
    from widgets.budget_pane import BudgetView
    from widgets.memory_pane import MemoryView
    from widgets.skills_pane import SkillsView

E = TypeVar("E", bound="events.Event")


class EngineMessage(Message, Generic[E], bubble=False):
    """An engine event delivered into the UI; `event` is the engine's own dataclass.

    Posted straight to the main screen, so it does not bubble on to the app.
    """

    def __init_subclass__(cls, **kwargs: object) -> None:
        kwargs.setdefault("bubble", False)
        super().__init_subclass__(**kwargs)  # type: ignore[arg-type]

    def __init__(self, event: E) -> None:
        super().__init__()
        self.event = event

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.event!r})"


class TurnStarted(EngineMessage["events.TurnStarted"]): ...


class UserMessageStored(EngineMessage["events.UserMessageStored"]): ...


class TurnSteered(EngineMessage["events.TurnSteered"]): ...


class ShellRan(EngineMessage["events.ShellRan"]):
    """A `!CMD` ran; `attached`: it was `!!CMD`, whose output goes with the next message."""

    attached: bool = False


class TextDelta(EngineMessage["events.TextDelta"]): ...


class ReasoningDelta(EngineMessage["events.ReasoningDelta"]): ...


class ToolCalled(EngineMessage["events.ToolCalled"]): ...


class ToolProgress(EngineMessage["events.ToolProgress"]): ...


class ToolFinished(EngineMessage["events.ToolFinished"]): ...


class ApprovalNeeded(EngineMessage["events.ApprovalNeeded"]):
    """The engine waits for the user; the answer goes back through `future` (Toad's pattern)."""

    def __init__(self, event: events.ApprovalNeeded, future: asyncio.Future[str] | None = None) -> None:
        super().__init__(event)
        self.future: asyncio.Future[str] = (
            future if future is not None else asyncio.get_running_loop().create_future()
        )


class ClarifyNeeded(EngineMessage["events.ClarifyNeeded"]):
    """The model asks the person a question; the answer (text, "" for none) goes back through `future`."""

    def __init__(self, event: events.ClarifyNeeded, future: asyncio.Future[str] | None = None) -> None:
        super().__init__(event)
        self.future: asyncio.Future[str] = (
            future if future is not None else asyncio.get_running_loop().create_future()
        )


class ApprovedBySession(EngineMessage["events.ApprovedBySession"]): ...


class UnsavedMessages(EngineMessage["events.UnsavedMessages"]): ...


class MemoryWritten(EngineMessage["events.MemoryWritten"]): ...


class FactWritten(EngineMessage["events.FactWritten"]): ...


class FactsRecalled(EngineMessage["events.FactsRecalled"]): ...


class SkillChanged(EngineMessage["events.SkillChanged"]): ...


class SkillLoaded(EngineMessage["events.SkillLoaded"]): ...


class WriteStaged(EngineMessage["events.WriteStaged"]): ...


class NudgeFired(EngineMessage["events.NudgeFired"]): ...


class Usage(EngineMessage["events.Usage"]): ...


class Status(EngineMessage["events.Status"]): ...


class ProviderSwitched(EngineMessage["events.ProviderSwitched"]): ...


class GuardedSettingsChanged(EngineMessage["events.GuardedSettingsChanged"]): ...


class ErrorEvent(EngineMessage["events.ErrorEvent"]): ...


class TurnFinished(EngineMessage["events.TurnFinished"]): ...


class CompressionStarted(EngineMessage["events.CompressionStarted"]): ...


class CompressionPhase(EngineMessage["events.CompressionPhase"]): ...


class CompressionFinished(EngineMessage["events.CompressionFinished"]): ...


class ConversationTooLarge(EngineMessage["events.ConversationTooLarge"]): ...


class SessionChanged(EngineMessage["events.SessionChanged"]): ...


class SessionTitled(EngineMessage["events.SessionTitled"]): ...


class SessionResumed(EngineMessage["events.SessionResumed"]): ...


class ConversationRewound(EngineMessage["events.ConversationRewound"]): ...


class ProcessStarted(EngineMessage["events.ProcessStarted"]): ...


class ProcessOutput(EngineMessage["events.ProcessOutput"]): ...


class ProcessEnded(EngineMessage["events.ProcessEnded"]): ...


class CheckpointTaken(EngineMessage["events.CheckpointTaken"]): ...


class CheckpointSkipped(EngineMessage["events.CheckpointSkipped"]): ...


class SubagentStarted(EngineMessage["events.SubagentStarted"]): ...


class SubagentProgress(EngineMessage["events.SubagentProgress"]): ...


class SubagentFinished(EngineMessage["events.SubagentFinished"]): ...


MESSAGE_FOR_EVENT: dict[str, type[EngineMessage]] = {  # type: ignore[type-arg]
    klass.__name__: klass for klass in EngineMessage.__subclasses__()
}
"""Engine event class name → Message class (by name, so `engine.events` loads after the first frame)."""


def to_message(event: events.Event) -> EngineMessage:  # type: ignore[type-arg]
    """The Message for an engine event; an event type added later still arrives, as the base class."""
    for klass in type(event).__mro__:
        if klass.__module__ != "engine.events":
            continue
        message_class = MESSAGE_FOR_EVENT.get(klass.__name__)
        if message_class is not None:
            return message_class(event)
    return EngineMessage(event)


# The workstation's own messages.


class TurnSubmitted(Message, bubble=False):
    """The user sent `text` to the agent (or tried to, when no model is configured)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class TurnAborted(Message, bubble=False):
    """The turn ended without the engine's `TurnFinished`: cancelled, or the engine raised."""

    def __init__(self, reason: str, error: str = "") -> None:
        super().__init__()
        self.reason = reason
        self.error = error


class InterruptRequested(Message):
    """ctrl+c during a turn: the turn worker stops the agent and keeps what was said."""


class SkillCatalogLoaded(Message):
    """The skills the `/name` completion and the palette offer, from the skills provider."""

    def __init__(self, entries: list[object]) -> None:
        super().__init__()
        self.entries = entries


class SessionCatalogLoaded(Message):
    """The past sessions the palette and the sessions screen offer, from the session store."""

    def __init__(self, entries: list[object]) -> None:
        super().__init__()
        self.entries = entries


class Notice(Message, bubble=False):
    """A line the workstation itself adds to the transcript (not from the engine)."""

    def __init__(self, text: str, level: str = "info", icon: str = "·") -> None:
        super().__init__()
        self.text = text
        self.level = level
        self.icon = icon


class AgentReady(Message):
    """The agent was built (off the UI thread, after the first frame) and can take turns.

    `resume` is the session it continues (None: a new one, opened with the first turn).
    """

    def __init__(self, agent: object, resume: str | None = None, reason: str = "start") -> None:
        super().__init__()
        self.agent = agent
        self.resume = resume
        self.reason = reason


class SessionOpened(Message, bubble=False):
    """The agent opened its session (at the first turn, or at once when resuming); panes re-read."""

    def __init__(self, session_id: str, resumed: bool) -> None:
        super().__init__()
        self.session_id = session_id
        self.resumed = resumed


class ConversationReset(Message, bubble=False):
    """The conversation starts over (`/new`, resume, model switch): the transcript and timeline clear."""

    def __init__(self, reason: str, session_id: str = "", detail: str = "") -> None:
        super().__init__()
        self.reason = reason
        self.session_id = session_id
        self.detail = detail  # a model switch: ` at PROVIDER` when the provider changes too


class PaneRead(Message, bubble=False):
    """A worker read what one side pane shows; `is_current` is False once a newer reading began."""

    def __init__(self, is_current: Callable[[], bool]) -> None:
        super().__init__()
        self.is_current = is_current


class MemoryRead(PaneRead):
    """The memory files, the journal and the pending memory writes, for the memory pane."""

    def __init__(self, view: MemoryView, is_current: Callable[[], bool]) -> None:
        super().__init__(is_current)
        self.view = view


class BudgetRead(PaneRead):
    """The prompt's layers measured against the context window, for the budget pane."""

    def __init__(self, view: BudgetView, is_current: Callable[[], bool]) -> None:
        super().__init__(is_current)
        self.view = view


class SkillsRead(PaneRead):
    """The skills and their use, for the skills pane."""

    def __init__(self, view: SkillsView, is_current: Callable[[], bool]) -> None:
        super().__init__(is_current)
        self.view = view


class VerdictsRead(PaneRead):
    """The guard's verdicts on the skills (name → (verdict, findings, summary)), for the skills pane."""

    def __init__(self, verdicts: dict[str, tuple[str, int, str]], is_current: Callable[[], bool]) -> None:
        super().__init__(is_current)
        self.verdicts = verdicts


class LineageRead(PaneRead):
    """The running session's compression chain, oldest first, and its branches, for the compression pane."""

    def __init__(
        self,
        chain: tuple[str, ...],
        is_current: Callable[[], bool],
        branch_of: str = "",
        branches: tuple[str, ...] = (),
    ) -> None:
        super().__init__(is_current)
        self.chain = chain
        self.branch_of = branch_of  # the session the conversation was branched from ("" if none)
        self.branches = branches  # the branches made from the chain's sessions, oldest first


class Shown(Message):
    """The main screen showed `message`; the app reads again what it made stale (`tui.staleness`)."""

    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message


class SessionsWanted(Message):
    """The sessions screen wants `limit` conversations from `offset` on (the app reads them)."""

    def __init__(self, screen: SessionsScreen, offset: int, limit: int) -> None:
        super().__init__()
        self.screen = screen
        self.offset = offset
        self.limit = limit


class SessionsSearched(Message):
    """The sessions screen wants the conversations that match `query`."""

    def __init__(self, screen: SessionsScreen, query: str) -> None:
        super().__init__()
        self.screen = screen
        self.query = query


class LineageWanted(Message):
    """The sessions screen wants the compression chain `session_id` belongs to."""

    def __init__(self, screen: SessionsScreen, session_id: str) -> None:
        super().__init__()
        self.screen = screen
        self.session_id = session_id


class FilesToEdit(Message):
    """Open the editor screen with these files (names as `/edit` takes them)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__()
        self.names = names


class AgentUnavailable(Message):
    """No agent can run; `reason` says why and what to do."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

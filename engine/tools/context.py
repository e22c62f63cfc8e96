"""What a tool handler gets besides its arguments: where it runs, whom to ask, and the session's state."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.events import ApprovalNeeded, ApprovedBySession, Event
from engine.home import Home


class Decision(StrEnum):
    """The user's answer to an approval request."""

    ONCE = "once"
    SESSION = "session"
    DENY = "deny"


@dataclass(frozen=True)
class ApprovalRequest:
    """A destructive action waiting for the user; `grants` are what a session approval covers."""

    request_id: str
    tool: str
    command: str
    reason: str
    grants: tuple[str, ...] = ()
    rule: str = ""
    scope: str = ""
    allow_session: bool = True
    detail: str = ""
    always_ask: bool = False  # --yolo does not skip it


@dataclass
class TodoItem:
    id: int
    text: str
    status: str = "pending"


@dataclass
class SessionState:
    """What tools remember for the length of one session (never persisted by the tool layer)."""

    todos: list[TodoItem] = field(default_factory=list)
    next_todo_id: int = 1
    approvals: set[str] = field(default_factory=set)
    # Resolved path -> content hash of the file as this session last read or wrote it.
    file_hashes: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


ApproveFn = Callable[[ApprovalRequest], Awaitable[Decision | str]]
EmitFn = Callable[[Event], object]


async def deny_all(request: ApprovalRequest) -> Decision:
    """An approver for contexts with nobody to ask (background review): every request is declined."""
    return Decision.DENY


def drop_event(event: Event) -> None:
    """An event sink that discards everything (tests, benchmarks)."""


@dataclass
class ToolContext:
    """Everything a tool may use; the agent builds one per session and passes it to every call.

    `approve` only has to wait for the user's answer: `ask` emits the `ApprovalNeeded` event first,
    so a UI that listens to events knows what to show and which request id to answer.
    """

    home: Home
    config: Config
    cwd: Path
    session_id: str = ""
    approve: ApproveFn = deny_all
    emit: EmitFn = drop_event
    yolo: bool = False
    state: SessionState = field(default_factory=SessionState)
    # The session's stores (memory, skills, sessions) by name, filled in by the agent.
    resources: dict[str, Any] = field(default_factory=dict)

    def resource(self, name: str) -> Any:
        """A store the agent attached; a missing one is a tool error the model can read."""
        from engine.tools.registry import ToolError

        try:
            return self.resources[name]
        except KeyError:
            raise ToolError(f"The {name} store is not available in this session.") from None

    async def send(self, event: Event) -> None:
        """Emit an event, awaiting the sink when it is async."""
        result = self.emit(event)
        if inspect.isawaitable(result):
            await result

    async def ask(
        self,
        tool: str,
        command: str,
        reason: str,
        grants: Iterable[str] = (),
        *,
        rule: str = "",
        scope: str = "",
        allow_session: bool = True,
        always_ask: bool = False,
        detail: str = "",
    ) -> Decision:
        """Ask the user to allow an action, unless yolo is on or the session already allows it.

        `allow_session=False` never offers nor keeps a session-wide approval (an answer of "session"
        counts once); `always_ask=True` asks even under yolo. A call a session approval covers is
        announced with `ApprovedBySession`, so the UI and the record can say why it ran unasked.
        """
        grants = tuple(grants)
        if self.yolo and not always_ask:
            return Decision.ONCE
        if allow_session and grants and all(g in self.state.approvals for g in grants):
            await self.send(
                ApprovedBySession(self.session_id, tool, command, rule, scope or ", ".join(grants))
            )
            return Decision.SESSION
        request = ApprovalRequest(
            uuid.uuid4().hex[:12],
            tool,
            command,
            reason,
            grants,
            rule,
            scope,
            allow_session,
            detail,
            always_ask,
        )
        await self.send(
            ApprovalNeeded(
                self.session_id, request.request_id, tool, command, reason, rule, scope, allow_session, detail
            )
        )
        answer = await self.approve(request)
        try:
            decision = Decision(answer)
        except ValueError:
            decision = Decision.DENY  # an answer we do not understand must never allow anything
        if decision is Decision.SESSION:
            if not allow_session:
                return Decision.ONCE
            self.state.approvals.update(grants)
        return decision

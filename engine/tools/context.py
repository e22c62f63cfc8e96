"""What a tool handler gets besides its arguments: where it runs, whom to ask, and the session's state."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.events import ApprovalNeeded, ApprovedBySession, ClarifyNeeded, Event
from engine.home import Home
from engine.threats.redact import Redactor, home_redactor
from engine.tools.errors import ToolError

log = logging.getLogger(__name__)


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
    always_ask: bool = False  # --yolo does not answer it
    asker: str = ""  # a subagent that asks (empty: the agent itself)


@dataclass(frozen=True)
class ClarifyRequest:
    """A question for the person (`clarify`); it travels the approvers' channel and is answered with
    text. An approver that cannot ask anyone answers with a `Decision` (deny): nobody answered."""

    request_id: str
    question: str
    choices: tuple[str, ...] = ()


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


ApproveFn = Callable[[ApprovalRequest | ClarifyRequest], Awaitable[Decision | str]]
EmitFn = Callable[[Event], object]


async def deny_all(request: ApprovalRequest | ClarifyRequest) -> Decision:
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
    call_id: str = ""  # the model's tool call this context serves (see `for_call`)
    asker: str = ""  # who the questions come from when not the agent itself (a subagent)

    def for_call(self, call_id: str) -> ToolContext:
        """This context for one tool call: the same session state, with the call's id on what it asks."""
        return dataclasses.replace(self, call_id=call_id) if call_id != self.call_id else self

    @property
    def redactor(self) -> Redactor:
        """The home's redactor as `.env` stands now, with this session's settings: every tool result
        passes through it before the model reads it."""
        return home_redactor(self.home.root, self.config)

    def resource(self, name: str) -> Any:
        """A store the agent attached; a missing one is a tool error the model can read."""
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
        scope = scope or ", ".join(grants)
        if self.yolo and not always_ask:
            return Decision.ONCE
        if allow_session and grants and all(g in self.state.approvals for g in grants):
            await self.send(ApprovedBySession(self.session_id, tool, command, rule, scope, self.call_id))
            await self._record(tool, command, rule, scope, Decision.SESSION, by_session_rule=True)
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
            self.asker,
        )
        await self.send(
            ApprovalNeeded(
                self.session_id,
                request.request_id,
                tool,
                command,
                reason,
                rule,
                scope,
                allow_session,
                detail,
                self.call_id,
                self.asker,
            )
        )
        answer = await self.approve(request)
        try:
            decision = Decision(answer)
        except ValueError:
            decision = Decision.DENY  # an answer we do not understand must never allow anything
        if decision is Decision.SESSION and not allow_session:
            decision = Decision.ONCE
        elif decision is Decision.SESSION:
            self.state.approvals.update(grants)
        await self._record(tool, command, rule, scope, decision, by_session_rule=False)
        return decision

    async def clarify(self, question: str, choices: Iterable[str] = ()) -> str | None:
        """Ask the person `question` (with up to four `choices`, or free text); None when nobody
        answered (no one to ask, an interrupted turn, an empty answer). --yolo does not answer it."""
        request = ClarifyRequest(uuid.uuid4().hex[:12], question, tuple(choices))
        await self.send(
            ClarifyNeeded(self.session_id, request.request_id, question, request.choices, self.call_id)
        )
        answer = await self.approve(request)
        if isinstance(answer, Decision) or not str(answer).strip():
            return None
        return str(answer).strip()

    async def _record(
        self, tool: str, command: str, rule: str, scope: str, decision: Decision, *, by_session_rule: bool
    ) -> None:
        """Keep the approval in the session's record, when the session has one (a failure is logged)."""
        store = self.resources.get("sessions")
        if store is None or not self.session_id:
            return
        try:
            await store.record_approval(
                self.session_id,
                tool=tool,
                command=command,
                decision=str(decision),
                tool_call_id=self.call_id,
                rule=rule,
                scope=scope,
                by_session_rule=by_session_rule,
            )
        except Exception:  # the record must never decide whether the call runs
            log.exception("could not record the approval of %s", tool)

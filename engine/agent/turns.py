"""The agent: one conversation with a model over the session store, the tools and the learning loop.

    agent = Agent(home, config)                       # cheap and synchronous; nothing opened yet
    async for event in agent.run_turn("hello"):       # the events of engine/events.py, in order
        ...
    await agent.interrupt()                           # from elsewhere: the turn ends, interrupted
    agent.answer_approval(request_id, "once")         # the answer to an ApprovalNeeded event
    await agent.wait_background()                     # a background review, if one is running
    await agent.close()

Two channels reach a UI. `run_turn` yields everything the turn does (text and reasoning deltas,
tool calls and results, memory and skill writes, approvals, retries as `Status`, usage, errors,
nudges, compression, `TurnFinished` last). Work outside a turn (the background review and its
writes, the memory provider's status, `/compress`) goes to `agent.on_background(event)`, called
on the event loop's thread; until one is set those events wait in `agent.background_events`.

Every message is committed to the session store as it completes: the user's before the model is
called, each assistant reply when it ends (partial when interrupted), each tool result as it
comes. The system prompt is built once per session and sent byte-identical on every call until
a compression moves the conversation to a new session.

The agent runs the turn; it holds the open `AgentSession` (engine/agent/session.py) and three
collaborators: `Lifecycle` (the store; opening and closing sessions), `ContextWindow` (sizes and
compression) and `BackgroundWork` (reviews and titles).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agent.api_history import MISSING_RESULT
from engine.agent.background import BackgroundWork
from engine.agent.delegation import Delegation
from engine.agent.errors import AgentBusy, AgentError
from engine.agent.lifecycle import Lifecycle
from engine.agent.parts import AgentParts
from engine.agent.steering import SteerQueue, run_shell_command
from engine.agent.titles import SessionTitler
from engine.agent.window import ContextWindow
from engine.checkpoints.turn import TurnCheckpoints
from engine.event_log import log_event
from engine.events import (
    ConversationRewound,
    ErrorEvent,
    Event,
    FactsRecalled,
    GuardedSettingsChanged,
    NudgeFired,
    ProviderSwitched,
    ReasoningDelta,
    RecalledFact,
    SessionBranched,
    SessionChanged,
    SessionTitled,
    Status,
    TextDelta,
    ToolCalled,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    TurnSteered,
    UnsavedMessages,
    Usage,
    UserMessageStored,
)
from engine.guarded_settings import change_sentence
from engine.threats.redact import StreamRedactor, home_redactor, redact_event
from engine.tools.context import ApprovalRequest, ClarifyRequest, Decision
from engine.tools.errors import ToolError
from engine.tools.loop import assistant_entry, tool_entry
from engine.tools.registry import ToolRegistry, parse_arguments

if TYPE_CHECKING:
    from engine.agent.session import AgentSession
    from engine.compression.compressor import CompressionOutcome, Compressor
    from engine.compression.oversized import FittedMessage, OversizedMessage
    from engine.config import Config
    from engine.home import Home
    from engine.llm.chunks import AssistantMessage, FallbackChunk, TokenUsage, ToolCall
    from engine.llm.client import LLMClient, StreamCall
    from engine.mcp.hub import McpHub
    from engine.memory.store import Memory
    from engine.prompt.layers import SystemPrompt
    from engine.providers.host import ProviderHost
    from engine.sessions.pending_writes import PendingWrites
    from engine.sessions.store import SessionStore
    from engine.skills.tools import SkillTools
    from engine.tools.context import ToolContext

log = logging.getLogger(__name__)

Approver = Callable[[ApprovalRequest | ClarifyRequest], Awaitable[Decision | str]]
EventCallback = Callable[[Event], object]
_END = object()
BACKGROUND_BUFFER = 1000  # events kept for a UI that has not set `on_background` yet
INTERRUPTED_RESULT = "Interrupted by the user before this call finished."


@dataclass
class SessionTotals:
    """What this agent's calls cost so far (all sessions of the chain), for a status bar."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    last_prompt_tokens: int = 0


@dataclass
class _TurnState:
    text: str
    iterations: int = 0
    tool_calls: int = 0
    final_text: str = ""
    call: StreamCall | None = None  # the model call in flight, until its reply is recorded
    pending_calls: tuple[ToolCall, ...] = ()  # calls of the recorded reply still without a result
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    tools_started: float = 0.0  # monotonic time the pending calls began
    hit_limit: bool = False


def create_agent(home: Home, config: Config, **options: Any) -> Agent:
    """The workstation's factory (see `Agent` for the options)."""
    return Agent(home, config, **options)


class Agent:
    """One conversation. Construct anywhere; the first `run_turn` (or `start`) opens the session."""

    def __init__(
        self,
        home: Home,
        config: Config,
        *,
        cwd: str | os.PathLike[str] | None = None,
        resume: str | None = None,
        source: str = "cli",
        approve: Approver | None = None,
        yolo: bool | None = None,
        client: LLMClient | None = None,
        aux_client: LLMClient | None = None,
        registry: ToolRegistry | None = None,
        on_background: EventCallback | None = None,
        exact_tokens: bool = True,
    ) -> None:
        from engine.llm.direct import DirectLLMClient
        from engine.llm.settings import SettingsError

        cwd_path = Path(cwd or os.getcwd()).resolve()
        try:
            main = client or DirectLLMClient.from_config(config, home.root)
            aux = aux_client or (
                DirectLLMClient.from_config(config, home.root, auxiliary=True) if client is None else client
            )
        except SettingsError as exc:
            raise AgentError(str(exc)) from exc
        if registry is None:
            from engine.tools.knowledge import agent_registry

            registry = agent_registry(config)
        yolo = bool(config.agent.yolo) if yolo is None else yolo
        self.parts = AgentParts(home, config, cwd_path, source, yolo, exact_tokens, main, aux, registry)
        self.on_background = on_background
        self.background_events: deque[Event] = deque(maxlen=BACKGROUND_BUFFER)
        self.redactor = home_redactor(home.root, config)  # keys never reach a UI, the output or the store
        self.window = ContextWindow(self.parts, self._emit_main)
        self.background = BackgroundWork(self.parts, self._emit_background)
        self.delegation = Delegation(
            self.parts,
            store=lambda: self.lifecycle.require_store(),
            prompt_text=lambda: self.opened.prompt.text,
            emit=self._emit_main,
            record=self._append_to,
            deliver=self._deliver_result,
            spawn=self.background.spawn,
        )
        self.delivered: list[str] = []  # background results waiting for the running turn's next boundary
        self.lifecycle = Lifecycle(
            self.parts,
            window=self.window,
            background=self.background,
            ask_user=self._ask_user,
            emit_main=self._emit_main,
            emit_background=self._emit_background,
            resources={"delegation": self.delegation},
        )
        self.lifecycle.session_id = lambda: self.session_id
        self.titler = SessionTitler(config, aux, self._emit_background)
        self.checkpoints = TurnCheckpoints(home, config, cwd_path, self._put)  # the folder, before changes
        self.totals = SessionTotals()
        self.session: AgentSession | None = None  # opened by the first `run_turn` (or `start`)
        self.pending: PendingWrites | None = None  # messages kept while another program locks state.db
        self._unsaved = 0  # how many of them wait in its journal
        self._approve = approve
        self._resume = resume
        self._start_lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self._turn_queue: asyncio.Queue[Any] | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._approvals: dict[str, asyncio.Future[Decision | str]] = {}
        self.steering = SteerQueue()  # what the person adds to the running turn (/steer)

    # -- the agent's parts and its open session ---------------------------------------------------

    @property
    def home(self) -> Home:
        return self.parts.home

    @property
    def config(self) -> Config:
        return self.parts.config

    @property
    def cwd(self) -> Path:
        return self.parts.cwd

    @property
    def client(self) -> LLMClient:
        return self.parts.client

    @property
    def aux_client(self) -> LLMClient:
        return self.parts.aux_client

    @property
    def registry(self) -> ToolRegistry:
        return self.parts.registry

    @property
    def store(self) -> SessionStore | None:
        return self.lifecycle.store

    @property
    def mcp(self) -> McpHub | None:
        """The MCP servers and their tools (None when config.yaml names none)."""
        return self.lifecycle.mcp

    async def reload_mcp(self) -> str:
        """`/reload-mcp`: apply `mcp_servers` as config.yaml holds it now, from the next model call on."""
        await self.start()
        return await self.lifecycle.reload_mcp()

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The next model call's tools: the built-in ones, then the MCP schemas in the order they joined."""
        base = self.registry.schemas()
        hub = self.lifecycle.mcp
        if hub is None:
            return base
        schemas = hub.schemas(base, self.window.known() or 0)
        self.window.schema_tokens = self.lifecycle.base_schema_tokens + hub.sent_tokens(
            self.parts.exact_tokens
        )
        return schemas

    async def _registry_for(self, name: str) -> ToolRegistry:
        hub = self.lifecycle.mcp
        if hub is None or name in self.registry:
            return self.registry
        return await hub.registry_for(name) or self.registry

    @property
    def opened(self) -> AgentSession:
        """The open session (the agent has started)."""
        if self.session is None:
            raise AgentError("No session is open yet: start the agent first.")
        return self.session

    @property
    def session_id(self) -> str:
        return self.session.session_id if self.session is not None else ""

    @property
    def prompt(self) -> SystemPrompt | None:
        return self.session.prompt if self.session is not None else None

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.session.history if self.session is not None else []

    @property
    def turns(self) -> int:
        return self.session.turns if self.session is not None else 0

    @property
    def memory(self) -> Memory | None:
        return self.session.memory if self.session is not None else None

    @property
    def skills(self) -> SkillTools | None:
        return self.session.skills if self.session is not None else None

    @property
    def ctx(self) -> ToolContext | None:
        return self.session.ctx if self.session is not None else None

    @property
    def host(self) -> ProviderHost | None:
        return self.session.host if self.session is not None else None

    @property
    def compressor(self) -> Compressor | None:
        return self.session.compressor if self.session is not None else None

    @compressor.setter
    def compressor(self, compressor: Compressor | None) -> None:
        self.opened.compressor = compressor

    # -- opening, switching and closing sessions (the lifecycle's work) ---------------------------

    async def start(self) -> str:
        """Open the store and the session (new, or the one to resume); returns the session id."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self.session is None:
                self._loop = asyncio.get_running_loop()
                self._loop_thread = threading.get_ident()
                self.session = await self.lifecycle.open(self._resume)
        return self.session_id

    async def new_session(self) -> AsyncIterator[Event]:
        """End this session (`new_session`) and open a fresh one, whose prompt reads the home anew.

        Memory written during the old session, skills created or edited, a changed SOUL.md: the new
        session's frozen prompt has them all. Background reviews of the old session finish first.
        """
        if self.busy:
            raise AgentBusy("A turn is running: interrupt it (ctrl+c) before starting a new session.")
        await self.start()
        old = self.opened
        await self.lifecycle.end(old, "new_session")
        self.totals = SessionTotals()
        self.session = await self.lifecycle.open_session(None)
        yield SessionChanged(self.session_id, old.session_id, "new_session")

    async def rewind(self, count: int = 1, *, message_id: int | None = None) -> ConversationRewound:
        """`/undo [N]`: take back the last `count` exchanges (or back to the user message `message_id`);
        the next call gets the history before them. The messages stay in state.db, marked inactive; the
        event carries their ids and the text to put back in the input. AgentBusy during a turn; a
        StoreError (a sentence) when there is nothing to take back."""
        from engine.agent.rewinding import rewind

        await self._ready_to_edit("rewind")
        store = self.lifecycle.require_store()
        rewound = await rewind(self.opened, store, count=count, message_id=message_id)
        # Turns are numbered by the person's messages: the first one taken back is the next after those left.
        return await self.checkpoints.offer_rollback(rewound, self.opened.turns + 1)

    async def branch(self, title: str | None = None, *, at_message_id: int | None = None) -> SessionBranched:
        """`/branch [NAME]`: go on in a child session holding a copy of the conversation (up to the message
        `at_message_id`, when given); the original is ended as `branched` and stays resumable."""
        from engine.agent.rewinding import branch

        await self._ready_to_edit("branch")
        store = self.lifecycle.require_store()
        branched = await branch(self.opened, store, title=title, at_message_id=at_message_id)
        self.titler.named_by_person(branched.session_id)  # it has its title; never titled again
        return branched

    async def _ready_to_edit(self, what: str) -> None:
        """Between turns, with every message in state.db: what is edited there is the whole conversation."""
        if self.busy:
            raise AgentBusy(f"A turn is running: interrupt it (ctrl+c) before the {what}.")
        await self.start()
        if self.pending is not None and self.pending.waiting:
            raise AgentError(
                f"{self.pending.waiting} message(s) still wait to be written to state.db (another program "
                f"holds its lock); the {what} can be made once they are in."
            )

    async def kill_process(self, process_id: str) -> str:
        """Kill one of the session's background processes (the workstation's palette asks); a sentence."""
        from engine.tools.terminal_session import kill_background

        return await kill_background(self.ctx, process_id)

    async def wait_background(self, timeout: float | None = None) -> bool:
        """Wait for background reviews and titles; True when none is left running."""
        return await self.background.wait(timeout)

    async def close(self, end_reason: str | None = "cli_close") -> None:
        """Finish background work (up to `review.wait_timeout`), end the session and release everything."""
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._turn_task
        await self.lifecycle.close(self.session, self.pending, end_reason)
        await self.delegation.close()

    # -- the context window (its keeper's work) ---------------------------------------------------

    def estimated_tokens(self) -> int:
        """The next request's size: the provider's last count plus what was added since, else an estimate."""
        return self.window.estimated_tokens(self.opened)

    async def context_window(self) -> int:
        return await self.window.tokens()

    def known_context_window(self) -> int | None:
        """The window the budget pane measures against before a session asks: only what is known."""
        return self.window.known()

    async def oversized(self, text: str) -> OversizedMessage | None:
        """Before sending: the verdict on a message too large for the room the window leaves it, else None."""
        return await self.window.oversized(text, self.prompt)

    def fit_message(self, text: str, found: OversizedMessage, choice: str) -> FittedMessage:
        """The message to send for the person's choice: `file`, `cut` or `send` (see `ContextWindow`)."""
        return self.window.fit_message(text, found, choice)

    async def compress(self, focus: str | None = None) -> CompressionOutcome:
        """`/compress [focus]`: compress now, between turns; its events go to `on_background`."""
        if self.busy:
            raise AgentBusy("A turn is running; compress after it ends.")
        await self.start()
        if self.compressor is None:
            raise AgentError("Compression is not available (it is off in config, or not installed).")
        return await self.compress_now("manual", focus)

    async def compress_now(self, reason: str, focus: str | None = None) -> CompressionOutcome:
        return await self.window.compress_now(self.opened, self.lifecycle.require_store(), reason, focus)

    # -- events -----------------------------------------------------------------------------------

    def _emit_main(self, event: Event) -> None:
        """From tools and the compressor, on any thread: into the running turn, else the background."""
        self._dispatch(event, into_turn=True)

    def _emit_background(self, event: Event) -> None:
        self._dispatch(event, into_turn=False)

    def _dispatch(self, event: Event, into_turn: bool) -> None:
        loop = self._loop
        if loop is not None and threading.get_ident() != self._loop_thread:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening any more
                loop.call_soon_threadsafe(self._deliver, event, into_turn)
            return
        self._deliver(event, into_turn)

    def _deliver(self, event: Event, into_turn: bool) -> None:
        event = redact_event(event, self.redactor)
        log_event(event)  # logs/agent.log: what a person greps for later
        if into_turn and self._turn_queue is not None:
            self._turn_queue.put_nowait(event)
            return
        callback = self.on_background
        if callback is None:
            self.background_events.append(event)
            return
        try:
            callback(event)
        except Exception:  # a UI's bug must not stop the engine
            log.exception("on_background failed for %s", event.kind)

    def _put(self, event: Event) -> None:
        self._deliver(event, into_turn=True)

    @contextlib.asynccontextmanager
    async def _flushed(self, text: StreamRedactor, reasoning: StreamRedactor) -> AsyncIterator[None]:
        """On the way out (a finished, interrupted or failed call) the held tail is shown, redacted."""
        try:
            yield
        finally:
            self._put_delta(ReasoningDelta, reasoning.flush())
            self._put_delta(TextDelta, text.flush())

    def _put_delta(self, kind: type[TextDelta] | type[ReasoningDelta], text: str) -> None:
        if text:  # a streamed piece redacted; empty while a tail that may be a key is held back
            self._put(kind(self.session_id, text))

    # -- approvals --------------------------------------------------------------------------------

    async def _ask_user(self, request: ApprovalRequest | ClarifyRequest) -> Decision | str:
        request = redact_event(request, self.redactor)  # as its ApprovalNeeded event: no key in the diff
        if self._approve is not None:
            return await self._approve(request)
        future: asyncio.Future[Decision | str] = asyncio.get_running_loop().create_future()
        self._approvals[request.request_id] = future
        try:
            return await future
        finally:
            self._approvals.pop(request.request_id, None)

    def answer_approval(self, request_id: str, decision: Decision | str) -> bool:
        """The user's answer to an `ApprovalNeeded` (once, session or deny) or to a `ClarifyNeeded` (the
        chosen or typed text; `Decision.DENY` for no answer); False if nothing waits."""
        future = self._approvals.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    # -- the turn ---------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    async def run_turn(self, text: str, *, command: bool = False) -> AsyncIterator[Event]:
        """Run one user turn, yielding its events; `TurnFinished` is always the last one.

        `command`: `text` is what a person typed, so a leading `/skill-name` loads that skill into
        the message (a paste or a piped text that begins with one is sent as it is)."""
        if self.busy:
            raise AgentBusy("A turn is already running; wait for it to finish or interrupt it.")
        try:
            await self.start()
        except Exception as exc:  # a store or home problem is a sentence for the UI, not a crash
            if not isinstance(exc, AgentError):
                log.exception("the session could not be opened")
            yield ErrorEvent(self.session_id, str(exc) or type(exc).__name__)
            yield TurnFinished(self.session_id, "")
            return
        async for event in self._stream(self._turn(text, command)):
            yield event

    async def _stream(self, work: Coroutine[Any, Any, None]) -> AsyncIterator[Event]:
        """Run `work` as the agent's one task, yielding the events it puts until it ends."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._turn_queue = queue
        task = asyncio.create_task(work)
        self._turn_task = task
        task.add_done_callback(lambda _t: self._turn_over(queue))
        try:
            while True:
                event = await queue.get()
                if event is _END:
                    break
                yield event
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if self._turn_queue is queue:
                self._turn_queue = None
            self._turn_task = None

    def steer(self, text: str) -> bool:
        """`/steer TEXT`: add `text` to the running turn at its next tool boundary, as a user message the
        model reads before its next call. Safe from any thread; False when no turn runs (send it instead)."""
        if not self.busy:
            return False
        self.steering.add(text)
        return True

    def take_steers(self) -> list[str]:
        """Steering text no tool boundary took (the turn ended first), oldest first; the caller sends it."""
        return self.steering.take()

    async def run_user_shell(self, command: str) -> AsyncIterator[Event]:
        """`!CMD`: run `command` in the session's shell through the terminal tool (its sandbox and its
        approvals, asked as for the model's calls) and yield `ShellRan` last. Nothing of it is recorded
        for the model: not in the history, not in state.db."""
        if self.busy:
            raise AgentBusy("A turn is running; run the command after it ends.")
        await self.start()
        session = self.opened

        async def run() -> None:
            ran = await run_shell_command(self.registry, session.ctx, session.session_id, command)
            self._put(ran)

        async for event in self._stream(run()):
            yield event

    def _turn_over(self, queue: asyncio.Queue[Any]) -> None:
        """The turn's task ended: close its stream; from now on, stray events go to the background."""
        queue.put_nowait(_END)
        if self._turn_queue is queue:
            self._turn_queue = None

    async def interrupt(self) -> bool:
        """Stop the running turn and every subagent: what was said is kept and recorded; open approvals
        are denied."""
        children = self.delegation.interrupt()
        task = self._turn_task
        if task is None or task.done():
            return children
        for future in list(self._approvals.values()):
            if not future.done():
                future.set_result(Decision.DENY)
        task.cancel()
        return True

    async def _turn(self, text: str, command: bool = False) -> None:
        session = self.opened
        session.turns += 1
        self._put(TurnStarted(session.session_id, text, session.turns))
        session.memory.start_turn()
        session.nudges.start_turn()
        state = _TurnState(text)
        interrupted = failed = False
        # The provider's layer is looked up while the message is expanded and stored and the first
        # model call is prepared; only that call waits for it.
        layer_lookup = asyncio.ensure_future(self._provider_layer(text))
        try:
            sent = self._skill_invocation(text) if command else text
            sent = state.text = await self._mcp_references(sent, command)
            await self._record_user_message(session, sent, typed=text)
            await self._call_until_answered(state, layer_lookup)
        except asyncio.CancelledError:
            layer_lookup.cancel()
            interrupted = True
            await self._record_interruption(state)
        except Exception as exc:
            failed = True
            state.call = None  # a reply that failed for good is not kept, only what completed before it
            from engine.llm.errors import LLMError
            from engine.sessions.errors import StoreError

            if isinstance(exc, LLMError):
                self._put(ErrorEvent(self.session_id, exc.message, exc.retryable))
            else:
                log.exception("turn failed")
                message = f"The turn failed: {type(exc).__name__}: {exc}"
                if isinstance(exc, AgentError):
                    message = str(exc)
                elif isinstance(exc, StoreError):  # already a sentence: what happened and what to do
                    message = f"The conversation could not be saved, so the turn stopped: {exc}"
                self._put(ErrorEvent(self.session_id, message))
            layer_lookup.cancel()
            await self._record_interruption(state, note=False)
        with contextlib.suppress(Exception):  # a result that cannot be kept now waits for the next turn
            await self._take_delivered()
        completed = not (interrupted or failed or state.hit_limit)
        self._after_turn(self.opened, state, completed, interrupted)

    async def _record_user_message(self, session: AgentSession, text: str, typed: str) -> None:
        """Store the user's message (unless it is the unanswered last one, asked again) and say its id.

        `text` is what the model gets (a skill's invocation loads the skill); `typed`, what the person
        wrote, is what the external memory provider mirrors."""
        if not self._unanswered(text):  # else the same question again (/retry after a failure)
            message_id = await self._append("user", text)
            session.user_message = None if message_id is None else (session.session_id, message_id)
            session.history.append({"role": "user", "content": text})
            if session.host is not None:
                session.host.mirror("user", typed)
        if session.user_message is not None:
            self._put(UserMessageStored(*session.user_message))

    def _after_turn(
        self, session: AgentSession, state: _TurnState, completed: bool, interrupted: bool
    ) -> None:
        """The turn is over: nudges, `TurnFinished`, then the background review and title it may start."""
        due = session.nudges.end_turn(completed)
        for nudge in due:
            self._put(NudgeFired(session.session_id, nudge.kind, nudge.reason))
        empty = completed and not state.final_text.strip() and not state.tool_calls
        self._put(TurnFinished(session.session_id, state.final_text, interrupted, state.tool_calls, empty))
        store = self.lifecycle.store  # None once closed: nothing starts in the background any more
        if store is not None and due and bool(self.config.review.enabled):
            self.background.start_review(session, store, due, state.tool_calls)
        answered = completed and bool(state.final_text.strip())
        if store is not None and answered and self.titler.due(session.session_id):
            # Named from its first exchange, in the background (close waits for it).
            self.background.spawn(self.titler.title(store, session.session_id, tuple(session.history)))
        if session.host is not None:
            session.host.after_turn(state.text)

    async def set_title(self, title: str) -> SessionTitled:
        """`/title NAME`: name this conversation (on its first session, as the sessions list and
        `--resume` read it); it is never titled automatically afterwards. StoreError (a sentence) when
        the title is empty, too long or another session's."""
        from engine.sessions.errors import StoreError
        from engine.sessions.ids import sanitize_title

        await self.start()
        if sanitize_title(title, truncate=True) is None:
            raise StoreError("A session title needs some text: /title NAME.")
        self.titler.named_by_person(self.session_id)
        store = self.lifecycle.require_store()
        root = await store.tree.lineage_root(self.session_id)
        written = await store.set_title(root, title)
        return SessionTitled(self.session_id, written or title, "user")

    async def _mcp_references(self, text: str, command: bool) -> str:
        """`@server:resource` attached, and a typed `/mcp:server:prompt` as the prompt's text; each said."""
        hub = self.lifecycle.mcp
        if hub is None or ("@" not in text and not text.lstrip().startswith("/mcp:")):
            return text
        from engine.mcp.references import expand

        expanded, notes = await expand(hub, text, prompts=command)
        for level, note in notes:
            self._put(Status(self.session_id, level, note))
        return expanded

    def _skill_invocation(self, text: str) -> str:
        """`/skill-name instruction` as the message that loads the skill (Tier 2) for this turn."""
        from engine.skills.invoke import turn_message

        message, warning = turn_message(self.skills, text)
        if warning:
            self._put(Status(self.session_id, "warning", warning))
        return message

    def _unanswered(self, text: str) -> bool:
        """`text` is the conversation's last message, left without an answer by a turn that failed: it
        is asked again, not added twice (the model saw it twice in a row, and state.db kept both)."""
        last = self.history[-1] if self.history else None
        return isinstance(last, dict) and last.get("role") == "user" and last.get("content") == text

    async def _provider_layer(self, text: str) -> str | None:
        host = self.host
        if host is None:
            return None
        try:
            layer = await host.turn_layer(text)
        except Exception:  # the provider never blocks or breaks a turn
            log.exception("provider layer failed")
            return None
        if layer is not None and host.recalled:
            recalled = tuple(RecalledFact(f.fact_id, f.content, f.trust, f.category) for f in host.recalled)
            self._put(FactsRecalled(self.session_id, recalled))
        return layer

    async def _call_until_answered(self, state: _TurnState, layer: asyncio.Future[str | None]) -> None:
        max_calls = int(self.config.agent.max_turns)
        while True:
            if state.iterations >= max_calls:
                state.hit_limit = True
                self._put(
                    ErrorEvent(
                        self.session_id,
                        f"Stopped after {max_calls} model calls in one turn (agent.max_turns); the work so "
                        "far is kept. Say 'continue' to go on, or raise agent.max_turns in config.yaml.",
                    )
                )
                return
            state.iterations += 1
            await self._check_guarded()
            await self.window.compress_if_due(self.opened, self.lifecycle.require_store())
            reply = await self._call_model(state, await layer)  # done after the first call
            await self._record_reply(state, reply)
            if not reply.tool_calls:
                state.final_text = reply.content
                return
            await self._run_tools(state, reply.tool_calls)
            await self._take_steering()

    async def _take_steering(self) -> None:
        """A tool boundary: what the person added meanwhile (/steer) joins the conversation, in order,
        then the results of background subagents that ended meanwhile."""
        session = self.opened
        await self._take_delivered()
        for text in self.steering.take():
            message_id = await self._append("user", text)
            session.history.append({"role": "user", "content": text})
            if session.host is not None:
                session.host.mirror("user", text)
            self._put(TurnSteered(session.session_id, text, message_id))

    async def _check_guarded(self) -> None:
        """Before each model call: say so when a guarded setting changed on disk since the session began.

        The session goes on with the values it began with (its config was read once, at the start).
        """
        watch = self.opened.tools.guarded
        try:
            changes = await asyncio.to_thread(watch.check)
        except Exception:  # a check that fails must not stop the turn
            log.exception("checking the guarded settings failed")
            return
        if changes is not None:
            self._put(GuardedSettingsChanged(self.session_id, changes, change_sentence(changes)))

    def _request_messages(self, text: str, layer: str | None) -> list[dict[str, Any]]:
        """System prompt, the call-time system text, and the history with the provider layer applied."""
        session = self.opened
        head = [session.system_message]
        extra = str(self.config.agent.system_prompt or "")
        if extra:
            head.append({"role": "system", "content": extra})
        if not layer:
            return head + session.history
        history = list(session.history)
        for index in range(len(history) - 1, -1, -1):
            message = history[index]
            if message.get("role") == "user" and message.get("content") == text:
                history[index] = {"role": "user", "content": f"{text}\n\n{layer}"}
                break
        return head + history

    async def _call_model(self, state: _TurnState, layer: str | None) -> AssistantMessage:
        from engine.llm.chunks import FallbackChunk, FinishChunk, ReasoningChunk, RetryChunk, TextChunk
        from engine.llm.errors import ContextLengthError

        compressed_for_overflow = False
        while True:
            call = self.client.stream(
                self._request_messages(state.text, layer), tools=self.tool_schemas() or None
            )
            state.call = call
            reply: AssistantMessage | None = None
            streamed = False  # text of this attempt already shown (a retry makes it void)
            thought = False  # thinking of this attempt already shown (void too)
            text, reasoning = StreamRedactor(self.redactor), StreamRedactor(self.redactor)
            try:
                async with call, self._flushed(text, reasoning):
                    async for chunk in call:
                        if isinstance(chunk, TextChunk):
                            if not streamed:  # the answer begins: the thinking's held tail goes first
                                self._put_delta(ReasoningDelta, reasoning.flush())
                            streamed = True
                            self._put_delta(TextDelta, text.feed(chunk.text))
                        elif isinstance(chunk, ReasoningChunk):
                            thought = True
                            self._put_delta(ReasoningDelta, reasoning.feed(chunk.text))
                        elif isinstance(chunk, RetryChunk):
                            void = "; the text so far is void and the reply starts over" if streamed else ""
                            shown, streamed, thought = streamed or thought, False, False
                            text.reset()
                            reasoning.reset()
                            sentence = f"Model call failed; {chunk.text}{void}."
                            self._put(Status(self.session_id, "warning", sentence, reply_void=shown))
                        elif isinstance(chunk, FallbackChunk):
                            void = "; the text so far is void" if streamed else ""
                            shown, streamed, thought = streamed or thought, False, False
                            text.reset()
                            reasoning.reset()
                            sentence = f"{chunk.text}{void}."
                            self._put(Status(self.session_id, "warning", sentence, reply_void=shown))
                            self._put(self._switched(chunk))
                            self.window.size = None  # the new model's window is asked for anew
                        elif isinstance(chunk, FinishChunk):
                            self._put_delta(ReasoningDelta, reasoning.flush())
                            self._put_delta(TextDelta, text.flush())
                            reply = chunk.message
            except ContextLengthError as exc:
                state.call = None
                if self.compressor is None or compressed_for_overflow:
                    raise
                compressed_for_overflow = True
                self.window.size = exc.limit
                self._put(Status(self.session_id, "warning", str(exc)))
                outcome = await self.compress_now("overflow")
                if not outcome.compressed:
                    raise  # nothing shorter to send: the same request would be refused again
                continue
            assert reply is not None
            return reply

    def _switched(self, chunk: FallbackChunk) -> ProviderSwitched:
        """The event naming the provider the session goes on with (the client has switched already)."""
        s = self.client.settings
        return ProviderSwitched(
            self.session_id, s.model, chunk.provider, s.base_url, chunk.failed, chunk.reason
        )

    async def _record_reply(self, state: _TurnState, reply: AssistantMessage) -> None:
        entry = assistant_entry(reply)
        await self._append(
            "assistant",
            reply.content,
            tool_calls=[c.as_dict() for c in reply.tool_calls] or None,
            finish_reason=reply.finish_reason,
            reasoning=reply.reasoning or None,
        )
        self.history.append(entry)
        state.call = None
        state.pending_calls = reply.tool_calls
        if reply.content and self.host is not None:
            self.host.mirror("assistant", reply.content)
        if reply.usage is not None:
            await self._record_usage(reply.usage, reply.model)

    async def _record_usage(self, usage: TokenUsage, model: str) -> None:
        totals = self.totals
        totals.calls += 1
        totals.prompt_tokens += usage.prompt_tokens
        totals.completion_tokens += usage.completion_tokens
        totals.cached_tokens += usage.cached_tokens
        totals.last_prompt_tokens = usage.prompt_tokens
        self.opened.usage_mark = (usage.prompt_tokens + usage.completion_tokens, len(self.history))
        from engine.sessions.errors import StoreLocked

        try:
            await self._store_usage(usage, model)
        except StoreLocked:  # counters are not worth a turn: the messages are kept, these are skipped
            log.warning("usage not recorded: state.db is locked by another program")
        self._put(
            Usage(
                self.session_id,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.cached_tokens,
                model=model or self.client.settings.model,
                provider=self.client.provider,
            )
        )

    async def _store_usage(self, usage: TokenUsage, model: str) -> None:
        await self.lifecycle.require_store().record_usage(
            self.session_id,
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cache_read_tokens=usage.cached_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            model=model or self.client.settings.model or None,
        )

    async def _run_tools(self, state: _TurnState, calls: tuple[ToolCall, ...]) -> None:
        session = self.opened
        width = int(self.config.tool_output.preview_chars)
        parsed: list[tuple[str, dict[str, Any]]] = []
        for call in calls:
            try:
                arguments = parse_arguments(call.arguments)
            except ToolError:
                arguments = {}
            parsed.append((call.name, arguments))
            detail = self.registry.call_detail(call.name, call.arguments, width)
            self._put(ToolCalled(self.session_id, call.id, call.name, arguments, detail))
        await self.checkpoints.before_tools(self.session_id, session.turns, parsed)
        state.tools_started = time.monotonic()

        async def run_one(call: ToolCall) -> None:
            registry = await self._registry_for(call.name)
            outcome = await registry.dispatch(call.name, call.arguments, session.ctx, call.id)
            state.results[call.id] = tool_entry(call.id, outcome.content)
            state.tool_calls += 1
            session.nudges.observe(call.name, outcome.arguments, outcome.ok)
            await self._append(
                "tool",
                outcome.content,
                tool_call_id=call.id,
                tool_name=call.name,
                outcome={"ok": outcome.ok, "summary": outcome.summary, "duration_s": outcome.duration_s},
            )
            self._put(
                ToolFinished(
                    self.session_id,
                    call.id,
                    call.name,
                    outcome.ok,
                    outcome.summary,
                    outcome.duration_s,
                    outcome.content,
                )
            )

        await asyncio.gather(*(run_one(call) for call in calls))
        self.history.extend(state.results[call.id] for call in calls)
        state.results.clear()
        state.pending_calls = ()

    async def _record_interruption(self, state: _TurnState, note: bool = True) -> None:
        """Keep what was said: the partial reply, and an answer for every call left without one."""
        try:
            call = state.call
            if call is not None:
                partial = call.message
                state.call = None
                if partial.content:
                    await self._append(
                        "assistant",
                        partial.content,
                        finish_reason="interrupted",
                        reasoning=partial.reasoning or None,
                    )
                    self.history.append({"role": "assistant", "content": partial.content})
                    state.final_text = partial.content
            if state.pending_calls:
                for tool_call in state.pending_calls:
                    result = state.results.get(tool_call.id)
                    if result is None:
                        content = INTERRUPTED_RESULT if note else MISSING_RESULT
                        result = tool_entry(tool_call.id, content)
                        self._put(  # the call's end, said by the engine: no UI guesses at "running…"
                            ToolFinished(
                                self.session_id,
                                tool_call.id,
                                tool_call.name,
                                False,
                                "interrupted" if note else "stopped: the turn failed",
                                time.monotonic() - state.tools_started if state.tools_started else 0.0,
                                content,
                                interrupted=True,
                            )
                        )
                        await self._append(
                            "tool",
                            content,
                            tool_call_id=tool_call.id,
                            tool_name=tool_call.name,
                            outcome={"ok": False, "summary": "interrupted" if note else "no result"},
                        )
                    self.history.append(result)
                state.pending_calls = ()
                state.results.clear()
        except Exception:  # recording the interruption must not hide the interruption itself
            log.exception("recording an interrupted turn failed")

    async def _deliver_result(self, text: str) -> None:
        """A background subagent's result: it joins the conversation now between turns, else at the
        running turn's next tool boundary (or its end)."""
        self.delivered.append(text)
        if not self.busy and self.session is not None:
            await self._take_delivered()

    async def _take_delivered(self) -> None:
        session = self.opened
        while self.delivered:
            text = self.delivered[0]
            await self._append("user", text)  # a failure here leaves it waiting for the next boundary
            session.history.append({"role": "user", "content": text})
            self.delivered.pop(0)

    async def _append(self, role: str, content: Any, **fields: Any) -> int | None:
        return await self._append_to(self.session_id, role, content, **fields)

    async def _append_to(self, session_id: str, role: str, content: Any, **fields: Any) -> int | None:
        """Record one message of `session_id` (this one, or a subagent's) and return its id; a lock
        another program holds past the retries keeps it in the journal (and its id is not known yet)."""
        store = self.lifecycle.require_store()
        if self.pending is None or self.pending.store is not store:
            from engine.sessions.pending_writes import JOURNAL_NAME, PendingWrites

            journal = self.home.journal_dir / JOURNAL_NAME
            self.pending = PendingWrites(store, journal, int(self.config.sessions.append_retries))
        saved = await self.pending.append(session_id, role, content, **fields)
        waiting = 0 if saved is not None else self.pending.waiting
        if bool(waiting) != bool(self._unsaved):  # said when messages start waiting and when all are in
            self._put(UnsavedMessages(self.session_id, waiting, str(self.pending.journal)))
        self._unsaved = waiting
        return saved

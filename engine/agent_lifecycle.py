"""The agent's session lifecycle: opening the store and a session, `/new`, and closing.

A mixin of `Agent` (engine/agent.py), which owns the attributes named below; kept apart so the
agent's module holds the turn itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agent_session import AgentBusy, open_session, open_store
from engine.events import Event, SessionChanged, SessionResumed, Status
from engine.guarded_settings import GuardedWatch
from engine.prompt.build import tool_schema_tokens
from engine.prompt.nudges import NudgeTracker
from engine.text.sentences import sentence
from engine.tools.context import ToolContext
from engine.tools.terminal_session import close_terminal, kill_background

log = logging.getLogger("engine.agent")

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.prompt.layers import SystemPrompt
    from engine.tools.registry import ToolRegistry


@dataclass
class SessionTotals:
    """What this agent's calls cost so far (all sessions of the chain), for a status bar."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    last_prompt_tokens: int = 0


class LifecycleMixin:
    """Opening, switching and closing sessions for `Agent`."""

    home: Home
    config: Config
    cwd: Path
    source: str
    yolo: bool
    client: Any
    aux_client: Any
    registry: ToolRegistry
    exact_tokens: bool
    totals: SessionTotals
    session_id: str
    prompt: SystemPrompt | None
    history: list[dict[str, Any]]
    turns: int
    _flushed_at_turn: int
    nudges: NudgeTracker
    store: Any
    pending: Any
    memory: Any
    skills: Any
    host: Any
    compressor: Any
    guarded: GuardedWatch | None
    ctx: ToolContext | None
    _resume: str | None
    _started: bool
    _start_lock: asyncio.Lock | None
    _loop: asyncio.AbstractEventLoop | None
    _loop_thread: int
    _turn_task: asyncio.Task[None] | None
    _background: set[asyncio.Task[None]]
    _usage_mark: tuple[int, int] | None
    _schema_tokens: int
    _system_message: dict[str, Any]
    _emit_main: Callable[[Event], None]
    _emit_background: Callable[[Event], None]
    _ask_user: Any
    _summarize: Any
    _second_opinion: Any
    _make_compressor: Callable[[], Any]
    context_window: Callable[[], Any]
    busy: bool

    async def start(self) -> str:
        """Open the store and the session (new, or the one to resume); returns the session id."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if not self._started:
                try:
                    await self._open()
                except BaseException:
                    if self.store is not None:  # a half-open session leaves nothing behind
                        await self.store.close()
                        self.store = None
                    raise
                self._started = True
        return self.session_id

    async def _open(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self.store = await open_store(self.home, self.config)
        self._schema_tokens = tool_schema_tokens(self.registry.schemas(), self.exact_tokens)
        await self._open_session(self._resume)
        await self._auto_prune()

    async def _auto_prune(self) -> None:
        """`sessions.auto_prune`: archive, then delete, old ended sessions (never this one), and say so."""
        if not bool(self.config.sessions.auto_prune):
            return
        from engine.sessions.prune import auto_prune

        try:
            result = await auto_prune(self.store, self.home, self.config, keep=(self.session_id,))
        except Exception as exc:  # pruning never stops a session from starting
            log.exception("pruning old sessions failed")
            self._emit_background(Status(self.session_id, "warning", f"Old sessions were not pruned: {exc}"))
            return
        if result is not None and result.pruned:
            days = float(self.config.sessions.retention_days)
            self._emit_background(Status(self.session_id, "info", result.sentence(days)))

    async def _open_session(self, resume: str | None) -> None:
        """Load memory and skills as the home holds them now and open (or resume) a session on them."""
        from engine.memory.store import Memory
        from engine.skills.tiers import SessionTiers
        from engine.skills.tools import SkillTools

        self.memory = await asyncio.to_thread(Memory, self.home, self.config)
        self.guarded = await asyncio.to_thread(GuardedWatch, self.home.root)  # as this session begins
        self.skills = SkillTools(
            self.home, self.config, tiers=SessionTiers(""), session_id="", who="agent", emit=self._emit_main
        )
        opened = await open_session(
            self.store,
            self.home,
            self.config,
            resume=resume,
            source=self.source,
            tool_names=self.registry.names,
            memory=self.memory,
            skills=self.skills,
            cwd=self.cwd,
            model=self.client.settings.model,
            exact_tokens=self.exact_tokens,
        )
        self.history = opened.history
        self.turns = sum(1 for m in opened.history if m.get("role") == "user")
        self._flushed_at_turn = self.turns
        self.nudges = NudgeTracker(
            int(self.config.memory.nudge_interval), int(self.config.skills.creation_nudge_tool_calls)
        )
        if opened.resumed:
            self.nudges.hydrate(opened.history)
        self.ctx = ToolContext(
            home=self.home,
            config=self.config,
            cwd=self.cwd,
            approve=self._ask_user,
            emit=self._emit_main,
            yolo=self.yolo,
            resources={
                "memory": self.memory,
                "skills": self.skills,
                "sessions": self.store,
                "summarizer": self._summarize,
                **({"second_opinion": self._second_opinion} if self.config.security.aux_review else {}),
            },
        )
        self._use_session(opened.session_id, opened.prompt)
        self.compressor = self._make_compressor()
        if opened.resumed:
            self._emit_background(SessionResumed(self.session_id, opened.title, len(opened.history)))
        if str(self.config.memory.provider or "").strip():  # the host module is not worth importing otherwise
            from engine.providers.host import ProviderHost

            self.host = ProviderHost.from_config(self.home, self.config, emit=self._emit_background)
            if self.host is not None:
                self.host.start(self.session_id)

    async def new_session(self) -> AsyncIterator[Event]:
        """End this session (`new_session`) and open a fresh one, whose prompt reads the home anew.

        Memory written during the old session, skills created or edited, a changed SOUL.md: the new
        session's frozen prompt has them all. Background reviews of the old session finish first.
        """
        if self.busy:
            raise AgentBusy("A turn is running: interrupt it (ctrl+c) before starting a new session.")
        await self.start()
        old = self.session_id
        await self._flush_before_end()
        await self._finish_background()
        await close_terminal(self.ctx)  # its shell and background processes end with the session
        await self.store.end_session(old, "new_session")
        self.totals = SessionTotals()
        await self._open_session(None)
        yield SessionChanged(self.session_id, old, "new_session")

    def _use_session(self, session_id: str, prompt: SystemPrompt) -> None:
        self.session_id = session_id
        self.prompt = prompt
        self._system_message = {"role": "system", "content": prompt.text}
        self._usage_mark = None
        self.skills.session_id = session_id
        self.memory.session_id = session_id
        self.skills.tiers.session_id = session_id
        assert self.ctx is not None
        self.ctx.session_id = session_id

    async def wait_background(self, timeout: float | None = None) -> bool:
        """Wait for background reviews; True when none is left running."""
        tasks = [t for t in self._background if not t.done()]
        if not tasks:
            return True
        _done, pending = await asyncio.wait(tasks, timeout=timeout)
        return not pending

    async def _finish_background(self) -> None:
        """Let background reviews finish (up to `review.wait_timeout`, then cancel them); end the provider."""
        if not await self.wait_background(float(self.config.review.wait_timeout)):
            for task in self._background:
                task.cancel()
            await asyncio.gather(*self._background, return_exceptions=True)
        if self.host is not None:
            await asyncio.to_thread(self.host.close)
            self.host = None

    async def _flush_before_end(self) -> None:
        """`memory.flush_min_turns`: after that many user turns since the last flush, the model may save
        memories before the session ends (the flush compression makes, with the memory tool only)."""
        needed = int(self.config.memory.flush_min_turns)
        turns = self.turns - self._flushed_at_turn
        if needed <= 0 or turns < needed or self.ctx is None or "memory" not in self.registry:
            return
        self._flushed_at_turn = self.turns
        from engine.compression.flush import END_SENTINEL, END_SYSTEM, run_flush

        try:
            result = await run_flush(
                client=self.aux_client,
                registry=self.registry,
                ctx=self.ctx,
                conversation=list(self.history),
                window=await self.context_window(),
                keep_first=min(int(self.config.compression.protect_first_n), len(self.history)),
                offer_skills=False,
                section=self.config.compression,
                system_text=END_SYSTEM,
                sentinel_text=END_SENTINEL,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the session ends all the same
            log.warning("memory flush at the end of the session failed: %s", exc)
            self._emit_background(
                Status(self.session_id, "warning", f"Memory flush before the session ended failed: {exc}")
            )
            return
        saved = "; ".join(result.writes) if result.writes else "nothing new to save"
        plural = "s" if turns != 1 else ""
        said = sentence(f"Memory flush after {turns} turn{plural}, before the session ended: {saved}")
        self._emit_background(Status(self.session_id, "info", said))

    async def kill_process(self, process_id: str) -> str:
        """Kill one of the session's background processes (the workstation's palette asks); a sentence."""
        return await kill_background(self.ctx, process_id)

    async def close(self, end_reason: str | None = "cli_close") -> None:
        """Finish background work (up to `review.wait_timeout`), end the session and release everything."""
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._turn_task
        if self.store is not None:
            await self._flush_before_end()
        await self._finish_background()
        await close_terminal(self.ctx)
        if self.store is not None:
            if self.pending is not None:
                with contextlib.suppress(Exception):  # still locked: the journal waits for the next store
                    await self.pending.flush()
            if end_reason and self.session_id:
                with contextlib.suppress(Exception):
                    await self.store.end_session(self.session_id, end_reason)
            await self.store.close()
            self.store = None
        await self.client.aclose()
        if self.aux_client is not self.client:
            await self.aux_client.aclose()

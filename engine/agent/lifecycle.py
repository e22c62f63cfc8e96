"""The agent's session lifecycle: opening the store and a session, ending one for `/new`, and closing.

`Lifecycle` owns the session store; the agent holds the `AgentSession` it opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from engine.agent.session import AgentSession, SessionTools, open_session, open_store
from engine.events import Event, SessionResumed, Status
from engine.guarded_settings import GuardedWatch
from engine.prompt.build import tool_schema_tokens
from engine.text.sentences import sentence
from engine.tools.context import ApprovalRequest, ClarifyRequest, Decision, ToolContext
from engine.tools.terminal_session import close_terminal

log = logging.getLogger("engine.agent")

if TYPE_CHECKING:
    from engine.agent.background import BackgroundWork
    from engine.agent.parts import AgentParts
    from engine.agent.window import ContextWindow
    from engine.mcp.hub import McpHub
    from engine.sessions.pending_writes import PendingWrites
    from engine.sessions.store import SessionStore

Emit = Callable[[Event], None]
AskUser = Callable[[ApprovalRequest | ClarifyRequest], Awaitable[Decision | str]]


class Lifecycle:
    """Opens the store and sessions, ends a session for `/new`, and closes everything at the end."""

    def __init__(
        self,
        parts: AgentParts,
        *,
        window: ContextWindow,
        background: BackgroundWork,
        ask_user: AskUser,
        emit_main: Emit,
        emit_background: Emit,
        resources: dict[str, Any] | None = None,
    ) -> None:
        self.parts = parts
        self._resources = dict(resources or {})  # more for every session's tools (the delegation)
        self.window = window
        self.background = background
        self._ask_user = ask_user
        self._emit_main = emit_main
        self._emit_background = emit_background
        self.store: SessionStore | None = None
        self.base_schema_tokens = 0  # the built-in tools' schemas (the MCP ones are the hub's)
        self.mcp: McpHub | None = None  # the MCP servers, when config.yaml names any
        self.session_id: Callable[[], str] = lambda: ""  # the open session's id, for the servers' lines

    def require_store(self) -> SessionStore:
        """The store, once the agent has started (a sentence otherwise)."""
        if self.store is None:
            from engine.agent.errors import AgentError

            raise AgentError("The session store is not open: start the agent first.")
        return self.store

    async def open(self, resume: str | None) -> AgentSession:
        """Open the store and the session (new, or the one to resume); a half-open one leaves nothing."""
        try:
            self.store = await open_store(self.parts.home, self.parts.config)
            registry = self.parts.registry
            self.base_schema_tokens = tool_schema_tokens(registry.schemas(), self.parts.exact_tokens)
            self.window.schema_tokens = self.base_schema_tokens
            session = await self.open_session(resume)
            self.start_mcp()
        except BaseException:
            if self.store is not None:
                await self.store.close()
                self.store = None
            raise
        await self._auto_prune(session.session_id)
        return session

    def start_mcp(self) -> None:
        """Start the configured MCP servers in the background (the first token never waits for them)."""
        from engine.mcp.servers import read_servers

        servers = read_servers(self.parts.config)
        if self.mcp is not None or not (servers.servers or servers.problems):
            return
        from engine.mcp.hub import McpHub

        self.mcp = McpHub(
            self.parts.home,
            self.parts.config,
            emit=self._emit_main,
            session_id=self.session_id,
            servers=servers,
        )
        self.mcp.start()

    async def reload_mcp(self) -> str:
        """`/reload-mcp`: `mcp_servers` as config.yaml holds it now, applied from the next model call."""
        from engine.config import load_config

        config = await asyncio.to_thread(load_config, self.parts.home.root)
        if self.mcp is None:
            from engine.mcp.hub import McpHub

            self.mcp = McpHub(self.parts.home, config, emit=self._emit_main, session_id=self.session_id)
        return await self.mcp.reload(config)

    async def _auto_prune(self, session_id: str) -> None:
        """`sessions.auto_prune`: archive, then delete, old ended sessions (never this one), and say so."""
        config = self.parts.config
        if not bool(config.sessions.auto_prune):
            return
        from engine.sessions.prune import auto_prune

        try:
            result = await auto_prune(self.require_store(), self.parts.home, config, keep=(session_id,))
        except Exception as exc:  # pruning never stops a session from starting
            log.exception("pruning old sessions failed")
            self._emit_background(Status(session_id, "warning", f"Old sessions were not pruned: {exc}"))
            return
        if result is not None and result.pruned:
            days = float(config.sessions.retention_days)
            self._emit_background(Status(session_id, "info", result.sentence(days)))

    async def open_session(self, resume: str | None) -> AgentSession:
        """Load memory and skills as the home holds them now and open (or resume) a session on them."""
        parts = self.parts
        store = self.require_store()
        tools = await self._session_tools(store)
        session = await open_session(
            store,
            parts.home,
            parts.config,
            resume=resume,
            source=parts.source,
            tool_names=parts.registry.names,
            tools=tools,
            cwd=parts.cwd,
            model=parts.client.settings.model,
            exact_tokens=parts.exact_tokens,
        )
        session.compressor = self.window.make_compressor(store)
        if session.resumed:
            self._emit_background(SessionResumed(session.session_id, session.title, len(session.history)))
        provider = str(parts.config.memory.provider or "").strip()
        if provider:  # the host module is not worth importing otherwise
            from engine.providers.host import ProviderHost

            session.host = ProviderHost.from_config(parts.home, parts.config, emit=self._emit_background)
            if session.host is not None:
                session.host.start(session.session_id)
                session.ctx.resources["memory_provider"] = session.host
            await self._open_facts(session)
        return session

    async def _open_facts(self, session: AgentSession) -> None:
        """The fact store's tools need the store itself: open it when it is the memory provider."""
        from engine.tools.offered import fact_store_active

        if not fact_store_active(self.parts.config):
            return
        from engine.providers.facts import shared
        from engine.providers.facts.schema import FactStoreError

        try:
            facts = await asyncio.to_thread(shared.acquire, self.parts.home, self.parts.config)
        except FactStoreError as exc:
            self._emit_background(Status(session.session_id, "warning", str(exc)))
            return
        session.ctx.resources["facts"] = facts

    async def _session_tools(self, store: SessionStore) -> SessionTools:
        from engine.memory.store import Memory
        from engine.skills.tiers import SessionTiers
        from engine.skills.tools import SkillTools

        parts, config = self.parts, self.parts.config
        memory = await asyncio.to_thread(Memory, parts.home, config)
        guarded = await asyncio.to_thread(GuardedWatch, parts.home.root)  # as this session begins
        skills = SkillTools(
            parts.home, config, tiers=SessionTiers(""), session_id="", who="agent", emit=self._emit_main
        )
        background = self.background
        ctx = ToolContext(
            home=parts.home,
            config=config,
            cwd=parts.cwd,
            approve=self._ask_user,
            emit=self._emit_main,
            yolo=parts.yolo,
            resources={
                "memory": memory,
                "skills": skills,
                "sessions": store,
                "summarizer": background.summarize,
                **({"second_opinion": background.second_opinion} if config.security.aux_review else {}),
                **self._resources,
            },
        )
        return SessionTools(memory, skills, ctx, guarded)

    async def end(self, session: AgentSession, reason: str) -> None:
        """End `session` for good (`/new`): memories flushed, background work finished, the store told."""
        await self.flush_before_end(session)
        await self.finish_background(session)
        await close_terminal(session.ctx)  # its shell and background processes end with the session
        await self.require_store().end_session(session.session_id, reason)

    async def finish_background(self, session: AgentSession | None) -> None:
        """Let background reviews finish (up to `review.wait_timeout`, then cancel them); end the provider."""
        await self.background.finish(float(self.parts.config.review.wait_timeout))
        if session is not None and session.host is not None:
            await asyncio.to_thread(session.host.close)
            session.host = None
        facts = session.ctx.resources.pop("facts", None) if session is not None else None
        if facts is not None:
            from engine.providers.facts import shared

            await asyncio.to_thread(shared.release, facts)

    async def flush_before_end(self, session: AgentSession) -> None:
        """`memory.flush_min_turns`: after that many user turns since the last flush, the model may save
        memories before the session ends (the flush compression makes, with the memory tool only)."""
        parts, config = self.parts, self.parts.config
        needed = int(config.memory.flush_min_turns)
        turns = session.turns - session.flushed_at_turn
        if needed <= 0 or turns < needed or "memory" not in parts.registry:
            return
        session.flushed_at_turn = session.turns
        from engine.compression.flush import END_SENTINEL, END_SYSTEM, run_flush

        try:
            result = await run_flush(
                client=parts.aux_client,
                registry=parts.registry,
                ctx=session.ctx,
                conversation=list(session.history),
                window=await self.window.tokens(),
                keep_first=min(int(config.compression.protect_first_n), len(session.history)),
                offer_skills=False,
                section=config.compression,
                system_text=END_SYSTEM,
                sentinel_text=END_SENTINEL,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the session ends all the same
            log.warning("memory flush at the end of the session failed: %s", exc)
            self._emit_background(
                Status(session.session_id, "warning", f"Memory flush before the session ended failed: {exc}")
            )
            return
        saved = "; ".join(result.writes) if result.writes else "nothing new to save"
        plural = "s" if turns != 1 else ""
        said = sentence(f"Memory flush after {turns} turn{plural}, before the session ended: {saved}")
        self._emit_background(Status(session.session_id, "info", said))

    async def close(
        self, session: AgentSession | None, pending: PendingWrites | None, end_reason: str | None
    ) -> None:
        """Finish background work, end the session and release the store and the model clients."""
        if self.store is not None and session is not None:
            await self.flush_before_end(session)
        await self.finish_background(session)
        await close_terminal(session.ctx if session is not None else None)
        if self.mcp is not None:
            await self.mcp.stop()
            self.mcp = None
        if self.store is not None:
            if pending is not None:
                with contextlib.suppress(Exception):  # still locked: the journal waits for the next store
                    await pending.flush()
            if end_reason and session is not None:
                with contextlib.suppress(Exception):
                    await self.store.end_session(session.session_id, end_reason)
            await self.store.close()
            self.store = None
        await self.parts.client.aclose()
        if self.parts.aux_client is not self.parts.client:
            await self.parts.aux_client.aclose()

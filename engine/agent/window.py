"""The agent's context window: its size, the next request's size, compression, and oversized messages.

The compressor (`engine.compression`) is optional: without it the agent never compresses, and a
context-length error ends the turn with its sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.agent.api_history import estimate_tokens
from engine.agent.errors import AgentError
from engine.events import Event, SessionChanged

if TYPE_CHECKING:
    from engine.agent.parts import AgentParts
    from engine.agent.session import AgentSession
    from engine.compression.compressor import CompressionOutcome, Compressor
    from engine.compression.oversized import FittedMessage, OversizedMessage
    from engine.prompt.layers import SystemPrompt
    from engine.sessions.store import SessionStore


class ContextWindow:
    """What fits the model's window: its size (asked once), the request's size, and compressing to fit."""

    def __init__(self, parts: AgentParts, emit_main: Callable[[Event], None]) -> None:
        self.parts = parts
        self._emit_main = emit_main
        self.size: int | None = None  # the window in tokens, once known (asked, or said by an overflow)
        self.schema_tokens = 0  # what the tool schemas cost on every request

    def make_compressor(self, store: SessionStore) -> Compressor | None:
        """The compressor, unless compression is off in config."""
        parts = self.parts
        if not parts.config.compression.enabled:
            return None
        from engine.compression.compressor import Compressor

        return Compressor(
            parts.home,
            parts.config,
            main_client=parts.client,
            aux_client=parts.aux_client,
            store=store,
            registry=parts.registry,
            emit=self._emit_main,
        )

    def estimated_tokens(self, session: AgentSession) -> int:
        """The next request's size: the provider's last count plus what was added since, else an estimate."""
        if session.usage_mark is not None:
            tokens, length = session.usage_mark
            return tokens + estimate_tokens(session.history[length:])
        return session.prompt.tokens + self.schema_tokens + estimate_tokens(session.history)

    def known(self) -> int | None:
        """The window when it is known without asking the endpoint (a new session's agent knows what
        the last one was told); None until then."""
        if self.size is not None:
            return self.size
        known = self.parts.client.known_context_length()
        return known.tokens if known is not None else None

    async def tokens(self) -> int:
        """The window's size in tokens: asked of the provider once, else the configured fallback."""
        if self.size is None:
            from engine.llm.errors import LLMError

            client = self.parts.client
            try:
                self.size = (await client.context_length()).tokens
            except LLMError:
                return int(client.settings.fallback_context_length)
        return self.size

    async def oversized(self, text: str, prompt: SystemPrompt | None) -> OversizedMessage | None:
        """Before sending: the verdict on a message too large for the room the window leaves it, else None.

        Once the session is open the system prompt and tool schemas count too; before, the message alone.
        """
        from engine.compression.oversized import oversized_message

        fixed = prompt.tokens + self.schema_tokens if prompt is not None else 0
        return oversized_message(text, window=await self.tokens(), fixed_tokens=fixed)

    def fit_message(self, text: str, found: OversizedMessage, choice: str) -> FittedMessage:
        """The message to send for the person's choice: `file` (saved in the project; raises WriteError
        with a sentence), `cut` or `send`."""
        from engine.compression.oversized import fitted_message

        section = self.parts.config.agent
        return fitted_message(
            text,
            found,
            choice,
            cwd=self.parts.cwd,
            folder=str(section.oversized_folder),
            cut_share=float(section.oversized_cut_share),
        )

    async def compress_if_due(self, session: AgentSession, store: SessionStore) -> None:
        """Before a model call: compress at the threshold; while the conversation is known not to fit,
        try again (without a model call unless something changed) and refuse to send what cannot fit."""
        compressor = session.compressor
        if compressor is None:
            return
        window = await self.tokens()
        if compressor.should_compress(self.estimated_tokens(session), window):
            await self.compress_now(session, store, "threshold")
        elif compressor.overfull:
            await self.compress_now(session, store, "overflow")
        if compressor.overfull:
            raise AgentError(
                f"Not sent: the conversation no longer fits the model's context window (about "
                f"{self.estimated_tokens(session):,} tokens; the window is {window:,}); "
                "/new starts a fresh session."
            )

    async def compress_now(
        self, session: AgentSession, store: SessionStore, reason: str, focus: str | None = None
    ) -> CompressionOutcome:
        """Compress `session` now; a split moves it to the child session the compressor made."""
        assert session.compressor is not None
        outcome = await session.compressor.compress(
            session_id=session.session_id,
            messages=list(session.history),
            system_prompt_tokens=session.prompt.tokens,
            tool_schema_tokens=self.schema_tokens,
            context_length=await self.tokens(),
            reason=reason,
            focus=focus,
            ctx=session.ctx,
        )
        if outcome.compressed:  # its first phase was the memory flush
            session.flushed_at_turn = session.turns
        if outcome.new_session_id and outcome.new_session_id != session.session_id:
            await self._switch_session(session, store, outcome.new_session_id, list(outcome.messages))
        elif outcome.compressed:
            # The split failed (say, a read-only store): go on with the shorter history in place.
            session.history = list(outcome.messages)
        return outcome

    async def _switch_session(
        self, session: AgentSession, store: SessionStore, new_session_id: str, messages: list[dict[str, Any]]
    ) -> None:
        """After a compression split: the compressed history, a prompt rebuilt from disk, the new id."""
        from engine.agent.session import fresh_prompt

        parts = self.parts
        old = session.session_id
        prompt = await fresh_prompt(
            parts.home,
            parts.config,
            tool_names=parts.registry.names,
            memory=session.memory,
            skills=session.skills,
            cwd=parts.cwd,
            model=parts.client.settings.model,
            exact_tokens=parts.exact_tokens,
        )
        await store.update_session(new_session_id, system_prompt=prompt.text)
        session.history = messages
        session.use(new_session_id, prompt)
        self._emit_main(SessionChanged(new_session_id, old, "compression"))
        if session.host is not None:
            session.host.split(old, new_session_id)

"""The agent's side of compression: when to ask the compressor, and moving to the session it makes.

The compressor (`engine.compression`, issue 6) is optional: without it the agent never compresses,
and a context-length error ends the turn with its sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.agent.api_history import estimate_tokens
from engine.agent.errors import AgentBusy, AgentError
from engine.events import SessionChanged

if TYPE_CHECKING:
    from engine.compression.oversized import FittedMessage, OversizedMessage
    from engine.config import Config
    from engine.home import Home
    from engine.prompt.layers import SystemPrompt
    from engine.tools.context import ToolContext
    from engine.tools.registry import ToolRegistry


class CompressionMixin:
    """Compression for `Agent` (it owns the attributes named below)."""

    home: Home
    config: Config
    client: Any
    aux_client: Any
    store: Any
    registry: ToolRegistry
    memory: Any
    skills: Any
    host: Any
    compressor: Any
    ctx: ToolContext | None
    prompt: SystemPrompt | None
    history: list[dict[str, Any]]
    session_id: str
    exact_tokens: bool
    cwd: Any
    _usage_mark: tuple[int, int] | None
    _window: int | None
    _schema_tokens: int

    if TYPE_CHECKING:  # provided by `Agent`

        def _emit_main(self, event: Any) -> None: ...
        def _use_session(self, session_id: str, prompt: SystemPrompt) -> None: ...
        @property
        def busy(self) -> bool: ...
        async def start(self) -> str: ...

    def _make_compressor(self) -> Any:
        """The compressor of issue 6 when it is installed; without it the conversation is never compressed."""
        if not self.config.compression.enabled:
            return None
        try:
            from engine.compression.compressor import Compressor  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return None
        return Compressor(
            self.home,
            self.config,
            main_client=self.client,
            aux_client=self.aux_client,
            store=self.store,
            registry=self.registry,
            emit=self._emit_main,
        )

    def estimated_tokens(self) -> int:
        """The next request's size: the provider's last count plus what was added since, else an estimate."""
        if self._usage_mark is not None:
            tokens, length = self._usage_mark
            return tokens + estimate_tokens(self.history[length:])
        assert self.prompt is not None
        return self.prompt.tokens + self._schema_tokens + estimate_tokens(self.history)

    async def context_window(self) -> int:
        if self._window is None:
            from engine.llm.errors import LLMError

            try:
                self._window = (await self.client.context_length()).tokens
            except LLMError:
                return int(self.client.settings.fallback_context_length)
        return self._window

    async def oversized(self, text: str) -> OversizedMessage | None:
        """Before sending: the verdict on a message too large for the room the window leaves it, else None.

        Once the session is open the system prompt and tool schemas count too; before, the message alone.
        """
        from engine.compression.oversized import oversized_message

        fixed = self.prompt.tokens + self._schema_tokens if self.prompt is not None else 0
        return oversized_message(text, window=await self.context_window(), fixed_tokens=fixed)

    def fit_message(self, text: str, found: OversizedMessage, choice: str) -> FittedMessage:
        """The message to send for the person's choice: `file` (saved in the project; raises WriteError
        with a sentence), `cut` or `send`."""
        from engine.compression.oversized import fitted_message

        section = self.config.agent
        return fitted_message(
            text,
            found,
            choice,
            cwd=self.cwd,
            folder=str(section.oversized_folder),
            cut_share=float(section.oversized_cut_share),
        )

    async def _compress_if_due(self) -> None:
        """Before a model call: compress at the threshold; while the conversation is known not to fit,
        try again (without a model call unless something changed) and refuse to send what cannot fit."""
        compressor = self.compressor
        if compressor is None:
            return
        window = await self.context_window()
        if compressor.should_compress(self.estimated_tokens(), window):
            await self.compress_now("threshold")
        elif compressor.overfull:
            await self.compress_now("overflow")
        if compressor.overfull:
            raise AgentError(
                f"Not sent: the conversation no longer fits the model's context window (about "
                f"{self.estimated_tokens():,} tokens; the window is {window:,}); /new starts a fresh session."
            )

    async def compress(self, focus: str | None = None) -> Any:
        """`/compress [focus]`: compress now, between turns; its events go to `on_background`."""
        if self.busy:
            raise AgentBusy("A turn is running; compress after it ends.")
        await self.start()
        if self.compressor is None:
            raise AgentError("Compression is not available (it is off in config, or not installed).")
        return await self.compress_now("manual", focus)

    async def compress_now(self, reason: str, focus: str | None = None) -> Any:
        assert self.prompt is not None and self.ctx is not None
        outcome = await self.compressor.compress(
            session_id=self.session_id,
            messages=list(self.history),
            system_prompt_tokens=self.prompt.tokens,
            tool_schema_tokens=self._schema_tokens,
            context_length=await self.context_window(),
            reason=reason,
            focus=focus,
            ctx=self.ctx,
        )
        if outcome.compressed:  # its first phase was the memory flush
            self._flushed_at_turn = self.turns
        if outcome.new_session_id and outcome.new_session_id != self.session_id:
            await self._switch_session(outcome.new_session_id, list(outcome.messages))
        elif outcome.compressed:
            # The split failed (say, a read-only store): go on with the shorter history in place.
            self.history = list(outcome.messages)
        return outcome

    async def _switch_session(self, new_session_id: str, messages: list[dict[str, Any]]) -> None:
        """After a compression split: the compressed history, a prompt rebuilt from disk, the new id."""
        from engine.agent.session import fresh_prompt

        old = self.session_id
        prompt = await fresh_prompt(
            self.home,
            self.config,
            tool_names=self.registry.names,
            memory=self.memory,
            skills=self.skills,
            cwd=self.cwd,
            model=self.client.settings.model,
            exact_tokens=self.exact_tokens,
        )
        await self.store.update_session(new_session_id, system_prompt=prompt.text)
        self.history = messages
        self._use_session(new_session_id, prompt)
        self._emit_main(SessionChanged(new_session_id, old, "compression"))
        if self.host is not None:
            self.host.split(old, new_session_id)

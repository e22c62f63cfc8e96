"""The agent's background work: the review a nudge asks for, and session_search's recaps."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from engine.events import Status
from engine.text.sentences import sentence as end_sentence

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.prompt.layers import SystemPrompt
    from engine.prompt.nudges import Nudge
    from engine.tools.registry import ToolRegistry

log = logging.getLogger("engine.agent")


class ReviewMixin:
    """Background review for `Agent` (it owns the attributes named below)."""

    home: Home
    config: Config
    cwd: Any
    aux_client: Any
    store: Any
    registry: ToolRegistry
    prompt: SystemPrompt | None
    history: list[dict[str, Any]]
    session_id: str
    _background: set[asyncio.Task[None]]
    _last_review: asyncio.Task[None] | None

    if TYPE_CHECKING:  # provided by `Agent`

        def _emit_background(self, event: Any) -> None: ...

    def _start_review(self, nudges: list[Nudge], tool_calls: int) -> None:
        from engine.review import ReviewJob

        assert self.prompt is not None
        job = ReviewJob(self.session_id, self.prompt.text, tuple(self.history), tuple(nudges), tool_calls)
        task = asyncio.create_task(self._review(job, self._last_review))
        self._last_review = task
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _review(self, job: Any, previous: asyncio.Task[None] | None) -> None:
        """One review, after the one before it (their writes land in order, never interleaved)."""
        from engine.review import describe, review_context, run_review

        if previous is not None and not previous.done():
            await asyncio.wait({previous})  # its outcome is its own; only the order matters here
        kinds = ", ".join(n.kind for n in job.nudges)
        self._emit_background(Status(job.session_id, "info", f"Background review running ({kinds})."))
        try:
            ctx = await asyncio.to_thread(
                review_context, self.home, self.config, self.cwd, job.session_id, self._emit_background
            )

            def retrying(chunk: Any) -> None:
                self._emit_background(
                    Status(job.session_id, "warning", end_sentence(f"Background review: {chunk.text}"))
                )

            result = await run_review(
                self.aux_client,
                job,
                self.registry,
                ctx,
                max_iterations=int(self.config.review.max_iterations),
                on_retry=retrying,
            )
            if result.usages and self.store is not None:
                await self.store.record_usage(
                    job.session_id,
                    input_tokens=result.prompt_tokens,
                    output_tokens=result.completion_tokens,
                    cache_read_tokens=sum(u.cached_tokens for u in result.usages),
                    api_calls=len(result.usages),
                    model=self.aux_client.settings.model or None,
                )
            level, sentence = describe(result, job.nudges)
        except asyncio.CancelledError:
            self._emit_background(Status(job.session_id, "warning", f"Background review ({kinds}) stopped."))
            raise
        except Exception as exc:
            log.exception("background review failed")
            level, sentence = "warning", f"Background review ({kinds}) failed: {type(exc).__name__}: {exc}"
        self._emit_background(Status(job.session_id, level, sentence))

    async def _second_opinion(self, kind: str, text: str, notes: list[str]) -> Any:
        """security.aux_review: the auxiliary model's verdict on a write the patterns leave uncertain."""
        from engine.threats.review import second_opinion

        timeout = float(self.config.security.aux_review_timeout)
        return await second_opinion(self.aux_client, kind, text, notes, timeout)

    async def _summarize(self, transcript: str) -> str:
        """session_search's recap: one auxiliary call."""
        from engine.sessions.session_search import RECAP_INSTRUCTIONS

        reply = await self.aux_client.complete(
            [{"role": "system", "content": RECAP_INSTRUCTIONS}, {"role": "user", "content": transcript}]
        )
        return reply.content

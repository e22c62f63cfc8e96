"""The agent's background work: the review a nudge asks for, titles, and the auxiliary model's recaps.

`BackgroundWork` keeps the tasks running beside the conversation; closing the session waits for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from engine.events import Event, Status
from engine.text.sentences import sentence as end_sentence

if TYPE_CHECKING:
    from engine.agent.parts import AgentParts
    from engine.agent.review import ReviewJob
    from engine.agent.session import AgentSession
    from engine.prompt.nudges import Nudge
    from engine.sessions.store import SessionStore
    from engine.threats.review import SecondOpinion

log = logging.getLogger("engine.agent")


class BackgroundWork:
    """Tasks beside the conversation (reviews one after another, titles); the agent waits for them."""

    def __init__(self, parts: AgentParts, emit_background: Callable[[Event], None]) -> None:
        self.parts = parts
        self._emit_background = emit_background
        self.tasks: set[asyncio.Task[None]] = set()
        self._last_review: asyncio.Task[None] | None = None

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `work` in the background; `wait` and `finish` see it until it ends."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for background work; True when none is left running."""
        tasks = [t for t in self.tasks if not t.done()]
        if not tasks:
            return True
        _done, pending = await asyncio.wait(tasks, timeout=timeout)
        return not pending

    async def finish(self, timeout: float) -> None:
        """Let background work finish (up to `timeout` seconds), then cancel what is left."""
        if not await self.wait(timeout):
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

    def start_review(
        self, session: AgentSession, store: SessionStore, nudges: list[Nudge], tool_calls: int
    ) -> None:
        """Review the conversation so far in the background, after any review still running."""
        from engine.agent.review import ReviewJob

        job = ReviewJob(
            session.session_id, session.prompt.text, tuple(session.history), tuple(nudges), tool_calls
        )
        self._last_review = self.spawn(self._review(job, self._last_review, store))

    async def _review(self, job: ReviewJob, previous: asyncio.Task[None] | None, store: SessionStore) -> None:
        """One review, after the one before it (their writes land in order, never interleaved)."""
        from engine.agent.review import describe, review_context, run_review

        if previous is not None and not previous.done():
            await asyncio.wait({previous})  # its outcome is its own; only the order matters here
        parts, config = self.parts, self.parts.config
        kinds = ", ".join(n.kind for n in job.nudges)
        self._emit_background(Status(job.session_id, "info", f"Background review running ({kinds})."))
        try:
            ctx = await asyncio.to_thread(
                review_context, parts.home, config, parts.cwd, job.session_id, self._emit_background
            )

            def retrying(chunk: Any) -> None:
                self._emit_background(
                    Status(job.session_id, "warning", end_sentence(f"Background review: {chunk.text}"))
                )

            result = await run_review(
                parts.aux_client,
                job,
                parts.registry,
                ctx,
                max_iterations=int(config.review.max_iterations),
                on_retry=retrying,
            )
            if result.usages:
                await store.record_usage(
                    job.session_id,
                    input_tokens=result.prompt_tokens,
                    output_tokens=result.completion_tokens,
                    cache_read_tokens=sum(u.cached_tokens for u in result.usages),
                    api_calls=len(result.usages),
                    model=parts.aux_client.settings.model or None,
                )
            level, sentence = describe(result, job.nudges)
        except asyncio.CancelledError:
            self._emit_background(Status(job.session_id, "warning", f"Background review ({kinds}) stopped."))
            raise
        except Exception as exc:
            log.exception("background review failed")
            level, sentence = "warning", f"Background review ({kinds}) failed: {type(exc).__name__}: {exc}"
        self._emit_background(Status(job.session_id, level, sentence))

    async def second_opinion(self, kind: str, text: str, notes: list[str]) -> SecondOpinion:
        """security.aux_review: the auxiliary model's verdict on a write the patterns leave uncertain."""
        from engine.threats.review import second_opinion

        timeout = float(self.parts.config.security.aux_review_timeout)
        return await second_opinion(self.parts.aux_client, kind, text, notes, timeout)

    async def summarize(self, transcript: str) -> str:
        """session_search's recap: one auxiliary call."""
        from engine.sessions.session_search import RECAP_INSTRUCTIONS

        reply = await self.parts.aux_client.complete(
            [{"role": "system", "content": RECAP_INSTRUCTIONS}, {"role": "user", "content": transcript}]
        )
        return reply.content

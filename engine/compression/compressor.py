"""The three-phase compressor the agent calls: flush memories, summarise the middle, split the session.

    compressor = Compressor(home, config, main_client=main, aux_client=aux, store=store,
                            registry=registry, emit=emit)
    if compressor.should_compress(estimated_tokens, context_length):
        outcome = await compressor.compress(session_id=sid, messages=history, ..., ctx=ctx)
        sid, history = outcome.new_session_id, outcome.messages   # then rebuild the system prompt

`compress` never raises (cancellation aside): whatever fails, the agent gets a usable history back.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.compression.boundaries import Plan, calls_in_longest_task, latest_user_index, plan_boundaries
from engine.compression.flush import FlushResult, run_flush
from engine.compression.messages import SENTINEL_FLAG, message_tokens, total_tokens, wire
from engine.compression.pairs import sanitize_tool_pairs
from engine.compression.prepass import PrepassLimits, PrepassReport, prepass
from engine.compression.shorten import shorten_old_messages
from engine.compression.split import split_session
from engine.compression.summarize import Summariser, SummaryResult
from engine.compression.summary_message import (
    place_summary,
    take_previous_summaries,
    with_tasks,
    without_tasks,
)
from engine.compression.summary_prompt import auto_focus
from engine.compression.tail import cap_tail_outputs
from engine.events import (
    CompressionFinished,
    CompressionPhase,
    CompressionStarted,
    ConversationTooLarge,
    Event,
    Status,
)

log = logging.getLogger(__name__)
REASONS = ("threshold", "overflow", "manual")


@dataclass(frozen=True)
class CompressionOutcome:
    """What the agent continues with; `messages` is the child session's history (no system message)."""

    new_session_id: str
    messages: list[dict[str, Any]]
    summary: str
    flushed: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    old_session_id: str = ""
    reason: str = "threshold"
    compressed: bool = True  # False: nothing was changed (nothing to drop, or no summary and abort)
    summary_source: str = ""  # auxiliary | main | fallback | mixed
    note: str = ""  # why nothing was compressed, or what went wrong on the way
    timings: dict[str, float] = field(default_factory=dict)  # total_s, model_s, own_s
    message_ids: list[int] = field(default_factory=list)  # each message's row in the child session

    @property
    def saved_share(self) -> float:
        if self.tokens_before <= 0:
            return 0.0
        return max(0.0, (self.tokens_before - self.tokens_after) / self.tokens_before)


@dataclass
class Prepared:
    """What a compression would do, worked out without a model: the plan and the most it could save."""

    clean: list[dict[str, Any]]  # the history without earlier summaries, old oversized messages cut
    previous: str | None  # the newest earlier summary's body
    plan: Plan
    shrunk: list[dict[str, Any]] = field(default_factory=list)  # `clean` with the middle pre-passed
    report: PrepassReport = field(default_factory=PrepassReport)
    middle: list[dict[str, Any]] = field(default_factory=list)
    shortened: int = 0  # old messages cut to fit (a big paste, a huge tool output)
    best_tokens: int = 0  # the request after compression with an empty summary
    note: str = ""  # why nothing will be done: nothing to compress, or it cannot save enough
    latest_tokens: int = 0  # the latest user message's size (never cut: it is the request)

    @property
    def head(self) -> list[dict[str, Any]]:
        return self.clean[: self.plan.head_end]

    @property
    def following(self) -> list[dict[str, Any]]:
        """What comes after the summary: the latest user message when it was in the middle, then the tail."""
        kept = self.plan.kept_user
        return ([self.clean[kept]] if kept is not None else []) + self.clean[self.plan.tail_start :]


def strip_flush_leftovers(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history without a flush sentinel and anything after it (should a flush ever have leaked)."""
    for index, message in enumerate(messages):
        if message.get(SENTINEL_FLAG):
            return list(messages[:index])
    return list(messages)


def open_tasks(ctx: Any) -> str:
    """The todo list as the todo tool renders it, when some task is still open; else nothing."""
    todos = getattr(getattr(ctx, "state", None), "todos", None) or []
    if not any(getattr(t, "status", "") not in ("done", "cancelled") for t in todos):
        return ""
    from engine.tools.todo import render

    return render(ctx.state)


class Compressor:
    """Decides when to compress and does it; one per agent, so anti-thrash spans the session chain."""

    def __init__(
        self,
        home: Any,
        config: Any,
        *,
        main_client: Any,
        aux_client: Any,
        store: Any,
        registry: Any,
        emit: Any,
    ) -> None:
        self.home = home
        self.config = config
        self.section = config.compression
        self.main_client = main_client
        self.aux_client = aux_client if aux_client is not None else main_client
        self.store = store
        self.registry = registry
        self.emit = emit
        self.summariser = Summariser(self.section, main_client, self.aux_client, self._warn_for_summary)
        self.recent_savings: deque[float] = deque(maxlen=2)
        self.auto_stopped = False  # two compressions in a row saved too little
        self.frozen = False  # abort_on_summary_failure stopped compression until a manual one works
        self.compressions = 0  # done by this compressor, for a status bar
        self.declined = False  # the last compression was not worth doing: the next one like it says nothing
        self.overfull = ""  # while the conversation does not fit and cannot be shortened: the sentence said
        self._status_session = ""

    # -- the trigger

    def threshold_tokens(self, context_length: int) -> int:
        return int(context_length * float(self.section.threshold))

    def estimate_request_tokens(
        self, system_prompt_tokens: int, messages: Sequence[dict[str, Any]], tool_schema_tokens: int
    ) -> int:
        """The next request's size: system prompt, history and tool schemas."""
        return int(system_prompt_tokens) + total_tokens(messages) + int(tool_schema_tokens)

    def should_compress(self, estimated_tokens: int, context_length: int) -> bool:
        """True when the request passes the threshold and automatic compression is still allowed."""
        if not self.section.enabled or context_length <= 0:
            return False
        if self.auto_stopped or self.frozen:
            return False
        return estimated_tokens >= self.threshold_tokens(context_length)

    # -- compressing

    async def compress(
        self,
        *,
        session_id: str,
        messages: list[dict[str, Any]],
        system_prompt_tokens: int,
        tool_schema_tokens: int,
        context_length: int,
        reason: str,
        focus: str | None = None,
        ctx: Any,
    ) -> CompressionOutcome:
        """Run the three phases; on any failure the history comes back usable and the turn goes on.

        A compression that cannot save `min_savings` of the context is not done (no new session). It
        is worked out without a model first, so asking again for a conversation that did not change
        in kind costs no model call, and says nothing again (unless asked by hand).
        """
        started = time.perf_counter()
        reason = reason if reason in REASONS else "manual"
        self._status_session = session_id
        history = strip_flush_leftovers(messages)
        fixed = int(system_prompt_tokens) + int(tool_schema_tokens)
        tokens_before = fixed + total_tokens(history)
        prepared: Prepared | None = None
        with contextlib.suppress(Exception):  # a plan that fails is made again below, where it is reported
            prepared = self._prepare(history, fixed, tokens_before, context_length)
        if prepared is not None and prepared.note and self.declined and reason != "manual":
            await self._say_if_too_large(session_id, tokens_before, context_length, prepared, reason)
            outcome = self._unchanged(session_id, history, tokens_before, reason, prepared.note)
            await self._judge_savings(outcome)
            return outcome
        await self._send(CompressionStarted(session_id, reason, tokens_before))
        model_seconds = [0.0]
        try:
            if prepared is None:
                prepared = self._prepare(history, fixed, tokens_before, context_length)
            outcome = await self._run(
                session_id,
                history,
                prepared,
                fixed,
                tokens_before,
                context_length,
                reason,
                focus,
                ctx,
                model_seconds,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the turn never fails because of compression
            log.exception("compression of %s failed", session_id)
            note = f"Compression failed ({type(exc).__name__}: {exc}); the conversation goes on uncompressed."
            await self._send(Status(session_id, "error", note))
            outcome = self._unchanged(session_id, list(messages), tokens_before, reason, note)
        total = time.perf_counter() - started
        timings = {"total_s": total, "model_s": model_seconds[0], "own_s": max(0.0, total - model_seconds[0])}
        outcome = CompressionOutcome(**{**outcome.__dict__, "timings": timings})
        await self._send(
            CompressionFinished(
                session_id,
                old_session_id=session_id,
                new_session_id=outcome.new_session_id,
                tokens_before=outcome.tokens_before,
                tokens_after=outcome.tokens_after,
                summary=outcome.summary,
                flushed=outcome.flushed,
                compressed=outcome.compressed,
                note=outcome.note,
            )
        )
        await self._judge_savings(outcome)
        return outcome

    def _unchanged(
        self, session_id: str, history: list[dict[str, Any]], tokens: int, reason: str, note: str = ""
    ) -> CompressionOutcome:
        return CompressionOutcome(
            session_id, history, "", (), tokens, tokens, session_id, reason, False, "", note
        )

    def worth_doing(self, tokens_before: int, tokens_after: int) -> bool:
        """A compression must save `min_savings` of the context: a new session, a summary call and a cold
        prompt cache are what it costs, and a saving smaller than that is not a compression."""
        saved = tokens_before - tokens_after
        return saved > 0 and saved >= float(self.section.min_savings) * tokens_before

    def _prepare(
        self, history: list[dict[str, Any]], fixed: int, tokens_before: int, context_length: int
    ) -> Prepared:
        """The plan of a compression, with no model: what is kept, what is summarised, the best outcome."""
        section = self.section
        clean, previous = take_previous_summaries(history)
        previous = without_tasks(previous) if previous else previous
        latest = latest_user_index(clean)
        limit = int(context_length * float(section.oversized_message_share))
        clean, shortened = shorten_old_messages(clean, limit, latest)
        counts = message_tokens(clean)
        plan = plan_boundaries(
            clean,
            counts,
            protect_first_n=int(section.protect_first_n),
            protect_last_n=int(section.protect_last_n),
            tail_budget=int(self.threshold_tokens(context_length) * float(section.target_ratio)),
        )
        prepared = Prepared(clean, previous, plan, shortened=shortened)
        prepared.latest_tokens = counts[latest] if latest is not None else 0
        if plan.empty and not shortened:
            prepared.note = "Nothing to compress: every message is in the protected head or tail."
            return prepared
        prepared.shrunk, prepared.report = prepass(
            clean, plan.head_end, plan.tail_start, PrepassLimits.from_config(section)
        )
        if plan.kept_user is not None:
            prepared.shrunk[plan.kept_user] = clean[plan.kept_user]
        prepared.middle = plan.middle(prepared.shrunk)
        best = self._assemble(prepared, "", fixed, context_length)[0]
        prepared.best_tokens = fixed + total_tokens(best)
        if not self.worth_doing(tokens_before, prepared.best_tokens):
            prepared.note = self._too_little(tokens_before, prepared.best_tokens, at_most=True)
        return prepared

    def _too_little(self, before: int, after: int, *, at_most: bool) -> str:
        saved = max(0, before - after)
        share = saved / before if before else 0.0
        return (
            f"Not compressed: it would save {'at most ' if at_most else ''}{saved:,} of {before:,} tokens "
            f"({share:.0%}), under compression.min_savings ({float(self.section.min_savings):.0%}); the "
            "conversation is kept as it is."
        )

    def _assemble(
        self, prepared: Prepared, summary: str, fixed: int, context_length: int
    ) -> tuple[list[dict[str, Any]], int, int, int]:
        """The compressed history: head, the summary (none when empty), what follows; tool pairs whole and,
        when the tail alone is still too big, its older tool outputs cut. (messages, orphans, stubs, cut)."""
        head, following = prepared.head, prepared.following
        placed = place_summary(head, summary, following) if summary.strip() else [*head, *following]
        compressed, orphans, stubs = sanitize_tool_pairs(placed)
        compressed, capped = cap_tail_outputs(
            compressed,
            len(head),
            int(self.section.tail_tool_output_chars),
            self.threshold_tokens(context_length) - fixed,
        )
        return compressed, orphans, stubs, capped

    async def _run(
        self,
        session_id: str,
        history: list[dict[str, Any]],
        prepared: Prepared,
        fixed: int,
        tokens_before: int,
        context_length: int,
        reason: str,
        focus: str | None,
        ctx: Any,
        model_seconds: list[float],
    ) -> CompressionOutcome:
        unchanged = self._unchanged(session_id, history, tokens_before, reason)
        if prepared.note:
            await self._phase(session_id, "summarize", tokens_before, tokens_before, skipped=prepared.note)
            await self._decline(session_id, tokens_before, context_length, prepared, reason)
            return CompressionOutcome(**{**unchanged.__dict__, "note": prepared.note})
        flush, summary = await self._summarise(
            session_id, prepared, context_length, focus, ctx, tokens_before
        )
        model_seconds[0] += flush.model_seconds + summary.model_seconds
        if summary.source == "fallback" and prepared.middle and self.section.abort_on_summary_failure:
            return await self._abort(unchanged, summary, flush)
        if summary.text.strip():
            summary.text = with_tasks(summary.text, open_tasks(ctx))
        compressed, orphans, stubs, capped = self._assemble(prepared, summary.text, fixed, context_length)
        tokens_after = fixed + total_tokens(compressed)
        if not self.worth_doing(tokens_before, tokens_after):
            prepared.note = self._too_little(tokens_before, tokens_after, at_most=False)
            await self._phase(session_id, "summarize", tokens_before, tokens_before, skipped=prepared.note)
            await self._decline(session_id, tokens_before, context_length, prepared, reason)
            note = prepared.note
            return CompressionOutcome(**{**unchanged.__dict__, "flushed": tuple(flush.writes), "note": note})
        await self._summarised(
            session_id, prepared, summary, (tokens_before, tokens_after), (orphans, stubs, capped)
        )
        new_id, written, ids, note = await self._split(session_id, history, compressed, tokens_after)
        self.frozen = False
        self.declined = False
        self.compressions += 1
        await self._say_if_too_large(new_id, tokens_after, context_length, prepared, "")
        return CompressionOutcome(
            new_session_id=new_id,
            messages=written,
            summary=summary.text,
            flushed=tuple(flush.writes),
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            old_session_id=session_id,
            reason=reason,
            compressed=True,
            summary_source=summary.source,
            note=note,
            message_ids=ids,
        )

    async def _summarise(
        self,
        session_id: str,
        prepared: Prepared,
        context_length: int,
        focus: str | None,
        ctx: Any,
        tokens: int,
    ) -> tuple[FlushResult, SummaryResult]:
        """Phases 1 and 2: the memory flush, then the summary of the middle (none when nothing is dropped)."""
        previous, middle = prepared.previous, prepared.middle
        if not middle:
            flush = FlushResult(skipped="nothing is dropped: only old oversized messages are cut")
            return flush, SummaryResult(previous or "", "none", 0)
        flush = await self._flush(
            session_id, prepared.shrunk, previous, prepared.plan.head_end, middle, context_length, ctx, tokens
        )
        auto = auto_focus(prepared.clean, int(self.section.auto_focus_chars)) if not focus else ""
        summary = await self.summariser.summarise(
            middle,
            previous=previous,
            focus=focus,
            recent_asks=auto,
            context_length=context_length,
            middle_tokens=total_tokens(middle),
        )
        return flush, summary

    async def _summarised(
        self,
        session_id: str,
        prepared: Prepared,
        summary: SummaryResult,
        tokens: tuple[int, int],
        repairs: tuple[int, int, int],
    ) -> None:
        """The summarize phase's record: what was kept, summarised, cut and repaired."""
        plan, report = prepared.plan, prepared.report
        orphans, stubs, capped = repairs
        await self._phase(
            session_id,
            "summarize",
            *tokens,
            summary=summary.text,
            source=summary.source,
            updated_previous=prepared.previous is not None,
            errors=summary.errors,
            calls=summary.calls,
            budget_tokens=summary.budget_tokens,
            head=plan.head_end,
            summarised=len(prepared.middle),
            tail=len(prepared.clean) - plan.tail_start,
            kept_user=plan.kept_user is not None,
            shrunk_outputs=report.shrunk,
            duplicates=report.duplicates,
            args_cut=report.args_cut,
            images_dropped=report.images_dropped,
            orphans_dropped=orphans,
            stubs_added=stubs,
            tail_outputs_cut=capped,
            oversized_cut=prepared.shortened,
            digested_without_model=summary.digested_messages,
        )

    async def _split(
        self, session_id: str, history: list[dict[str, Any]], compressed: list[dict[str, Any]], tokens: int
    ) -> tuple[str, list[dict[str, Any]], list[int], str]:
        """Phase 3: the compressed history goes on in a child session. (new id, messages, their ids, note)"""
        if self.store is None:
            return session_id, [wire(m) for m in compressed], [], ""
        new_id, written, ids, note, saved = session_id, [wire(m) for m in compressed], [], "", 0
        try:
            split = await split_session(self.store, session_id, history, compressed)
            new_id, written, ids, saved = (
                split.new_session_id,
                split.messages,
                split.message_ids,
                split.saved_to_parent,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("session split of %s failed", session_id)
            note = f"The session could not be split ({exc}); the compressed history is kept in memory only."
            await self._send(Status(session_id, "warning", note))
        await self._phase(
            session_id,
            "split",
            tokens,
            tokens,
            old_session_id=session_id,
            new_session_id=new_id,
            saved_to_parent=saved,
            messages_written=len(written) if new_id != session_id else 0,
            error=note,
        )
        return new_id, written, ids, note

    async def _decline(
        self, session_id: str, tokens: int, context_length: int, prepared: Prepared, reason: str
    ) -> None:
        """Nothing is done: remember it (the next attempt like it is quiet) and say once if it cannot fit."""
        self.declined = True
        await self._say_if_too_large(session_id, tokens, context_length, prepared, reason)

    async def _say_if_too_large(
        self, session_id: str, tokens: int, context_length: int, prepared: Prepared, reason: str
    ) -> None:
        """One `ConversationTooLarge` when the conversation stops fitting, one when it fits again.

        It does not fit when it passes the window as counted here, or when the provider refused it
        (`overflow`) and nothing was made shorter. Only a compression that was done (`reason` empty)
        says it fits again: a count here under the window does not overrule the provider's refusal.
        """
        too_large = (context_length > 0 and tokens >= context_length) or reason == "overflow"
        if too_large and not self.overfull:
            self.overfull = overfull_sentence(tokens, context_length, prepared.latest_tokens)
            await self._send(ConversationTooLarge(session_id, tokens, context_length, self.overfull))
        elif not too_large and self.overfull and not reason:
            self.overfull = ""
            await self._send(
                ConversationTooLarge(
                    session_id,
                    tokens,
                    context_length,
                    f"The conversation fits the context window again ({tokens:,} of {context_length:,} "
                    "tokens).",
                    fits=True,
                )
            )

    async def _flush(
        self,
        session_id: str,
        shrunk: list[dict[str, Any]],
        previous: str | None,
        head_end: int,
        middle: list[dict[str, Any]],
        context_length: int,
        ctx: Any,
        tokens: int,
    ) -> FlushResult:
        section = self.section
        if not section.flush_enabled:
            result = FlushResult(skipped="compression.flush_enabled is off")
        elif self.registry is None or "memory" not in self.registry:
            result = FlushResult(skipped="the memory tool is not registered")
        else:
            conversation = shrunk
            if previous:
                conversation = place_summary(shrunk[:head_end], previous, shrunk[head_end:])
            offer_skills = calls_in_longest_task(middle) >= int(self.config.skills.creation_nudge_tool_calls)
            try:
                result = await run_flush(
                    client=self.aux_client,
                    registry=self.registry,
                    ctx=ctx,
                    conversation=conversation,
                    window=await self.summariser._window(context_length),
                    keep_first=head_end,
                    offer_skills=offer_skills,
                    section=section,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a failed flush must not stop the compression
                log.warning("memory flush failed: %s", exc)
                result = FlushResult(skipped=f"the flush call failed: {exc}")
                await self._send(
                    Status(
                        session_id, "warning", f"Memory flush before compression failed ({exc}); going on."
                    )
                )
        if result.error:
            await self._send(
                Status(session_id, "warning", f"Memory flush before compression stopped: {result.error}")
            )
        await self._phase(
            session_id,
            "flush",
            tokens,
            tokens,
            writes=list(result.writes),
            failures=list(result.failures),
            offered=list(result.offered),
            skipped=result.skipped,
            dropped_messages=result.dropped_messages,
            error=result.error,
        )
        return result

    async def _abort(
        self, unchanged: CompressionOutcome, summary: SummaryResult, flush: FlushResult
    ) -> CompressionOutcome:
        self.frozen = True
        note = (
            "No summary could be made (" + "; ".join(summary.errors or ["no model answered"]) + "), and "
            "compression.abort_on_summary_failure is on: the conversation is kept whole and automatic "
            "compression is paused. Use /compress to try again, or /new to start a fresh session."
        )
        await self._send(Status(unchanged.old_session_id, "error", note))
        return CompressionOutcome(**{**unchanged.__dict__, "flushed": tuple(flush.writes), "note": note})

    async def _judge_savings(self, outcome: CompressionOutcome) -> None:
        """Anti-thrash: two compressions in a row under `min_savings` stop automatic compression."""
        if outcome.note.startswith("Compression failed") or self.frozen:
            return
        minimum = float(self.section.min_savings)
        self.recent_savings.append(outcome.saved_share)
        stop = len(self.recent_savings) == 2 and all(s < minimum for s in self.recent_savings)
        if stop and not self.auto_stopped:
            self.auto_stopped = True
            if self.overfull:
                return  # the notice that the conversation does not fit already says what to do
            shares = " and ".join(f"{s:.0%}" for s in self.recent_savings)
            await self._send(
                Status(
                    outcome.new_session_id,
                    "warning",
                    f"Automatic compression is off: the last two compressions saved only {shares} of the "
                    f"context (under {minimum:.0%}). Use /compress [focus] to compress by hand, or /new "
                    "to start a fresh session.",
                )
            )
        elif not stop and self.auto_stopped and outcome.saved_share >= minimum:
            self.auto_stopped = False

    # -- events

    async def _phase(self, session_id: str, phase: str, before: int, after: int, **detail: Any) -> None:
        await self._send(CompressionPhase(session_id, phase, before, after, detail))

    async def _warn_for_summary(self, text: str) -> None:
        await self._send(Status(self._status_session, "warning", text))

    async def _send(self, event: Event) -> None:
        if self.emit is None:
            return
        with contextlib.suppress(Exception):  # a broken event sink must not break compression
            result = self.emit(event)
            if inspect.isawaitable(result):
                await result


def overfull_sentence(tokens: int, window: int, latest_tokens: int) -> str:
    """What to do when the conversation does not fit the window and compression cannot shorten it."""
    head = (
        f"The conversation no longer fits the model's context window ({tokens:,} tokens; the window is "
        f"{window:,}), and compression cannot shorten it enough"
    )
    if latest_tokens * 2 >= window:
        return (
            f"{head}: the latest message alone is {latest_tokens:,} tokens. Send a short message next (the "
            "big one is then cut to its start and end), or /new and send the text saved as a file."
        )
    return f"{head}. Start a fresh session with /new (memory and skills carry over)."


def summary_of(outcome: CompressionOutcome) -> str:
    """One line for a CLI or status bar."""
    saved = outcome.tokens_before - outcome.tokens_after
    if not outcome.compressed:
        return outcome.note or "Nothing was compressed."
    return (
        f"Compressed {outcome.tokens_before:,} -> {outcome.tokens_after:,} tokens (saved {saved:,}, "
        f"{outcome.saved_share:.0%}); continuing in session {outcome.new_session_id}."
    )


__all__ = [
    "REASONS",
    "CompressionOutcome",
    "Compressor",
    "overfull_sentence",
    "strip_flush_leftovers",
    "summary_of",
]

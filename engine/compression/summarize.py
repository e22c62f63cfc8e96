"""Phase 2's model part: the summary from the auxiliary model, else the main one, else no model at all."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.compression.fallback import fallback_summary
from engine.compression.messages import looks_like_summary, text_of
from engine.compression.middle_text import TranscriptLimits, render_transcript
from engine.compression.summary_message import split_summary
from engine.compression.summary_prompt import summary_prompt
from engine.text import tokens

PROMPT_OVERHEAD_TOKENS = 1200  # the instructions around the transcript, with room to spare
INPUT_SHARE = 0.75  # of the summariser's window, for its prompt; the rest is for the reply and slack
MIN_INPUT_TOKENS = 1000

Warn = Callable[[str], Awaitable[None]]


@dataclass
class SummaryResult:
    text: str
    source: str  # auxiliary | main (the last model that wrote) | fallback | mixed (models, then fallback)
    budget_tokens: int
    calls: int = 0
    model_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    digested_messages: int = 0  # oldest messages summarised without a model to fit `summary_max_calls`


def summary_budget(middle_tokens: int, context_length: int, section: Any) -> int:
    """Tokens the summary may take: a share of what it replaces, within the configured floor and ceiling."""
    ceiling = min(
        int(context_length * float(section.summary_max_context_share)), int(section.summary_max_tokens)
    )
    ceiling = max(ceiling, 100)
    floor = min(int(section.summary_min_tokens), ceiling)
    return max(floor, min(int(middle_tokens * float(section.summary_ratio)), ceiling))


def chunk_spans(sizes: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """Consecutive `[start, end)` spans whose sizes add up to at most `budget` (one oversized item alone)."""
    spans: list[tuple[int, int]] = []
    start = used = 0
    for index, size in enumerate(sizes):
        if index > start and used + size > budget:
            spans.append((start, index))
            start, used = index, 0
        used += size
    if start < len(sizes):
        spans.append((start, len(sizes)))
    return spans


def clean_reply(text: str) -> str:
    """The model's summary without any compaction markers it may have echoed."""
    text = text.strip()
    if looks_like_summary(text):
        text, _rest = split_summary(text)
    return text.strip()


class Summariser:
    """Writes the summary of one middle; model failures end in the model-free summary, never an error."""

    def __init__(self, section: Any, main_client: Any, aux_client: Any, warn: Warn) -> None:
        self.section = section
        self.main_client = main_client
        self.aux_client = aux_client
        self.warn = warn
        self.models_down_until = 0.0  # monotonic time before which no summary model is asked

    async def summarise(
        self,
        middle: Sequence[dict[str, Any]],
        *,
        previous: str | None,
        focus: str | None,
        recent_asks: str,
        context_length: int,
        middle_tokens: int,
    ) -> SummaryResult:
        section = self.section
        window = await self._window(context_length)
        budget = summary_budget(middle_tokens, min(context_length, window), section)
        result = SummaryResult("", "fallback", budget)
        limits = TranscriptLimits.from_config(section)
        rendered = render_transcript(middle, limits)
        sizes = tokens.count_many(rendered)
        previous_tokens = tokens.count(previous) if previous else 0
        max_reply = int(budget * 1.3)
        input_budget = max(
            MIN_INPUT_TOKENS, int(window * INPUT_SHARE) - max_reply - PROMPT_OVERHEAD_TOKENS - previous_tokens
        )
        spans = chunk_spans(sizes, input_budget)
        max_calls = int(section.summary_max_calls)
        if len(spans) > max_calls:  # digest the oldest part without a model; it becomes the "previous"
            cut = spans[-max_calls][0]
            previous = self._fallback(middle[:cut], previous)
            result.digested_messages = cut
            spans = [(s - cut, e - cut) for s, e in spans[-max_calls:]]
            middle, rendered = middle[cut:], rendered[cut:]
        if time.monotonic() < self.models_down_until:
            result.errors.append("the summary models failed recently; cooling down")
            result.text = self._fallback(middle, previous)
            return result
        for done, (start, end) in enumerate(spans):
            prompt = summary_prompt(
                "\n\n".join(rendered[start:end]),
                budget_tokens=budget,
                previous=previous,
                focus=focus,
                recent_asks=recent_asks,
            )
            text, source = await self._ask(prompt, max_reply, result)
            if text is None:
                self.models_down_until = time.monotonic() + float(section.failure_cooldown)
                result.text = self._fallback(middle[start:], previous)
                result.source = "mixed" if done else "fallback"
                return result
            previous = text
            result.source = source
        result.text = previous or self._fallback(middle, None)
        return result

    def _fallback(self, middle: Sequence[dict[str, Any]], previous: str | None) -> str:
        return fallback_summary(
            middle,
            previous,
            max_chars=int(self.section.fallback_max_chars),
            turn_chars=int(self.section.fallback_turn_chars),
        )

    async def _window(self, context_length: int) -> int:
        """The summarising model's window: the auxiliary endpoint's if it says, else the main one's."""
        if self.aux_client is None or self.aux_client is self.main_client:
            return context_length
        try:
            info = await asyncio.wait_for(self.aux_client.context_length(), timeout=30)
        except Exception:
            return context_length
        return min(int(info.tokens), context_length) if info.source == "default" else int(info.tokens)

    async def _ask(self, prompt: str, max_reply: int, result: SummaryResult) -> tuple[str | None, str]:
        """The summary from the auxiliary model, else one try of the main model; (None, "") if neither."""
        clients = [("auxiliary", self.aux_client)]
        if self.main_client is not None and self.main_client is not self.aux_client:
            clients.append(("main", self.main_client))
        for attempt, (label, client) in enumerate(clients):
            if client is None:
                continue
            if attempt:
                await self.warn(
                    f"The auxiliary model could not summarise ({result.errors[-1]}); trying the main model."
                )
            started = time.monotonic()
            try:
                reply = await client.complete(
                    [{"role": "user", "content": prompt}],
                    temperature=float(self.section.summary_temperature),
                    max_tokens=max_reply,
                )
                text = clean_reply(text_of(reply.content))
                if not text:
                    raise ValueError("the model returned an empty summary")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure of a summary model ends in the next option
                result.errors.append(f"{label}: {exc}")
                continue
            finally:
                result.calls += 1
                result.model_seconds += time.monotonic() - started
            return text, label
        return None, ""

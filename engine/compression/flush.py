"""Phase 1: before any turn is dropped, one auxiliary exchange in which the model may save memories.

The model sees the conversation (already shrunk by the pre-pass), the memory files as they are on
disk now, and a sentinel user message; only the `memory` tool is offered (and `skill_manage` when the
turns about to go hold a task of many tool calls). Its writes go through the same tool handlers as any
other, so they reach disk, are journaled and emit their events. The exchange itself is never added to
the conversation: it runs on a copy.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.compression.messages import message_tokens, wire
from engine.compression.pairs import sanitize_tool_pairs
from engine.compression.redact import redact
from engine.events import Event, MemoryWritten
from engine.prompt.layers import guidance_text
from engine.tools.loop import run_tool_loop

SENTINEL = (
    "[System: This session is being compressed: the older turns above are about to be replaced by a "
    "summary. Save anything worth remembering with the memory tool now, before they go: first the "
    "user's preferences, corrections and recurring patterns, then durable facts about the environment; "
    "skip task progress, which the summary keeps. Do not repeat what the memory files already hold. "
    "When nothing is worth saving, just answer 'nothing to save'.]"
)
SKILL_HINT = (
    "[The turns above include a task of many tool calls. If it taught a reusable procedure, save it as "
    "a skill with skill_manage (or patch the skill you used).]"
)
SYSTEM = (
    "You are the assistant of the conversation below, pausing before its older turns are compacted. "
    "This step only saves durable knowledge with the tools offered; the user does not see your reply."
)
# The same step when a session ends (`memory.flush_min_turns`) rather than being compacted.
END_SENTINEL = (
    "[System: This session is ending. Save anything worth remembering with the memory tool now: first "
    "the user's preferences, corrections and recurring patterns, then durable facts about the "
    "environment; skip task progress, which the session record keeps. Do not repeat what the memory "
    "files already hold. When nothing is worth saving, just answer 'nothing to save'.]"
)
END_SYSTEM = (
    "You are the assistant of the conversation below, which is about to end. This step only saves "
    "durable knowledge with the tools offered; the user does not see your reply."
)
INPUT_SHARE = 0.70  # of the window, for the flush request besides what is kept for the reply (at most 1/4)


@dataclass
class FlushResult:
    writes: list[str] = field(default_factory=list)  # one line per successful write
    failures: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)
    calls: int = 0
    model_seconds: float = 0.0
    skipped: str = ""  # why no flush ran, if it did not
    dropped_messages: int = 0  # oldest messages left out to fit the window
    error: str = ""  # the model call that failed, if one did (writes before it still count)


def memory_view(ctx: Any) -> str:
    """The memory files as they are on disk now, so the model does not save what is already there."""
    from engine.memory.store import MemoryStore

    parts = []
    memory = getattr(ctx, "resources", {}).get("memory")
    stores = getattr(memory, "stores", None) or {}
    for target, title in (("memory", "MEMORY.md (environment notes)"), ("user", "USER.md (user profile)")):
        try:
            store = stores.get(target) or MemoryStore.open(ctx.home, target, ctx.config)
            entries = store.entries()
            usage = store.usage(entries)
        except Exception:  # an unreadable file is the memory tool's to report, not the flush's
            continue
        body = "\n§\n".join(entries) if entries else "(empty)"
        parts.append(f"{title} [{usage}]:\n{body}")
    return "\n\n".join(parts)


def _redacted(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    return {**message, "content": redact(content)} if isinstance(content, str) else message


def describe_write(name: str, args: dict[str, Any]) -> str:
    """`user add: "Prefers tabs"` / `skill create: deploy-docs`: a line for the timeline."""
    if name == "memory":
        action = str(args.get("action", "?"))
        target = str(args.get("target") or "memory")
        text = str(args.get("content") or args.get("old_text") or "")
        text = " ".join(text.split())
        if len(text) > 120:
            text = text[:119] + "…"
        return f'{target} {action}: "{text}"' if text else f"{target} {action}"
    return f"skill {args.get('action', '?')}: {args.get('name', '?')}"


def fit_conversation(
    messages: Sequence[dict[str, Any]], keep_first: int, budget_tokens: int
) -> tuple[list[dict[str, Any]], int]:
    """The conversation within `budget_tokens`: the first messages kept, then the oldest others left out."""
    messages = list(messages)
    counts = message_tokens(messages)
    total = sum(counts)
    start = keep_first
    while total > budget_tokens and start < len(messages) - 1:
        total -= counts[start]
        start += 1
    if start == keep_first:
        return messages, 0
    fitted, _, _ = sanitize_tool_pairs(messages[:keep_first] + messages[start:])
    return fitted, start - keep_first


async def run_flush(
    *,
    client: Any,
    registry: Any,
    ctx: Any,
    conversation: Sequence[dict[str, Any]],
    window: int,
    keep_first: int,
    offer_skills: bool,
    section: Any,
    system_text: str = SYSTEM,
    sentinel_text: str = SENTINEL,
) -> FlushResult:
    """Offer the model the memory tool (and maybe skill_manage) once, and report what it saved."""
    result = FlushResult()
    names = ["memory"] + (["skill_manage"] if offer_skills and "skill_manage" in registry else [])
    tools = registry.subset(names=names)
    result.offered = [t.name for t in tools]
    if "memory" not in result.offered:
        result.skipped = "the memory tool is not registered"
        return result
    parts = (system_text, guidance_text(result.offered), memory_view(ctx))
    system = "\n\n".join(part for part in parts if part)
    sentinel = sentinel_text + ("\n" + SKILL_HINT if "skill_manage" in result.offered else "")
    fixed = sum(
        message_tokens([{"role": "system", "content": system}, {"role": "user", "content": sentinel}])
    )
    schema_tokens = sum(message_tokens([{"role": "system", "content": str(tools.schemas())}]))
    reply_reserve = min(int(section.flush_max_tokens), window // 4)
    budget = int(window * INPUT_SHARE) + window // 4 - reply_reserve - fixed - schema_tokens
    clean = [_redacted(wire(m)) for m in conversation]  # the auxiliary endpoint may be another provider
    fitted, result.dropped_messages = fit_conversation(clean, keep_first, budget)
    request = [{"role": "system", "content": system}, *fitted, {"role": "user", "content": sentinel}]
    written: list[MemoryWritten] = []

    def tee(event: Event) -> object:
        if isinstance(event, MemoryWritten):
            written.append(event)
        return ctx.emit(event)

    started = time.monotonic()
    loop = await run_tool_loop(
        client,
        request,
        tools,
        replace(ctx, emit=tee),
        max_iterations=int(section.flush_max_iterations),
        temperature=float(section.flush_temperature),
    )
    result.model_seconds = time.monotonic() - started
    result.writes = [describe_memory_event(event, ctx) for event in written]
    for name, args, outcome in loop.outcomes:
        if not succeeded(outcome):
            result.failures.append(f"{describe_write(name, args)}: {outcome.summary}")
        elif name != "memory":  # memory writes are known from their events, which skip no-op adds
            result.writes.append(describe_write(name, args))
    result.calls = loop.iterations
    if loop.error is not None:
        result.error = str(loop.error)
    return result


def describe_memory_event(event: MemoryWritten, ctx: Any) -> str:
    """`user add: "…"` from the journal entry the write recorded, else from the event alone."""
    journal = getattr(getattr(ctx, "resources", {}).get("memory"), "journal", None)
    try:
        summary = journal.get(event.journal_id).summary if journal is not None else ""
    except Exception:  # a pruned or unreadable journal still leaves the event's own words
        summary = ""
    if summary.startswith(f"{event.action}: "):
        summary = summary[len(event.action) + 2 :]
    text = summary or event.message
    return f'{event.target} {event.action}: "{text}"' if text else f"{event.target} {event.action}"


def succeeded(outcome: Any) -> bool:
    """Whether a tool call did its write: ok, and no `success: false` or `error` in its JSON result."""
    if not outcome.ok:
        return False
    try:
        content = json.loads(outcome.content)
    except (TypeError, ValueError):
        return True
    return not (isinstance(content, dict) and (content.get("success") is False or "error" in content))

"""What the log files keep of the engine's events: one line each for what a person greps for later.

Turns starting and ending, tool calls and how they ended, approvals, provider trouble (each retry
and the final failure), compression, session changes, memory and skill writes. Streamed text is not
logged (the conversation is in state.db). Every event reaching here was already redacted by the
agent, and the log files' formatter redacts the whole line again.

    [20260101_120000_abc123] turn 3 started: "fix the navbar on the changelog page"
    [20260101_120000_abc123] tool terminal failed in 1.2 s: exit 1
    [20260101_120000_abc123] provider: Model call failed; retrying (1/3) in 1.0 s after HTTP 500.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine import events

log = logging.getLogger("engine.events")

PREVIEW_CHARS = 120  # of a message or a command in one log line


def log_event(event: events.Event) -> None:
    """Write the event's line (if it has one) to the engine's log."""
    describe = _DESCRIBE.get(type(event))
    if describe is None:
        return
    described = describe(event)
    if described is None:
        return
    level, text = described
    if log.isEnabledFor(level):
        log.log(level, "[%s] %s", event.session_id or "-", text)


def _short(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


Line = tuple[int, str] | None


def _turn_started(e: events.TurnStarted) -> Line:
    return logging.INFO, f'turn {e.turn} started: "{_short(e.text)}"'


def _turn_finished(e: events.TurnFinished) -> Line:
    how = " (interrupted)" if e.interrupted else " (an empty answer)" if e.empty else ""
    return logging.INFO, f"turn ended{how}: {e.tool_calls} tool call(s), {len(e.text):,} chars of reply"


def _tool_called(e: events.ToolCalled) -> Line:
    return logging.INFO, f"tool {e.name} called [{e.call_id}]: {_short(e.preview)}"


def _tool_finished(e: events.ToolFinished) -> Line:
    how = "interrupted" if e.interrupted else "ok" if e.ok else "failed"
    level = logging.INFO if e.ok or e.interrupted else logging.WARNING
    return level, f"tool {e.name} {how} in {e.duration_s:.1f} s [{e.call_id}]: {_short(e.preview)}"


def _approval(e: events.ApprovalNeeded) -> Line:
    rule = f" by rule {e.rule}" if e.rule else ""
    return logging.INFO, f"approval asked{rule} for {e.tool}: {_short(e.command)} ({_short(e.reason)})"


def _approved_by_session(e: events.ApprovedBySession) -> Line:
    return logging.INFO, f"approved by a session rule ({e.rule}) for {e.tool}: {_short(e.command)}"


def _status(e: events.Status) -> Line:
    level = {"warning": logging.WARNING, "error": logging.ERROR}.get(e.level, logging.INFO)
    return level, f"status: {_short(e.text, 400)}"


def _error(e: events.ErrorEvent) -> Line:
    again = " (retryable)" if e.retryable else ""
    return logging.ERROR, f"turn error{again}: {_short(e.message, 600)}"


def _compression_started(e: events.CompressionStarted) -> Line:
    return logging.INFO, f"compression started ({e.reason}) at {e.tokens_before:,} tokens"


def _compression_phase(e: events.CompressionPhase) -> Line:
    return logging.INFO, f"compression {e.phase}: {e.tokens_before:,} → {e.tokens_after:,} tokens"


def _compression_finished(e: events.CompressionFinished) -> Line:
    if not e.compressed:
        return logging.WARNING, f"compression saved nothing: {_short(e.note or 'nothing to compress')}"
    return logging.INFO, (
        f"compression finished: {e.tokens_before:,} → {e.tokens_after:,} tokens; session "
        f"{e.old_session_id} → {e.new_session_id}"
    )


def _session_changed(e: events.SessionChanged) -> Line:
    return logging.INFO, f"session changed ({e.reason}) from {e.previous_session_id or '-'}"


def _rewound(e: events.ConversationRewound) -> Line:
    ids = f"{e.message_ids[0]}–{e.message_ids[-1]}" if e.message_ids else "none"
    return logging.INFO, f"rewound {e.exchanges} exchange(s): messages {ids} inactive, {e.remaining} left"


def _memory_written(e: events.MemoryWritten) -> Line:
    return logging.INFO, f"memory {e.target} {e.action} by {e.who} ({e.journal_id}): {_short(e.message)}"


def _fact_written(e: events.FactWritten) -> Line:
    return logging.INFO, f"fact {e.fact_id} {e.action} (trust {e.trust:.2f}): {_short(e.content)}"


def _facts_recalled(e: events.FactsRecalled) -> Line:
    return logging.DEBUG, f"facts in context: {', '.join(str(f.fact_id) for f in e.facts)}"


def _skill_changed(e: events.SkillChanged) -> Line:
    return logging.INFO, f"skill {e.name} {e.action} by {e.who}: {_short(e.message)}"


def _skill_loaded(e: events.SkillLoaded) -> Line:
    return logging.INFO, f"skill {e.name} loaded ({e.file_path}, {e.tokens:,} tokens)"


def _guarded(e: events.GuardedSettingsChanged) -> Line:
    changed = ", ".join(e.changes) or "back as they began"
    return logging.WARNING, f"guarded settings changed on disk: {changed}"


def _unsaved(e: events.UnsavedMessages) -> Line:
    if e.waiting:
        waiting = f"{e.waiting} message(s) wait for state.db (locked by another program)"
        return logging.WARNING, f"{waiting} in {e.journal}"
    return logging.INFO, "the waiting messages are written to state.db"


def _usage(e: events.Usage) -> Line:
    tokens = f"{e.prompt_tokens:,} in ({e.cached_tokens:,} cached), {e.completion_tokens:,} out"
    return logging.DEBUG, f"usage: {tokens}"


def _nudge(e: events.NudgeFired) -> Line:
    return logging.DEBUG, f"nudge {e.nudge}: {_short(e.reason)}"


_DESCRIBE: dict[type[Any], Callable[[Any], Line]] = {
    events.TurnStarted: _turn_started,
    events.TurnFinished: _turn_finished,
    events.ToolCalled: _tool_called,
    events.ToolFinished: _tool_finished,
    events.ApprovalNeeded: _approval,
    events.ApprovedBySession: _approved_by_session,
    events.Status: _status,
    events.ErrorEvent: _error,
    events.CompressionStarted: _compression_started,
    events.CompressionPhase: _compression_phase,
    events.CompressionFinished: _compression_finished,
    events.SessionChanged: _session_changed,
    events.SessionBranched: _session_changed,
    events.ConversationRewound: _rewound,
    events.MemoryWritten: _memory_written,
    events.FactWritten: _fact_written,
    events.FactsRecalled: _facts_recalled,
    events.SkillChanged: _skill_changed,
    events.SkillLoaded: _skill_loaded,
    events.GuardedSettingsChanged: _guarded,
    events.UnsavedMessages: _unsaved,
    events.Usage: _usage,
    events.NudgeFired: _nudge,
}

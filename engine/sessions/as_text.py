"""Sessions as text: the transcript a recap model reads, and the Markdown `hws sessions export` writes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.sessions.records import MessageRecord, SessionRecord, when

EARLIER_CUT = "...[earlier conversation truncated]..."
LATER_CUT = "...[later conversation truncated]..."


def _tool_names(calls: Sequence[Any] | None) -> list[str]:
    names = []
    for call in calls or []:
        if isinstance(call, dict):
            function = call.get("function")
            name = function.get("name") if isinstance(function, dict) else call.get("name")
            names.append(str(name or "?"))
    return names


def _head_tail(text: str, keep: int) -> str:
    if len(text) <= keep:
        return text
    half = keep // 2
    return f"{text[:half]}\n...[{len(text) - 2 * half} characters of tool output cut]...\n{text[-half:]}"


def recap_transcript(messages: Sequence[MessageRecord], tool_chars: int) -> str:
    """`[USER]: …` / `[ASSISTANT]: [Called: a, b] …` / `[TOOL:name]: …` lines, long tool output cut."""
    lines = []
    for message in messages:
        text = message.text.strip()
        if message.role == "tool":
            lines.append(f"[TOOL:{message.tool_name or 'tool'}]: {_head_tail(text, tool_chars)}")
        elif message.role == "assistant":
            called = _tool_names(message.tool_calls)
            prefix = f"[Called: {', '.join(called)}] " if called else ""
            lines.append(f"[ASSISTANT]: {prefix}{text}".rstrip())
        else:
            lines.append(f"[{message.role.upper()}]: {text}")
    return "\n".join(lines)


def centred_cut(text: str, focus: int, max_chars: int) -> str:
    """At most `max_chars` of `text`, keeping the part around offset `focus`, cuts marked."""
    if len(text) <= max_chars:
        return text
    start = max(0, min(focus - max_chars // 2, len(text) - max_chars))
    end = start + max_chars
    return (
        (EARLIER_CUT + "\n" if start else "")
        + text[start:end]
        + ("\n" + LATER_CUT if end < len(text) else "")
    )


def export_markdown(sessions: Sequence[tuple[SessionRecord, Sequence[MessageRecord]]]) -> str:
    """A readable Markdown document of one session (or a compression chain, oldest first)."""
    out: list[str] = []
    first = sessions[0][0]
    out.append(f"# {first.title or 'Session ' + first.id}\n")
    for session, messages in sessions:
        if len(sessions) > 1 or session is not first:
            out.append(f"\n## Session {session.id}\n")
        facts = [
            f"- id: `{session.id}`",
            f"- started: {when(session.started_at)}",
            f"- source: {session.source}",
        ]
        if session.model:
            facts.append(f"- model: {session.model}")
        if session.ended_at is not None:
            facts.append(f"- ended: {when(session.ended_at)} ({session.end_reason or 'ended'})")
        if session.parent_session_id:
            facts.append(f"- continues: `{session.parent_session_id}`")
        tokens = session.input_tokens + session.output_tokens
        if tokens:
            cost = f", ${session.estimated_cost_usd:.4f}" if session.estimated_cost_usd else ""
            facts.append(
                f"- usage: {session.input_tokens:,} in / {session.output_tokens:,} out "
                f"({session.cache_read_tokens:,} cached){cost}"
            )
        out.append("\n".join(facts) + "\n")
        for message in messages:
            out.append(_message_markdown(message))
    return "\n".join(out).rstrip() + "\n"


def _message_markdown(message: MessageRecord) -> str:
    stamp = when(message.timestamp)
    if message.role == "tool":
        header = f"### Tool result: {message.tool_name or 'tool'} ({stamp})"
        return f"{header}\n\n```\n{_fence_safe(message.text)}\n```\n"
    parts = [f"### {message.role.capitalize()} ({stamp})\n"]
    if message.text.strip():
        parts.append(message.text.strip() + "\n")
    for call in message.tool_calls or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = function.get("name") or call.get("name") or "tool"
        arguments = function.get("arguments", call.get("arguments", ""))
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        parts.append(f"Called `{name}`:\n\n```json\n{_fence_safe(arguments)}\n```\n")
    return "\n".join(parts)


def _fence_safe(text: str) -> str:
    """Text that cannot close the surrounding ``` fence early."""
    return text.replace("```", "`\u200b``")

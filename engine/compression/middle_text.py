"""The summariser's input: the middle of the conversation as labelled text, capped and with secrets
redacted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.messages import call_arguments_text, call_name, text_of, tool_calls
from engine.compression.redact import redact

CUT_MARK = "\n...[truncated]...\n"


@dataclass(frozen=True)
class TranscriptLimits:
    message_chars: int  # of one message: two thirds from the start, a quarter from the end
    args_chars: int  # of one tool call's arguments: four fifths from the start, the rest from the end

    @classmethod
    def from_config(cls, section: Any) -> TranscriptLimits:
        return cls(int(section.input_message_chars), int(section.input_tool_args_chars))


def head_tail(text: str, limit: int, head_share: float) -> str:
    """At most about `limit` characters of `text`: its start and its end, the cut marked."""
    if len(text) <= limit:
        return text
    head = int(limit * head_share)
    tail = max(0, limit - head - len(CUT_MARK) - 100)
    return text[:head] + CUT_MARK + (text[-tail:] if tail else "")


def render_message(message: dict[str, Any], limits: TranscriptLimits) -> str:
    """One message as `[USER]: …`, `[ASSISTANT]: …` with its calls, or `[TOOL RESULT id]: …`."""
    role = message.get("role")
    text = head_tail(text_of(message.get("content")).strip(), limits.message_chars, 2 / 3)
    if role == "tool":
        name = message.get("name")
        label = f"[TOOL RESULT {message.get('tool_call_id') or '?'}{f' {name}' if name else ''}]"
        return redact(f"{label}: {text}")
    if role == "assistant":
        out = f"[ASSISTANT]: {text}".rstrip()
        calls = tool_calls(message)
        if calls:
            lines = []
            for call in calls:
                args = head_tail(call_arguments_text(call), limits.args_chars, 0.8)
                lines.append(f"  {call_name(call)}({args})")
            out += "\n[Tool calls:\n" + "\n".join(lines) + "\n]"
        return redact(out)
    return redact(f"[{str(role or 'user').upper()}]: {text}")


def render_transcript(messages: Sequence[dict[str, Any]], limits: TranscriptLimits) -> list[str]:
    """Each message rendered, in order (joined with blank lines by the caller)."""
    return [render_message(m, limits) for m in messages]


def chunk_rendered(rendered: Sequence[str], sizes: Sequence[int], budget: int) -> list[list[str]]:
    """Consecutive groups of rendered messages whose token sizes add up to at most `budget` each
    (a single message larger than the budget is a group of its own)."""
    groups: list[list[str]] = []
    current: list[str] = []
    used = 0
    for text, size in zip(rendered, sizes, strict=True):
        if current and used + size > budget:
            groups.append(current)
            current, used = [], 0
        current.append(text)
        used += size
    if current:
        groups.append(current)
    return groups

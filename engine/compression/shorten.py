"""Old messages too large for the window (a big paste, a huge tool output) cut to their start and end.

Summarising cannot help a message that sits in the protected head or tail, and a single message larger
than the window keeps every later request from fitting. Such a message, once it is old (before the
latest user message), keeps its start and end with a note of what was cut; state.db keeps it whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.compression.messages import is_summary, message_tokens, text_of
from engine.text_size import cut_middle

WHY = "to fit the context window (the session store keeps it whole)"


def shorten_old_messages(
    messages: Sequence[dict[str, Any]], limit_tokens: int, before: int | None
) -> tuple[list[dict[str, Any]], int]:
    """The history with each user message or tool result before index `before` that is larger than
    `limit_tokens` cut to about that size. Returns (messages, how many were cut)."""
    out = list(messages)
    end = len(out) if before is None else before
    if limit_tokens <= 0 or end <= 0:
        return out, 0
    counts = message_tokens(out[:end])
    cut = 0
    for index, tokens in enumerate(counts):
        message = out[index]
        if tokens <= limit_tokens or message.get("role") not in ("user", "tool") or is_summary(message):
            continue
        content = message.get("content")
        if not isinstance(content, str):  # a message with parts (images): the pre-pass handles those
            continue
        text = text_of(content)
        keep = max(1, int(len(text) * limit_tokens / tokens))
        out[index] = {**message, "content": cut_middle(text, keep, WHY)}
        cut += 1
    return out, cut

"""The last resort when the protected tail alone is too big: its older tool outputs are cut short."""

from __future__ import annotations

from typing import Any

from engine.compression.messages import message_tokens, text_of
from engine.compression.middle_text import head_tail


def cap_tail_outputs(
    messages: list[dict[str, Any]], tail_from: int, limit_chars: int, target_tokens: int
) -> tuple[list[dict[str, Any]], int]:
    """Cut tool outputs from `tail_from` on (oldest first) to `limit_chars` until the history fits
    `target_tokens`; the newest message is never cut. Returns (messages, outputs cut)."""
    counts = message_tokens(messages)
    total = sum(counts)
    if total <= target_tokens:
        return messages, 0
    out = list(messages)
    cut = 0
    for index in range(max(tail_from, 0), len(out) - 1):
        if total <= target_tokens:
            break
        message = out[index]
        text = text_of(message.get("content"))
        if message.get("role") != "tool" or len(text) <= limit_chars:
            continue
        shorter = head_tail(text, limit_chars, 0.6) + f"\n[output cut from {len(text):,} characters to fit]"
        out[index] = {**message, "content": shorter}
        new_count = message_tokens([out[index]])[0]
        total += new_count - counts[index]
        cut += 1
    return out, cut

"""Prompt-cache markers (`system_and_3`): the system prompt and the last three messages.

Only endpoints that honour `cache_control` get them (Anthropic's API, or Claude through
OpenRouter); everywhere else the messages go out untouched. A pure function over the message
list that returns a deep copy, so the caller's history never carries markers.
"""

from __future__ import annotations

import copy
from typing import Any

MAX_MARKED_MESSAGES = 3  # plus the system prompt: Anthropic allows 4 breakpoints in all


def cache_marker(ttl: str = "5m") -> dict[str, str]:
    marker = {"type": "ephemeral"}
    if ttl == "1h":
        marker["ttl"] = "1h"
    return marker


def apply_cache_markers(
    messages: list[dict[str, Any]], *, ttl: str = "5m", native_anthropic: bool = False
) -> list[dict[str, Any]]:
    """A deep copy of `messages` with `cache_control` on the system message and the last three others.

    String content becomes one text part carrying the marker; list content has its last part
    marked; empty content gets a message-level marker. Tool results are marked only on
    Anthropic's own API (OpenRouter's translation drops them), and then they still count.
    """
    marked = copy.deepcopy(messages)
    marker = cache_marker(ttl)
    if marked and marked[0].get("role") in ("system", "developer"):
        _mark(marked[0], marker)
    others = [m for m in marked if m.get("role") not in ("system", "developer")]
    for message in others[-MAX_MARKED_MESSAGES:]:
        if message.get("role") == "tool" and not native_anthropic:
            continue
        _mark(message, marker)
    return marked


def _mark(message: dict[str, Any], marker: dict[str, str]) -> None:
    content = message.get("content")
    if isinstance(content, str) and content:
        message["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(marker)
    else:
        message["cache_control"] = dict(marker)

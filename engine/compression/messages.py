"""Small facts about OpenAI chat messages that every phase of compression needs."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from engine.sessions.records import content_text
from engine.text import tokens

MESSAGE_OVERHEAD = 4  # tokens a chat message costs beyond its text (role, separators)
IMAGE_TOKENS = 1600  # what one image part is counted as (Hermes' figure)
SUMMARY_FLAG = "_compressed_summary"
SENTINEL_FLAG = "_flush_sentinel"
STUB_FLAG = "_stub_result"
# Openings of summaries written by older versions and by Hermes Agent, stripped on re-compression.
LEGACY_PREFIXES = (
    "[CONTEXT COMPACTION — REFERENCE ONLY]",
    "[CONTEXT COMPACTION]",
    "[CONTEXT SUMMARY]:",
    "[CONTEXT SUMMARY]",
)


def wire(message: dict[str, Any]) -> dict[str, Any]:
    """The message as sent to a provider: metadata keys (those starting with `_`) removed."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


text_of = content_text  # one reading of message content for the store and the compressor


def image_count(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    return sum(
        1
        for part in content
        if isinstance(part, dict) and part.get("type") in ("image_url", "image", "input_image")
    )


def tool_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The message's tool calls (empty for anything but an assistant message that made calls)."""
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not isinstance(calls, list):
        return []
    return [c for c in calls if isinstance(c, dict)]


def call_id(call: dict[str, Any]) -> str:
    return str(call.get("id") or "")


def call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else call.get("name")
    return str(name or "tool")


def call_arguments_text(call: dict[str, Any]) -> str:
    function = call.get("function")
    raw = function.get("arguments") if isinstance(function, dict) else call.get("arguments")
    if raw is None:
        return ""
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


def call_arguments(call: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments as a mapping; anything that does not parse is an empty mapping."""
    text = call_arguments_text(call)
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def rendering(message: dict[str, Any]) -> str:
    """The text that stands for a message when its tokens are counted."""
    text = text_of(message.get("content"))
    calls = tool_calls(message)
    if calls:
        text += "".join(call_name(c) + call_arguments_text(c) for c in calls)
    return text


def message_tokens(messages: Sequence[dict[str, Any]]) -> list[int]:
    """Tokens of each message (cl100k, counted in one batch), with overhead and images."""
    counts = tokens.count_many([rendering(m) for m in messages])
    return [
        n + MESSAGE_OVERHEAD + IMAGE_TOKENS * image_count(m.get("content"))
        for n, m in zip(counts, messages, strict=True)
    ]


def total_tokens(messages: Sequence[dict[str, Any]]) -> int:
    return sum(message_tokens(messages)) if messages else 0


def looks_like_summary(text: str) -> bool:
    head = text.lstrip()[:80]
    return any(head.startswith(p) for p in LEGACY_PREFIXES)


def is_summary(message: dict[str, Any]) -> bool:
    return bool(message.get(SUMMARY_FLAG)) or looks_like_summary(text_of(message.get("content")))


def tool_names_by_call(messages: Iterable[dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    """For every tool call id: the tool's name and its parsed arguments."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        for call in tool_calls(message):
            found[call_id(call)] = (call_name(call), call_arguments(call))
    return found

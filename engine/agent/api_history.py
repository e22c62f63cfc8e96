"""The conversation as the API sees it: messages from the session store, repaired, and their size.

A stored session can hold what the API refuses: an assistant's tool calls whose results never
came (the process died mid-call), a tool result whose call is gone. `repair` turns any such
history into one every OpenAI-compatible endpoint accepts, without inventing what was said.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.sessions.records import MessageRecord

MISSING_RESULT = "No result was recorded for this call (the turn was interrupted before it finished)."
PER_MESSAGE_TOKENS = 4  # role and framing, as the providers count them


def _valid_arguments(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        return "{}"
    try:
        return text if isinstance(json.loads(text), dict) else "{}"
    except ValueError:
        return "{}"


def api_message(record: MessageRecord) -> dict[str, Any] | None:
    """One stored message as an API message; None for what never goes back to the model."""
    role = record.role
    if role == "user":
        return {"role": "user", "content": record.content if record.content is not None else ""}
    if role == "assistant":
        message: dict[str, Any] = {"role": "assistant", "content": record.content or ""}
        calls = []
        for call in record.tool_calls or ():
            if not isinstance(call, dict):
                continue
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            calls.append(
                {
                    "id": str(call.get("id") or ""),
                    "type": "function",
                    "function": {
                        "name": str(function.get("name") or ""),
                        "arguments": _valid_arguments(function.get("arguments")),
                    },
                }
            )
        if calls:
            message["tool_calls"] = calls
            if not message["content"]:
                message["content"] = None
        return message
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": record.tool_call_id or "",
            "content": record.text,
        }
    if role == "system" and record.content:  # a compression summary may be stored as system
        return {"role": "system", "content": record.text}
    return None


def from_records(records: Iterable[MessageRecord]) -> list[dict[str, Any]]:
    """A stored session's messages, converted and repaired."""
    converted = [m for m in (api_message(r) for r in records) if m is not None]
    return repair(converted)


def repair(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call answered right after its assistant message; stray results dropped."""
    out: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}  # call id -> its result, for the open assistant message
    open_calls: list[str] = []

    def close() -> None:
        for call_id in open_calls:
            missing = {"role": "tool", "tool_call_id": call_id, "content": MISSING_RESULT}
            out.append(pending.get(call_id) or missing)
        open_calls.clear()
        pending.clear()

    for message in messages:
        role = message.get("role")
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            if call_id in open_calls and call_id not in pending:
                pending[call_id] = message
            continue  # a result for no open call is dropped
        close()
        out.append(message)
        if role == "assistant":
            open_calls.extend(str(c.get("id") or "") for c in message.get("tool_calls") or ())
    close()
    return out


def message_chars(message: dict[str, Any]) -> int:
    content = message.get("content")
    size = len(content) if isinstance(content, str) else len(json.dumps(content)) if content else 0
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        size += len(str(function.get("name") or "")) + len(str(function.get("arguments") or ""))
    return size


def estimate_tokens(messages: Iterable[dict[str, Any]]) -> int:
    """A cheap size estimate (characters / 4 plus framing), for deciding when to compress."""
    return sum((message_chars(m) + 3) // 4 + PER_MESSAGE_TOKENS for m in messages)

"""Phase 3: end the session with `end_reason = "compression"` and continue in a child that holds the
compressed history. The parent keeps every original message, so search still finds them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.messages import SENTINEL_FLAG, STUB_FLAG, SUMMARY_FLAG, call_name, tool_calls

END_REASON = "compression"


@dataclass(frozen=True)
class SplitResult:
    new_session_id: str
    messages: list[dict[str, Any]]  # the compressed history, each with `_id` of its row in the child
    saved_to_parent: int  # originals that were not in the store yet and were written to the parent


def _tool_name(message: dict[str, Any], names: dict[str, str]) -> str | None:
    if message.get("role") != "tool":
        return None
    return message.get("name") or names.get(str(message.get("tool_call_id") or ""))


async def _append(store: Any, session_id: str, message: dict[str, Any], names: dict[str, str]) -> int:
    return int(
        await store.append_message(
            session_id,
            str(message.get("role") or "user"),
            message.get("content"),
            tool_calls=tool_calls(message) or None,
            tool_call_id=message.get("tool_call_id"),
            tool_name=_tool_name(message, names),
            reasoning=message.get("reasoning") if isinstance(message.get("reasoning"), str) else None,
        )
    )


def _call_names(messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    return {str(c.get("id") or ""): call_name(c) for m in messages for c in tool_calls(m)}


async def split_session(
    store: Any,
    session_id: str,
    original: Sequence[dict[str, Any]],
    compressed: Sequence[dict[str, Any]],
) -> SplitResult:
    """Write what the parent lacks, end it, start the child and write the compressed history into it.

    If the child cannot be created the parent is reopened, so the conversation still has a live session.
    """
    names = _call_names(original)
    saved = 0
    for message in original:  # messages the caller never stored must not be lost with the middle
        if (
            "_id" in message
            or message.get(SUMMARY_FLAG)
            or message.get(SENTINEL_FLAG)
            or message.get(STUB_FLAG)
        ):
            continue
        await _append(store, session_id, message, names)
        saved += 1
    parent = await store.require_session(session_id)
    await store.end_session(session_id, END_REASON)
    try:
        child = await store.create_session(
            source=parent.source,
            model=parent.model,
            parent_session_id=session_id,
            cwd=parent.cwd,
            user_id=parent.user_id,
        )
    except BaseException:
        await store.reopen_session(session_id)
        raise
    names = _call_names(compressed)
    written = []
    for message in compressed:
        row = await _append(store, child.id, message, names)
        written.append({**message, "_id": row})
    return SplitResult(child.id, written, saved)

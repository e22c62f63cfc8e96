"""Phase 3: end the session with `end_reason = "compression"` and continue in a child that holds the
compressed history. The parent keeps every original message, so search still finds them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.messages import SENTINEL_FLAG, call_name, text_of, tool_calls, wire

END_REASON = "compression"


@dataclass(frozen=True)
class SplitResult:
    new_session_id: str
    messages: list[dict[str, Any]]  # the compressed history, ready for the wire
    message_ids: list[int]  # the row of each message in the child session
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


def _signature(
    role: str, content: Any, tool_call_id: Any, calls: Any
) -> tuple[str, str, str, tuple[str, ...]]:
    ids = tuple(str(c.get("id") or "") for c in calls or () if isinstance(c, dict))
    return (role, text_of(content).strip(), str(tool_call_id or ""), ids)


async def unstored(store: Any, session_id: str, original: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of `original` that the session does not hold yet (matched by role, text and call ids,
    so it works whether or not the caller kept the `_id` of each row)."""
    rows = await store.get_messages(session_id)
    have = Counter(_signature(r.role, r.content, r.tool_call_id, r.tool_calls) for r in rows)
    # The store keeps text with secrets redacted; compare what it would have kept.
    redact = getattr(getattr(store, "redactor", None), "value", lambda value: value)
    missing = []
    for message in original:
        if message.get(SENTINEL_FLAG):
            continue
        key = _signature(
            str(message.get("role") or ""),
            redact(message.get("content")),
            message.get("tool_call_id"),
            tool_calls(message),
        )
        if have[key] > 0:
            have[key] -= 1
        else:
            missing.append(message)
    return missing


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
    missing = await unstored(store, session_id, original)
    for message in missing:  # messages the caller never stored must not be lost with the middle
        await _append(store, session_id, message, names)
    parent = await store.require_session(session_id)
    if parent.ended and parent.end_reason != END_REASON:
        await store.reopen_session(session_id)  # e.g. `hws compress` on a session that was closed
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
    ids = [await _append(store, child.id, message, names) for message in compressed]
    return SplitResult(child.id, [wire(m) for m in compressed], ids, len(missing))

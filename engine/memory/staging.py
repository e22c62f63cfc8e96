"""Memory writes with the write-approval gate on: worked out as the store would make them, then staged.

The model is told the write waits; the person approves or rejects it (engine/pending/approval.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.memory.format import parse_entries
from engine.pending.records import StagedWrites, origin_of
from engine.pending.staging import not_staged, short, staged_result
from engine.storage.atomic import WriteError
from engine.storage.self_writes import content_hash

if TYPE_CHECKING:
    from engine.memory.store import Memory, MemoryStore


def memory_payload(args: dict[str, Any], target: str) -> dict[str, Any]:
    """The call as Hermes stages it: one action, or a batch of operations."""
    operations = args.get("operations")
    if operations:
        return {"action": "batch", "target": target, "operations": operations}
    return {
        "action": args.get("action"),
        "target": target,
        "content": args.get("content"),
        "old_text": args.get("old_text"),
    }


def memory_summary(payload: dict[str, Any]) -> str:
    label = "user profile" if payload.get("target") == "user" else "memory"
    action = payload.get("action")
    if action == "add":
        return short(f"add to {label}: {payload.get('content') or ''}")
    if action == "replace":
        return short(f"replace in {label}: {payload.get('old_text') or ''} → {payload.get('content') or ''}")
    if action == "remove":
        return short(f"remove from {label}: {payload.get('old_text') or ''}")
    count = len(payload.get("operations") or [])
    return short(f"apply {count} change{'s' if count != 1 else ''} to {label}")


def stage_memory(memory: Memory, store: MemoryStore, args: dict[str, Any]) -> dict[str, Any]:
    """The memory tool with the gate on: the write is worked out, then staged instead of made."""
    preview = store.apply(args, dry_run=True)
    if not preview.get("success") or "after" not in preview:
        return preview  # an error, or a write that changes nothing (a duplicate add): said as it is
    before, after = str(preview["before"]), str(preview["after"])
    kept = set(parse_entries(after))
    removes = tuple(e for e in parse_entries(before) if e not in kept)
    payload = memory_payload(args, store.target)
    try:
        record = StagedWrites(memory.home).stage(
            "memory",
            payload,
            summary=memory_summary(payload),
            origin=origin_of(memory.who),
            writer=memory.who,
            session_id=memory.session_id,
            base={store.rel_path: content_hash(before)},
            removes=removes,
        )
    except (WriteError, OSError) as exc:
        return not_staged(exc)
    return staged_result(record)

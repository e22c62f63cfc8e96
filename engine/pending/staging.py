"""The write-approval gate's first half: with `memory.write_approval` or `skills.write_approval` on,
the agent's memory and skill writes are worked out as the real write would be, then staged (Hermes'
layout, engine/pending/records.py) instead of made, and the model is told they wait. The person's
review, approval and rejection are engine/pending/approval.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.memory.format import parse_entries
from engine.pending.records import ORIGIN_OF, StagedWrite, StagedWrites
from engine.storage.atomic import WriteError
from engine.storage.self_writes import content_hash

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.memory.store import Memory, MemoryStore
    from engine.skills.tools import SkillTools

ABSENT = "absent"  # the base of a file that did not exist when the write was staged
SUMMARY_CHARS = 200
SKILL_FIELDS = (  # the skill_manage arguments a record keeps (Hermes' payload)
    "content",
    "category",
    "file_path",
    "file_content",
    "old_string",
    "new_string",
    "replace_all",
    "absorbed_into",
)
WHERE = {
    "memory": "the memory pane (F2), `/memory pending` or `hws memory pending`",
    "skills": "the skills pane (F4), `/skills pending` or `hws skills pending`",
}


def gate_on(config: Config, subsystem: str, who: str) -> bool:
    """Whether writes of `subsystem` by this writer wait for approval: the agent's and the review's do."""
    section = config.memory if subsystem == "memory" else config.skills
    return who in ORIGIN_OF and bool(section.write_approval)


def staged_result(record: StagedWrite) -> dict[str, Any]:
    """What the model is told: Hermes' `staged` shape, and that nothing is saved yet."""
    return {
        "success": True,
        "staged": True,
        "done": True,
        "pending_id": record.id,
        "message": (
            f"Staged for approval ({record.subsystem}.write_approval is on): nothing is saved until the "
            f"user approves it, in {WHERE[record.subsystem]}. Do not repeat this write; tell the user it "
            "waits for their approval."
        ),
    }


def _not_staged(exc: Exception) -> dict[str, Any]:
    return {
        "success": False,
        "error": f"The write could not be staged for approval ({exc}); nothing was saved.",
    }


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


# ── memory ───────────────────────────────────────────────────────────────────────────────────────


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
            origin=ORIGIN_OF[memory.who],
            session_id=memory.session_id,
            base={store.rel_path: content_hash(before)},
            removes=removes,
        )
    except (WriteError, OSError) as exc:
        return _not_staged(exc)
    return staged_result(record)


def skill_payload(args: dict[str, Any]) -> dict[str, Any]:
    payload = {"action": args.get("action"), "name": args.get("name")}
    payload.update({k: args[k] for k in SKILL_FIELDS if args.get(k) is not None})
    return payload


def relative_to_home(home: Home, path: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(home.root))).as_posix()


def file_hash(path: Path) -> str:
    try:
        return content_hash(path.read_bytes())
    except FileNotFoundError:
        return ABSENT
    except IsADirectoryError:
        return "folder"


def stage_skill(tools: SkillTools, args: dict[str, Any]) -> dict[str, Any]:
    """skill_manage with the gate on: the call is checked and worked out, then staged instead of made."""
    from engine.skills.plan import plan_change

    plan = plan_change(tools.manager, args)
    if isinstance(plan, dict):
        return plan
    home = tools.manager.home
    base = {
        relative_to_home(home, path): content_hash(before) if before is not None else ABSENT
        for path, (before, _after) in plan.files.items()
    }
    try:
        record = StagedWrites(home).stage(
            "skills",
            skill_payload(args),
            summary=plan.gist,
            origin=ORIGIN_OF[tools.who],
            session_id=tools.session_id,
            base=base,
        )
    except (WriteError, OSError) as exc:
        return _not_staged(exc)
    return {**staged_result(record), "gist": plan.gist, "name": plan.name, "action": plan.action}

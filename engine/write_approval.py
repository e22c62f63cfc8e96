"""The write-approval gate (`memory.write_approval`, `skills.write_approval`) and the person's review.

With a gate on, a memory or skill write by the agent (its turns, the background review, a memory
flush) is first checked as the real write would be, so a write that would fail fails at once; then
it is staged (engine/staged_writes.py, Hermes' layout) and the model is told that it waits. The
person lists pending writes with their diff (the memory and skills panes, `/memory pending`, `hws
memory pending`) and approves or rejects each. Approving replays the call through the store's own
path (threat scan, secret check, the skills guard, journal, atomic write) as the writer that asked;
when the file changed since the write was staged in a way the write would overwrite, that is said
and nothing is written. The diff shown is worked out from the call and the disk each time, never
taken from the record, so what the person approves is what is written.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.atomic import WriteError, content_hash
from engine.memory_format import FILES, parse_entries
from engine.staged_writes import ORIGIN_OF, SUBSYSTEMS, StagedError, StagedWrite, StagedWrites

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.memory import DiskState, Memory, MemoryStore
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


def _short(text: str) -> str:
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
        return _short(f"add to {label}: {payload.get('content') or ''}")
    if action == "replace":
        return _short(f"replace in {label}: {payload.get('old_text') or ''} → {payload.get('content') or ''}")
    if action == "remove":
        return _short(f"remove from {label}: {payload.get('old_text') or ''}")
    count = len(payload.get("operations") or [])
    return _short(f"apply {count} change{'s' if count != 1 else ''} to {label}")


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


def _memory_args(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("action") == "batch":
        return {"operations": payload.get("operations") or []}
    return {k: payload.get(k) for k in ("action", "content", "old_text")}


def _memory_conflict(record: StagedWrite, rel: str) -> Any:
    """The check an approval passes just before it writes (None for a record Hermes staged)."""
    if record.base is None:
        return None
    base = record.base.get(rel)
    allowed = set(record.removes or ())

    def check(state: DiskState, new_raw: str) -> dict[str, Any] | None:
        if content_hash(state.raw) == base:
            return None
        kept = set(parse_entries(new_raw))
        lost = [e for e in state.entries if e not in kept and e not in allowed]
        if not lost:
            return None  # changed since, but this write takes out only what it did when it was staged
        return {
            "success": False,
            "conflict": True,
            "error": (
                f"{Path(rel).name} changed since write {record.id} was staged: approving it now would "
                f"also remove or replace {_short(lost[0])!r}. Nothing was written; reject it (the agent "
                "can ask again once it has read the file as it is now)."
            ),
        }

    return check


def _memory_store(home: Home, config: Config, record: StagedWrite) -> tuple[Memory, MemoryStore]:
    from engine.memory import Memory

    target = str(record.payload.get("target") or "memory")
    if target not in FILES:
        raise StagedError(f"Pending write {record.id} names the memory target {target!r}; reject it.")
    memory = Memory(home, config, who=record.who)
    return memory, memory.store(target)


# ── skills ───────────────────────────────────────────────────────────────────────────────────────


def skill_payload(args: dict[str, Any]) -> dict[str, Any]:
    payload = {"action": args.get("action"), "name": args.get("name")}
    payload.update({k: args[k] for k in SKILL_FIELDS if args.get(k) is not None})
    return payload


def _rel(home: Home, path: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(home.root))).as_posix()


def _file_hash(path: Path) -> str:
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
        _rel(home, path): content_hash(before) if before is not None else ABSENT
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


def _skill_conflict(home: Home, record: StagedWrite) -> Any:
    if record.base is None:
        return None

    def check() -> dict[str, Any] | None:
        for rel, digest in record.base.items():  # type: ignore[union-attr]
            if _file_hash(home.root / rel) != digest:
                return {
                    "success": False,
                    "conflict": True,
                    "error": (
                        f"{rel} changed since write {record.id} was staged; nothing was written. Reject it "
                        "(the agent can ask again once it has read the skill as it is now)."
                    ),
                }
        return None

    return check


# ── the person's review ──────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class PendingItem:
    """A pending write as the person reviews it: the diff approving it would make now, and any obstacle."""

    record: StagedWrite
    diff: str
    conflict: str = ""  # approving now is refused: the file changed in a way the write would overwrite
    error: str = ""  # approving now would fail anyway (the entry it replaces is gone, …)
    unchanged: bool = False  # approving changes nothing (the entry is already there)

    @property
    def problem(self) -> str:
        return self.conflict or self.error


def _unified(before: str, after: str, label: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{label}", f"b/{label}"
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return text


def review(home: Home, config: Config, record: StagedWrite) -> PendingItem:
    """The diff of one pending write against the disk as it is now, and what stands in its way."""
    try:
        if record.subsystem == "memory":
            return _review_memory(home, config, record)
        return _review_skill(home, config, record)
    except StagedError as exc:
        return PendingItem(record, "", error=str(exc))


def _review_memory(home: Home, config: Config, record: StagedWrite) -> PendingItem:
    _memory, store = _memory_store(home, config, record)
    preview = store.apply(_memory_args(record.payload), dry_run=True)
    if not preview.get("success"):
        return PendingItem(record, "", error=str(preview.get("error") or "the write would fail"))
    if "after" not in preview:
        return PendingItem(record, "", unchanged=True)
    before, after = str(preview["before"]), str(preview["after"])
    conflict = ""
    check = _memory_conflict(record, store.rel_path)
    if check is not None:
        from engine.memory import DiskState

        state = DiskState(before, parse_entries(before), False)
        refused = check(state, after)
        conflict = str(refused["error"]) if refused else ""
    return PendingItem(record, _unified(before, after, store.rel_path), conflict=conflict)


def _review_skill(home: Home, config: Config, record: StagedWrite) -> PendingItem:
    from engine.skills.library import SkillLibrary
    from engine.skills.manage import SkillManager
    from engine.skills.plan import plan_change

    check = _skill_conflict(home, record)
    refused = check() if check is not None else None
    conflict = str(refused["error"]) if refused else ""
    plan = plan_change(SkillManager(SkillLibrary(home, config), record.who), dict(record.payload))
    if isinstance(plan, dict):
        return PendingItem(record, "", conflict=conflict, error=str(plan.get("error") or ""))
    parts = []
    for path, (before, after) in plan.files.items():
        label = _rel(home, path)
        old = (before or b"").decode("utf-8", errors="replace")
        if after is None:
            parts.append(f"--- a/{label}\n+++ /dev/null\n(file removed: {len(old.splitlines())} lines)\n")
        else:
            parts.append(_unified(old, after, label))
    return PendingItem(record, "".join(parts), conflict=conflict)


def pending(home: Home, config: Config, subsystem: str) -> tuple[list[PendingItem], list[str]]:
    """Every pending write of a subsystem, oldest first, reviewed; and the records that cannot be read."""
    staged = StagedWrites(home)
    records = staged.list(subsystem)
    return [review(home, config, r) for r in records], list(staged.problems)


def approve(home: Home, config: Config, subsystem: str, wanted: str) -> dict[str, Any]:
    """Make one pending write through the store's own path; the record goes once it is written."""
    staged = StagedWrites(home)
    try:
        record = staged.find(subsystem, wanted)
        if subsystem == "memory":
            memory, store = _memory_store(home, config, record)
            result = store.apply(
                _memory_args(record.payload),
                check=_memory_conflict(record, store.rel_path),
                note=f"approved {record.id}",
            )
            if result.get("success"):
                result["journal_id"] = _newest_journal_id(memory, store.target)
        else:
            result = _approve_skill(home, config, record)
    except StagedError as exc:
        return {"success": False, "error": str(exc)}
    result = {**result, "pending_id": record.id, "summary": record.summary, "who": record.who}
    if result.get("success"):
        staged.discard(record)
        result["message"] = f"Approved {record.id}: {result.get('message') or record.summary}"
    return result


def _newest_journal_id(memory: Memory, target: str) -> str:
    entry = memory.journal.last("memory", target)
    return entry.id if entry is not None else ""


def _approve_skill(home: Home, config: Config, record: StagedWrite) -> dict[str, Any]:
    from engine.skills.library import SkillLibrary
    from engine.skills.manage import SkillManager

    manager = SkillManager(SkillLibrary(home, config), record.who)
    return manager.run(dict(record.payload), precondition=_skill_conflict(home, record))


def reject(home: Home, subsystem: str, wanted: str) -> dict[str, Any]:
    """Drop one pending write; nothing is written."""
    staged = StagedWrites(home)
    try:
        record = staged.find(subsystem, wanted)
    except StagedError as exc:
        return {"success": False, "error": str(exc)}
    staged.discard(record)
    return {
        "success": True,
        "pending_id": record.id,
        "summary": record.summary,
        "message": f"Rejected {record.id} ({record.summary}); nothing was written.",
    }


__all__ = [
    "SUBSYSTEMS",
    "PendingItem",
    "approve",
    "gate_on",
    "pending",
    "reject",
    "review",
    "stage_memory",
    "stage_skill",
    "staged_result",
]

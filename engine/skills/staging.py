"""skill_manage with the write-approval gate on: the call is checked and worked out, then staged.

The model is told the write waits; the person approves or rejects it (engine/pending/approval.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.pending.records import StagedWrites, origin_of
from engine.pending.staging import ABSENT, not_staged, relative_to_home, staged_result
from engine.skills.plan import plan_change
from engine.storage.atomic import WriteError
from engine.storage.self_writes import content_hash

if TYPE_CHECKING:
    from engine.skills.tools import SkillTools

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


def skill_payload(args: dict[str, Any]) -> dict[str, Any]:
    payload = {"action": args.get("action"), "name": args.get("name")}
    payload.update({k: args[k] for k in SKILL_FIELDS if args.get(k) is not None})
    return payload


def stage_skill(tools: SkillTools, args: dict[str, Any]) -> dict[str, Any]:
    """skill_manage with the gate on: the call is checked and worked out, then staged instead of made."""
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
            origin=origin_of(tools.who),
            writer=tools.who,
            session_id=tools.session_id,
            base=base,
        )
    except (WriteError, OSError) as exc:
        return not_staged(exc)
    return {**staged_result(record), "gist": plan.gist, "name": plan.name, "action": plan.action}

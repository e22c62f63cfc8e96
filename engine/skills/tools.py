"""The three skill tools as plain functions (argument dict in, result dict out) and their JSON schemas.

The agent's tool wrappers only need to call `SkillTools.call(name, args)` and serialise the result.
Schemas are terse on purpose: the whole system prompt plus every tool schema must stay under 5K tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.config import Config, defaults
from engine.events import Event, SkillChanged, SkillLoaded, WriteStaged
from engine.home import Home
from engine.pending.staging import gate_on
from engine.skills.gate import refusal
from engine.skills.index import SkillIndex
from engine.skills.library import SkillLibrary
from engine.skills.manage import ACTIONS, SkillManager
from engine.skills.staging import stage_skill
from engine.skills.tiers import SessionTiers
from engine.skills.view import error, find_skill, view_file, view_skill

SKILLS_LIST_SCHEMA: dict[str, Any] = {
    "name": "skills_list",
    "description": "List skills with their descriptions, optionally one category. Use when the index cut "
    "descriptions short or names a '+N more' count.",
    "parameters": {
        "type": "object",
        "properties": {"category": {"type": "string", "description": "Only skills in this category."}},
        "required": [],
    },
}

SKILL_VIEW_SCHEMA: dict[str, Any] = {
    "name": "skill_view",
    "description": "Load a skill: its full SKILL.md and the list of its files. With file_path, load one of "
    "those files instead.",
    "parameters": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Skill name from the index."},
            "file_path": {"type": "string", "description": "A file in the skill, e.g. references/api.md."},
        },
        "required": ["name"],
    },
}

SKILL_MANAGE_SCHEMA: dict[str, Any] = {
    "name": "skill_manage",
    "description": "Write your own skills (reusable procedures). Create one after a complex task succeeded "
    "(5+ tool calls), a tricky fix, or a method the user corrected; patch a skill as soon as it proves "
    "wrong or incomplete. Prefer patch over edit.",
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "name": {"type": "string", "description": "Lowercase letters, digits, '-', '.', '_'."},
            "content": {
                "type": "string",
                "description": "create/edit: the whole SKILL.md: '---', name: and description: (what it "
                "does, when to use it), '---', then the steps.",
            },
            "category": {"type": "string", "description": "create: one folder name, e.g. devops."},
            "old_string": {"type": "string", "description": "patch: exact text to replace, unique."},
            "new_string": {"type": "string", "description": "patch: the replacement."},
            "replace_all": {"type": "boolean", "description": "patch: replace every match."},
            "file_path": {
                "type": "string",
                "description": "write_file/remove_file, or patch (default SKILL.md): a path under "
                "references/, templates/, scripts/ or assets/.",
            },
            "file_content": {"type": "string", "description": "write_file: the file's full text."},
            "absorbed_into": {"type": "string", "description": "delete: the skill that now covers this one."},
        },
        "required": ["action", "name"],
    },
}

SCHEMAS = (SKILLS_LIST_SCHEMA, SKILL_VIEW_SCHEMA, SKILL_MANAGE_SCHEMA)
LIST_SHORT_DESCRIPTION = 200  # characters per description when listing a large library without a category
LIST_SHORT_ABOVE = 50


class SkillTools:
    """The skill tools for one session: they share a library, a writer identity and the tier record."""

    def __init__(
        self,
        home: Home,
        config: Config | None = None,
        tiers: SessionTiers | None = None,
        session_id: str = "",
        who: str = "agent",
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        """`emit`, when given, receives a SkillLoaded for each view and a SkillChanged for each write."""
        self.config = config or defaults()
        self.emit = emit
        self.who = who
        self.library = SkillLibrary(home, self.config)
        self.session_id = session_id
        self.tiers = tiers if tiers is not None else SessionTiers(session_id)
        self.manager = SkillManager(self.library, who)
        self.write_approval = gate_on(self.config, "skills", who)  # the agent's writes wait for the person

    def index(self, budget: int | None = None) -> SkillIndex:
        """The Tier 1 text for this session's prompt; recorded as what the session has indexed."""
        result = self.library.index(budget)
        self.tiers.set_index(result)
        return result

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        handler = {
            "skills_list": self.skills_list,
            "skill_view": self.skill_view,
            "skill_manage": self.skill_manage,
        }
        if tool not in handler:
            return error(f"Unknown skill tool '{tool}'.")
        if not isinstance(args, dict):
            return error("Arguments must be a JSON object.")
        return handler[tool](args)

    def skills_list(self, args: dict[str, Any]) -> dict[str, Any]:
        catalog = self.library.catalog()
        skills, _excluded = self.library.visible(catalog)
        category = args.get("category")
        categories = sorted({s.category for s in skills if s.category})
        if category:
            category = str(category).strip().strip("/")
            chosen = [s for s in skills if s.category == category or s.category.startswith(category + "/")]
            if not chosen:
                return error(f"No skills in category '{category}'.", categories=categories)
            skills = chosen
        short = not category and len(skills) > LIST_SHORT_ABOVE
        rows = []
        for s in skills:
            text = s.description
            if short and len(text) > LIST_SHORT_DESCRIPTION:
                text = text[: LIST_SHORT_DESCRIPTION - 1].rstrip() + "…"
            rows.append({"name": s.name, "description": text, "category": s.category})
        hint = "Load one with skill_view(name)."
        if short:
            hint += " Descriptions are shortened; pass category for them in full."
        return {"success": True, "skills": rows, "categories": categories, "count": len(rows), "hint": hint}

    def skill_view(self, args: dict[str, Any]) -> dict[str, Any]:
        catalog = self.library.catalog()
        skill, problem = find_skill(catalog, args.get("name"))
        if problem:
            return problem
        assert skill is not None
        verdict = self.library.verdict(skill)
        if verdict is not None and verdict.blocked:
            return error(refusal(skill.name, verdict.reason), blocked=True)
        max_chars = int(self.config.get("file_read_max_chars"))
        file_path = args.get("file_path")
        if file_path:
            result = view_file(skill, file_path, max_chars)
            if result.get("success"):
                self.tiers.record_file(skill.name, result["file_path"], int(result.get("tokens", 0)))
                self._emit(
                    SkillLoaded(self.session_id, skill.name, result["file_path"], int(result["tokens"]))
                )
            return result
        result = view_skill(
            skill,
            max_chars,
            self.config,
            bool(self.config.skills.template_vars),
            self.session_id,
        )
        if result.get("success"):
            self.tiers.record_load(skill.name, int(result.get("tokens", 0)))
            self.library.usage.bump(skill.name, "view")
            self._emit(SkillLoaded(self.session_id, skill.name, "", int(result["tokens"])))
        return result

    def skill_manage(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.write_approval:
            result = stage_skill(self, args)
            if result.get("staged"):
                who = self.who
                self._emit(
                    WriteStaged(
                        self.session_id, "skills", result["pending_id"], result["action"], result["gist"], who
                    )
                )
            return result
        result = self.manager.run(args)
        if result.get("success"):
            self._emit(
                SkillChanged(
                    self.session_id,
                    result["name"],
                    result["action"],
                    self.who,
                    result["version"],
                    result["message"],
                )
            )
        return result

    def _emit(self, event: Event) -> None:
        if self.emit is not None:
            self.emit(event)

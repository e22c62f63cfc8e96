"""The skills of one home: its roots, the cached catalog, the Tier 1 index, and usage counters."""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from engine.config import Config, defaults
from engine.home import Home
from engine.skills.discovery import Catalog, Skill, SkillRoot, discover, shared_cache
from engine.skills.index import SkillIndex, build_index
from engine.skills.usage import UsageStore

if TYPE_CHECKING:
    from engine.skills.gate import SkillGate, SkillVerdict

CACHE_FILE = "skills-cache.json"
_INDEX_CACHE_SIZE = 8


class SkillLibrary:
    """Entry point for everything that reads skills; writers (manage, install) go through it too."""

    _rendered: ClassVar[OrderedDict[tuple[object, ...], SkillIndex]] = OrderedDict()

    def __init__(self, home: Home, config: Config | None = None) -> None:
        self.home = home
        self.config = config or defaults()
        self.usage = UsageStore(home.skills)
        self._gate: SkillGate | None = None

    @property
    def settings(self):  # type: ignore[no-untyped-def]
        return self.config.skills

    def roots(self) -> list[SkillRoot]:
        """The home's own folder first (it wins clashes), then each external folder, read-only."""
        roots = [SkillRoot(self.home.skills, "local")]
        own = self.home.skills.resolve()
        for raw in self.settings.external_dirs or []:
            if not isinstance(raw, str) or not raw.strip():
                continue
            path = Path(os.path.expandvars(raw.strip())).expanduser()
            if not path.is_absolute():
                path = self.home.root / path
            if path.resolve() == own:
                continue
            roots.append(SkillRoot(path, "external"))
        return roots

    def catalog(self) -> Catalog:
        """Every skill, re-parsing only files whose mtime or size changed since the last build."""
        cache = shared_cache(self.home.journal_dir / CACHE_FILE)
        return discover(self.roots(), int(self.settings.max_category_depth), cache)

    def visible(self, catalog: Catalog) -> tuple[list[Skill], list[str]]:
        """Skills offered to the model, and the names kept out (disabled, or for another platform).

        Skills the guard blocks are left out too (see `blocked`), and are in neither list.
        """
        disabled = {str(n) for n in (self.settings.disabled or [])}
        shown, excluded = [], []
        for skill in catalog.skills:
            if skill.name in disabled or not skill.available_here:
                excluded.append(skill.name)
            else:
                shown.append(skill)
        blocked = self.blocked(shown)
        return [s for s in shown if s.name not in blocked], excluded

    @property
    def gate(self) -> SkillGate:
        """The guard's verdicts for this home's skills (built on first use)."""
        if self._gate is None:
            from engine.skills.gate import SkillGate
            from engine.skills.guard import GuardLimits

            self._gate = SkillGate(self.home, GuardLimits.from_config(self.settings))
        return self._gate

    def blocked(self, skills: list[Skill]) -> dict[str, str]:
        """Name -> reason for each of `skills` the guard blocks (none when `skills.guard_at_use` is off)."""
        if not bool(self.settings.guard_at_use) or not skills:
            return {}
        found = self.gate.blocked(skills)
        self.gate.save()
        return found

    def verdict(self, skill: Skill) -> SkillVerdict | None:
        """The guard's verdict on one skill (None when `skills.guard_at_use` is off)."""
        if not bool(self.settings.guard_at_use):
            return None
        verdict = self.gate.verdict(skill)
        self.gate.save()
        return verdict

    def _priority(self, usage: dict[str, dict[str, object]], skill: Skill) -> tuple[int, float]:
        uses, recent = self.usage.priority(usage, skill.name)  # type: ignore[arg-type]
        return uses, max(recent, skill.mtime_ns / 1e9)

    def index(self, budget: int | None = None, catalog: Catalog | None = None) -> SkillIndex:
        """The Tier 1 text; rebuilt only when a skill file, the usage counters or the budget changed."""
        catalog = catalog or self.catalog()
        budget = int(budget if budget is not None else self.settings.index_token_budget)
        min_tokens = int(self.settings.index_min_description_tokens)
        skills, excluded = self.visible(catalog)
        shown = {s.name for s in skills}
        blocked = tuple(
            sorted(s.name for s in catalog.skills if s.name not in shown and s.name not in excluded)
        )
        usage = self.usage.load()
        key = (
            tuple(sorted(catalog.manifest.items())),
            budget,
            min_tokens,
            tuple(excluded),
            blocked,
            tuple(sorted((n, *self.usage.priority(usage, n)) for n in usage)),
        )
        cached = self._rendered.get(key)
        if cached is not None:
            self._rendered.move_to_end(key)
            return cached
        result = build_index(
            skills,
            catalog.categories,
            budget,
            min_tokens,
            lambda s: self._priority(usage, s),
            excluded,
        )
        result = replace(result, blocked=blocked) if blocked else result
        self._rendered[key] = result
        while len(self._rendered) > _INDEX_CACHE_SIZE:
            self._rendered.popitem(last=False)
        return result

"""Tier 1: the skills index in the system prompt, fitted to a token budget instead of growing without bound.

Every skill keeps its name. Descriptions share what the budget leaves: each gets up to the same
number of tokens (the largest cap that fits), and what remains goes to the most-used and most-recent
skills first. When even the names do not fit, the least-used names are folded into a per-category
count that tells the model how to list them, and the result reports every cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.skills.discovery import Skill
from engine.text import tokens

HEADING = "## Skills (mandatory)"
GUIDE = (
    "Before replying, scan the skills below. If one fits the task even partly, load it with "
    "skill_view(name) and follow it; when unsure, load it. If a skill you followed was wrong or "
    "incomplete, fix it at once with skill_manage(action='patch'). After a hard task (5+ tool calls, "
    "a tricky fix, a method the user corrected), offer to save the approach as a skill."
)
CUT_NOTE = "Descriptions ending in … are cut short; skill_view(name) shows the whole skill."
CLOSING = "Only proceed without loading a skill if genuinely none are relevant to the task."
ELLIPSIS = "…"
CATEGORY_DESCRIPTION_TOKENS = 16  # category blurbs are context, not the point; keep them short


@dataclass(frozen=True)
class IndexEntry:
    """How one skill appears in the index, and what it costs there."""

    name: str
    category: str
    shown: str  # full | cut | name | hidden
    tokens: int


@dataclass(frozen=True)
class SkillIndex:
    """The Tier 1 text exactly as the model sees it, with its exact token count and what was cut."""

    text: str
    tokens: int
    budget: int
    entries: tuple[IndexEntry, ...] = ()
    excluded: tuple[str, ...] = ()  # disabled, or for another platform
    warnings: tuple[str, ...] = field(default=(), compare=False)
    blocked: tuple[str, ...] = ()  # left out by the skills guard (never shown to the model)

    def count(self, shown: str) -> int:
        return sum(1 for e in self.entries if e.shown == shown)

    def entry(self, name: str) -> IndexEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def summary(self) -> str:
        """One line for the UI and the CLI: how full the budget is and what was cut."""
        if not self.entries:
            blocked = f" ({len(self.blocked)} blocked by the skills guard)" if self.blocked else ""
            return f"Skills index: no skills{blocked}."
        full = self.count("full")
        parts = [f"{full} full description{'s' if full != 1 else ''}"]
        if self.count("cut"):
            parts.append(f"{self.count('cut')} cut short")
        if self.count("name"):
            parts.append(f"{self.count('name')} names only")
        if self.count("hidden"):
            parts.append(f"{self.count('hidden')} folded into counts (budget too small for every name)")
        if self.excluded:
            parts.append(f"{len(self.excluded)} excluded (disabled or other platform)")
        if self.blocked:
            parts.append(f"{len(self.blocked)} blocked by the skills guard (hws skills list says why)")
        return (
            f"Skills index: {len(self.entries)} skill{'s' if len(self.entries) != 1 else ''} in "
            f"{self.tokens:,}/{self.budget:,} tokens — " + ", ".join(parts) + "."
        )


@dataclass
class _Plan:
    cap: int = 0  # description tokens each described skill may use
    described: set[str] = field(default_factory=set)
    extra: dict[str, int] = field(default_factory=dict)  # tokens above the cap, by priority
    hidden: set[str] = field(default_factory=set)
    category_blurbs: bool = True
    collapsed: bool = False  # not even one line per category fits: a single line points to skills_list
    terse: bool = False  # the budget is below the guide paragraph itself


@dataclass
class _Costs:
    name_in_list: dict[str, int]
    line_overhead: dict[str, int]
    description: dict[str, int]
    category_line: dict[str, int]
    category_bare: dict[str, int]
    fixed: int
    names_line: int
    more_line: int


def _measure(skills: Sequence[Skill], categories: dict[str, str]) -> _Costs:
    cats = sorted({s.category for s in skills})
    texts: list[str] = []
    for s in skills:
        texts += [f" {s.name}", f"    - {s.name}:\n", f" {s.description}"]
    for c in cats:
        texts.append(_category_line(c, _short_blurb(categories.get(c, ""))) if c else "")
    for c in cats:
        texts.append(_category_line(c, "") if c else "")
    fixed_text = "\n".join([HEADING, GUIDE, "<available_skills>", "</available_skills>", CLOSING])
    texts += [fixed_text, "   \n", "    (+99 more: skills_list(category='x'))\n"]
    counts = tokens.count_many(texts)
    n = len(skills)
    name_in_list = {s.name: counts[3 * i] for i, s in enumerate(skills)}
    overhead = {s.name: counts[3 * i + 1] for i, s in enumerate(skills)}
    description = {s.name: (counts[3 * i + 2] if s.description else 0) for i, s in enumerate(skills)}
    k = len(cats)
    category_line = dict(zip(cats, counts[3 * n : 3 * n + k], strict=True))
    category_bare = dict(zip(cats, counts[3 * n + k : 3 * n + 2 * k], strict=True))
    fixed, names_line, more_line = counts[3 * n + 2 * k :]
    return _Costs(
        name_in_list, overhead, description, category_line, category_bare, fixed, names_line, more_line
    )


def _short_blurb(description: str) -> str:
    if not description:
        return ""
    return _cut(description, CATEGORY_DESCRIPTION_TOKENS)


def _category_line(category: str, blurb: str) -> str:
    return f"  {category}: {blurb}\n" if blurb else f"  {category}:\n"


def _cut(text: str, max_tokens: int) -> str:
    """A prefix of `text` within `max_tokens` (one of them the ellipsis), ending on a word where it can."""
    if tokens.count(text) <= max_tokens:
        return text
    cut = tokens.truncate(text, max(1, max_tokens - 1)).rstrip()
    space = cut.rfind(" ")
    if space > len(cut) // 2 and not text[len(cut) : len(cut) + 1].isspace():
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—(") + ELLIPSIS


def _cost(plan: _Plan, skills: Sequence[Skill], costs: _Costs) -> int:
    total = costs.fixed
    listed_by_cat: dict[str, int] = {}
    hidden_by_cat: dict[str, int] = {}
    for s in skills:
        if s.name in plan.hidden:
            hidden_by_cat[s.category] = hidden_by_cat.get(s.category, 0) + 1
        elif s.name in plan.described:
            d = costs.description[s.name]
            allowed = plan.cap + plan.extra.get(s.name, 0)
            total += costs.line_overhead[s.name] + min(d, allowed) + (1 if d > allowed else 0)
        else:
            listed_by_cat[s.category] = listed_by_cat.get(s.category, 0) + 1
            total += costs.name_in_list[s.name]
    total += costs.names_line * len(listed_by_cat) + costs.more_line * len(hidden_by_cat)
    total += sum((costs.category_line if plan.category_blurbs else costs.category_bare).values())
    return total


def _described_cost(d: int, allowed: int) -> int:
    return min(d, allowed) + (1 if d > allowed else 0)


def _plan(skills: Sequence[Skill], costs: _Costs, budget: int, min_tokens: int) -> _Plan:
    """Choose who gets a description and how long, from the cheap per-piece costs (linear time)."""
    listed = {c: 0 for c in costs.category_line}
    for s in skills:
        listed[s.category] += 1
    names_only = _Plan()
    cost = _cost(names_only, skills, costs)
    if cost > budget:
        names_only.category_blurbs = False
        cost = _cost(names_only, skills, costs)
        hidden_in: set[str] = set()
        for s in reversed(skills):  # least-used first
            if cost <= budget:
                break
            names_only.hidden.add(s.name)
            cost -= costs.name_in_list[s.name]
            listed[s.category] -= 1
            if listed[s.category] == 0:
                cost -= costs.names_line
            if s.category not in hidden_in:
                hidden_in.add(s.category)
                cost += costs.more_line
        if cost > budget:
            names_only.collapsed = True
            names_only.hidden = {s.name for s in skills}
            names_only.terse = costs.fixed + costs.more_line > budget
        return names_only
    with_text = [s for s in skills if costs.description[s.name] > 0]
    everyone = _Plan(described={s.name for s in with_text})
    low, high = min_tokens, max([costs.description[s.name] for s in with_text], default=0)
    everyone.cap = low
    if high >= low and _cost(everyone, skills, costs) <= budget:
        while low < high:  # the largest common cap that fits
            mid = (low + high + 1) // 2
            everyone.cap = mid
            if _cost(everyone, skills, costs) <= budget:
                low = mid
            else:
                high = mid - 1
        everyone.cap = low
        spare = budget - _cost(everyone, skills, costs)
        for s in with_text:  # what is left goes to the most-used first
            d = costs.description[s.name]
            if d <= everyone.cap or spare <= 0:
                continue
            before = _described_cost(d, everyone.cap)
            give = min(d - everyone.cap, spare)
            while give > 0 and _described_cost(d, everyone.cap + give) - before > spare:
                give -= 1
            if give > 0:
                everyone.extra[s.name] = give
                spare -= _described_cost(d, everyone.cap + give) - before
        return everyone
    some = _Plan(cap=min_tokens)  # not even the shortest useful text for all: the most-used get it
    for s in with_text:
        delta = (
            costs.line_overhead[s.name]
            + _described_cost(costs.description[s.name], some.cap)
            - costs.name_in_list[s.name]
            - (costs.names_line if listed[s.category] == 1 else 0)
        )
        if cost + delta <= budget:
            some.described.add(s.name)
            listed[s.category] -= 1
            cost += delta
    return some


def _render(
    plan: _Plan, skills: Sequence[Skill], categories: dict[str, str], costs: _Costs
) -> tuple[str, dict[str, str]]:
    by_cat: dict[str, list[Skill]] = {}
    for s in sorted(skills, key=lambda s: (s.category, s.name)):
        by_cat.setdefault(s.category, []).append(s)
    shown: dict[str, str] = {}
    lines = [HEADING] + ([] if plan.terse else [GUIDE]) + ["<available_skills>"]
    if plan.collapsed:
        count = len(skills)
        lines += [f"  ({count} skills in {len(by_cat)} categories: call skills_list() to see them)"]
        lines += ["</available_skills>", CLOSING]
        return "\n".join(lines), {s.name: "hidden" for s in skills}
    any_cut = False
    for category, members in by_cat.items():
        indent = "    " if category else "  "
        if category:
            blurb = _short_blurb(categories.get(category, "")) if plan.category_blurbs else ""
            lines.append(_category_line(category, blurb).rstrip("\n"))
        listed: list[str] = []
        hidden = 0
        for s in members:
            if s.name in plan.hidden:
                hidden += 1
                shown[s.name] = "hidden"
            elif s.name in plan.described:
                allowed = plan.cap + plan.extra.get(s.name, 0)
                text = s.description if costs.description[s.name] <= allowed else _cut(s.description, allowed)
                cut = text is not s.description
                any_cut = any_cut or cut
                shown[s.name] = "cut" if cut else "full"
                lines.append(f"{indent}- {s.name}: {text}")
            else:
                listed.append(s.name)
                shown[s.name] = "name"
        if listed:  # a bare line of names: skills shown by name only
            lines.append(indent + " ".join(listed))
        if hidden:
            where = f"category='{category}'" if category else ""
            lines.append(f"{indent}(+{hidden} more: skills_list({where}))")
    lines.append("</available_skills>")
    if any_cut:
        lines.append(CUT_NOTE)
    lines.append(CLOSING)
    return "\n".join(lines), shown


def build_index(
    skills: Sequence[Skill],
    categories: dict[str, str],
    budget: int,
    min_description_tokens: int,
    priority: Callable[[Skill], tuple[int, float]],
    excluded: Sequence[str] = (),
) -> SkillIndex:
    """Fit the index into `budget` tokens; the exact count of the final text is checked, not estimated."""
    if not skills:
        return SkillIndex("", 0, budget, (), tuple(excluded))
    ranked = sorted(skills, key=lambda s: (-priority(s)[0], -priority(s)[1], s.category, s.name))
    costs = _measure(ranked, categories)
    target = budget
    text, shown, total = "", {}, 0
    for _ in range(8):
        plan = _plan(ranked, costs, target, min_description_tokens)
        text, shown = _render(plan, ranked, categories, costs)
        total = tokens.count(text)
        if total <= budget:
            break
        target -= total - budget + 2  # piecewise counts drift a little from the whole; tighten and replan
    else:  # pragma: no cover - only a pathological tokenizer drift gets here
        plan = _Plan(category_blurbs=False, hidden={s.name for s in ranked})
        text, shown = _render(plan, ranked, categories, costs)
        total = tokens.count(text)
    entries = []
    for s in ranked:
        how = shown[s.name]
        if how == "hidden":
            cost = 0
        elif how == "name":
            cost = costs.name_in_list[s.name]
        else:
            allowed = plan.cap + plan.extra.get(s.name, 0)
            cost = costs.line_overhead[s.name] + min(costs.description[s.name], allowed + 1)
        entries.append(IndexEntry(s.name, s.category, how, cost))
    return SkillIndex(text, total, budget, tuple(entries), tuple(excluded))

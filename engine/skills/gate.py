"""Skills checked where they are used: the guard's verdict decides what the model may see.

Installing or writing a skill runs the guard, but a skill can also arrive by hand (copied into the
folder, an external folder, a `git pull`). So the verdict is asked for again wherever a skill is
served: the Tier 1 index, `skills_list` and `skill_view` leave out a skill the guard blocks, and the
person sees it listed as blocked with the reason (`hws skills list/view`, the skills pane). Verdicts
are kept by the folder's content stamp (`verdict_cache`), so an unchanged skill is not scanned again.

A skill is blocked when the install policy would not allow it for its trust level: skills in the
home's own folder are judged as agent-created (a dangerous verdict needs the person, who is not
there when the index is built), skills from external folders as community (caution is enough).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.home import Home
from engine.skills import guard
from engine.skills.discovery import Skill
from engine.skills.guard import ALLOW, CAUTION, DANGEROUS, GuardLimits, GuardReport, decide
from engine.skills.verdict_cache import CACHE_FILE, VerdictCache
from engine.text.printable import printable

REASON_FINDINGS = 2  # findings named in a blocked skill's reason


@dataclass(frozen=True)
class SkillVerdict:
    """The guard's word on one skill: verdict, how many findings, and why it is blocked ("" if not)."""

    verdict: str
    findings: int
    reason: str = ""

    @property
    def blocked(self) -> bool:
        return bool(self.reason)


def trust_of(skill: Skill) -> str:
    return "community" if skill.read_only else "agent-created"


def reason_of(report: GuardReport) -> str:
    """A short, printable account of the worst findings: `dangerous: scripts/x.py:4 rule (why)`."""
    worst = [f for f in report.sorted_findings() if f.severity in ("critical", "high")][:REASON_FINDINGS]
    shown = "; ".join(
        f"{f.file}:{f.line} {f.rule} ({f.description})" if f.line else f"{f.file} {f.rule} ({f.description})"
        for f in worst
    )
    return printable(f"{report.verdict}: {shown}" if shown else report.verdict)


class SkillGate:
    """Verdicts for the skills of one home, kept between runs; `save()` writes the kept ones back."""

    def __init__(self, home: Home, limits: GuardLimits) -> None:
        self.home = home
        self.limits = limits
        self.cache = VerdictCache(home.journal_dir / CACHE_FILE)

    def verdict(self, skill: Skill) -> SkillVerdict:
        """The kept verdict when the folder is unchanged, else a fresh scan (a crash-free one)."""
        trust = trust_of(skill)
        entry = self.cache.entry(skill.skill_dir, trust, self.limits)
        if entry is not None:
            verdict, findings, reason = entry
        else:
            try:
                report = guard.scan_folder(skill.skill_dir, skill.name, skill.source, trust, self.limits)
            except OSError as exc:  # the folder went away or cannot be listed: nothing to serve
                return SkillVerdict(DANGEROUS, 1, printable(f"cannot be read: {exc.strerror or exc}"))
            verdict, findings = report.verdict, len(report.findings)
            reason = reason_of(report) if verdict in (CAUTION, DANGEROUS) else ""
            self.cache.put(skill.skill_dir, trust, self.limits, verdict, findings, reason)
        blocked = decide(verdict, trust).action != ALLOW
        return SkillVerdict(verdict, findings, reason if blocked else "")

    def blocked(self, skills: list[Skill]) -> dict[str, str]:
        """Name -> reason for each of `skills` the guard blocks."""
        found = {}
        for skill in skills:
            verdict = self.verdict(skill)
            if verdict.blocked:
                found[skill.name] = verdict.reason
        return found

    def save(self) -> None:
        self.cache.save()


def refusal(name: str, reason: str) -> str:
    """The sentence `skill_view` answers with for a blocked skill."""
    return (
        f"Skill '{name}' is blocked by the skills guard ({reason}); its content is not shown to the model. "
        f"The person can review it with `hws skills view {name}` and remove or fix it."
    )

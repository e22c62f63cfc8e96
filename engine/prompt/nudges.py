"""When the agent should stop and learn: the three nudges, and the review prompt they make up.

- memory: every `memory.nudge_interval` user turns without a memory write, consider what is
  worth saving (the count restarts when memory is written, and is recovered on resume);
- skill_create: a turn of `skills.creation_nudge_tool_calls` (5) or more tool calls that saved no
  skill, consider saving the approach;
- skill_patch: a skill loaded with skill_view in a turn whose later tool calls failed, and not
  patched since, should be patched at once.

The tracker only decides; the agent runs the review in the background (see `engine.agent.review`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

MEMORY, SKILL_CREATE, SKILL_PATCH = "memory", "skill_create", "skill_patch"
SKILL_TOOLS = ("skills_list", "skill_view", "skill_manage")
REVIEW_MARK = "[Background review]"
NOTHING_TO_SAVE = "Nothing to save."


@dataclass(frozen=True)
class Nudge:
    kind: str  # memory | skill_create | skill_patch
    reason: str
    skills: tuple[str, ...] = ()


@dataclass
class _Turn:
    tool_calls: int = 0
    memory_written: bool = False
    skill_saved: bool = False
    loaded: list[str] = field(default_factory=list)  # skills viewed, in order
    failed_after: set[str] = field(default_factory=set)  # loaded skills followed by a failed call
    patched: set[str] = field(default_factory=set)


class NudgeTracker:
    """Counts turns and watches tool runs; `end_turn()` says which nudges are due."""

    def __init__(self, memory_interval: int, skill_tool_calls: int) -> None:
        self.memory_interval = int(memory_interval)
        self.skill_tool_calls = int(skill_tool_calls)
        self.turns_since_memory = 0
        self._turn = _Turn()

    def hydrate(self, history: Sequence[dict[str, Any]]) -> None:
        """After a resume: user turns since the last memory call in the stored conversation."""
        count = 0
        for message in reversed(history):
            if message.get("role") == "user":
                count += 1
            elif message.get("role") == "assistant" and any(
                (c.get("function") or {}).get("name") == "memory" for c in message.get("tool_calls") or ()
            ):
                break
        self.turns_since_memory = count

    def start_turn(self) -> None:
        self._turn = _Turn()

    def observe(self, name: str, arguments: dict[str, Any], ok: bool) -> None:
        """One finished tool call of the current turn."""
        turn = self._turn
        turn.tool_calls += 1
        if name == "memory" and ok:
            turn.memory_written = True
        elif name == "skill_view" and ok and arguments.get("name"):
            skill = str(arguments["name"]).rsplit("/", 1)[-1]
            if skill not in turn.loaded:
                turn.loaded.append(skill)
        elif name == "skill_manage" and ok:
            skill = str(arguments.get("name") or "")
            turn.skill_saved = True
            if arguments.get("action") in ("patch", "edit", "write_file"):
                turn.patched.add(skill)
        if not ok and name not in SKILL_TOOLS:
            turn.failed_after.update(turn.loaded)

    @property
    def tool_calls(self) -> int:
        return self._turn.tool_calls

    def end_turn(self, completed: bool = True) -> list[Nudge]:
        """The nudges due after this turn (none for an interrupted or failed one, but it still counts)."""
        turn = self._turn
        self.turns_since_memory = 0 if turn.memory_written else self.turns_since_memory + 1
        if not completed:
            return []
        due: list[Nudge] = []
        if self.memory_interval and self.turns_since_memory >= self.memory_interval:
            due.append(Nudge(MEMORY, f"{self.turns_since_memory} user turns without a memory write"))
            self.turns_since_memory = 0
        if turn.tool_calls >= self.skill_tool_calls and not turn.skill_saved:
            due.append(Nudge(SKILL_CREATE, f"the task took {turn.tool_calls} tool calls"))
        broken = tuple(s for s in turn.loaded if s in turn.failed_after and s not in turn.patched)
        if broken:
            names = ", ".join(broken)
            due.append(Nudge(SKILL_PATCH, f"tool calls failed after loading {names}", broken))
        return due


_PROMPTS = {
    MEMORY: (
        "Memory: has the user shared preferences, corrected you, or revealed facts about themselves or "
        "their environment that will matter in future sessions? Save each with the memory tool (about "
        "the user: target=user; about the environment: target=memory). The memory blocks in the system "
        "prompt were loaded at the session start; do not save what they already hold."
    ),
    SKILL_CREATE: (
        "Skill: the last task took {calls} tool calls. If its approach is reusable, save it as a skill "
        "with skill_manage(action='create'): a name, a description saying when to use it, and the "
        "steps that worked (not the ones that failed). If an existing skill covers it, patch that one."
    ),
    SKILL_PATCH: (
        "Skill fix: the skill {skills} was loaded for the last task and tool calls failed after that. "
        "If its steps were wrong or incomplete, patch it now with skill_manage(action='patch') so the "
        "next run succeeds; check it with skill_view first if needed."
    ),
}


def review_prompt(nudges: Iterable[Nudge], tool_calls: int) -> str:
    """The user message of a background review: what to consider, and the plain exit."""
    parts = [
        f"{REVIEW_MARK} Look back over the conversation above; the user does not see this exchange.",
    ]
    for nudge in nudges:
        template = _PROMPTS[nudge.kind]
        parts.append("- " + template.format(calls=tool_calls, skills=", ".join(nudge.skills)))
    parts.append(
        f"Act only through the tools offered. When nothing is worth saving, answer exactly "
        f"'{NOTHING_TO_SAVE}'"
    )
    return "\n".join(parts)

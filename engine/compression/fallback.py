"""The summary built without a model, for when no summariser answers: compression still goes ahead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.compression.messages import call_arguments, call_id, call_name, is_summary, text_of, tool_calls
from engine.compression.redact import redact

NOTE = (
    "(Built without a model because the summariser was unavailable: it lists the compacted turns "
    "mechanically. The full turns can be found with session_search.)"
)
PATH_KEYS = ("path", "file_path", "file", "filename", "directory", "cwd")


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fit(lines: list[str], budget: int, newest_first: bool = True) -> list[str]:
    """As many lines as fit in `budget` characters, keeping the newest, with a note of what was left out."""
    kept: list[str] = []
    used = 0
    ordered = list(reversed(lines)) if newest_first else lines
    for line in ordered:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    omitted = len(lines) - len(kept)
    if newest_first:
        kept.reverse()
    if omitted:
        note = f"…{omitted} earlier item(s) omitted…" if newest_first else f"…{omitted} more omitted…"
        kept = [note, *kept] if newest_first else [*kept, note]
    return kept


def fallback_summary(
    middle: Sequence[dict[str, Any]],
    previous: str | None,
    *,
    max_chars: int,
    turn_chars: int,
) -> str:
    """A sectioned summary from the messages themselves: goal, actions with outcomes, files, the turns."""
    results = {
        str(m.get("tool_call_id") or ""): text_of(m.get("content")) for m in middle if m.get("role") == "tool"
    }
    actions: list[str] = []
    files: dict[str, None] = {}
    turns: list[str] = []
    goal = ""
    for message in middle:
        role = message.get("role")
        if role == "tool" or is_summary(message):
            continue
        text = text_of(message.get("content")).strip()
        if role == "user" and text and not goal:
            goal = _one_line(text, turn_chars)
        if text:
            turns.append(f"[{str(role).upper()}]: {_one_line(text, turn_chars)}")
        for call in tool_calls(message):
            args = call_arguments(call)
            for key in PATH_KEYS:
                if isinstance(args.get(key), str) and args[key]:
                    files[args[key]] = None
            shown = ", ".join(f"{k}={_one_line(str(v), 60)}" for k, v in list(args.items())[:3])
            outcome = results.get(call_id(call))
            result = _one_line(outcome, 160) if outcome else "no result recorded"
            actions.append(f"{call_name(call)}({shown}) — {result}")
    sections: list[tuple[str, list[str]]] = []
    budget = max_chars - len(NOTE) - 200
    if previous:
        prev = previous.strip()
        limit = budget // 3
        if len(prev) > limit:
            prev = prev[:limit] + "…[cut]"
        sections.append(("Earlier Summary", [prev]))
        budget -= len(prev)
    sections.append(("Goal", [goal or "(not stated in the compacted turns)"]))
    numbered = [f"{i}. {a}" for i, a in enumerate(actions, 1)]
    sections.append(("Completed Actions", _fit(numbered, budget // 3) or ["None recorded."]))
    sections.append(("Relevant Files", _fit([f"- {p}" for p in files], budget // 8) or ["None recorded."]))
    used = sum(len(line) + 1 for _, lines in sections for line in lines)
    sections.append(("Compacted Turns", _fit(turns, max(0, max_chars - len(NOTE) - used - 200))))
    body = "\n\n".join(f"## {name}\n" + "\n".join(lines) for name, lines in sections if lines)
    return redact(f"{NOTE}\n\n{body}")[:max_chars]

"""The system prompt as an ordered list of named layers, built once per session.

Layers are ordered from the most stable to the least, so that the longest possible prefix stays the
same across sessions too: identity, guidance, the skills index and the project context change rarely;
the memory snapshots change when the agent learns; the session line changes every day. Within one
session every layer is frozen, so the bytes sent as the system prompt are identical on every call
until a compression or a new session rebuilds them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from engine.text import tokens

LAYER_ORDER = ("identity", "guidance", "skills", "context_files", "memory", "user", "session")
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Layer:
    """One named piece of the system prompt, with its size and whether it is part of the cached prefix."""

    name: str
    text: str
    cached: bool
    tokens: int
    source: str = ""  # the file it came from, if any
    note: str = ""  # what happened to it on the way (blocked, truncated, not UTF-8)


@dataclass(frozen=True)
class SystemPrompt:
    """The frozen layers of one session; `text` is exactly what the model receives as its system prompt."""

    layers: tuple[Layer, ...]
    built_at: float

    @property
    def text(self) -> str:
        return SEPARATOR.join(layer.text for layer in self.layers)

    @property
    def tokens(self) -> int:
        return sum(layer.tokens for layer in self.layers)

    @property
    def cached_tokens(self) -> int:
        return sum(layer.tokens for layer in self.layers if layer.cached)

    def layer(self, name: str) -> Layer | None:
        return next((layer for layer in self.layers if layer.name == name), None)

    def as_dict(self) -> dict[str, object]:
        return {
            "tokens": self.tokens,
            "cached_tokens": self.cached_tokens,
            "layers": [
                {
                    "name": ly.name,
                    "tokens": ly.tokens,
                    "cached": ly.cached,
                    "chars": len(ly.text),
                    "source": ly.source,
                    "note": ly.note,
                }
                for ly in self.layers
            ],
            "text": self.text,
        }


def guidance_text(tool_names: Iterable[str]) -> str:
    """How to use the tools that exist, said once; the routing rules decide where knowledge goes."""
    names = set(tool_names)
    lines = ["# How you work here"]
    if "memory" in names:
        lines += [
            "Memory routing, decided for every durable fact:",
            "- about the user (preferences, corrections, habits, role) -> memory target=user (USER.md);",
            "- about the environment (machines, projects, tools, conventions) -> memory target=memory"
            " (MEMORY.md);",
        ]
        if "skill_manage" in names:
            lines.append(
                "- a reusable procedure (a task of 5+ tool calls, a tricky fix, a method the user"
                " corrected) -> a skill via skill_manage;"
            )
        lines += [
            "- task state and progress -> nothing; the conversation is already recorded.",
            'Write memory entries as declarative facts ("User prefers dark themes", not "Always use'
            ' dark themes"); skip anything stale within a week (PR numbers, commit ids).',
            "The memory blocks below are a snapshot from the start of this session; your writes reach"
            " the files at once and the prompt at the next session.",
        ]
    if "skill_view" in names:
        lines.append("Before a task, check the skills index; load a skill with skill_view when it may apply.")
    if "skill_manage" in names:
        lines.append(
            "If a loaded skill's steps were wrong or incomplete, patch it with skill_manage at once."
        )
    if "session_search" in names:
        lines.append(
            'For anything from earlier sessions ("what did we decide about X"), use session_search'
            " before saying you do not know."
        )
    if "terminal" in names:
        lines.append("Destructive commands wait for the user's approval; a refusal is final for that step.")
    return "\n".join(lines)


def session_text(model: str, cwd: str, started: dt.datetime | None = None) -> str:
    """The session line: the date only (not the time), so the prompt is stable all day."""
    started = started or dt.datetime.now()
    parts = [f"Conversation started: {started.strftime('%A, %B %d, %Y')}"]
    if model:
        parts.append(f"Model: {model}")
    if cwd:
        parts.append(f"Working directory: {cwd}")
    return "\n".join(parts)


def make_layer(name: str, text: str | None, *, source: str = "", note: str = "") -> Layer | None:
    """A layer for non-empty text; empty text gives no layer at all (no blank sections in the prompt)."""
    if not text or not text.strip():
        return None
    cached = name != "session"
    return Layer(name, text.strip(), cached, tokens.count(text.strip()), source, note)


def assemble(layers: Iterable[Layer | None], built_at: float) -> SystemPrompt:
    """Order the given layers by LAYER_ORDER (unknown names go last, in the order given)."""
    present = [layer for layer in layers if layer is not None]
    rank = {name: index for index, name in enumerate(LAYER_ORDER)}
    present.sort(key=lambda layer: rank.get(layer.name, len(LAYER_ORDER)))
    return SystemPrompt(tuple(present), built_at)

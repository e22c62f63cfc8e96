"""Gather a session's system prompt from the home: the layers of `engine.prompt.layers`, read once.

    prompt = build_system_prompt(home, config, tool_names=registry.names, skills_index=skills.index(),
                                 snapshot=memory.load_snapshot(), cwd=cwd, model="gpt-x")

The result is frozen for the session: the agent sends `prompt.text` on every call and rebuilds it
only after a compression or for a new session, so a memory write mid-session reaches the files
but not the prompt.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import Config
from engine.home import Home
from engine.prompt.context_files import load_identity, load_project_context
from engine.prompt.layers import Layer, SystemPrompt, assemble, guidance_text, make_layer, session_text
from engine.text import tokens
from engine.threats.redact import home_redactor

if TYPE_CHECKING:
    from engine.memory.snapshot import MemorySnapshot
    from engine.skills.index import SkillIndex

PROJECT_CONTEXT_HEADER = "# Project context\n\nInstructions from the project you are working in:"
UNCACHED_LAYERS = ("session",)  # as in `engine.prompt.layers.make_layer`


def layer(
    name: str, text: str | None, *, exact: bool = True, source: str = "", note: str = ""
) -> Layer | None:
    """`make_layer`, or with `exact=False` the same layer sized by the cheap estimate.

    Exact counts load the tokenizer's vocabulary (about 150 ms a process); a one-shot `hws run`
    shows no gauges, and compression switches to the provider's own count after the first call.
    """
    if exact:
        return make_layer(name, text, source=source, note=note)
    if not text or not text.strip():
        return None
    body = text.strip()
    return Layer(name, body, name not in UNCACHED_LAYERS, tokens.estimate(body), source, note)


def _note(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def identity_layer(home: Home, config: Config, exact: bool = True) -> Layer | None:
    loaded = load_identity(home, int(config.get("context_file_max_chars")))
    text = home_redactor(home.root, config).tool_text(loaded.text)  # a file's secrets never reach the model
    note = loaded.note
    if loaded.blocked:
        note = _note(note, f"blocked: {', '.join(loaded.blocked)}")
    elif loaded.truncated_from:
        note = _note(note, f"truncated from {loaded.truncated_from:,} chars")
    return layer("identity", text, exact=exact, source=loaded.source, note=note)


def project_layer(
    cwd: Path, config: Config, exact: bool = True, redact: Callable[[str], str] = str
) -> Layer | None:
    loaded = load_project_context(cwd, int(config.get("context_file_max_chars")))
    if loaded is None:
        return None
    if not loaded.text:  # unreadable: no layer, but nothing to say in the prompt either
        return None
    note = loaded.note
    if loaded.blocked:
        note = _note(note, f"blocked: {', '.join(loaded.blocked)}")
    elif loaded.truncated_from:
        note = _note(note, f"truncated from {loaded.truncated_from:,} chars")
    text = f"{PROJECT_CONTEXT_HEADER}\n\n{redact(loaded.text)}"
    return layer("context_files", text, exact=exact, source=loaded.source, note=note)


def build_system_prompt(
    home: Home,
    config: Config,
    *,
    tool_names: Iterable[str],
    skills_index: SkillIndex | None,
    snapshot: MemorySnapshot | None,
    cwd: Path,
    model: str,
    started: dt.datetime | None = None,
    exact_tokens: bool = True,
) -> SystemPrompt:
    """Every layer, in the stable-to-volatile order of `engine.prompt.layers.LAYER_ORDER`."""
    names = list(tool_names)
    exact = exact_tokens
    redact = home_redactor(home.root, config).tool_text  # what files hold of secrets never reaches the model
    layers: list[Layer | None] = [
        identity_layer(home, config, exact),
        layer("guidance", guidance_text(names), exact=exact),
        project_layer(cwd, config, exact, redact),
        layer("session", session_text(model, str(cwd), started), exact=exact),
    ]
    if skills_index is not None and "skill_view" in names:
        skill_note = f"{len(skills_index.entries)} skills" if skills_index.entries else ""
        layers.append(layer("skills", skills_index.text, exact=exact, note=skill_note))
    if snapshot is not None and "memory" in names:
        for target in ("memory", "user"):
            source = str(home.memories / ("MEMORY.md" if target == "memory" else "USER.md"))
            layers.append(layer(target, redact(snapshot.block(target)), exact=exact, source=source))
    return assemble(layers, time.time())


def stored_prompt(text: str, exact_tokens: bool = True) -> SystemPrompt:
    """A prompt kept in the session database: resumed byte for byte, as one cached layer."""
    size = tokens.count(text) if exact_tokens else tokens.estimate(text)
    stored = Layer("stored", text, True, size, source="state.db", note="resumed session")
    return SystemPrompt((stored,), time.time())


def tool_schema_text(schemas: list[dict[str, Any]]) -> str:
    """The tool schemas as they go over the wire (the JSON the request body carries)."""
    return json.dumps(schemas, ensure_ascii=False) if schemas else ""


def tool_schema_tokens(schemas: list[dict[str, Any]], exact: bool = True) -> int:
    text = tool_schema_text(schemas)
    return tokens.count(text) if exact else tokens.estimate(text)

"""Opening a session for the agent: the store, a new or resumed session, and its frozen prompt.

A new session gets a prompt built from the home now. A resumed one (followed along its
compression chain to the newest child) gets the prompt stored with it, byte for byte, so a
resumed conversation hits the same provider cache and says what it said before; the layers are
rebuilt only to be shown when they still add up to the stored text.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.history import from_records
from engine.prompt.build import build_system_prompt, stored_prompt
from engine.prompt.layers import SystemPrompt

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home
    from engine.memory.store import Memory
    from engine.sessions.store import SessionStore
    from engine.skills.tools import SkillTools


class AgentError(Exception):
    """The agent cannot start or go on; the message is one sentence saying what to do."""


class AgentBusy(AgentError):
    """A turn is already running."""


@dataclass
class OpenedSession:
    session_id: str
    prompt: SystemPrompt
    history: list[dict[str, Any]]
    started_at: float
    resumed: bool
    title: str = ""


async def open_store(home: Home, config: Config) -> SessionStore:
    from engine.sessions.errors import StoreError
    from engine.sessions.store import SessionStore
    from engine.threats.redact import home_redactor

    try:
        store = await SessionStore.open(
            home.state_db, settings=config.sessions, redactor=home_redactor(home.root, config)
        )
    except StoreError as exc:
        raise AgentError(str(exc)) from exc
    if store.read_only:
        reason = store.read_only_reason
        await store.close()
        raise AgentError(f"{reason} The agent records every message, so it cannot run on it.")
    return store


async def stored_system_prompt(store: SessionStore, session_id: str) -> str | None:
    """The system prompt recorded with a session (read through the store's own connection)."""
    return await store.get_system_prompt(session_id)


async def fresh_prompt(
    home: Home,
    config: Config,
    *,
    tool_names: list[str],
    memory: Memory,
    skills: SkillTools,
    cwd: Path,
    model: str,
    started: dt.datetime | None = None,
    exact_tokens: bool = True,
) -> SystemPrompt:
    """The layers as the home holds them now (file reads and scans run off the event loop)."""

    def build() -> SystemPrompt:
        return build_system_prompt(
            home,
            config,
            tool_names=tool_names,
            skills_index=skills.index() if "skill_view" in tool_names else None,
            snapshot=memory.load_snapshot() if "memory" in tool_names else None,
            cwd=cwd,
            model=model,
            started=started,
            exact_tokens=exact_tokens,
        )

    return await asyncio.to_thread(build)


async def open_session(
    store: SessionStore,
    home: Home,
    config: Config,
    *,
    resume: str | None,
    source: str,
    tool_names: list[str],
    memory: Memory,
    skills: SkillTools,
    cwd: Path,
    model: str,
    exact_tokens: bool = True,
) -> OpenedSession:
    """Create a session, or resume `resume` (an id, unique prefix or title) at the tip of its chain."""
    from engine.sessions.errors import SessionNotFound

    if resume is None:
        prompt = await fresh_prompt(
            home,
            config,
            tool_names=tool_names,
            memory=memory,
            skills=skills,
            cwd=cwd,
            model=model,
            exact_tokens=exact_tokens,
        )
        record = await store.create_session(
            source=source, model=model or None, system_prompt=prompt.text, cwd=str(cwd)
        )
        return OpenedSession(record.id, prompt, [], record.started_at, False)
    try:
        first = await store.find_session(resume)
    except SessionNotFound as exc:
        raise AgentError(f"{exc} List sessions with `hws sessions list`.") from exc
    tip_id = await store.compression_tip(first.id)
    record = await store.get_session(tip_id)
    assert record is not None
    if record.ended:
        await store.reopen_session(record.id)
    history = from_records(await store.get_messages(record.id))
    started = dt.datetime.fromtimestamp(record.started_at)
    rebuilt = await fresh_prompt(
        home,
        config,
        tool_names=tool_names,
        memory=memory,
        skills=skills,
        cwd=cwd,
        model=record.model or model,
        started=started,
        exact_tokens=exact_tokens,
    )
    stored = await stored_system_prompt(store, record.id)
    if stored is None:
        await store.update_session(record.id, system_prompt=rebuilt.text)
        prompt = rebuilt
    else:
        prompt = rebuilt if rebuilt.text == stored else stored_prompt(stored, exact_tokens)
    title = record.title or first.title or ""
    return OpenedSession(record.id, prompt, history, record.started_at, True, title)

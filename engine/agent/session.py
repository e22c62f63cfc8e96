"""The agent's open session (`AgentSession`) and opening one: the store, a new or resumed session, its prompt.

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

from engine.agent.api_history import from_records
from engine.agent.errors import AgentError
from engine.prompt.build import build_system_prompt, stored_prompt
from engine.prompt.layers import SystemPrompt
from engine.prompt.nudges import NudgeTracker

if TYPE_CHECKING:
    from engine.compression.compressor import Compressor
    from engine.config import Config
    from engine.guarded_settings import GuardedWatch
    from engine.home import Home
    from engine.memory.store import Memory
    from engine.providers.host import ProviderHost
    from engine.sessions.records import MessageRecord
    from engine.sessions.store import SessionStore
    from engine.skills.tools import SkillTools
    from engine.tools.context import ToolContext


@dataclass
class SessionTools:
    """What a session's tools write through, made anew for each session (memory and skills as the home
    holds them when it opens)."""

    memory: Memory
    skills: SkillTools
    ctx: ToolContext
    guarded: GuardedWatch  # the guarded settings as the session began


@dataclass
class AgentSession:
    """One open session: its id, frozen prompt and history, what its tools write through, and its counts.

    The agent holds one at a time; `/new` and a compression split move it to another.
    """

    session_id: str
    prompt: SystemPrompt
    history: list[dict[str, Any]]
    started_at: float
    resumed: bool
    tools: SessionTools
    nudges: NudgeTracker
    turns: int = 0  # user turns in the conversation so far
    flushed_at_turn: int = 0  # `turns` when memories were last flushed (session start, compression)
    user_message: tuple[str, int] | None = None  # (session, id) of the last user message as stored
    usage_mark: tuple[int, int] | None = None  # (tokens of the last call, history length then)
    compressor: Compressor | None = None
    host: ProviderHost | None = None  # the memory provider, when one is configured
    title: str = ""  # a resumed conversation's title, as stored

    @property
    def memory(self) -> Memory:
        return self.tools.memory

    @property
    def skills(self) -> SkillTools:
        return self.tools.skills

    @property
    def ctx(self) -> ToolContext:
        return self.tools.ctx

    @property
    def system_message(self) -> dict[str, Any]:
        return {"role": "system", "content": self.prompt.text}

    def use(self, session_id: str, prompt: SystemPrompt) -> None:
        """Go on as `session_id` with `prompt` (a new session, or the child a compression made)."""
        self.session_id = session_id
        self.prompt = prompt
        self.usage_mark = None
        self.tools.skills.session_id = session_id
        self.tools.memory.session_id = session_id
        self.tools.skills.tiers.session_id = session_id
        self.tools.ctx.session_id = session_id


def _session(
    config: Config,
    tools: SessionTools,
    session_id: str,
    prompt: SystemPrompt,
    started_at: float,
    records: list[MessageRecord] | None = None,
) -> AgentSession:
    """The object for a new session (no records) or a resumed one, its nudges counted from its history."""
    history = from_records(records) if records else []
    nudges = NudgeTracker(int(config.memory.nudge_interval), int(config.skills.creation_nudge_tool_calls))
    if records is not None:
        nudges.hydrate(history)
    turns = sum(1 for m in history if m.get("role") == "user")
    last_user = next(((session_id, r.id) for r in reversed(records or []) if r.role == "user"), None)
    session = AgentSession(
        session_id, prompt, history, started_at, records is not None, tools, nudges, turns, turns, last_user
    )
    session.use(session_id, prompt)
    return session


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
    tools: SessionTools,
    cwd: Path,
    model: str,
    exact_tokens: bool = True,
) -> AgentSession:
    """Create a session, or resume `resume` (an id, unique prefix or title) at the tip of its chain."""
    from engine.sessions.errors import SessionNotFound

    memory, skills = tools.memory, tools.skills
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
        return _session(config, tools, record.id, prompt, record.started_at)
    try:
        first = await store.find_session(resume)
    except SessionNotFound as exc:
        raise AgentError(f"{exc} List sessions with `hws sessions list`.") from exc
    tip_id = await store.tree.compression_tip(first.id)
    record = await store.get_session(tip_id)
    assert record is not None
    if record.ended:
        await store.reopen_session(record.id)
    records = await store.get_messages(record.id)
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
    session = _session(config, tools, record.id, prompt, record.started_at, records)
    session.title = record.title or first.title or ""
    return session

"""Pixels of each pane on its own, zoomed, in the middle of a session (100×32, fixed clock and home).

The home is real: memory written through the engine (its journal dated by a fixed clock), three
skills on disk, past conversations in state.db with fixed times. The agent is scripted, but its
session is the engine's: a frozen prompt built from that home (so the memory pane can show what
the model sees beside what is on disk), the real tool registry, and the real skill tiers with one
skill loaded and one of its files opened.

Accept changes with `pytest tests/snapshots/test_snapshots_panes.py --snapshot-update` after reading the SVGs.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from pathlib import Path
from typing import Any

import pytest

from engine import events
from engine.config import load_config
from engine.home import Home
from tests.snapshots.test_snapshots import STABLE_WORKDIR, freeze
from tests.support.tui_support import (
    FIXED_WALL_TIME,
    MODEL_CONFIG,
    SESSION,
    ScriptedAgent,
    make_app,
    make_home,
)
from tui import messages

SIZE = (100, 32)
NEXT = "20260101_130000_d4e5f6"

SKILLS = {
    "ops/deploy-static": (
        "Deploy a static site with rsync and check the live pages.",
        "1. Build the site.\n2. rsync dist/ to the server.\n3. Open the home page and check the links.\n",
        {"references/rsync.md": "# rsync\n\nrsync -avz --delete dist/ web:/srv/site/\n"},
    ),
    "web/astro-navbar": (
        "Build an accessible Astro navbar with an underlined active link.",
        "1. Read src/layout.astro.\n2. Add the Nav component.\n3. Style the active link.\n",
        {},
    ),
    "writing/changelog": (
        "Write a changelog entry from the merged pull requests.",
        "1. List the merged PRs.\n2. Group them.\n3. Write one line each.\n",
        {},
    ),
}

REPLY = (
    "The navbar is in place, with the **active** link underlined.\n\n"
    "- dark background\n- collapses below 640px\n"
)

TURN: list[events.Event] = [
    events.ToolCalled(SESSION, "c1", "skill_view", {"name": "deploy-static"}, "deploy-static"),
    events.ToolFinished(SESSION, "c1", "skill_view", True, "loaded deploy-static", 0.1),
    events.ToolCalled(SESSION, "c2", "terminal", {"command": "npm run build"}, "npm run build"),
    events.ToolFinished(SESSION, "c2", "terminal", True, "exit 0", 3.2),
    events.MemoryWritten(SESSION, "user", "add", "agent", "j3", "Hates light themes"),
    events.SkillChanged(SESSION, "astro-navbar", "patch", "agent", "2", "underline the active link"),
    events.TextDelta(SESSION, REPLY),
    events.Usage(SESSION, 21_400, 380, cached_tokens=17_900, cost_usd=0.009),
    events.TurnFinished(SESSION, REPLY, tool_calls=2),
    events.CompressionStarted(SESSION, "threshold", 64_000),
    events.CompressionPhase(SESSION, "flush", 64_000, 64_000, {"writes": 1}),
    events.CompressionPhase(SESSION, "summarize", 64_000, 9_400),
    events.CompressionFinished(
        SESSION, SESSION, NEXT, 64_000, 9_400, "We built the docs navbar and deployed it.", ("memory add",)
    ),
]


class PaneAgent(ScriptedAgent):
    """A scripted agent holding an engine session's state: frozen prompt, tool registry, skill tiers."""

    def __init__(self, home: Home) -> None:
        super().__init__()
        from engine.memory.store import Memory
        from engine.prompt.build import build_system_prompt
        from engine.skills.tiers import SessionTiers
        from engine.skills.tools import SkillTools
        from engine.tools.knowledge import agent_registry

        config = load_config(home.root)
        self.registry = agent_registry()
        self.skills = SkillTools(home, config, tiers=SessionTiers(SESSION), session_id=SESSION)
        memory = Memory(home, config)
        self.prompt = build_system_prompt(
            home,
            config,
            tool_names=self.registry.names,
            skills_index=self.skills.index(),
            snapshot=memory.load_snapshot(),
            cwd=STABLE_WORKDIR,
            model="test-model",
            started=dt.datetime.fromtimestamp(FIXED_WALL_TIME),
        )
        self.history: list[dict[str, Any]] = [{"role": "user", "content": "Add a navbar to the docs site."}]

    def estimated_tokens(self) -> int:
        return self.prompt.tokens + 3_100


def write_skills(home: Home) -> None:
    for path, (description, steps, files) in SKILLS.items():
        folder = home.skills / path
        (folder / "references").mkdir(parents=True, exist_ok=True)
        name = path.split("/")[1]
        text = f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{steps}"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        for relative, body in files.items():
            (folder / relative).write_text(body, encoding="utf-8")


async def seed_conversations(home: Home) -> None:
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home.state_db)
    try:
        for offset, (title, lines) in enumerate(
            [
                ("Docs navbar", ["Add a navbar to the docs site.", "Done: the navbar is in place."]),
                ("", ["Deploy the docs site tonight", "Deployed with rsync; the links work."]),
                ("Changelog for 2.4", ["Write the changelog", "Here is the changelog for 2.4."]),
            ]
        ):
            began = FIXED_WALL_TIME - (3 - offset) * 86_400
            session = await store.create_session(
                source="cli",
                model="test-model",
                title=title or None,
                started_at=began,
                session_id=time.strftime("%Y%m%d_%H%M%S", time.gmtime(began)) + f"_00000{offset}",
            )
            for index, text in enumerate(lines):
                role = "user" if index % 2 == 0 else "assistant"
                await store.append_message(session.id, role, text, timestamp=began + 60 * (index + 1))
            await store.end_session(session.id, "user_exit")
    finally:
        await store.close()


@pytest.fixture
def pane_app(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The app on a home mid-session: USER.md got an entry after the session's prompt was frozen."""
    home = make_home(MODEL_CONFIG)
    write_skills(home)
    asyncio.run(seed_conversations(home))
    from engine.memory.store import Memory

    with monkeypatch.context() as fixed:  # journal entries dated by the fixed clock, as the panes draw it
        fixed.setattr(time, "time", lambda: FIXED_WALL_TIME)
        memory = Memory(home, load_config(home.root))
        memory.store("memory").add("The docs site is built with Astro and deployed with rsync.")
        memory.store("user").add("Name: Dana")
        agent = PaneAgent(home)  # the session starts: its prompt freezes memory as it is now
        memory.store("user").add("Hates light themes")  # on disk, for the next session only
    agent.skills.call("skill_view", {"name": "deploy-static"})
    agent.skills.call("skill_view", {"name": "deploy-static", "file_path": "references/rsync.md"})
    return make_app(MODEL_CONFIG, agent=agent, workdir=STABLE_WORKDIR)


async def mid_session(pilot: Any) -> None:
    app = pilot.app
    await pilot.pause()
    main = app.main_screen
    main.post_message(messages.TurnSubmitted("Add a navbar to the docs site."))
    for event in TURN:
        main.post_message(messages.to_message(event))
    await pilot.pause()
    await app.workers.wait_for_complete()
    app.pane_feeds.refresh()
    await app.workers.wait_for_complete()
    await pilot.pause()


def zoomed(key: str) -> Any:
    async def run_before(pilot: Any) -> None:
        await mid_session(pilot)
        await pilot.press(key, "f10")
        await pilot.app.workers.wait_for_complete()
        await freeze(pilot)

    return run_before


def test_transcript_pane(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pane_app, terminal_size=SIZE, run_before=zoomed("f1"))


def test_memory_pane_with_the_frozen_snapshot_beside_the_disk(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pane_app, terminal_size=SIZE, run_before=zoomed("f2"))


def test_budget_pane(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pane_app, terminal_size=SIZE, run_before=zoomed("f3"))


def test_skills_pane_tiers(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pane_app, terminal_size=SIZE, run_before=zoomed("f4"))


def test_compression_timeline(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(pane_app, terminal_size=SIZE, run_before=zoomed("f5"))


def test_sessions_screen(snap_compare, pane_app) -> None:  # type: ignore[no-untyped-def]
    async def sessions(pilot: Any) -> None:
        await mid_session(pilot)
        await pilot.press("ctrl+r")
        screen = pilot.app.screen
        for _ in range(200):
            if getattr(screen, "rows", None) and not screen.reading:
                break
            await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen.query_one("#session-search").cursor_blink = False
        await pilot.pause()

    assert snap_compare(pane_app, terminal_size=SIZE, run_before=sessions)


def test_the_home_is_what_the_snapshots_claim(pane_app) -> None:  # type: ignore[no-untyped-def]
    """The frozen prompt lacks the entry written after it; the disk has it (so the diff is real)."""
    from tui.read_panes import frozen_entries

    agent = pane_app.agent
    assert frozen_entries(agent.prompt, "user") == ("Name: Dana",)
    disk = (Path(pane_app.home.memories) / "USER.md").read_text(encoding="utf-8")
    assert "Hates light themes" in disk
    tiers = {row.name: row for row in agent.skills.tiers.rows()}
    assert tiers["deploy-static"].files and tiers["deploy-static"].loads

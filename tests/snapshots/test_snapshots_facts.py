"""Pixels of the memory pane while the local fact store is the memory provider (100×32, zoomed).

The home and the session are those of `test_snapshots_panes` (memory written through the engine, a
frozen prompt), with `memory.provider: holographic`; the turn's fact events are the engine's own
dataclasses: facts added, rated and removed this session, and the facts recalled into the turn.

Accept changes with `pytest tests/snapshots/test_snapshots_facts.py --snapshot-update` after reading the SVG.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from engine import events
from engine.config import load_config
from tests.snapshots.test_snapshots import STABLE_WORKDIR, freeze
from tests.snapshots.test_snapshots_panes import SIZE, PaneAgent
from tests.support.tui_support import FIXED_WALL_TIME, MODEL_CONFIG, SESSION, make_app, make_home
from tui import messages

CONFIG = MODEL_CONFIG + "memory:\n  provider: holographic\n"
EDITOR = events.RecalledFact(1, "The user's editor is Helix Editor", 0.85, "user_pref")
CLUSTER = events.RecalledFact(4, "The Berlin cluster runs Postgres 16", 0.5, "project")

FACT_EVENTS: list[events.Event] = [
    events.TurnStarted(SESSION, "Deploy the docs to the Berlin cluster", 1),
    events.FactsRecalled(SESSION, (EDITOR, CLUSTER)),
    events.FactWritten(SESSION, 7, "add", "The docs deploy needs rsync 3.2 or newer", 0.5, "project"),
    events.FactWritten(SESSION, 4, "feedback", CLUSTER.content, 0.55, "project"),
    events.FactWritten(SESSION, 3, "remove", "The staging host is called kiwi", 0.2, "project"),
    events.FactWritten(SESSION, 8, "add", "Dana reviews every deploy on Fridays", 0.5, "user_pref"),
]


@pytest.fixture
def facts_app(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The pane app's home with the fact store as the provider."""
    home = make_home(CONFIG)
    from engine.memory.store import Memory

    with monkeypatch.context() as fixed:
        fixed.setattr(time, "time", lambda: FIXED_WALL_TIME)
        memory = Memory(home, load_config(home.root))
        memory.store("memory").add("The docs site is built with Astro and deployed with rsync.")
        memory.store("user").add("Name: Dana")
        agent = PaneAgent(home)
    return make_app(CONFIG, agent=agent, workdir=STABLE_WORKDIR)


async def with_facts(pilot: Any) -> None:
    app = pilot.app
    await pilot.pause()
    main = app.main_screen
    for event in FACT_EVENTS:
        main.post_message(messages.to_message(event))
    await pilot.pause()
    app.pane_feeds.refresh("memory")
    await app.workers.wait_for_complete()
    await pilot.press("f2", "f10")
    await app.workers.wait_for_complete()
    await freeze(pilot)


def test_memory_pane_lists_the_facts_written_and_recalled(snap_compare, facts_app) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(facts_app, terminal_size=SIZE, run_before=with_facts)

"""Hand edits racing the agent's writes, with a real watcher journaling what it sees.

The agent's memory and skill writes are a compare-and-swap (`engine.storage.atomic.compare_and_replace`);
these tests put a hand edit exactly in the window between the agent's read and its rename and check
that the watcher stays silent about the agent's own bytes, the hand edit is kept, and the journal
calls it `external` exactly once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import load_config
from engine.editing.external_edits import journal_external
from engine.home import Home
from engine.memory import format as memory_format
from engine.memory.store import MemoryStore
from engine.skills import manage
from engine.skills.history import SkillHistory
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager
from engine.storage import atomic
from engine.storage.journal import Journal
from engine.storage.self_writes import SelfWrites
from tests.tui.test_watcher import DEBOUNCE, Inbox
from tui.watcher import HomeWatcher

SKILL = (
    "---\nname: deploy\ndescription: Deploy the static site. Use when publishing.\n---\n\n"
    "# Deploy\n\n1. Build.\n"
)


@pytest.fixture
def home(hermes_home: Path) -> Home:
    home = Home.resolve(hermes_home).ensure()
    folder = home.skills / "ops" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return home


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> SelfWrites:
    """A fresh self-write registry that every engine write of this test notes into."""
    fresh = SelfWrites()
    monkeypatch.setattr("engine.storage.self_writes.REGISTRY", fresh)
    return fresh


@pytest.fixture
def watched(home: Home, registry: SelfWrites) -> Iterator[Inbox]:
    """A real observer on the home, journaling hand edits the way the app does."""
    config = load_config(home.root)
    inbox = Inbox()

    def journal(changes: list[Any]) -> None:
        for change in changes:
            journal_external(home, config, change.store, change.path, change.before, change.after)

    watcher = HomeWatcher(home, inbox, debounce=DEBOUNCE, registry=registry, on_changes=journal)
    assert watcher.start() == "events"
    assert watcher.wait_ready()
    yield inbox
    watcher.stop()


def hand_edit(path: Path, text: str) -> None:
    """What vim's `:w` does by default: write the file in place, no lock."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def settle(inbox: Inbox) -> list[Any]:
    return inbox.quiet(DEBOUNCE * 8)


def test_the_agents_compare_and_swap_writes_of_memory_and_skills_do_not_echo(
    home: Home, watched: Inbox
) -> None:
    store = MemoryStore.open(home, "user", load_config(home.root), who="agent")
    assert store.add("Name: Dana")["success"]
    assert store.add("Prefers dark themes")["success"]  # the compare-and-swap path (the file exists)
    manager = SkillManager(SkillLibrary(home), who="agent")
    result = manager.run(
        {"action": "patch", "name": "deploy", "old_string": "1. Build.", "new_string": "1. Build it."}
    )
    assert result.get("success"), result
    assert settle(watched) == []
    assert [e.who for e in Journal(home).entries("memory", "user")] == ["agent", "agent"]


def test_a_hand_edit_racing_an_agent_memory_write_is_kept_and_journaled_external_once(
    home: Home, watched: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = home.memories / "USER.md"
    store = MemoryStore.open(home, "user", load_config(home.root), who="agent")
    assert store.add("Name: Dana")["success"]
    settle(watched)
    real = memory_format.compare_and_replace
    raced: list[bool] = []

    def racing(path: Path, data: bytes, expected: bytes | None, **kw: Any) -> bytes:
        if not raced:  # the person saves in vim after the agent read the file, before its rename
            raced.append(True)
            hand_edit(path, "Name: Dana\n§\nWorks on the kiln project")
        return real(path, data, expected, **kw)

    monkeypatch.setattr(memory_format, "compare_and_replace", racing)
    assert store.add("Prefers dark themes")["success"]
    assert raced
    settle(watched)
    final = user.read_text(encoding="utf-8")
    assert final == "Name: Dana\n§\nWorks on the kiln project\n§\nPrefers dark themes"
    entries = Journal(home).entries("memory", "user")
    assert [(e.who, e.action) for e in entries] == [("agent", "add"), ("external", "edit"), ("agent", "add")]
    journal = Journal(home)
    assert journal.text(entries[1].after_hash) == "Name: Dana\n§\nWorks on the kiln project"
    assert journal.text(entries[2].after_hash) == final


def test_a_hand_edit_racing_the_first_memory_write_of_a_fresh_home_is_journaled_external(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No app is running (`hws run` alone): the store itself labels the edit that beat it."""
    user = home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")  # written before hws ever journaled this file
    real = memory_format.compare_and_replace
    raced: list[bool] = []

    def racing(path: Path, data: bytes, expected: bytes | None, **kw: Any) -> bytes:
        if not raced:
            raced.append(True)
            hand_edit(path, "Name: Dana Okafor")
        return real(path, data, expected, **kw)

    monkeypatch.setattr(memory_format, "compare_and_replace", racing)
    store = MemoryStore.open(home, "user", load_config(home.root), who="agent")
    assert store.add("Prefers dark themes")["success"]
    assert user.read_text(encoding="utf-8") == "Name: Dana Okafor\n§\nPrefers dark themes"
    entries = Journal(home).entries("memory", "user")
    assert [e.who for e in entries] == ["external", "agent"]
    assert Journal(home).text(entries[0].before_hash) == "Name: Dana"
    assert Journal(home).text(entries[0].after_hash) == "Name: Dana Okafor"


def test_text_appended_by_hand_during_the_agents_rename_is_carried_over_and_journaled_external(
    home: Home, watched: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = home.memories / "USER.md"
    store = MemoryStore.open(home, "user", load_config(home.root), who="agent")
    assert store.add("Name: Dana")["success"]
    settle(watched)
    real_note = atomic._note_self_write
    appended: list[bool] = []

    def note_then_append(path: Path, data: bytes) -> None:
        real_note(path, data)
        if not appended:  # a shell `>>` lands after the agent's check, just before its rename
            appended.append(True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.write(fd, "\n§\nUses pnpm".encode())
            os.close(fd)

    monkeypatch.setattr(atomic, "_note_self_write", note_then_append)
    assert store.add("Prefers dark themes")["success"]
    assert appended
    settle(watched)
    assert user.read_text(encoding="utf-8") == "Name: Dana\n§\nPrefers dark themes\n§\nUses pnpm"
    entries = Journal(home).entries("memory", "user")
    assert [(e.who, e.action) for e in entries] == [("agent", "add"), ("agent", "add"), ("external", "edit")]
    assert Journal(home).text(entries[1].after_hash) == "Name: Dana\n§\nPrefers dark themes"


def test_a_hand_edit_racing_an_agent_skill_patch_is_kept_and_journaled_external(
    home: Home, watched: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = home.skills / "ops" / "deploy" / "SKILL.md"
    by_hand = SKILL + "2. Check the site answers.\n"
    real = manage.compare_and_replace

    def racing(target: Path, data: bytes, expected: bytes | None, **kw: Any) -> bytes:
        hand_edit(target, by_hand)
        return real(target, data, expected, **kw)

    monkeypatch.setattr(manage, "compare_and_replace", racing)
    manager = SkillManager(SkillLibrary(home), who="agent")
    result = manager.run(
        {"action": "patch", "name": "deploy", "old_string": "1. Build.", "new_string": "1. Build it."}
    )
    assert not result.get("success") and "changed by another program" in result["error"]
    changes = watched.wait_changes()
    assert [(c.store, c.kind, c.after) for c in changes] == [("skill", "modified", by_hand)]
    deadline = time.monotonic() + 2
    while not SkillHistory(home).entries("deploy") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [(e.action, e.who) for e in SkillHistory(home).entries("deploy")] == [("edit", "external")]
    assert path.read_text(encoding="utf-8") == by_hand

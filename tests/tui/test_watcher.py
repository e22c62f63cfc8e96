"""The home watcher with a real observer on real files: what counts as a change, and what does not."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.home import Home
from engine.memory.format import write_memory_file
from engine.storage.atomic import atomic_write_text
from engine.storage.self_writes import SelfWrites
from tui.watcher import FileChange, HomeChanged, HomeWatcher, WatchStatus, is_litter

DEBOUNCE = 0.05
WAIT_S = 5.0


class Inbox:
    """Collects what the watcher posts; `changes()` waits for the next HomeChanged."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.arrived = threading.Condition()

    def __call__(self, message: Any) -> bool:
        with self.arrived:
            self.messages.append(message)
            self.arrived.notify_all()
        return True

    def home_changes(self) -> list[HomeChanged]:
        return [m for m in self.messages if isinstance(m, HomeChanged)]

    def wait_changes(self, count: int = 1, timeout: float = WAIT_S) -> list[FileChange]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.home_changes()) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no HomeChanged within {timeout}s; got {self.messages}")
                self.arrived.wait(left)
        return [c for m in self.home_changes() for c in m.changes]

    def quiet(self, seconds: float = DEBOUNCE * 6) -> list[FileChange]:
        time.sleep(seconds)
        return [c for m in self.home_changes() for c in m.changes]


@pytest.fixture
def home(hermes_home: Path) -> Home:
    home = Home.resolve(hermes_home).ensure()
    (home.memories / "USER.md").write_text("Name: Dana", encoding="utf-8")
    skill = home.skills / "ops" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: d\n---\nbody\n", encoding="utf-8")
    return home


@pytest.fixture
def registry() -> SelfWrites:
    return SelfWrites()


@pytest.fixture
def watched(home: Home, registry: SelfWrites) -> Iterator[tuple[HomeWatcher, Inbox]]:
    inbox = Inbox()
    watcher = HomeWatcher(home, inbox, debounce=DEBOUNCE, registry=registry)
    assert watcher.start() == "events"
    assert watcher.wait_ready()
    yield watcher, inbox
    watcher.stop()


def replace_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def test_atomic_replace_is_one_modified_change_with_before_and_after(home: Home, watched: Any) -> None:
    _watcher, inbox = watched
    user = home.memories / "USER.md"
    replace_atomically(user, "Name: Dana\n§\nHates light themes")
    changes = inbox.wait_changes()
    assert changes == [
        FileChange(user, "user", "modified", "Name: Dana", "Name: Dana\n§\nHates light themes")
    ]
    assert inbox.quiet() == changes  # the temp file's own events never surface


def test_in_place_write_in_pieces_is_coalesced_into_one_change(home: Home, watched: Any) -> None:
    _watcher, inbox = watched
    soul = home.soul
    with soul.open("w", encoding="utf-8") as handle:  # like vim: truncate, then write in chunks
        for piece in ("# Soul\n", "Be brief.\n", "Be kind.\n"):
            handle.write(piece)
            handle.flush()
            time.sleep(DEBOUNCE / 5)
    changes = inbox.wait_changes()
    assert len(changes) == 1 and changes[0].store == "soul" and changes[0].kind == "modified"
    assert changes[0].after == "# Soul\nBe brief.\nBe kind.\n"
    assert len(inbox.quiet()) == 1


def test_delete_and_create_of_skill_files(home: Home, watched: Any) -> None:
    _watcher, inbox = watched
    skill_md = home.skills / "ops" / "deploy" / "SKILL.md"
    skill_md.unlink()
    changes = inbox.wait_changes()
    assert [(c.store, c.kind, c.path) for c in changes] == [("skill", "deleted", skill_md)]
    assert changes[0].before is not None and changes[0].after is None
    new = home.skills / "web" / "navbar" / "SKILL.md"
    new.parent.mkdir(parents=True)
    new.write_text("---\nname: navbar\ndescription: n\n---\nx\n", encoding="utf-8")
    changes = inbox.wait_changes(2)
    assert (changes[-1].store, changes[-1].kind, changes[-1].path) == ("skill", "created", new)


def test_a_skill_folder_moved_in_whole_reports_its_files(home: Home, watched: Any, tmp_path: Path) -> None:
    _watcher, inbox = watched
    outside = tmp_path / "incoming" / "lint"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text("---\nname: lint\ndescription: l\n---\nx\n", encoding="utf-8")
    (outside / "references").mkdir()
    (outside / "references" / "rules.md").write_text("rules", encoding="utf-8")
    shutil.move(str(outside), str(home.skills / "lint"))
    changes = inbox.wait_changes()
    if len(changes) < 2:  # the folder's files may be found in two looks; each is still reported once
        changes = inbox.wait_changes(2)
    changes += inbox.quiet()[len(changes) :]
    assert sorted(c.path.name for c in changes) == ["SKILL.md", "rules.md"]
    assert {c.kind for c in changes} == {"created"}


def test_litter_reads_and_touches_are_not_changes(home: Home, watched: Any) -> None:
    _watcher, inbox = watched
    folder = home.memories
    for name in (".USER.md.swp", ".USER.md.swx", "USER.md~", "4913", ".mem_x.tmp", "USER.md.lock"):
        (folder / name).write_text("litter", encoding="utf-8")
        (folder / name).unlink()
    (home.skills / "ops" / "deploy" / ".SKILL.md.swp").write_text("x", encoding="utf-8")
    (home.memories / "USER.md").read_text(encoding="utf-8")  # a read: opened, closed_no_write
    os.utime(home.memories / "USER.md")  # a touch: attrib only, same content
    (home.root / "state.db").write_bytes(b"not routed")
    (home.memories / "NOTES.md").write_text("not a memory file", encoding="utf-8")
    assert inbox.quiet() == []


def test_own_writes_do_not_echo_but_a_later_external_write_does(
    home: Home, watched: Any, registry: SelfWrites, monkeypatch: pytest.MonkeyPatch
) -> None:
    _watcher, inbox = watched
    monkeypatch.setattr("engine.storage.self_writes.REGISTRY", registry)
    user = home.memories / "USER.md"
    write_memory_file(user, "Name: Dana\n§\nSaved by the app")
    atomic_write_text(home.soul, "# Saved by the app\n")
    assert inbox.quiet() == []
    replace_atomically(user, "Name: Dana\n§\nSaved by vim")
    changes = inbox.wait_changes()
    assert [(c.kind, c.before, c.after) for c in changes] == [
        ("modified", "Name: Dana\n§\nSaved by the app", "Name: Dana\n§\nSaved by vim")
    ]
    replace_atomically(user, "Name: Dana\n§\nSaved by the app")  # someone restores the app's old text
    changes = inbox.wait_changes(2)
    assert changes[-1].after == "Name: Dana\n§\nSaved by the app"


def test_falls_back_to_polling_when_events_cannot_start(home: Home) -> None:
    from watchdog.observers.polling import PollingObserver

    def factory(kind: str, interval: float) -> Any:
        if kind == "events":
            raise OSError(24, "Too many open files")
        return PollingObserver(timeout=interval)

    inbox = Inbox()
    watcher = HomeWatcher(home, inbox, debounce=DEBOUNCE, poll_interval=0.1, observer_factory=factory)
    try:
        assert watcher.start() == "polling"
        assert watcher.wait_ready()
        status = [m for m in inbox.messages if isinstance(m, WatchStatus)]
        assert status and status[0].mode == "polling"
        assert "max_user_instances" in status[0].reason
        replace_atomically(home.memories / "USER.md", "Name: Dana\n§\npolled")
        changes = inbox.wait_changes()
        assert changes[0].store == "user" and changes[0].after == "Name: Dana\n§\npolled"
    finally:
        watcher.stop()


def test_mode_off_posts_status_and_watches_nothing(home: Home) -> None:
    inbox = Inbox()
    watcher = HomeWatcher(home, inbox, mode="off")
    assert watcher.start() == "off"
    assert isinstance(inbox.messages[0], WatchStatus) and inbox.messages[0].mode == "off"
    watcher.stop()


@pytest.mark.parametrize(
    ("name", "litter"),
    [(".SKILL.md.swp", True), ("x~", True), ("4913", True), (".USER.md.abc.tmp", True), ("SKILL.md", False)],
)
def test_litter_names(name: str, litter: bool) -> None:
    assert is_litter(f"/h/skills/x/{name}") is litter

"""What the home watcher watches: the routed folders, never the hub's git clones under `cache/`.

The proof is the kernel's own list of inotify watches (`/proc/self/fdinfo` of the inotify descriptor):
no folder of a clone is on it, no warning is raised, no change is posted, and routed folders made or
remade after the start are still watched.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

from engine.cli import main
from engine.home import Home
from tests.support.hub_support import anthropic_layout, hub_config
from tests.tui.test_watcher import DEBOUNCE, Inbox
from tui.watcher import HomeWatcher


def watched_inodes() -> set[int]:
    """The inode of every folder this process' inotify descriptors watch."""
    found: set[int] = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            lines = Path(f"/proc/self/fdinfo/{fd}").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            if line.startswith("inotify wd:"):
                fields = dict(field.split(":", 1) for field in line.split()[1:])
                found.add(int(fields["ino"], 16))
    return found


def folder_inodes(root: Path) -> set[int]:
    return {os.stat(current).st_ino for current, _dirs, _files in os.walk(root)}


@pytest.fixture
def home(hermes_home: Path) -> Home:
    return Home.resolve(hermes_home).ensure()


def test_a_hub_clone_under_cache_is_not_watched_and_posts_nothing(
    home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge = tmp_path / "forge"
    home.config_file.write_text(hub_config(forge), encoding="utf-8")
    anthropic_layout(forge, tmp_path / "work")
    inbox = Inbox()
    watcher = HomeWatcher(home, inbox, debounce=DEBOUNCE)
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        try:
            assert watcher.start() == "events" and watcher.wait_ready()
            assert main(["skills", "tap", "add", "anthropics/skills/skills"]) == 0
            assert main(["skills", "search", "release"]) == 0
            capsys.readouterr()
            cache = home.root / "cache"
            assert any(cache.rglob("SKILL.md"))  # the clone is there
            inodes = watched_inodes()
            assert os.stat(home.skills).st_ino in inodes  # the real list of watches is read
            assert not folder_inodes(cache) & inodes
            assert inbox.quiet() == []
            (home.skills / "mine").mkdir()
            (home.skills / "mine" / "SKILL.md").write_text("---\nname: mine\ndescription: m\n---\n")
            assert [c.store for c in inbox.wait_changes()] == ["skill"]
        finally:
            watcher.stop()
    assert [str(w.message) for w in raised if "already exists" in str(w.message)] == []


def test_routed_folders_made_or_remade_after_the_start_are_watched(home: Home) -> None:
    inbox = Inbox()
    watcher = HomeWatcher(home, inbox, debounce=DEBOUNCE)
    try:
        assert watcher.start() == "events" and watcher.wait_ready()
        staged = home.root / "pending" / "memory" / "one.json"
        staged.parent.mkdir(parents=True)
        staged.write_text("{}", encoding="utf-8")
        assert [c.store for c in inbox.wait_changes()] == ["pending_memory"]
        shutil.rmtree(home.skills)
        (home.skills / "ops" / "deploy").mkdir(parents=True)
        later = home.skills / "ops" / "deploy" / "SKILL.md"
        later.write_text("---\nname: deploy\ndescription: d\n---\n", encoding="utf-8")
        changes = inbox.wait_changes(2)
        assert later in [c.path for c in changes]
        later.write_text("---\nname: deploy\ndescription: changed\n---\n", encoding="utf-8")
        changes = inbox.wait_changes(3)
        assert (changes[-1].path, changes[-1].kind) == (later, "modified")
    finally:
        watcher.stop()

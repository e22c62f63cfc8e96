"""Shared pieces of the live-file tests: waiting on a real watcher inside a Pilot run, and writes by hand."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.tui_support import SESSION, ScriptedAgent

SKILL = """---
name: deploy-static
description: Deploy a static site with rsync.
---
# Deploy

1. Build the site.
2. rsync it to the server.
"""


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Let the app run (real time: the watcher is a thread) until `condition` holds or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()


async def watching(pilot: Any) -> None:
    """Wait until the app's watcher has taken its first look at the files."""
    app = pilot.app
    assert await wait_for(
        pilot, lambda: app.live_files.watcher is not None and app.live_files.watcher._ready.is_set()
    )
    await pilot.pause()


def replace_atomically(path: Path, text: str) -> None:
    """What a safe-writing editor does: a temp file beside the target, then a rename over it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def write_in_place(path: Path, text: str) -> None:
    """What vim and nano do here: truncate the file and write into it."""
    with path.open("r+" if path.exists() else "w", encoding="utf-8") as handle:
        handle.seek(0)
        handle.truncate()
        handle.write(text)


def pane_lines(pane: Any) -> list[str]:
    """The plain text of a list pane's entries (the panes before issue 7's real ones)."""
    log = pane.entries
    return [str(log.get_option_at_index(i).prompt) for i in range(log.option_count)]


class SessionAgent(ScriptedAgent):
    """A scripted agent that can start a new session (what ctrl+n asks for)."""

    def __init__(self) -> None:
        super().__init__()
        self.new_sessions = 0
        self.session_id = SESSION

    async def new_session(self) -> None:
        self.new_sessions += 1


def make_skill(root: Path, name: str = "deploy-static", category: str = "ops") -> Path:
    """A skill (SKILL.md in the Hermes layout) under the home at `root`; its SKILL.md's path."""
    folder = root / "skills" / category / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(SKILL.replace("deploy-static", name), encoding="utf-8")
    return path

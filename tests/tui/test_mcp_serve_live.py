"""A write through `hws mcp serve` reaches a running workstation's memory pane: file, journal, pending."""

from __future__ import annotations

from typing import Any

from engine.storage.journal import Journal
from tests.support.live_files_support import wait_for, watching
from tests.support.mcp_serve_support import payload, stdio_client
from tests.support.tui_support import MODEL_CONFIG, make_app

WATCH_TIMEOUT = 20.0  # seconds for the watcher to see a file another process wrote (never a speed claim)


async def test_a_memory_write_through_mcp_shows_in_the_memory_pane_under_the_clients_name() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        await watching(pilot)
        memory = app.main_screen.memory
        async with stdio_client(app.home.root, client="claude-code") as client:
            added = await client.call_tool(
                "memory", {"action": "add", "target": "memory", "content": "The NAS is called tarn."}
            )
        assert not added.is_error, added.content[0].text
        assert await wait_for(
            pilot, lambda: any("The NAS is called tarn." in f.disk for f in memory.view.files), WATCH_TIMEOUT
        )
        assert await wait_for(
            pilot,
            lambda: bool(memory.view.journal) and memory.view.journal[0].who == "mcp:claude-code",
            WATCH_TIMEOUT,
        )
        shown = str(memory.journal.get_option_at_index(0).prompt)
        assert "mcp:claude-code" in shown and "The NAS is called tarn." in shown, shown
    writers = [entry.who for entry in Journal(app.home).entries("memory", "memory")]
    assert writers == ["mcp:claude-code"]  # journaled once, by its writer: the watcher saw no stranger


async def test_a_staged_mcp_write_waits_in_the_pane_and_ctrl_a_approves_it() -> None:
    app = make_app(MODEL_CONFIG + "memory:\n  write_approval: true\n")
    user_md = app.home.memories / "USER.md"
    async with app.run_test(size=(160, 48)) as pilot:
        await watching(pilot)
        memory = app.main_screen.memory
        async with stdio_client(app.home.root, client="codex") as client:
            staged = await client.call_tool(
                "memory", {"action": "add", "target": "user", "content": "Uses fish."}
            )
        assert payload(staged)["staged"] is True
        assert await wait_for(pilot, lambda: len(memory.view.pending) == 1, WATCH_TIMEOUT)
        (row,) = memory.view.pending
        assert row.who == "mcp:codex" and row.summary == "add to user profile: Uses fish."
        assert not user_md.exists()
        await pilot.press("f2")
        await pilot.press("ctrl+a")
        assert await wait_for(pilot, lambda: user_md.exists() and not memory.view.pending, WATCH_TIMEOUT)
    assert user_md.read_text(encoding="utf-8") == "Uses fish."
    entry: Any = Journal(app.home).last("memory", "user")
    assert entry is not None and entry.who == "mcp:codex"

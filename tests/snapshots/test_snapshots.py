"""Pixels: the main layouts at 80×24 and 160×48, empty and mid-session, with a fixed clock and home.

Accept changes with `pytest tests/snapshots/test_snapshots.py --snapshot-update` after looking at the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, make_app
from tui import messages

SMALL, LARGE = (80, 24), (160, 48)
# A working folder whose path is the same in every run (a tmp path varies with the worker and the
# test name, and the budget pane counts its tokens); it is only named, never read.
STABLE_WORKDIR = Path("/srv/hws-snapshots/site")

REPLY = (
    "The navbar is in place; **dark** background as you asked.\n\n"
    "```tsx\n<Nav links={links} />\n```\n\n"
    "- the active link is underlined\n- it collapses below 640px\n"
)

SESSION_EVENTS: list[events.Event] = [
    events.ToolCalled(SESSION, "c1", "read_file", {"path": "src/layout.tsx"}, "src/layout.tsx"),
    events.ToolFinished(SESSION, "c1", "read_file", True, "142 lines", 0.1),
    events.ToolCalled(SESSION, "c2", "terminal", {"command": "npm run build"}, "npm run build"),
    events.ToolFinished(SESSION, "c2", "terminal", True, "exit 0", 3.2),
    events.MemoryWritten(SESSION, "user", "add", "agent", "j1", "User hates light themes"),
    events.SkillChanged(SESSION, "web/astro-navbar", "create", "agent", "1", "saved the approach"),
    events.SkillLoaded(SESSION, "ops/deploy-static", "references/rsync.md", 380),
    events.TextDelta(SESSION, REPLY),
    events.Usage(SESSION, 39_800, 412, cached_tokens=31_000, cost_usd=0.012),
    events.TurnFinished(SESSION, REPLY, tool_calls=2),
    events.CompressionStarted(SESSION, "threshold", 64_000),
    events.CompressionPhase(SESSION, "summarize", 58_100, 9_400),
    events.CompressionFinished(SESSION, SESSION, "20260101_130000_d4e5f6", 58_100, 9_400, "summary"),
]


async def freeze(pilot: Any) -> None:
    """Stop the input's cursor from blinking, and settle the focus, so every run draws the same frame."""
    await pilot.pause()
    prompt = pilot.app.main_screen.prompt
    prompt.input.cursor_blink = False
    # The editor caches drawn lines; a line cached while the blink was off would hide the
    # cursor for good, so the text is loaded again once the blink is stopped.
    prompt.set_text(prompt.text)
    await pilot.pause()


async def play_session(pilot: Any) -> None:
    app = pilot.app
    await pilot.pause()
    main = app.main_screen
    main.post_message(messages.TurnSubmitted("Add a navbar to the docs site."))
    for event in SESSION_EVENTS:
        main.post_message(messages.to_message(event))
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()
    main.prompt.set_text("Make the active link underline thicker")
    await freeze(pilot)


def test_empty_home_without_a_model_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(workdir=STABLE_WORKDIR), terminal_size=SMALL, run_before=freeze)


def test_empty_home_without_a_model_160x48(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(workdir=STABLE_WORKDIR), terminal_size=LARGE, run_before=freeze)


def test_mid_session_160x48(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR), terminal_size=LARGE, run_before=play_session
    )


def test_mid_session_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR), terminal_size=SMALL, run_before=play_session
    )


def test_folded_budget_pane_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def show_budget(pilot: Any) -> None:
        await play_session(pilot)
        await pilot.press("f3")
        await freeze(pilot)

    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR), terminal_size=SMALL, run_before=show_budget
    )


def test_tool_block_expanded_and_slash_completion_120x36(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def expand(pilot: Any) -> None:
        await play_session(pilot)
        await pilot.press("f1", "ctrl+up", "ctrl+up", "ctrl+up", "ctrl+up", "ctrl+up", "enter", "escape")
        pilot.app.main_screen.prompt.set_text("/co")
        await freeze(pilot)

    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR), terminal_size=(120, 36), run_before=expand
    )


def test_keys_screen_120x36(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(
        make_app(MODEL_CONFIG, workdir=STABLE_WORKDIR),
        terminal_size=(120, 36),
        run_before=freeze,
        press=["f12"],
    )

"""Pixels: the skills hub screen over the workstation, a search narrowed to one skill and its preview
(text, files, trust and the guard's verdict), at 140×40.

Accept changes with `pytest tests/snapshots/test_snapshots_hub.py --snapshot-update` after looking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.hub_support import anthropic_layout, hub_config
from tests.support.tui_support import make_app, pause_until, say, settle

STABLE_WORKDIR = Path("/srv/hws-snapshots/site")


def test_hub_screen_with_a_previewed_skill_140x40(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tui.screens.hub import HubScreen

    forge = tmp_path / "forge"
    anthropic_layout(forge, tmp_path / "work")

    async def preview(pilot: Any) -> None:
        app = pilot.app
        await settle(pilot, app)
        await say(pilot, app, "/hub")
        assert await pause_until(pilot, lambda: isinstance(app.screen, HubScreen))
        screen = app.screen
        assert await pause_until(pilot, lambda: len(screen.skills) == 3, rounds=600)
        await pilot.press(*"notes", "enter")
        assert await pause_until(pilot, lambda: len(screen.skills) == 1)
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: screen.preview is not None, rounds=600)
        await pilot.pause()

    app = make_app(hub_config(forge, ["anthropics/skills/skills"]), workdir=STABLE_WORKDIR)
    assert snap_compare(app, terminal_size=(140, 40), run_before=preview)

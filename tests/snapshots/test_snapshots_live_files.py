"""Pixels of the live-file screens: the editor (a memory file over its limit), a conflict, the identity view.

Accept changes with `pytest tests/snapshots/test_snapshots_live_files.py --snapshot-update` after
looking at the report.
"""

from __future__ import annotations

from typing import Any

from engine.memory.format import DELIMITER
from engine.providers.base import ObservedIdentity
from engine.providers.identity import build_view
from tests.support import honcho_deriver
from tests.support.live_files_support import wait_for
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.conflict import ConflictScreen

SIZE = (140, 40)
USER_MD = DELIMITER.join(
    [
        "Name: Dana. Front-end developer in Lisbon.",
        "Hates light themes; every theme suggestion must be dark.",
        "Projects: " + ", ".join(f"site-{n}" for n in range(1, 160)),
    ]
)

SHORT_USER_MD = DELIMITER.join([*USER_MD.split(DELIMITER)[:2], "Projects: the docs site and the shop."])


async def editors_ready(pilot: Any) -> None:
    """Both panes loaded and checked, cursors still, so every run draws the same frame."""
    screen = pilot.app.screen
    assert await wait_for(pilot, lambda: screen.left.has_file and screen.right.has_file)
    assert await wait_for(pilot, lambda: screen.left.check is not None and screen.right.check is not None)
    assert await wait_for(pilot, lambda: screen.left.area.has_focus)  # the first pane takes focus on load
    for editor in (screen.left, screen.right):
        editor.area.cursor_blink = False  # a focused editor now draws a steady cursor
        # TextArea's line cache keys a line the same with or without the cursor once blinking stops, so
        # a line cached before (or during an off phase) would be reused as it was: drop the cache.
        editor.area.notify_style_update()
        editor.area.refresh()
    await pilot.pause()


def editor_app(user_md: str = USER_MD) -> Any:
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(user_md, encoding="utf-8")
    return app


def test_editor_screen_soul_beside_user_over_its_limit(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        app.open_editor("SOUL.md", "USER.md")
        await pilot.pause()
        await editors_ready(pilot)

    app = editor_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_conflict_dialog(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        app.open_editor("SOUL.md", "USER.md")
        await pilot.pause()
        await editors_ready(pilot)
        editor = app.screen.right
        editor.replace_text(SHORT_USER_MD.replace("Lisbon", "Porto"))
        (app.home.memories / "USER.md").write_text(
            SHORT_USER_MD.replace("light themes", "light themes and bright colours"), encoding="utf-8"
        )
        assert await wait_for(pilot, lambda: editor.disk_differs)  # the watcher saw it first
        editor.area.focus()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(editor_app(SHORT_USER_MD), terminal_size=SIZE, run_before=run_before)


def test_identity_view_with_drift(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app = make_app(MODEL_CONFIG)
    (app.home.memories / "USER.md").write_text(
        "User prefers dark themes." + DELIMITER + "User deploys with rsync.", encoding="utf-8"
    )
    said = [
        "Great question! This is a powerful, seamless approach.",
        "I always check the file before changing it.",
    ]
    observed = ObservedIdentity(  # what the provider's deriver makes of a short conversation
        "user",
        "hermes",
        honcho_deriver.representation("user", ["I prefer dark themes.", "I work on a docs site."], 25),
        honcho_deriver.representation("hermes", said, 25),
    )
    app.identity_fetch = lambda: build_view(app.home, app.config, observed, "honcho")

    async def run_before(pilot: Any) -> None:
        await pilot.press("f6")
        screen = pilot.app.screen
        assert await wait_for(pilot, lambda: getattr(screen, "view", None) is not None)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_identity_view_without_a_provider(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Any) -> None:
        await pilot.press("f6")
        screen = pilot.app.screen
        assert await wait_for(pilot, lambda: getattr(screen, "view", None) is not None)
        await pilot.pause()

    assert snap_compare(make_app(MODEL_CONFIG), terminal_size=(100, 30), run_before=run_before)

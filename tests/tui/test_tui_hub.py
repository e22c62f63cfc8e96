"""The skills hub screen in the workstation: `/hub`, search, read a skill with its guard verdict,
install it with one key; the install is said in the transcript when the screen closes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.hub_support import anthropic_layout, hub_config
from tests.support.tui_support import make_app, pause_until, say, settle


async def test_hub_screen_search_view_install(tmp_path: Path) -> None:
    from textual.widgets import DataTable, Static

    from tui.screens.hub import HubScreen

    forge = tmp_path / "forge"
    anthropic_layout(forge, tmp_path / "work")
    app = make_app(hub_config(forge, ["anthropics/skills/skills"]))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await say(pilot, app, "/hub")
        assert await pause_until(pilot, lambda: isinstance(app.screen, HubScreen))
        screen = app.screen
        assert await pause_until(pilot, lambda: len(screen.skills) == 3, rounds=600)
        await pilot.press(*"notes", "enter")
        assert await pause_until(pilot, lambda: [s.name for s in screen.skills] == ["release-notes"])
        assert screen.query_one("#hub-table", DataTable).has_focus
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: screen.preview is not None, rounds=600)
        detail = str(screen.query_one("#hub-detail", Static).render())
        assert "guard: SAFE" in detail and "files: SKILL.md" in detail and "trusted" in detail
        await pilot.press("i")
        assert await pause_until(pilot, lambda: screen.said is not None, rounds=600)
        assert (app.home.skills / "release-notes" / "SKILL.md").is_file()
        lock = json.loads((app.home.skills / ".hub" / "lock.json").read_text(encoding="utf-8"))
        assert lock["installed"]["release-notes"]["source"] == "github"
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, HubScreen))


class _Terminal:
    def isatty(self) -> bool:
        return True


def test_hws_skills_browse_opens_the_workstation_on_the_hub_in_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tui.launch
    from tui.main import _browse_arguments, main

    assert _browse_arguments(["skills", "browse"]) is None, "no terminal: the headless listing answers"
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stdout", _Terminal())
    assert _browse_arguments(["skills", "browse"]) == []
    assert _browse_arguments(["--home", "/h", "skills", "browse"]) == ["--home", "/h"]
    assert _browse_arguments(["skills", "browse", "--json"]) is None
    assert _browse_arguments(["skills", "search", "x"]) is None
    launched: list[tuple[list[str], bool]] = []
    monkeypatch.setattr(
        tui.launch, "launch", lambda argv, open_hub=False: launched.append((argv, open_hub)) or 0
    )
    assert main(["--home", "/h", "skills", "browse"]) == 0
    assert launched == [(["--home", "/h"], True)]


async def test_the_app_opens_on_the_hub_and_runs_its_work_in_app_workers(tmp_path: Path) -> None:
    from tui.screens.hub import HubScreen

    forge = tmp_path / "forge"
    anthropic_layout(forge, tmp_path / "work")
    app = make_app(hub_config(forge, ["anthropics/skills/skills"]), open_hub=True)
    groups: list[str] = []
    run_worker = app.run_worker

    def recording(work: Any, *args: Any, **kwargs: Any) -> Any:
        groups.append(str(kwargs.get("group", "")))
        return run_worker(work, *args, **kwargs)

    app.run_worker = recording  # type: ignore[method-assign]
    async with app.run_test(size=(140, 40)) as pilot:
        assert await pause_until(pilot, lambda: isinstance(app.screen, HubScreen))
        screen = app.screen
        assert await pause_until(pilot, lambda: len(screen.skills) == 3, rounds=600)
        await pilot.press("tab", "enter")
        assert await pause_until(pilot, lambda: screen.preview is not None, rounds=600)
    assert groups.count("hub-search") == 1 and groups.count("hub-view") == 1  # the app runs the hub's work


async def test_a_fetched_skill_is_shown_as_text_never_as_markup(tmp_path: Path) -> None:
    """A SKILL.md from a tap is someone else's text: `[/]` or `[on black]` is shown as written,
    never styled and never a markup error that breaks the screen."""
    from textual.widgets import Static

    from tests.support.hub_support import Repo
    from tui.screens.hub import HubScreen

    forge = tmp_path / "forge"
    repo = Repo(forge, "someone/odd", tmp_path / "work")
    body = "---\nname: odd\ndescription: Brackets [/] and [bold]x[/bold]. Use for tests.\n---\n\n"
    repo.write("skills/odd/SKILL.md", body + "Run [on black]hidden[/] then [/].\n")
    repo.commit("odd")
    app = make_app(hub_config(forge, ["someone/odd/skills"]), open_hub=True)
    async with app.run_test(size=(140, 40)) as pilot:
        assert await pause_until(pilot, lambda: isinstance(app.screen, HubScreen), rounds=600)
        screen = app.screen
        assert await pause_until(pilot, lambda: len(screen.skills) == 1, rounds=600)
        await pilot.press("tab")
        listing = str(screen.query_one("#hub-detail", Static).render())
        assert "[/] and [bold]x[/bold]" in listing
        screen.action_view()
        assert await pause_until(pilot, lambda: screen.preview is not None, rounds=600)
        await settle(pilot, app)
        detail = str(screen.query_one("#hub-detail", Static).render())
        assert "Run [on black]hidden[/] then [/]." in detail

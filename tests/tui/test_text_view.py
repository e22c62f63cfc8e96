"""The read-only text view: a skill from the skills pane, a journal entry's diff from the memory pane."""

from __future__ import annotations

from engine.config import load_config
from engine.memory.store import Memory
from tests.support.tui_support import MODEL_CONFIG, make_app, make_home, pause_until
from tui.screens.text_view import TextScreen

SKILL = "---\nname: deploy-site\ndescription: Deploy the docs site.\n---\n# Deploy\n\n1. Build.\n"


async def test_a_skill_opens_as_markdown_and_a_journal_entry_as_a_diff() -> None:
    home = make_home(MODEL_CONFIG)
    skill_md = home.skills / "ops" / "deploy-site" / "SKILL.md"
    skill_md.parent.mkdir(parents=True)
    skill_md.write_text(SKILL, encoding="utf-8")
    memory = Memory(home, load_config(home.root))
    memory.store("user").add("Hates light themes")
    entry_id = memory.history(limit=1)[-1].id
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        app.pane_feeds.open_skill("deploy-site", str(skill_md))
        assert await pause_until(pilot, lambda: isinstance(app.screen, TextScreen), 400)
        screen = app.screen
        area = screen.query_one("#text-body")
        assert area.language == "markdown" and area.text == SKILL
        assert "ctrl+e edits it beside SOUL.md" in str(screen.query_one("#text-note").render())
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, TextScreen))
        app.pane_feeds.show_journal_diff(entry_id)
        assert await pause_until(pilot, lambda: isinstance(app.screen, TextScreen), 400)
        screen = app.screen
        area = screen.query_one("#text-body")
        assert area.language is None
        assert any(line.startswith("+") and "Hates light themes" in line for line in area.text.splitlines())
        assert "- before the write, + after it" in str(screen.query_one("#text-note").render())

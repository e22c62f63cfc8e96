"""The real catalogs at start: past sessions from state.db and skills from disk reach the palette and `/name`.

Built as `hws` builds them (`tui.catalogs` on the home), on a home that already has conversations:
the session catalog runs its own event loop, so it must be read in a thread, not on the app's loop
(where it once stopped `hws` on any home with a state.db).
"""

from __future__ import annotations

from functools import partial

from engine.config import load_config
from tests.support.tui_support import MODEL_CONFIG, make_app, make_home, pause_until, seed_sessions
from tui.catalogs import session_catalog, skill_catalog

SKILL = "---\nname: deploy-site\ndescription: Deploy the docs site with rsync.\n---\n1. Build.\n2. rsync.\n"


async def test_past_sessions_and_skills_are_offered_once_the_window_is_up() -> None:
    home = make_home(MODEL_CONFIG)
    ids = await seed_sessions(
        home,
        [
            ("Navbar work", [("user", "Add a navbar"), ("assistant", "Done.")]),
            ("", [("user", "Deploy the docs site tonight"), ("assistant", "Deployed.")]),
        ],
    )
    (home.skills / "web" / "deploy-site").mkdir(parents=True)
    (home.skills / "web" / "deploy-site" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    config = load_config(home.root)
    app = make_app(
        MODEL_CONFIG,
        skill_source=partial(skill_catalog, home, config),
        session_source=partial(session_catalog, home, config, 200),
    )
    async with app.run_test(size=(120, 40)) as pilot:
        assert await pause_until(pilot, lambda: bool(app.session_entries and app.skill_entries), 600)
        assert {e.session_id for e in app.session_entries} == set(ids)
        titles = {e.title for e in app.session_entries}
        assert titles == {"Navbar work", "Deploy the docs site tonight"}, "untitled: its first line"
        assert [e.name for e in app.skill_entries] == ["deploy-site"]
        await pilot.press("slash", "d", "e", "p")
        await pilot.pause()
        assert [c.name for c in app.main_screen.prompt._shown] == ["deploy-site"]

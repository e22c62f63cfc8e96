"""Bad input in the home as the workstation shows it: each gets a sentence that stays on screen.

(A toast is gone after its timeout; the transcript keeps what the person still has to fix.)
"""

from __future__ import annotations

from tests.support.tui_support import MODEL_CONFIG, ScriptedAgent, make_app, pause_until, settle
from widgets.transcript_blocks import NoticeBlock


def notices(app: object) -> list[str]:
    return [str(block.render()) for block in app.main_screen.transcript.query(NoticeBlock)]  # type: ignore[attr-defined]


async def test_a_config_typo_stays_in_the_transcript_with_the_setting_it_meant() -> None:
    app = make_app(MODEL_CONFIG + "  request_timout: 30\n", agent=ScriptedAgent())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        shown = notices(app)
        assert any(
            "line 4: unknown setting `model.request_timout` is ignored; did you mean `model.request_timeout`?"
            in text
            for text in shown
        ), shown


async def test_a_memory_file_pasted_far_past_its_limit_lists_a_page_of_entries_and_says_how_many_more() -> (
    None
):
    """5,000 entries (a 200,000-entry file took gigabytes as one widget per entry, and froze the app)."""
    app = make_app(MODEL_CONFIG + "tui:\n  memory_pane_entries: 50\n", agent=ScriptedAgent())
    entries = [f"Note {n} about the build and its steps." for n in range(5000)]
    (app.home.memories / "MEMORY.md").write_text("\n§\n".join(entries), encoding="utf-8")
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        assert await pause_until(
            pilot, lambda: len(main.memory.view.files) == 2 and main.memory.view.files[0].disk
        )
        await settle(pilot, app)
        lines = [str(line.render()) for line in main.memory.query(".memory-line")]
        assert len(lines) < 60, len(lines)
        assert (
            "+ Note 0 about the build and its steps." in lines
            or "  Note 0 about the build and its steps." in lines
        )
        assert any(
            "… and 4,950 more (tui.memory_pane_entries); `hws memory show --target memory` lists them all."
            in line
            for line in lines
        ), lines[-5:]
        assert main.memory.view.files[0].disk_chars > 100_000  # the usage still counts the whole file
        await pilot.press("ctrl+q")


BROKEN_SKILL = "---\nname: deploy-site\ndescription: [unclosed\n  - oops: : :\n---\n# Deploy\n\n1. Build.\n"


async def test_a_skill_with_broken_frontmatter_says_what_is_wrong_when_it_is_opened_from_the_pane() -> None:
    """The pane marked it '! 1 warning', and enter showed its text with no word of what the warning was."""
    from tui.screens.text_view import TextScreen

    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    skill_md = app.home.skills / "ops" / "deploy-site" / "SKILL.md"
    skill_md.parent.mkdir(parents=True)
    skill_md.write_text(BROKEN_SKILL, encoding="utf-8")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert await pause_until(pilot, lambda: app.main_screen.skills.entries.option_count == 1)
        await pilot.press("f4", "enter")
        await app.workers.wait_for_complete()
        assert await pause_until(pilot, lambda: isinstance(app.screen, TextScreen))
        problems = str(app.screen.query_one("#text-problems").render())
        assert problems.startswith("! line 4: YAML error (") and "read as plain key: value lines" in problems
        assert app.screen.query_one("#text-body").text == BROKEN_SKILL
        assert skill_md.read_text(encoding="utf-8") == BROKEN_SKILL


async def test_a_soul_md_that_is_not_utf8_is_said_once_in_the_transcript() -> None:
    """The prompt replaces its bad bytes; only the budget pane's row said so, in a note narrow panes drop."""
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    app.home.soul.write_bytes(b"# Who you are\n\nYou are Hermes \xff\xfe, plainly.\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        app.pane_feeds.refresh("budget")  # read again: the same note is not said twice
        await settle(pilot, app)
        said = [text for text in notices(app) if "SOUL.md" in text]
        assert said == [
            "! SOUL.md in the prompt: SOUL.md is not valid UTF-8; unreadable bytes were replaced."
        ], said
    assert app.home.soul.read_bytes().startswith(b"# Who you are")  # the file is left as it was

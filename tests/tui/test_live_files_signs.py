"""What the memory and skills panes say of a hand edit: only while it is news, with the right time,
and for any edit of a skill (its body as well as its frontmatter)."""

from __future__ import annotations

import os
import time
from typing import Any

from textual.message import Message

from tests.support.live_files_support import make_skill, wait_for, watching, write_in_place
from tests.support.tui_support import (
    MODEL_CONFIG,
    agent_ready_since,
    agent_started,
    make_app,
    make_scripted_app,
    say,
    turn_done,
)
from widgets.memory_pane import clock_time

SCENARIO = """
name: signs
model: scripted
context_length: 32000
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: anything
    reply: {text: "You said {{last_user}}."}
"""


def outside_lines(memory: Any) -> list[str]:
    return [str(line.render()) for line in memory.query("#memory-files > .-outside")]


async def test_the_changed_outside_line_goes_once_a_new_session_has_read_the_file(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    user = app.home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await watching(pilot)
        memory = app.main_screen.memory
        await say(pilot, app, "hello")
        await turn_done(pilot, app, seen, 1)
        write_in_place(user, "Name: Dana\n§\nHates light themes")
        assert await wait_for(
            pilot, lambda: any("the next session reads it" in line for line in outside_lines(memory))
        ), outside_lines(memory)
        mark = len(seen)
        await say(pilot, app, "/new")
        await agent_ready_since(pilot, seen, mark)
        await say(pilot, app, "hello again")
        await turn_done(pilot, app, seen, 2)
        assert await wait_for(
            pilot,
            lambda: all(f.in_sync for f in memory.view.files) and memory.view.session_started,
        )
        assert await wait_for(pilot, lambda: not outside_lines(memory)), outside_lines(memory)


async def test_a_memory_file_made_unreadable_by_hand_says_when_from_the_file_itself() -> None:
    app = make_app(MODEL_CONFIG)
    user = app.home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    async with app.run_test(size=(120, 40)) as pilot:
        await watching(pilot)
        memory = app.main_screen.memory
        write_in_place(user, "Name: Dana\n§\nLikes tea")
        assert await wait_for(pilot, lambda: bool(outside_lines(memory)))
        first = outside_lines(memory)[0]
        later = time.time() + 3 * 3600  # a time of day the first edit cannot show
        user.write_bytes(b"Name: Dana\n\xff\xfe not text")
        os.utime(user, (later, later))
        assert await wait_for(pilot, lambda: any(f.problem for f in memory.view.files))
        assert await wait_for(
            pilot, lambda: any(f" at {clock_time(later)}" in line for line in outside_lines(memory))
        ), (first, outside_lines(memory))


async def test_a_hand_edit_of_a_skills_body_marks_it_in_the_skills_pane() -> None:
    app = make_app(MODEL_CONFIG)
    skill_md = make_skill(app.home.root)
    async with app.run_test(size=(120, 40)) as pilot:
        await watching(pilot)
        skills = app.main_screen.skills
        assert await wait_for(pilot, lambda: skills.row("deploy-static") is not None)

        def prompt() -> str:
            log = skills.entries
            return str(log.get_option_at_index(log.get_option_index("deploy-static")).prompt)

        assert "edited outside" not in prompt()
        text = skill_md.read_text(encoding="utf-8")
        write_in_place(
            skill_md, text.replace("2. rsync it to the server.", "2. rsync it, then purge the CDN.")
        )
        assert await wait_for(pilot, lambda: "⟲ edited outside hws" in prompt()), prompt()
        assert "1 changed" in str(skills.summary)

"""The local fact store in the workstation: the memory pane's "Facts" section, `/facts` and F6.

The real agent on the scripted model server, with `memory.provider: holographic`: the model adds a
USER.md entry (which the provider records as a fact on its own thread) and a fact of its own; the
pane lists both with their trust, then the facts recalled into the next turn. `/facts` searches
the real `memory_store.db` and removes a fact after asking; F6 lists the user facts beside USER.md.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from tests.support.tui_support import (
    MODEL_CONFIG,
    agent_started,
    make_app,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    turn_done,
)
from tui import messages
from tui.screens.facts import FactsScreen
from tui.screens.identity import IdentityScreen
from widgets.transcript_blocks import NoticeBlock

FACTS_CONFIG = "memory:\n  provider: holographic\n"
EDITOR = "The user's editor is Helix Editor"
CLUSTER = "The Berlin cluster runs Postgres 16"

SCENARIO = f"""
name: facts
model: scripted
context_length: 32000
defaults: {{chunk_size: 40, chunk_delay: 0}}
rules:
  - name: after a tool
    when: {{after_tool: true}}
    reply: {{text: "Noted."}}
  - name: remember
    when: {{user: "(?i)^remember"}}
    reply:
      tool_calls:
        - name: memory
          arguments: {{action: add, target: user, content: "{EDITOR}"}}
        - name: fact_store
          arguments: {{action: add, content: "{CLUSTER}", category: project}}
  - name: anything
    reply: {{text: "You said {{{{last_user}}}}."}}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, SCENARIO) as model:
        yield model


def stored(app: Any) -> dict[int, tuple[str, float]]:
    with sqlite3.connect(app.home.root / "memory_store.db") as conn:
        rows = conn.execute("SELECT fact_id, content, trust_score FROM facts").fetchall()
    return {int(r[0]): (str(r[1]), float(r[2])) for r in rows}


def facts_text(app: Any) -> str:
    section = app.main_screen.memory.facts
    assert section is not None
    return str(section.content)


async def remembered(pilot: Any, app: Any, seen: list[Message]) -> None:
    """Turn 1: the model keeps a USER.md entry and a fact; both reach the pane as FactWritten."""
    await agent_started(pilot, app)
    await say(pilot, app, "remember my editor and the Berlin cluster")
    await turn_done(pilot, app, seen, 1)
    section = app.main_screen.memory.facts
    assert await pause_until(pilot, lambda: len(section.written) == 2), facts_text(app)


async def test_the_pane_lists_written_and_recalled_facts_with_their_trust(scripted: Any) -> None:
    app = make_scripted_app(scripted, FACTS_CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 44), message_hook=seen.append) as pilot:
        await remembered(pilot, app, seen)
        written = [m.event for m in seen if isinstance(m, messages.FactWritten)]
        by_content = {e.content: e for e in written}
        assert by_content[EDITOR].category == "user_pref" and by_content[EDITOR].action == "add"
        assert by_content[CLUSTER].category == "project"
        assert {e.fact_id for e in written} == set(stored(app))  # the events name what the store holds
        assert all(e.session_id == app.session_id for e in written)
        text = facts_text(app)
        assert "2 written this session" in text and f"0.50 #{by_content[EDITOR].fact_id} {EDITOR}" in text
        assert "(user_pref)" in text and "(project)" in text

        await say(pilot, app, "should I open it in Helix Editor?")  # the prefetch after turn 1 found it
        await turn_done(pilot, app, seen, 2)
        recalled = [m.event for m in seen if isinstance(m, messages.FactsRecalled)]
        assert recalled and EDITOR in [f.content for f in recalled[-1].facts]
        text = facts_text(app)
        assert "recalled into this turn:" in text
        assert text.split("recalled into this turn:")[1].count(EDITOR) == 1


async def test_without_the_fact_store_the_pane_has_no_facts_section() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.pause()
        assert app.main_screen.memory.facts is None
        await pilot.press(*"/facts Helix")
        await pilot.press("enter")
        notices = app.main_screen.transcript.query(NoticeBlock)
        assert await pause_until(pilot, lambda: any("provider: holographic" in b.text for b in notices))
        assert not isinstance(app.screen, FactsScreen)


async def test_facts_searches_and_removes_a_fact_after_asking(scripted: Any) -> None:
    app = make_scripted_app(scripted, FACTS_CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 44), message_hook=seen.append) as pilot:
        await remembered(pilot, app, seen)
        cluster_id = next(i for i, (content, _) in stored(app).items() if content == CLUSTER)
        await say(pilot, app, "/facts Berlin cluster")
        assert await pause_until(pilot, lambda: isinstance(app.screen, FactsScreen))
        screen = app.screen
        assert await pause_until(pilot, lambda: screen.facts_list.option_count > 0)
        assert [f.content for f in screen.found] == [CLUSTER]
        assert "0.50" in str(screen.facts_list.get_option_at_index(0).prompt)

        await pilot.press("down", "delete", "n")  # asked, then kept
        assert "Kept." in str(screen.query_one("#facts-status").content)
        assert cluster_id in stored(app)
        await pilot.press("delete", "escape")  # escape keeps the fact, and the screen stays open
        assert isinstance(app.screen, FactsScreen) and cluster_id in stored(app)
        assert "Kept." in str(screen.query_one("#facts-status").content)

        await pilot.press("delete")
        assert "y removes it" in str(screen.query_one("#facts-status").content)
        await pilot.press("y")
        assert await pause_until(pilot, lambda: screen.facts_list.option_count == 0)
        assert "Removed fact" in str(screen.query_one("#facts-status").content)
        assert cluster_id not in stored(app) and len(stored(app)) == 1
        written = [m.event for m in seen if isinstance(m, messages.FactWritten)]
        removed = [(e.fact_id, e.content) for e in written if e.action == "remove"]
        assert removed == [(cluster_id, CLUSTER)]
        assert f"- 0.50 #{cluster_id} {CLUSTER}" in facts_text(app)  # the pane shows the removal

        screen.query_one("#facts-query").value = ""
        await pilot.click("#facts-query")
        await pilot.press("enter")  # no text: the most trusted facts
        assert await pause_until(pilot, lambda: [f.content for f in screen.found] == [EDITOR])
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, FactsScreen))


async def test_the_identity_view_lists_the_user_facts_beside_user_md(scripted: Any) -> None:
    app = make_scripted_app(scripted, FACTS_CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(140, 44), message_hook=seen.append) as pilot:
        await remembered(pilot, app, seen)
        await pilot.press("f6")
        assert await pause_until(pilot, lambda: isinstance(app.screen, IdentityScreen))
        screen = app.screen
        assert await pause_until(pilot, lambda: screen.view is not None)
        assert screen.view.available, screen.view.error
        user_file = str(screen.query_one("#identity-user .pair-file").content)
        peer = str(screen.query_one("#identity-user .pair-peer").content)
        label = str(screen.query_one("#identity-user .pair-peer-label").content)
        assert EDITOR in user_file  # USER.md, where the memory tool wrote it
        assert f"{EDITOR} (trust 0.50)" in peer and CLUSTER not in peer  # only the user's facts
        assert "fact store" in label
        assert "agree" in str(screen.query_one("#identity-user .pair-drift").content)

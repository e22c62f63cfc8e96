"""Sessions are titled from their first exchange, renamed with /title, and resumed by title or as the latest.

`hws run` runs for real against a scripted model server that this test starts and names in
config.yaml, as the main model and (when the test says so) as the auxiliary one, which answers the
title request by its kind.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.model_server import ScriptedModelServer, load_scenario
from engine.sessions.store import SessionStore
from tests.fault_support import assert_clean_exit, hws, write_config, write_scenario
from tests.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available
from tests.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    seed_sessions,
    turn_done,
)
from widgets.transcript_blocks import NoticeBlock

SCENARIO = """
name: titles
model: scripted
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Title: \\"Navbar link fixes.\\""}
  - name: anything
    reply: {text: "Done: {{last_user}}."}
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ScriptedModelServer]:
    model = ScriptedModelServer(load_scenario(write_scenario(tmp_path, SCENARIO))).start()
    try:
        yield model
    finally:
        model.stop()


def configure(home: Path, url: str, auxiliary: bool) -> None:
    model = {"default": "scripted", "base_url": url, "provider": "custom"}
    if auxiliary:
        write_config(home, model=model, auxiliary={"model": "scripted", "base_url": url})
    else:
        write_config(home, model=model)


def titles(home: Path) -> list[tuple[str, str | None, int]]:
    """(id, title, messages) of every session, oldest first."""
    conn = sqlite3.connect(home / "state.db")
    try:
        rows = conn.execute(
            "SELECT id, title, message_count FROM sessions ORDER BY started_at, id"
        ).fetchall()
    finally:
        conn.close()
    return [(str(r[0]), r[1], int(r[2] or 0)) for r in rows]


def run(home: Path, *args: str) -> None:
    done = hws("run", *args, home=home)
    assert_clean_exit(done, codes=(0,))


def test_the_auxiliary_model_titles_each_session_and_a_taken_title_gets_a_number(
    tmp_path: Path, server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    configure(home, server.base_url, auxiliary=True)
    run(home, "fix the navbar links on the docs site")
    run(home, "the navbar links again, on the blog this time")
    assert [title for _id, title, _n in titles(home)] == ["Navbar link fixes", "Navbar link fixes #2"]

    # --session (hws run's --resume) takes a title: the second conversation goes on.
    second = titles(home)[1][0]
    run(home, "--session", "navbar link fixes #2", "and the footer")
    after = titles(home)
    assert len(after) == 2 and after[1][0] == second and after[1][2] > 2
    assert after[1][1] == "Navbar link fixes #2", "a titled session keeps its title"


def test_without_an_auxiliary_model_the_first_words_title_the_session(
    tmp_path: Path, server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    configure(home, server.base_url, auxiliary=False)
    run(home, "please check   the broken footer links in the blog")
    assert [title for _id, title, _n in titles(home)] == ["please check the broken footer links…"]


async def test_the_most_recent_session_is_the_one_with_the_newest_message(tmp_path: Path) -> None:
    store = await SessionStore.open(tmp_path / "state.db")
    try:
        first = await store.create_session(source="cli", started_at=1000.0)
        second = await store.create_session(source="cli", started_at=2000.0)
        await store.append_message(second.id, "user", "older words", timestamp=2001.0)
        await store.append_message(first.id, "user", "newest words", timestamp=3000.0)
        helper = await store.create_session(source="subagent", started_at=4000.0)
        await store.append_message(helper.id, "user", "a delegate's words", timestamp=4001.0)
        assert await store.most_recent_session() == first.id
        await store.set_title(second.id, "Docs Navbar")
        assert (await store.find_session("docs navbar")).id == second.id
        assert (await store.find_session(second.id[:-1])).id == second.id
    finally:
        await store.close()


TUI_SCENARIO = """
name: tui-titles
model: scripted
defaults: {chunk_size: 40, chunk_delay: 0}
rules:
  - name: anything
    reply: {text: "You said {{last_user}}."}
"""


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    with scripted_model(tmp_path, TUI_SCENARIO) as model:
        yield model


def notices(app: Any) -> list[str]:
    return [block.text for block in app.main_screen.transcript.query(NoticeBlock)]


async def test_the_first_exchange_titles_the_session_and_slash_title_renames_it(scripted: Any) -> None:
    app = make_scripted_app(scripted)
    await seed_sessions(app.home, [("Docs navbar", [("user", "an old one"), ("assistant", "ok")])])
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "hello there, friend")
        await turn_done(pilot, app, seen, 1)
        assert await pause_until(
            pilot,
            lambda: "This session is titled “hello there, friend” · /title NAME renames it." in notices(app),
        ), notices(app)
        await say(pilot, app, "/title Docs navbar")
        assert await pause_until(pilot, lambda: "Titled this session “Docs navbar #2”." in notices(app))
        await say(pilot, app, "/title")
        assert await pause_until(
            pilot, lambda: "This session is titled “Docs navbar #2” · /title NAME renames it." in notices(app)
        ), notices(app)
        session_id = app.session_id
    store = await SessionStore.open(app.home.state_db)
    try:
        assert (await store.find_session("Docs navbar #2")).id == session_id
    finally:
        await store.close()


@pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")
def test_hws_c_goes_on_with_the_most_recent_session_in_the_terminal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for text in ("the first conversation", "the second conversation"):
        assert_clean_exit(hws("run", "--scripted", text, home=home), codes=(0,))
    latest = titles(home)[-1][0]
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [str(Path(sys.executable).with_name("hws")), "--scripted", "--home", str(home), "-c"]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(tmp_path)) as terminal:
        screen = terminal.wait_for(f"resumed session {latest}", timeout=SCRIPTED_WAIT_S)
        assert "the second conversation" in screen
        assert "the first conversation" not in screen

    done = hws("-c", home=tmp_path / "empty")
    assert done.returncode == 2 and "no past session" in done.stderr and "Traceback" not in done.stderr

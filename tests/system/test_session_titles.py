"""Sessions are titled from their first exchange, renamed with /title, and resumed by title or as the latest.

`hws run` runs for real against a scripted model server that this test starts and names in
config.yaml, as the main model and (when the test says so) as the auxiliary one, which answers the
title request by its kind.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from engine.events import SessionTitled
from engine.model_server.parsing import load_scenario
from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore
from tests.support.agent_support import make_rig, serve
from tests.support.fault_support import assert_clean_exit, hws, write_config, write_scenario
from tests.support.tmux import SCRIPTED_WAIT_S, TmuxSession, tmux_available
from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    seed_sessions,
    turn_done,
)
from tui.catalogs import session_catalog
from tui.screens.sessions import SessionsScreen
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
        query = "SELECT id, title, message_count FROM sessions ORDER BY started_at, id"
        rows = conn.execute(query).fetchall()
    finally:
        conn.close()
    return [(str(r[0]), r[1], int(r[2] or 0)) for r in rows]


def run(home: Path, *args: str) -> str:
    """`hws run ARGS` to a clean end; its stderr (the tool and status lines)."""
    done = hws("run", *args, home=home)
    assert_clean_exit(done, codes=(0,))
    return done.stderr


# hws run: the titles, --session TITLE, -c


def test_the_auxiliary_model_titles_each_session_and_a_taken_title_gets_a_number(
    tmp_path: Path, server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    configure(home, server.base_url, auxiliary=True)
    said = run(home, "fix the navbar links on the docs site")
    assert "┊ title     “Navbar link fixes” (by model)" in said, said
    run(home, "the navbar links again, on the blog this time")
    assert [title for _id, title, _n in titles(home)] == ["Navbar link fixes", "Navbar link fixes #2"]
    asked = [r for r in server.chat_requests if r.rule == "title"]
    assert len(asked) == 2, "one title request per session"

    # --session (hws run's --resume) takes a title: the second conversation goes on.
    second = titles(home)[1][0]
    run(home, "--session", "navbar link fixes #2", "and the footer")
    after = titles(home)
    assert len(after) == 2 and after[1][0] == second and after[1][2] > 2
    assert after[1][1] == "Navbar link fixes #2", "a titled session keeps its title"
    assert len([r for r in server.chat_requests if r.rule == "title"]) == 2, "and is not asked again"

    # Where sessions are listed, the titles are shown; show takes a title too.
    listed = hws("sessions", "list", home=home)
    assert "Navbar link fixes #2" in listed.stdout and "(untitled)" not in listed.stdout, listed.stdout
    shown = hws("sessions", "show", "Navbar link fixes", home=home)
    assert shown.returncode == 0 and shown.stdout.startswith(f"{titles(home)[0][0]}  Navbar link fixes\n")


def test_without_an_auxiliary_model_the_first_words_title_the_session(
    tmp_path: Path, server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    configure(home, server.base_url, auxiliary=False)
    said = run(home, "please check   the broken footer links in the blog")
    assert [title for _id, title, _n in titles(home)] == ["please check the broken footer links…"]
    assert "(by words)" in said
    assert [r.rule for r in server.chat_requests] == ["anything"], "no model was asked for a title"


def test_hws_run_c_goes_on_with_the_session_used_last(tmp_path: Path, server: ScriptedModelServer) -> None:
    home = tmp_path / "home"
    configure(home, server.base_url, auxiliary=False)
    run(home, "the first conversation")
    run(home, "the second conversation")
    first, second = (session_id for session_id, _title, _n in titles(home))
    run(home, "--session", first, "back to the first")  # the first is now the one used last

    said = run(home, "-c", "and once more")
    after = {session_id: count for session_id, _title, count in titles(home)}
    assert set(after) == {first, second}, "no session was started"
    assert after[first] == 6 and after[second] == 2, after
    assert f"session {first}" in said.splitlines(), said
    run(home, "--continue", "and again")
    assert {sid: n for sid, _t, n in titles(home)}[first] == 8

    (tmp_path / "empty").mkdir()
    empty = hws("run", "-c", "hello", home=tmp_path / "empty")
    assert_clean_exit(empty, codes=(2,))
    assert "There is no past session in" in empty.stderr and "to continue yet" in empty.stderr
    both = hws("run", "-c", "--session", first, "hello", home=home)
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_hws_help_lists_the_workstation_options_beside_the_subcommands(tmp_path: Path) -> None:
    done = hws("--help", home=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    for option in ("--scripted", "--scenario NAME|FILE", "--resume SESSION", "-c, --continue", "--version"):
        assert option in said, option
    assert "open the workstation (no COMMAND)" in said and "sessions list, show, search" in said
    assert "an id prefix or its title" in said
    run_help = " ".join(hws("run", "--help", home=tmp_path).stdout.split())
    assert "-c, --continue continue the most recent session" in run_help
    assert "--session SESSION continue this session (its id, an id prefix or its title)" in run_help


# The store: which session is the latest, which one a name means


async def test_the_most_recent_session_is_the_one_with_the_newest_message(tmp_path: Path) -> None:
    store = await SessionStore.open(tmp_path / "state.db")
    try:
        first = await store.create_session(source="cli", started_at=1000.0)
        second = await store.create_session(source="cli", started_at=2000.0)
        await store.append_message(second.id, "user", "older words", timestamp=2001.0)
        await store.append_message(first.id, "user", "newest words", timestamp=3000.0)
        helper = await store.create_session(source="subagent", started_at=4000.0)
        await store.append_message(helper.id, "user", "a delegate's words", timestamp=4001.0)
        assert await store.tree.most_recent_session() == first.id
        await store.set_title(second.id, "Docs Navbar")
        assert (await store.find_session("docs navbar")).id == second.id
        assert (await store.find_session(second.id[:-1])).id == second.id
        # A title that is also the start of another session's id means the titled session.
        prefix = second.id[:-1]
        assert await store.resolve_session_id(prefix) == second.id
        await store.set_title(first.id, prefix)
        assert (await store.find_session(prefix)).id == first.id
    finally:
        await store.close()


# The agent: a title belongs to the conversation


async def test_a_compressed_conversation_is_titled_and_renamed_on_its_first_session(
    tmp_path: Path, hermes_home: Path
) -> None:
    server = serve(
        """
        name: chain
        model: scripted
        rules:
          - reply: {text: "noted"}
        """
    )
    store = await SessionStore.open(hermes_home / "state.db")
    try:
        root = await store.create_session(source="cli", started_at=1000.0)
        await store.append_message(root.id, "user", "plan the release notes for version two")
        await store.append_message(root.id, "assistant", "Here is a plan.")
        await store.end_session(root.id, "compression")
        child = await store.create_session(source="cli", parent_session_id=root.id, started_at=2000.0)
        await store.append_message(child.id, "user", "go on with the plan")
        await store.append_message(child.id, "assistant", "Going on.")
    finally:
        await store.close()
    rig = make_rig(server, hermes_home, tmp_path, resume=child.id)
    try:
        await rig.turn("and the changelog")
        await rig.settle()
        named = [e for e in rig.background if isinstance(e, SessionTitled)]
        assert [(e.session_id, e.title, e.by) for e in named] == [(child.id, "go on with the plan", "words")]
        titled = await rig.agent.set_title("Release notes")
        assert (titled.title, titled.by) == ("Release notes", "user")
        with pytest.raises(Exception, match="needs some text"):
            await rig.agent.set_title("\u200b ")
    finally:
        await rig.agent.close()
        server.stop()
    store = await SessionStore.open(hermes_home / "state.db")
    try:
        assert (await store.get_session(root.id)).title == "Release notes"  # type: ignore[union-attr]
        assert (await store.get_session(child.id)).title is None  # type: ignore[union-attr]
        [conversation] = await store.tree.list_conversations()
        assert conversation.title == "Release notes" and conversation.tip_id == child.id
        assert (await store.find_session("release notes")).id == root.id
    finally:
        await store.close()


# The workstation

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
    app.session_source = partial(session_catalog, app.home, app.config, 20)  # as `hws` gives it
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
        assert await pause_until(
            pilot, lambda: "hello there, friend" in [e.title for e in app.session_entries]
        ), "the palette lists the session by its title"

        await say(pilot, app, "/title Docs navbar")  # another session's title: refused, in a sentence
        assert await pause_until(
            pilot, lambda: any(n.startswith("Not titled: Session ") for n in notices(app))
        ), notices(app)
        assert any("already titled 'Docs navbar'; choose another title." in n for n in notices(app))
        sequel = "Docs navbar, the sequel"
        await say(pilot, app, f"/title {sequel}")
        assert await pause_until(pilot, lambda: f"Titled this session “{sequel}”." in notices(app))
        await say(pilot, app, "/title")
        assert await pause_until(
            pilot, lambda: f"This session is titled “{sequel}” · /title NAME renames it." in notices(app)
        ), notices(app)
        session_id = app.session_id

        await pilot.press("ctrl+r")  # the sessions screen lists it by its new title
        assert await pause_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert await pause_until(pilot, lambda: len(screen.rows) == 2, 400)
        listed = {row.session_id: row.title for row in screen.rows}
        assert listed[session_id] == "Docs navbar, the sequel", listed
        assert "Docs navbar, the sequel" in str(screen.options.get_option_at_index(0).prompt)
    store = await SessionStore.open(app.home.state_db)
    try:
        assert (await store.find_session("Docs navbar, the sequel")).id == session_id
    finally:
        await store.close()


async def test_slash_title_before_the_first_message_names_the_session_it_then_goes_on_in(
    scripted: Any,
) -> None:
    app = make_scripted_app(scripted)
    seen: list[Message] = []
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "/title")
        assert await pause_until(pilot, lambda: any(n.startswith("No session yet") for n in notices(app)))
        await say(pilot, app, "/title Morning chores")
        assert await pause_until(pilot, lambda: "Titled this session “Morning chores”." in notices(app))
        titled = app.session_id
        assert titled
        await say(pilot, app, "water the plants please")
        await turn_done(pilot, app, seen, 1)
        assert app.session_id == titled
        assert not any(n.startswith("This session is titled") for n in notices(app)), notices(app)
    store = await SessionStore.open(app.home.state_db)
    try:
        session = await store.get_session(titled)
        assert session is not None and session.title == "Morning chores" and session.message_count == 2
    finally:
        await store.close()


@pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")
def test_hws_c_goes_on_with_the_most_recent_session_in_the_terminal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for text in ("the first conversation", "the second conversation"):
        assert_clean_exit(hws("run", "--scripted", text, home=home), codes=(0,))
    latest = titles(home)[-1][0]
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}
    command = [str(Path(sys.executable).with_name("hws")), "--scripted", "--home", str(home), "-c"]
    with TmuxSession.start(command, width=120, height=40, env=env, cwd=str(tmp_path)) as terminal:
        screen = terminal.wait_for("you  the second conversation", timeout=SCRIPTED_WAIT_S)
        assert f"…{latest[-6:]}" in screen, "the lineage pane names the resumed session"
        assert "the first conversation" not in screen

    empty = tmp_path / "empty-home"
    empty.mkdir()
    done = hws("-c", home=empty)
    assert done.returncode == 2 and "no past session" in done.stderr and "Traceback" not in done.stderr

"""The sessions screen (ctrl+r): typing searches, enter moves to the results, the list reads as a list."""

from __future__ import annotations

from typing import Any

from tests.support.tui_support import (
    MODEL_CONFIG,
    make_app,
    make_home,
    pause_until,
    screen_cells,
    seed_sessions,
)
from tui.screens.sessions import SessionsScreen, short_when


def test_dates_in_the_list_are_short_and_whole() -> None:
    assert short_when("December 29, 2025 at 09:20 PM") == "2025-12-29 21:20"
    assert short_when("yesterday") == "yesterday"  # anything else is shown as it came


async def open_sessions(pilot: Any, app: Any) -> SessionsScreen:
    await pilot.press("ctrl+r")
    assert await pause_until(pilot, lambda: isinstance(app.screen, SessionsScreen))
    screen = app.screen
    assert await pause_until(pilot, lambda: bool(screen.rows), 400)
    return screen  # type: ignore[no-any-return]


async def test_a_query_and_enter_put_the_cursor_on_the_results() -> None:
    home = make_home(MODEL_CONFIG)
    await seed_sessions(
        home,
        [
            ("Navbar work", [("user", "Add a navbar to the docs"), ("assistant", "Done.")]),
            ("Deploy", [("user", "Deploy the docs site"), ("assistant", "Deployed.")]),
        ],
    )
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        assert app.focused is screen.query_one("#session-search"), "typing searches at once"
        first = str(screen.options.get_option_at_index(0).prompt)
        assert first.startswith("2025-12-29 ") and "Deploy" in first, first
        await pilot.press(*"navbar", "enter")
        assert await pause_until(pilot, lambda: screen.mode == "search" and not screen.reading, 400)
        assert await pause_until(pilot, lambda: app.focused is screen.options, 50), app.focused
        assert [row.title for row in screen.rows] == ["Navbar work"]
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: not isinstance(app.screen, SessionsScreen))


async def test_enter_in_an_empty_search_box_moves_to_the_list() -> None:
    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, [("Only one", [("user", "hello"), ("assistant", "hi")])])
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: app.focused is screen.options, 50)
        note = str(screen.query_one("#session-note").render())
        assert note.startswith("1 conversation ·"), note


async def test_enter_pressed_twice_on_a_result_opens_it_once() -> None:
    """The second enter's selection was still queued when the screen left; it popped the main screen."""
    from textual import events as textual_events

    from tui.screens.session_view import SessionViewScreen

    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, [("Only one", [("user", "hello"), ("assistant", "hi")])])
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await pilot.press("enter")
        assert await pause_until(pilot, lambda: app.focused is screen.options, 50)
        for _ in range(2):  # a burst: both reach the list before it handles either
            app.post_message(textual_events.Key("enter", None))
        assert await pause_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        for _ in range(5):
            await pilot.pause()
        assert app.is_running
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "SessionViewScreen"]
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: app.screen is app.main_screen)


async def test_a_session_opened_read_only_keeps_the_configured_window() -> None:
    """Its transcript prunes by tui.prune_keep_lines like the main one (it ignored the config)."""
    from tui.screens.session_view import SessionViewScreen

    config = MODEL_CONFIG + "tui:\n  prune_keep_lines: 300\n  prune_excess_lines: 100\n"
    home = make_home(config)
    ids = await seed_sessions(home, [("Only one", [("user", "hello"), ("assistant", "hi")])])
    app = make_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.view_session(ids[0])
        assert await pause_until(
            pilot, lambda: isinstance(app.screen, SessionViewScreen) and bool(app.screen.query("Transcript"))
        )
        transcript = app.screen.transcript  # type: ignore[attr-defined]
        assert (transcript.prune_keep_lines, transcript.prune_excess_lines) == (300, 100)


async def test_a_search_that_finds_nothing_gives_advice_for_the_screen_not_the_tool() -> None:
    """The note quoted the model's tool ("call session_search with no arguments"), which a person
    cannot call."""
    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, [("Only one", [("user", "hello"), ("assistant", "hi")])])
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await pilot.press(*"zebra")
        assert await pause_until(pilot, lambda: screen.mode == "search" and not screen.reading, 400)
        note = str(screen.query_one("#session-note").render())
        assert "0 conversations match 'zebra'" in note and "No past session matched" in note, note
        assert "session_search" not in note and "arguments" not in note, note


async def test_down_in_the_search_box_moves_to_the_list_and_then_through_it() -> None:
    home = make_home(MODEL_CONFIG)
    await seed_sessions(
        home,
        [
            ("Navbar work", [("user", "Add a navbar to the docs"), ("assistant", "Done.")]),
            ("Deploy", [("user", "Deploy the docs site"), ("assistant", "Deployed.")]),
        ],
    )
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        assert app.focused is screen.query_one("#session-search")
        await pilot.press("down")
        assert app.focused is screen.options and screen.options.highlighted == 0
        await pilot.press("down")
        assert screen.options.highlighted == 1
        await pilot.press("r")  # a key of the list, not a letter of the query
        assert await pause_until(pilot, lambda: not isinstance(app.screen, SessionsScreen))


def two_sessions() -> list[tuple[str, list[tuple[str, str]]]]:
    return [
        ("Navbar work", [("user", "Add a navbar to the docs"), ("assistant", "Done.")]),
        ("Deploy", [("user", "Deploy the docs site"), ("assistant", "Deployed.")]),
        ("Logo", [("user", "A new logo for the docs, in docs colours"), ("assistant", "Drawn.")]),
    ]


async def search(pilot: Any, screen: SessionsScreen, query: str) -> None:
    await pilot.press(*query)
    assert await pause_until(
        pilot, lambda: screen.mode == "search" and screen.search_text == query and not screen.reading, 400
    )
    await pilot.pause()


async def test_search_hits_count_their_messages_as_the_list_does() -> None:
    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, two_sessions())
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        listed = {row.title: row.message_count for row in screen.rows}
        assert listed == {"Navbar work": 2, "Deploy": 2, "Logo": 2}
        await search(pilot, screen, "docs")
        assert {row.title: row.message_count for row in screen.rows} == listed
        prompts = [str(screen.options.get_option_at_index(i).prompt) for i in range(len(screen.rows))]
        assert all("2 msgs" in prompt for prompt in prompts), prompts


async def test_typing_a_query_keeps_the_focus_in_the_search_box_and_down_lands_on_the_best_hit() -> None:
    """While the search ran, the screen's own `loading` hid the search box, so the focus fell to the
    list: the next ↓ moved past the best hit (and the next letters went to the list)."""
    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, two_sessions())
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await search(pilot, screen, "docs")
        assert app.focused is screen.query_one("#session-search"), app.focused
        best = screen.rows[0].title
        await pilot.press("down")
        assert app.focused is screen.options and screen.options.highlighted == 0
        assert screen.highlighted_row().title == best  # type: ignore[union-attr]


async def test_enter_on_a_hit_opens_the_conversation_at_the_hit_not_at_its_end() -> None:
    from tui.screens.session_view import SessionViewScreen
    from widgets.stored_turn import StoredTurn

    turns: list[tuple[str, str]] = []
    for n in range(30):
        word = "zeppelin" if n == 12 else "navbar"
        turns += [
            ("user", f"question {n} about the {word}"),
            ("assistant", f"Answer {n}.\n\n" + "text\n\n" * 6),
        ]
    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, [("Long", turns)])
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await search(pilot, screen, "zeppelin")
        await pilot.press("down", "enter")
        assert await pause_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        view = app.screen
        transcript = view.transcript  # type: ignore[attr-defined]
        assert await pause_until(
            pilot, lambda: not transcript.paging._history_pending and bool(transcript.query(StoredTurn))
        )
        for _ in range(4):
            await pilot.pause()
        shown = "\n".join("".join(c for c, _ in line) for line in screen_cells(app))
        assert "question 12 about the zeppelin" in shown, shown
        assert "question 29" not in shown, "it opened at the end, not at the hit"
        cursor = transcript.cursor
        assert isinstance(cursor, StoredTurn) and cursor.text == "question 12 about the zeppelin"


async def test_the_list_comes_back_where_it_was_left_after_esc_ctrl_r_and_opening_one() -> None:
    from tui.screens.session_view import SessionViewScreen

    home = make_home(MODEL_CONFIG)
    await seed_sessions(home, two_sessions())
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        await search(pilot, screen, "docs")
        await pilot.press("down", "down")
        chosen = screen.highlighted_row()
        assert chosen is not None and screen.options.highlighted == 1
        for close in ("escape", "ctrl+r"):
            await pilot.press(close)
            assert await pause_until(pilot, lambda: app.screen is app.main_screen)
            screen = await open_sessions(pilot, app)
            assert screen.query_one("#session-search").value == "docs"
            assert screen.highlighted_row() == chosen, close
            assert app.focused is screen.options, close
            await pause_until(pilot, lambda s=screen: not s.reading, 400)  # type: ignore[misc]  # read again
            await pilot.pause()
            assert screen.highlighted_row() is not None
            assert screen.highlighted_row().root_id == chosen.root_id, close  # type: ignore[union-attr]
        await pilot.press("enter")  # open it, then come back from it
        assert await pause_until(pilot, lambda: isinstance(app.screen, SessionViewScreen))
        await pilot.press("escape")
        assert await pause_until(pilot, lambda: app.screen is app.main_screen)
        screen = await open_sessions(pilot, app)
        assert screen.query_one("#session-search").value == "docs"
        assert screen.highlighted_row().root_id == chosen.root_id  # type: ignore[union-attr]


async def test_a_rewound_hit_says_rewound_and_a_branch_says_it_is_one() -> None:
    from engine.sessions.branch import branch_session
    from engine.sessions.rewind import rewind_exchanges
    from engine.sessions.store import SessionStore

    home = make_home(MODEL_CONFIG)
    [sid] = await seed_sessions(
        home,
        [
            (
                "Glazes",
                [
                    ("user", "which glaze for the vase"),
                    ("assistant", "Celadon."),
                    ("user", "and the quokka mug"),
                    ("assistant", "Tenmoku."),
                ],
            )
        ],
    )
    store = await SessionStore.open(home.state_db)
    await rewind_exchanges(store, sid, 1)
    await branch_session(store, sid)
    await store.close()
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        listed = [
            str(screen.options.get_option_at_index(i).prompt) for i in range(screen.options.option_count)
        ]
        assert sum("⑂ branch" in line for line in listed) == 1, listed
        await pilot.press(*"quokka", "enter")
        assert await pause_until(pilot, lambda: screen.mode == "search" and not screen.reading, 400)
        assert [row.rewound for row in screen.rows] == [True]
        assert "rewound · " in str(screen.options.get_option_at_index(0).prompt)

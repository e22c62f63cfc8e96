"""The budget pane fits its width: in a narrow side column a row drops its words rather than wrap."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.support.tui_support import MODEL_CONFIG, make_app, pause_until


def table_lines(app: Any) -> tuple[Static, list[str]]:
    table = app.main_screen.budget.query_one("#budget-table", Static)
    return table, str(table.content).split("\n")


async def wait_for_layers(pilot: Any, app: Any) -> None:
    assert await pause_until(pilot, lambda: bool(app.main_screen.budget.view.layers), rounds=400)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_in_a_narrow_column_no_row_wraps_and_the_marks_stay() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 36)) as pilot:  # the side column is about 45 cells wide here
        await wait_for_layers(pilot, app)
        table, lines = table_lines(app)
        width = table.content_region.width
        assert 0 < width < 50
        assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
        assert table.content_region.height == len(lines), "a row wrapped onto a second line"
        identity = next(line for line in lines if line.startswith("identity"))
        assert identity.rstrip().endswith("■")  # the cached mark stays when the words go


async def test_a_wider_column_shows_the_words_again() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_layers(pilot, app)
        _, narrow = table_lines(app)
        assert not any("cached" in line for line in narrow if line.startswith("identity"))

        await pilot.resize_terminal(220, 50)

        def identity() -> str:
            return next(line for line in table_lines(app)[1] if line.startswith("identity"))

        assert await pause_until(pilot, lambda: "■ cached" in identity())
        table, lines = table_lines(app)
        assert table.content_region.height == len(lines)

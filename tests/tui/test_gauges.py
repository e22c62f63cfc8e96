"""Gauges and the status bar: colour carries meaning, turning at 50 / 80 / 95 %."""

from __future__ import annotations

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, FixedClock, make_app
from tui import messages
from widgets.gauge import LEVEL_STYLE, GaugeLevels, bar, format_tokens


def test_levels_turn_at_the_configured_shares() -> None:
    levels = GaugeLevels()
    assert [levels.level(x) for x in (0.0, 0.49, 0.5, 0.79, 0.8, 0.94, 0.95, 1.2)] == [
        "ok",
        "ok",
        "warn",
        "warn",
        "high",
        "high",
        "critical",
        "critical",
    ]
    assert len({LEVEL_STYLE[name] for name in ("ok", "warn", "high", "critical")}) == 4


def test_bars_fill_in_eighths_and_never_overflow() -> None:
    assert bar(0, 4) == "░░░░"
    assert bar(1, 4) == "████"
    assert bar(2, 4) == "████"
    assert bar(0.5, 4) == "██░░"
    assert bar(1 / 32, 4) == "▏░░░"
    assert all(len(bar(x / 10, 7)) == 7 for x in range(11))


def test_token_counts_read_like_people_write_them() -> None:
    assert [format_tokens(n) for n in (412, 1000, 41_200, 128_000, 1_050_000)] == [
        "412",
        "1K",
        "41.2K",
        "128K",
        "1.05M",
    ]


async def test_the_status_bar_colours_the_context_share_and_counts_time() -> None:
    clock = FixedClock()
    app = make_app(MODEL_CONFIG + "tui:\n  gauge_warn: 0.3\n", clock=clock)
    async with app.run_test(size=(160, 10)) as pilot:
        status = app.main_screen.status
        app.main_screen.post_message(messages.to_message(events.Usage(SESSION, 20_000, 0, 0)))
        await pilot.pause()
        assert "$ –" in status.render().plain and "$0.00" not in status.render().plain  # no cost reported
        app.main_screen.post_message(messages.to_message(events.Usage(SESSION, 40_000, 0, 0, 0.5)))
        await pilot.pause()
        rendered = status.render()
        assert "test-model" in rendered.plain and "40K/128K" in rendered.plain and "31%" in rendered.plain
        assert "$0.50" in rendered.plain and "<1m" in rendered.plain and "idle" in rendered.plain
        percent = [span for span in rendered.spans if rendered.plain[span.start : span.end] == " 31%"]
        assert percent and percent[0].style == LEVEL_STYLE["warn"]  # 31 % is past the configured 30 %
        clock.advance(23 * 60)
        assert " 23m " in status.render().plain
        clock.advance(60 * 60)
        assert "1h23m" in status.render().plain

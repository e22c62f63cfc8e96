"""`display.bell_on_complete`: the terminal bell rings when a turn ends, and only when it is on."""

from __future__ import annotations

import pytest

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, pause_until, say, settle


@pytest.mark.parametrize(("setting", "rings"), [("true", 2), ("false", 0)])
async def test_the_bell_rings_when_a_turn_ends(setting: str, rings: int) -> None:
    turns = [[events.TextDelta(SESSION, "one"), events.TurnFinished(SESSION, "one")]] * 2
    app = make_app(MODEL_CONFIG + f"display:\n  bell_on_complete: {setting}\n", agent=ScriptedAgent(turns))
    bells: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.bell = lambda: bells.append("bell")  # type: ignore[method-assign]
        await settle(pilot, app)
        assert bells == []  # starting rings nothing
        await say(pilot, app, "first")
        assert await pause_until(pilot, lambda: not app.turn_running and len(app.agent.received) == 1)
        await say(pilot, app, "second")
        assert await pause_until(pilot, lambda: not app.turn_running and len(app.agent.received) == 2)
        await settle(pilot, app)
        assert len(bells) == rings

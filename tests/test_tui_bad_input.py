"""Bad input in the home as the workstation shows it: each gets a sentence that stays on screen.

(A toast is gone after its timeout; the transcript keeps what the person still has to fix.)
"""

from __future__ import annotations

from tests.tui_support import MODEL_CONFIG, ScriptedAgent, make_app, settle
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

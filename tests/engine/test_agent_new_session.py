"""`Agent.new_session()`: /new and ctrl+n end the session and open one whose prompt reads the home anew."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.agent.errors import AgentBusy
from engine.events import SessionChanged
from tests.support.agent_support import make_rig, of_type, serve, stored_session


async def test_a_new_session_sees_what_the_old_one_saved_and_ends_it(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - name: save
            when: {user: "remember", iteration: 1}
            reply:
              tool_calls:
                - {name: memory, arguments: {action: add, target: user, content: "Hates light themes."}}
          - reply: {text: "Noted."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        await rig.turn("remember: I hate light themes")
        await rig.settle()
        old = rig.agent.session_id
        assert "Hates light themes." not in rig.agent.prompt.text  # the frozen snapshot of the old session
        changed = [e async for e in rig.agent.new_session()]
        new = rig.agent.session_id
        assert [
            (c.session_id, c.previous_session_id, c.reason) for c in of_type(changed, SessionChanged)
        ] == [(new, old, "new_session")]
        assert new != old and rig.agent.history == [] and rig.agent.turns == 0
        assert "Hates light themes." in rig.agent.prompt.text
        await rig.turn("hello")
        prompts = [r.system_prompt for r in server.chat_requests]
        assert "Hates light themes." not in prompts[0] and "Hates light themes." in prompts[-1]
    finally:
        await rig.agent.close()
        server.stop()
    ended = await stored_session(rig.home, old)
    assert ended.end_reason == "new_session"
    assert (await stored_session(rig.home, new)).end_reason == "cli_close"


async def test_a_new_session_waits_for_no_turn(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(
        """
        rules:
          - reply: {text: "Slow.", delay: 5}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        turn = rig.agent.run_turn("hi")
        await anext(turn)  # the turn is running
        with pytest.raises(AgentBusy):
            [e async for e in rig.agent.new_session()]
        await rig.agent.interrupt()
        await turn.aclose()
    finally:
        await rig.agent.close()
        server.stop()

"""The external memory provider wired into the turn loop, against the local Honcho test server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.agent_support import WAIT, make_rig, serve, stored_messages
from tests.support.honcho_server import HonchoTestServer
from tests.support.provider_support import write_config


async def test_the_provider_layer_reaches_the_next_user_message_and_never_the_system_prompt(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {turn: 2, iteration: 1}
            reply: {tool_calls: [{name: todo, arguments: {action: list}}]}
          - reply: {text: "Noted."}
        """
    )
    with HonchoTestServer() as honcho:
        write_config(hermes_home, honcho.url)
        rig = make_rig(server, hermes_home, tmp_path)
        try:
            await rig.turn("I prefer dark themes.")
            assert await asyncio.to_thread(rig.agent.host.drain, WAIT)
            await rig.turn("Make the navbar dark, please.")
            await rig.turn("And the footer?")
            sid = rig.agent.session_id
            assert await asyncio.to_thread(rig.agent.host.drain, WAIT)
        finally:
            await rig.agent.close()
            server.stop()
        mirrored = [(m.peer_id, m.content) for m in honcho.messages("hermes", sid)]
    assert mirrored[:2] == [("user", "I prefer dark themes."), ("hermes", "Noted.")]
    assert ("user", "Make the navbar dark, please.") in mirrored

    requests = server.chat_requests
    assert len({r.system_prompt for r in requests}) == 1
    assert "External memory" not in (requests[0].system_prompt or "")
    turn2 = [r for r in requests if sum(m["role"] == "user" for m in r.messages) == 2]
    assert len(turn2) == 2, "a tool call, then the answer"
    for request in turn2:  # every call of the turn carries the same layer: the prefix stays put
        content = request.messages[-1 if request is turn2[0] else -3]["content"]
        assert content.startswith("Make the navbar dark, please.\n\n## External memory")
        assert "user prefers dark themes" in content
    turn3 = requests[-1].messages
    assert turn3[3]["content"] == "Make the navbar dark, please.", "only the current turn carries it"
    stored = await stored_messages(rig.home, sid)
    assert all("External memory" not in m.text for m in stored), "the layer is never stored"

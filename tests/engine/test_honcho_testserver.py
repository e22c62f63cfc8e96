"""The local Honcho stand-in: the SDK's own calls work against it, and it misbehaves on request."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import honcho
import pytest
from honcho.api_types import PeerConfig

from tests.support import honcho_deriver
from tests.support.honcho_server import HonchoTestServer


@pytest.fixture
def server() -> Iterator[HonchoTestServer]:
    with HonchoTestServer() as srv:
        yield srv


def client(server: HonchoTestServer, **kwargs: Any) -> honcho.Honcho:
    return honcho.Honcho(base_url=server.url, workspace_id="ws", max_retries=0, timeout=2, **kwargs)


def raw(server: HonchoTestServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_sdk_round_trip_of_peers_sessions_messages_and_chat(server: HonchoTestServer) -> None:
    h = client(server)
    ana = h.peer("ana", configuration=PeerConfig(observe_me=True))
    bot = h.peer("bot", configuration=PeerConfig(observe_me=True))
    session = h.session("s1", peers=[ana, bot])
    stored = session.add_messages([ana.message("I prefer dark themes."), bot.message("Dark it is.")])
    assert [m.peer_id for m in stored] == ["ana", "bot"] and stored[0].token_count > 0

    assert [m.content for m in session.messages()] == ["I prefer dark themes.", "Dark it is."]
    assert {p.id for p in session.peers()} == {"ana", "bot"}
    assert ana.representation() == "Explicit observations about ana:\n- ana prefers dark themes\n" + (
        "Observed patterns of ana:\n- ana writes short messages (about 4 words each)"
    )
    assert ana.get_card() == ["ana prefers dark themes"]
    assert ana.chat("which themes?") == "From what ana has said: ana prefers dark themes."
    assert bot.chat("what does ana like?", target=ana) is None, "bot does not observe others in s1"
    context = session.context(peer_target="ana", tokens=1000)
    assert context.peer_representation and len(context.messages) == 2
    assert [m.content for m in ana.search("dark")] == ["I prefer dark themes."]
    assert [s.id for s in ana.sessions()] == ["s1"]
    assert h.queue_status().completed_work_units == 2


def test_observe_me_off_hides_a_peer_from_representations(server: HonchoTestServer) -> None:
    h = client(server)
    quiet = h.peer("quiet", configuration=PeerConfig(observe_me=False))
    session = h.session("s1", peers=[quiet])
    session.add_messages([quiet.message("I like secrets.")])
    assert quiet.representation() == ""
    assert quiet.chat("anything?") is None


def test_a_peer_sees_another_only_where_it_observes_others(server: HonchoTestServer) -> None:
    from honcho.api_types import SessionPeerConfig

    h = client(server)
    ana, bot = h.peer("ana"), h.peer("bot")
    watching = h.session(
        "s1", peers=[(ana, SessionPeerConfig()), (bot, SessionPeerConfig(observe_others=True))]
    )
    blind = h.session(
        "s2", peers=[(ana, SessionPeerConfig()), (bot, SessionPeerConfig(observe_others=False))]
    )
    watching.add_messages([ana.message("I use vim.")])
    blind.add_messages([ana.message("I use emacs.")])
    view = bot.representation(target=ana)
    assert "ana uses vim" in view and "emacs" not in view
    assert "emacs" in ana.representation()


def test_every_request_is_recorded_with_its_body_and_status(server: HonchoTestServer) -> None:
    h = client(server, api_key="k")
    h.peer("ana")
    assert [r.line for r in server.requests] == ["POST /v3/workspaces", "POST /v3/workspaces/ws/peers"]
    assert server.requests[1].body == {"id": "ana"}
    assert server.requests[1].status == 200
    assert server.requests[1].headers["authorization"] == "Bearer ***"
    assert server.requests[1].headers["x-honcho-host"].startswith("honcho-python/")


def test_invalid_ids_unknown_routes_and_missing_things_are_refused(server: HonchoTestServer) -> None:
    assert raw(server, "POST", "/v3/workspaces", {"id": "bad id!"})[0] == 422
    assert raw(server, "GET", "/v3/nothing")[0] == 404
    assert raw(server, "PUT", "/v3/workspaces/missing", {"metadata": {}})[0] == 404
    raw(server, "POST", "/v3/workspaces", {"id": "ws"})
    status, body = raw(server, "POST", "/v3/workspaces/ws/sessions/none/messages", {"messages": []})
    assert status == 404 and "not found" in body["detail"]
    raw(server, "POST", "/v3/workspaces/ws/sessions", {"id": "s"})
    too_long = {"messages": [{"peer_id": "a", "content": "x" * 25_001}]}
    assert raw(server, "POST", "/v3/workspaces/ws/sessions/s/messages", too_long)[0] == 422


def test_an_api_key_is_enforced_when_the_server_has_one() -> None:
    with HonchoTestServer(api_key="right") as srv:
        with pytest.raises(honcho.AuthenticationError):
            client(srv, api_key="wrong").peer("ana")
        assert client(srv, api_key="right").peer("ana").id == "ana"


def test_faults_hit_only_what_they_match_and_only_as_often_as_asked(server: HonchoTestServer) -> None:
    h = client(server)
    h.peer("ana")
    server.fail(500, match="/peers", times=1)
    with pytest.raises(honcho.ServerError):
        h.peer("bob")
    assert h.peer("bob").id == "bob", "the fault was used up"
    server.drop(match="/sessions", times=1)
    with pytest.raises(honcho.ConnectionError):
        h.session("s1")
    server.stall(1.5, match="/sessions", times=1)
    with pytest.raises(honcho.TimeoutError):
        honcho.Honcho(base_url=server.url, workspace_id="ws", max_retries=0, timeout=0.2).session("s1")


def test_a_held_request_waits_for_release(server: HonchoTestServer) -> None:
    import threading

    h = client(server)
    h.peer("ana")
    hold = server.hold(match="/peers")
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(h.peer("bob").id))
    worker.start()
    assert hold.wait_held(1, 5)
    assert done == []
    hold.release()
    worker.join(5)
    assert done == ["bob"]


def test_third_person_rewrites_first_person_statements() -> None:
    rewrite = honcho_deriver.third_person
    assert rewrite("I prefer dark themes.", "ana") == "ana prefers dark themes"
    assert rewrite("I'm a backend developer", "ana") == "ana is a backend developer"
    assert rewrite("I don't like long answers", "ana") == "ana doesn't like long answers"
    assert rewrite("My editor is vim and I use tmux.", "ana") == "ana's editor is vim and ana uses tmux"
    assert rewrite("I always check my work", "ana") == "ana always checks their work"
    assert rewrite("The build is green.", "ana") is None

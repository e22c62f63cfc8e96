"""The docker backend's container has no network; a command that asks for it (`network: true`) is asked
about like the sandbox's, and when approved runs in the session's shell with the container on docker's
bridge network for that command only. End to end through `hws run` against a real dockerd; the host
listens on the bridge's gateway address, which only a container on that network can reach."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.tools.terminal_approval import NETWORK_SCOPE
from tests.support.docker_support import docker_client, test_image
from tests.support.shell_support import config, results, run_calls

pytestmark = pytest.mark.usefixtures("closing_benches")
BODY = b"reached the host\n"


class Listener:
    """An HTTP server on the bridge's gateway address that records the paths asked for."""

    def __init__(self, address: str) -> None:
        self.received: list[str] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", str(len(BODY)))
                self.end_headers()
                self.wfile.write(BODY)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.url = f"http://{address}:{self.server.server_address[1]}"


@pytest.fixture
def listener() -> Iterator[Listener]:
    config_ = docker_client().networks.get("bridge").attrs["IPAM"]["Config"]
    gateway = next((c["Gateway"] for c in config_ if "." in c.get("Gateway", "")), "")
    if not gateway:
        pytest.skip("docker's bridge network has no IPv4 gateway here to listen on")
    served = Listener(gateway)
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    yield served
    served.server.shutdown()
    served.server.server_close()


def fetch(url: str, path: str) -> str:
    return f"curl -sS -m 10 {url}{path}"


ROUTES = "echo routes $(tail -n +2 /proc/net/route | wc -l)"  # lines after the header: one per route


def test_the_network_is_asked_for_and_lent_for_one_command(
    listener: Listener, hermes_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    config(hermes_home, backend="docker", docker_image=test_image(), timeout=30)

    # Nobody is there to answer: the question is declined and nothing reaches the host.
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": fetch(listener.url, "/asked"), "network": True}),
            ("terminal", {"command": f"{ROUTES}; {fetch(listener.url, '/unasked')}"}),
        ],
    )
    [asked] = [e for e in events if e["type"] == "approval_needed"]
    assert asked["rule"] == "network" and asked["scope"] == NETWORK_SCOPE
    assert "docker container has none unless you allow it" in asked["reason"]
    declined, unasked = results(events)
    assert '"declined": true' in declined
    assert unasked.split("\n")[1] == "routes 0" and not unasked.startswith("[exit 0;"), unasked
    assert listener.received == []

    # Approved (--yolo answers it): the command reaches the host, in the session's shell, and then
    # the container is offline again.
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "export A=kept"}),
            (
                "terminal",
                {
                    "command": f"cd sub && {ROUTES} && {fetch(listener.url, '/approved')} && echo $A",
                    "network": True,
                },
            ),
            ("terminal", {"command": f"pwd; {ROUTES}; {fetch(listener.url, '/after')}"}),
            ("terminal", {"command": "sleep 300", "background": True, "network": True}),
        ],
        "--yolo",
    )
    _, approved, after, background = results(events)
    assert approved.startswith("[exit 0;"), approved
    lines = approved.split("\n")
    assert lines[1] != "routes 0" and lines[2:4] == [BODY.decode().strip(), "kept"], approved
    assert "the container joined the docker network bridge for this command and has left it" in approved
    assert after.split("\n")[1:3] == [str(project / "sub"), "routes 0"] and not after.startswith("[exit 0;")
    assert "background process cannot have the network" in background
    assert listener.received == ["/approved"]
    assert not docker_client().containers.list(all=True, filters={"label": "hws"})

"""MCP servers no one here wrote (PyPI, the dev extras), and one over streamable HTTP, through `hws run`."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fault_support import ROOT
from tests.support.mcp_support import finished, free_port, offered, program, run, wait_port, write_home

TIME_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply:
      text: "Checking the clock."
      tool_calls: [{name: mcp_time_convert_time, arguments: {source_timezone: UTC, time: "12:00",
                    target_timezone: Asia/Tokyo}}]
  - when: {after_tool: true}
    reply: {text: "In Tokyo: {{last_tool_result}}"}
"""


def test_time_server_converts_with_arguments_and_structured_output(hermes_home: Path, tmp_path: Path) -> None:
    write_home(hermes_home, {"time": {"command": program("mcp-server-time"), "trust": "allow"}})
    done, events, requests = run(hermes_home, tmp_path, TIME_SCENARIO, prompt="noon UTC in Tokyo?")
    [call] = finished(events, "mcp_time_convert_time")
    assert call["ok"], call
    result = json.loads(call["result"])["result"]  # the structured content, as the model read it
    assert result["target"]["timezone"] == "Asia/Tokyo"
    assert result["target"]["datetime"].endswith("21:00:00+09:00")
    assert result["time_difference"] == "+9.0h"
    assert "Asia/Tokyo" in done.stdout
    # the server's tools joined the tool list after the built-in ones
    names = offered(requests[-1])
    assert names.index("mcp_time_get_current_time") > names.index("terminal")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    git = ["git", "-C", str(folder), "-c", "user.name=Test", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    (folder / "notes.txt").write_text("first line\n")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Add the notes of the harbour survey"], check=True)
    (folder / "notes.txt").write_text("first line\nsecond line\n")
    return folder


def test_git_server_reads_a_test_repository(hermes_home: Path, tmp_path: Path, repo: Path) -> None:
    git = {"command": program("mcp-server-git"), "args": ["--repository", str(repo)], "trust": "allow"}
    write_home(hermes_home, {"git": git})
    scenario = f"""
rules:
  - when: {{iteration: 1}}
    reply:
      tool_calls:
        - {{name: mcp_git_git_log, arguments: {{repo_path: "{repo}", max_count: 5}}}}
        - {{name: mcp_git_git_diff_unstaged, arguments: {{repo_path: "{repo}"}}}}
  - when: {{after_tool: true}}
    reply: {{text: "Read the repository."}}
"""
    _, events, _ = run(hermes_home, tmp_path, scenario)
    [log] = finished(events, "mcp_git_git_log")
    [diff] = finished(events, "mcp_git_git_diff_unstaged")
    assert log["ok"] and "Add the notes of the harbour survey" in log["result"]
    assert diff["ok"] and "+second line" in diff["result"]


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/page":
            self.send_error(404)
            return
        body = b"<html><body><h1>Tide table</h1><p>High water at 06:42 on the quay.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def page() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page"
    server.shutdown()
    server.server_close()


def test_fetch_server_fetches_a_page_served_on_loopback(hermes_home: Path, tmp_path: Path, page: str) -> None:
    fetch = {
        "command": program("mcp-server-fetch"),
        "args": ["--ignore-robots-txt", "--allow-private-ips"],
        "trust": "allow",
        "env": {"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
    }
    write_home(hermes_home, {"fetch": fetch})
    scenario = f"""
rules:
  - when: {{iteration: 1}}
    reply: {{tool_calls: [{{name: mcp_fetch_fetch, arguments: {{url: "{page}"}}}}]}}
  - when: {{after_tool: true}}
    reply: {{text: "Fetched."}}
"""
    _, events, _ = run(hermes_home, tmp_path, scenario)
    [call] = finished(events, "mcp_fetch_fetch")
    assert call["ok"], call["result"]
    assert "High water at 06:42 on the quay." in call["result"]


@pytest.fixture
def http_server() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mcp_servers", "http", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


HTTP_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply:
      tool_calls:
        - {name: mcp_remote_add, arguments: {a: 2, b: 40}}
        - {name: mcp_remote_whoami, arguments: {}}
  - when: {after_tool: true}
    reply: {text: "Done."}
"""


def test_streamable_http_server_with_a_header_from_dotenv_the_model_never_sees(
    hermes_home: Path, tmp_path: Path, http_server: str
) -> None:
    token = "hws-test-token-7f3a9c1e5b"
    remote = {"url": http_server, "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"}, "trust": "allow"}
    write_home(hermes_home, {"remote": remote})
    (hermes_home / ".env").write_text(f"REMOTE_TOKEN={token}\n")
    done, events, requests = run(hermes_home, tmp_path, HTTP_SCENARIO)
    [add] = finished(events, "mcp_remote_add")
    [whoami] = finished(events, "mcp_remote_whoami")
    assert add["ok"] and json.loads(add["result"]) == {"result": 42}
    # The server got the header with the key from .env; what the model reads has it redacted.
    assert whoami["ok"] and whoami["result"].startswith("authorization=Bearer ")
    assert token not in whoami["result"]
    assert token not in json.dumps(requests) and token not in done.stdout + done.stderr

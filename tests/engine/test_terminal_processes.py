"""Background processes end to end through `hws run`: a server started in the background answers a
later `curl` in the same session, `process` polls its log and kills it, and whatever still runs when
the run ends is stopped with a line that says which; nothing is left behind."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from tests.support.fault_support import hws
from tests.support.shell_support import config, free_port, results, run_calls


def alive_with(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if marker in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("sandbox", ["bubblewrap", "none"])
def test_a_background_server_answers_curl_is_polled_and_killed(
    sandbox: str, hermes_home: Path, tmp_path: Path
) -> None:
    config(hermes_home, sandbox=sandbox, kill_grace=0.5)
    project = tmp_path / "project"
    (project / "site").mkdir(parents=True)
    (project / "site" / "hello.txt").write_text("hello from the background\n")
    port = free_port()
    napper = f"{600 + secrets.randbelow(10**6) / 10**7:.7f}"
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "cd site"}),
            ("terminal", {"command": f"python3 -m http.server {port} --bind 127.0.0.1", "background": True}),
            (
                "terminal",
                {
                    "command": f"for i in $(seq 100); do curl -sf http://127.0.0.1:{port}/hello.txt "
                    "&& break; sleep 0.1; done"
                },
            ),
            ("process", {"action": "poll", "id": "p1"}),
            ("process", {"action": "kill", "id": "p1"}),
            ("process", {"action": "list"}),
            ("terminal", {"command": f"sleep {napper}", "background": True}),
        ],
    )
    _, started, fetched, polled, killed, listed, napping = results(events)
    assert started.startswith("[started background process p1;") and str(project / "site") in started
    assert fetched.split("\n")[1] == "hello from the background"
    # It says so before it accepts the connection that curl made (its request line may come later).
    assert polled.startswith("[p1 running") and f"Serving HTTP on 127.0.0.1 port {port}" in polled
    assert killed.startswith("[p1 killed")
    assert listed.startswith("p1  killed")
    assert napping.startswith("[started background process p2;")
    kinds = [e["type"] for e in events]
    assert kinds.count("process_started") == 2
    [p1_end, p2_end] = [e for e in events if e["type"] == "process_ended"]
    assert (p1_end["process_id"], p1_end["reason"]) == ("p1", "killed")
    assert (p2_end["process_id"], p2_end["reason"]) == ("p2", "session_end")
    [said] = [e["text"] for e in events if e["type"] == "status" and "background process" in e["text"]]
    assert said == f"Stopped 1 background process as the session ended: p2 `sleep {napper}`."
    assert not alive_with(f"http.server {port}") and not alive_with(napper)
    log = (hermes_home / "hws" / "sessions").glob("*/processes/p1.log")
    assert "GET /hello.txt" in next(log).read_text()


def test_a_background_process_that_ends_by_itself_is_waited_for(hermes_home: Path, tmp_path: Path) -> None:
    config(hermes_home)
    project = tmp_path / "project"
    project.mkdir()
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "export WORD=finished"}),
            ("terminal", {"command": "sleep 0.5; echo $WORD; exit 4", "background": True}),
            ("process", {"action": "wait", "id": "p1", "timeout": 30}),
            ("process", {"action": "poll", "id": "p1"}),
        ],
    )
    _, _, waited, polled = results(events)
    assert waited.startswith("[p1 exited 4 after") and waited.split("\n")[1] == "finished"
    assert polled.split("\n")[1] == "(no new output)"


def test_input_for_a_background_shell_is_approved_like_a_command(hermes_home: Path, tmp_path: Path) -> None:
    config(hermes_home)
    project = tmp_path / "project"
    (project / "keep").mkdir(parents=True)
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "bash", "background": True}),
            ("process", {"action": "write", "id": "p1", "input": "rm -rf keep\n"}),
            ("process", {"action": "write", "id": "p1", "input": "echo still here\n"}),
            ("process", {"action": "wait", "id": "p1", "timeout": 1}),
        ],
    )
    _, refused, wrote, waited = results(events)
    assert "declined" in refused and (project / "keep").is_dir()
    assert "still here" in wrote + waited


def test_a_pty_program_sees_a_terminal_and_its_colours_are_stripped(
    hermes_home: Path, tmp_path: Path
) -> None:
    config(hermes_home)
    project = tmp_path / "project"
    project.mkdir()
    colour = "printf '\\033[31mred\\033[0m\\n'; python3 -c 'import sys; print(sys.stdout.isatty())'"
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": colour, "pty": True}),
            ("terminal", {"command": "python3 -c 'import sys; print(sys.stdout.isatty())'"}),
            ("terminal", {"command": "python3 -q", "pty": True, "background": True}),
            ("process", {"action": "write", "id": "p1", "input": "print(6 * 7)\n"}),
            ("process", {"action": "wait", "id": "p1", "timeout": 2}),
            ("process", {"action": "write", "id": "p1", "input": "exit()\n"}),
            ("process", {"action": "wait", "id": "p1", "timeout": 30}),
        ],
    )
    on_pty, plain, _, wrote, answered, _, ended = results(events)
    assert on_pty.split("\n")[1:3] == ["red", "True"] and "\x1b" not in on_pty
    assert plain.split("\n")[1] == "False"
    # the answer is in what came after the input: at once, or (under load) after the wait
    after_input = wrote + answered + ended
    assert "42" in after_input and "\x1b" not in after_input
    assert ended.startswith("[p1 exited 0")


def test_hws_tools_lists_the_process_tool(hermes_home: Path, tmp_path: Path) -> None:
    done = hws("tools", home=hermes_home, cwd=tmp_path)
    assert any(line.startswith("process ") for line in done.stdout.splitlines()), done.stdout

"""The persistent shell, end to end through `hws run` with a scripted model, on the local backend
(in the real bwrap sandbox, and without it): state carries over, a hung command times out and the
shell goes on, a shell that ends is replaced with the model told, and approvals still ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shell_support import config, results, run_calls


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "sub").mkdir(parents=True)
    return folder


@pytest.mark.parametrize("sandbox", ["bubblewrap", "none"])
def test_cd_and_export_carry_over_to_the_next_call(sandbox: str, hermes_home: Path, project: Path) -> None:
    config(hermes_home, sandbox=sandbox)
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "cd sub && export A=1 && greet() { echo hello $1; }"}),
            ("terminal", {"command": "pwd; echo A=$A; greet you"}),
        ],
    )
    first, second = results(events)
    assert first.startswith("[exit 0;")
    assert second.split("\n")[1:] == [str(project / "sub"), "A=1", "hello you"]


def test_an_activated_venv_stays_active(hermes_home: Path, project: Path) -> None:
    config(hermes_home, timeout=120)
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "python3 -m venv --without-pip v && . v/bin/activate"}),
            ("terminal", {"command": "which python; echo $VIRTUAL_ENV"}),
        ],
    )
    made, which = results(events)
    assert made.startswith("[exit 0;"), made
    assert which.split("\n")[1:] == [str(project / "v" / "bin" / "python"), str(project / "v")]


def test_a_hung_command_times_out_and_the_next_call_works(hermes_home: Path, project: Path) -> None:
    config(hermes_home, timeout=2, kill_grace=0.5, restart_grace=1.0)
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "export KEPT=yes; cd sub"}),
            ("terminal", {"command": "echo before; sleep 300; echo never"}),
            # deaf to ctrl+c: only the KILL stops it, and the rest of the line must not run after it
            ("terminal", {"command": "sh -c 'trap \"\" INT; sleep 300'; echo never; touch ran"}),
            ("terminal", {"command": "echo KEPT=$KEPT; pwd; ls"}),
            ("terminal", {"command": "while :; do :; done"}),
            ("terminal", {"command": "echo KEPT=$KEPT; pwd"}),
        ],
    )
    _, hung, deaf, after, looping, restarted = results(events)
    assert hung.startswith("[timed out after 2s; the command was stopped, the shell kept;")
    assert "before" in hung and "never" not in hung
    assert deaf.startswith("[timed out after 2s; the command was stopped, the shell kept;")
    assert "never" not in deaf and not (project / "sub" / "ran").exists()
    assert after.split("\n")[1:3] == ["KEPT=yes", str(project / "sub")]
    assert looping.startswith("[timed out after 2s; the shell was restarted;")
    assert "A new shell was started in" in looping and "are gone" in looping
    assert restarted.split("\n")[1:] == ["KEPT=", str(project)]


def test_a_command_that_ends_the_shell_is_said_and_a_fresh_shell_follows(
    hermes_home: Path, project: Path
) -> None:
    config(hermes_home)
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "cd sub; exit 3"}),
            ("terminal", {"command": "pwd"}),
            ("terminal", {"command": "cd sub", "reset": False}),
            ("terminal", {"command": "pwd", "reset": True}),
        ],
    )
    ended, where, _, fresh = results(events)
    assert ended.startswith("[exit 3;") and "The command ended the shell (exit 3)." in ended
    assert where.split("\n")[1] == str(project)
    assert fresh.split("\n")[1] == str(project)


def test_every_command_in_the_persistent_shell_still_asks(hermes_home: Path, project: Path) -> None:
    """Nobody answers (`hws run` without a terminal): the destructive command is declined, in the
    folder the shell has moved to."""
    config(hermes_home)
    (project / "sub" / "build").mkdir()
    events = run_calls(
        hermes_home,
        project,
        [("terminal", {"command": "cd sub"}), ("terminal", {"command": "rm -rf build"})],
    )
    _, declined = results(events)
    assert "declined" in declined and "./build" in declined
    assert (project / "sub" / "build").is_dir()
    [asked] = [e for e in events if e["type"] == "approval_needed"]
    assert asked["rule"] == "rm-recursive" and asked["command"] == "rm -rf build"


def test_the_environment_has_no_secrets(hermes_home: Path, project: Path) -> None:
    key = "sk-or-v1-" + "0123456789abcdef" * 4
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / ".env").write_text(f"OPENROUTER_API_KEY={key}\n")
    config(hermes_home)
    events = run_calls(hermes_home, project, [("terminal", {"command": "env; cat $HERMES_HOME/.env"})])
    [shown] = results(events)
    assert key not in shown and "OPENROUTER_API_KEY" not in shown

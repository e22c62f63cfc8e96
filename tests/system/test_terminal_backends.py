"""The persistent shell's core checks on the `ssh` backend (a real sshd on 127.0.0.1) and the `docker`
backend (a real dockerd, an image built here), end to end through `hws run`; the host-key question;
and the backends hws does not have, refused with a sentence that names the ones it has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.engine.test_terminal_processes import alive_with
from tests.support.docker_support import docker_client, test_image
from tests.support.fault_support import hws
from tests.support.shell_support import config, free_port, results, run_calls
from tests.support.ssh_support import running_sshd
from tests.support.tool_helpers import make_bench, with_settings

pytestmark = pytest.mark.usefixtures("closing_benches")


@pytest.fixture(params=["ssh", "docker"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The terminal settings of a backend that runs (the folder commands start in is `project`)."""
    project = tmp_path / "project"
    project.mkdir()
    if request.param == "ssh":
        with running_sshd(tmp_path / "sshd") as server:
            yield server.settings(ssh_cwd=str(project))
    else:
        yield {"backend": "docker", "docker_image": test_image()}


def test_the_core_checks_hold_on_the_backend(
    backend: dict[str, Any], hermes_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir()
    config(hermes_home, timeout=20, kill_grace=0.5, restart_grace=1.0, **backend)
    port = free_port()
    where = "ssh" if backend["backend"] == "ssh" else f"docker {backend['docker_image']}"
    events = run_calls(
        hermes_home,
        project,
        [
            ("terminal", {"command": "cd sub && export A=1"}),
            ("terminal", {"command": "pwd; echo $A"}),
            ("terminal", {"command": "python3 -m venv --without-pip v && . v/bin/activate"}),
            ("terminal", {"command": "which python"}),
            ("terminal", {"command": "echo served > hello.txt"}),
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
            ("terminal", {"command": "sleep 300", "timeout": 2}),
            ("terminal", {"command": "echo still $A"}),
        ],
    )
    state, shown, venv, which, _, started, fetched, polled, killed, hung, after = results(events)
    assert where in state.split("\n")[0]
    assert shown.split("\n")[1:] == [str(project / "sub"), "1"]
    assert venv.startswith("[exit 0;"), venv
    assert which.split("\n")[1] == str(project / "sub" / "v" / "bin" / "python")
    assert started.startswith("[started background process p1;") and where in started
    assert fetched.split("\n")[1] == "served"
    assert polled.startswith("[p1 running") and f"port {port}" in polled
    assert killed.startswith("[p1 killed")
    assert hung.startswith("[timed out after 2s; the command was stopped, the shell kept;")
    assert after.split("\n")[1] == "still 1"
    assert not alive_with(f"http.server {port}")
    if backend["backend"] == "docker":
        assert not docker_client().containers.list(all=True, filters={"label": "hws"})


async def test_an_unknown_ssh_host_is_asked_about_and_then_known(hermes_home: Path, tmp_path: Path) -> None:
    with running_sshd(tmp_path / "sshd") as server:
        known = tmp_path / "known_hosts"
        settings = server.settings(ssh_known_hosts=str(known), ssh_cwd=str(tmp_path))
        config = with_settings(**{f"terminal__{k}": v for k, v in settings.items()})
        bench = make_bench(tmp_path, hermes_home, config)
        bench.user.answers = ["deny"]
        refused = await bench.call("terminal", {"command": "echo hi"})
        await bench.close()
        bench.user.answers = ["once"]
        accepted = await bench.call("terminal", {"command": "echo hi"})
        await bench.close()
    assert not refused.ok and "was not trusted, so nothing was run" in refused.content
    first, second = bench.user.requests
    assert first.rule == second.rule == "ssh-host-key" and first.always_ask and not first.allow_session
    assert "SHA256:" in first.reason and str(known) in first.reason
    assert accepted.ok and accepted.content.split("\n")[1] == "hi"
    assert known.read_text().split()[:2] == server.host_key_line.split()[:2]


@pytest.mark.parametrize("name", ["modal", "daytona", "singularity", "kubernetes"])
async def test_backends_hws_does_not_have_are_refused_with_the_ones_it_has(
    name: str, hermes_home: Path, tmp_path: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home, with_settings(terminal__backend=name))
    outcome = await bench.call("terminal", {"command": "echo hi"})
    assert not outcome.ok and f"terminal.backend is `{name}`" in outcome.content
    assert all(f"`{known}`" in outcome.content for known in ("local", "ssh", "docker"))


async def test_a_docker_image_that_is_not_here_is_said(hermes_home: Path, tmp_path: Path) -> None:
    docker_client()
    settings = with_settings(terminal__backend="docker", terminal__docker_image="hws-no-such-image:none")
    bench = make_bench(tmp_path, hermes_home, settings)
    outcome = await bench.call("terminal", {"command": "echo hi"})
    assert (
        not outcome.ok
        and "hws-no-such-image:none is not here and hws does not pull images" in outcome.content
    )


def test_doctor_checks_the_configured_backend(
    backend: dict[str, Any], hermes_home: Path, tmp_path: Path
) -> None:
    config(hermes_home, **backend)
    done = hws("doctor", "--offline", home=hermes_home, cwd=tmp_path / "project")
    [line] = [line for line in done.stdout.splitlines() if line.split()[1:2] == ["terminal"]]
    assert line.split()[0] == "ok" and "a persistent shell starts there" in line, done.stdout
    config(hermes_home, **{**backend, "ssh_port": free_port(), "docker_image": "hws-no-such-image:none"})
    done = hws("doctor", "--offline", home=hermes_home, cwd=tmp_path / "project")
    [line] = [line for line in done.stdout.splitlines() if line.split()[1:2] == ["terminal"]]
    assert line.split()[0] == "warning", done.stdout

"""`hws doctor`'s look at the configured terminal backend: reachable, image present, a shell starts.

Nothing is asked and nothing is added to known_hosts here: an ssh host whose key is unknown is
reported (the first session asks about it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.config import Config
from engine.home import Home
from engine.tools.backends.base import BackendError
from engine.tools.backends.choice import backend_label, backend_name, backend_problem, make_backend
from engine.tools.capture import Capture
from engine.tools.persistent_shell import PersistentShell

CHECK_TIMEOUT = 60.0  # seconds the whole check may take


async def _refuse_unknown_host(question: str, fingerprint: str) -> bool:
    raise BackendError(
        f"{question.split(';')[0]}: the first session asks whether to trust its key {fingerprint}"
    )


async def _try(home: Home, config: Config, cwd: Path) -> str:
    """What a shell on the backend said to `echo`; raises BackendError with a sentence."""
    backend = make_backend(home, config, cwd, home.journal_dir / "doctor", _refuse_unknown_host)
    try:
        await backend.open()
        start = str(config.terminal.ssh_cwd or "") if backend.name == "ssh" else str(cwd)
        shell = PersistentShell(backend, start, kill_grace=1.0, restart_grace=2.0)
        capture = Capture(4096, 0)
        try:
            run = await shell.run("echo shell-ok", 30, capture)
        finally:
            await shell.close()
        said = bytes(capture.head).decode(errors="replace").strip()
        if run.exit_code != 0 or said != "shell-ok":
            raise BackendError(f"a shell there did not answer as expected ({said[-200:] or run.lost_shell})")
        return said
    finally:
        await backend.close()


def doctor_line(home: Home, config: Config, cwd: Path) -> tuple[bool, str, str]:
    """(ok, message, fix) about the configured backend; `local` is the sandbox's own line."""
    name = backend_name(config)
    problem = backend_problem(config)
    if problem:
        return False, problem, "set terminal.backend to local, ssh or docker"
    if name == "local":
        return True, f"terminal backend: {backend_label(config)}", ""
    try:
        asyncio.run(asyncio.wait_for(_try(home, config, cwd), CHECK_TIMEOUT))
    except BackendError as exc:
        return False, f"terminal backend {backend_label(config)}: {exc}", _fix(name)
    except TimeoutError:
        return False, f"terminal backend {backend_label(config)}: no answer in {CHECK_TIMEOUT:g}s", _fix(name)
    persistent = "a persistent shell" if config.terminal.persistent else "a shell"
    return True, f"terminal backend {backend_label(config)}: reachable, {persistent} starts there", ""


def _fix(name: str) -> str:
    if name == "ssh":
        return "check terminal.ssh_host, ssh_port, ssh_user and ssh_key (or your ssh agent)"
    return "start dockerd and check terminal.docker_image (`docker images`)"

"""Which backend terminal.backend names, why it cannot be used, and how to name where commands run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from engine.config import Config
from engine.home import Home
from engine.tools.backends.base import Backend, BackendError

BACKENDS = ("local", "ssh", "docker")
TrustHostKey = Callable[[str, str], Awaitable[bool]]  # (question, fingerprint) -> trusted?
# Backends Hermes Agent has that hws does not: named so the refusal can say so.
ELSEWHERE = ("modal", "daytona", "singularity", "vercel", "vercel_sandbox")


def backend_name(config: Config) -> str:
    return str(config.terminal.backend or "local").strip().lower() or "local"


def backend_problem(config: Config) -> str:
    """Why the configured backend cannot be used, in one sentence ("" when it can be tried)."""
    name = backend_name(config)
    section = config.terminal
    if name not in BACKENDS:
        known = "Hermes Agent's" if name in ELSEWHERE else "an unknown"
        return (
            f"terminal.backend is `{name}`, {known} backend that hws does not have; hws runs commands on "
            f"`local` (this machine, sandboxed), `ssh` (terminal.ssh_host) or `docker` "
            f"(terminal.docker_image): set one of those in config.yaml."
        )
    if name == "ssh" and not str(section.ssh_host).strip():
        return "terminal.backend is `ssh` but terminal.ssh_host is empty: name the host in config.yaml."
    if name == "docker" and not str(section.docker_image).strip():
        return (
            "terminal.backend is `docker` but terminal.docker_image is empty: name an image in config.yaml."
        )
    return ""


def backend_label(config: Config) -> str:
    """Where commands run, from the config alone (`local`, `ssh dev@box`, `docker python:3.12`)."""
    name = backend_name(config)
    section = config.terminal
    if name == "ssh":
        from engine.tools.backends.ssh_target import ssh_target

        return f"ssh {ssh_target(config).shown}"
    if name == "docker":
        return f"docker {str(section.docker_image).strip()}"
    if name == "local":
        from engine.tools.sandbox import sandbox_status

        return "local" if sandbox_status(config).active else "local, no sandbox"
    return name


def make_backend(
    home: Home, config: Config, cwd: Path, session_folder: Path, trust: TrustHostKey | None = None
) -> Backend:
    """The configured backend, not yet opened (BackendError with a sentence when it cannot be).

    `trust` is asked whether to trust an ssh host whose key is not in known_hosts yet."""
    problem = backend_problem(config)
    if problem:
        raise BackendError(problem)
    name = backend_name(config)
    if name == "ssh":
        from engine.tools.backends.ssh import SshBackend

        return SshBackend(config, trust)
    if name == "docker":
        from engine.tools.backends.docker import DockerBackend

        return DockerBackend(config, cwd, home)
    from engine.tools.backends.local import LocalBackend
    from engine.tools.sandbox import sandbox_status

    return LocalBackend(home, config, cwd, sandbox_status(config), session_folder / "processes")

"""`terminal`: a shell command in the session's shell, with a timeout, capped output and approvals.

One shell lasts the session (terminal.persistent, engine/tools/persistent_shell.py) on the configured
backend (engine/tools/backends): this machine inside the sandbox (engine/tools/sandbox.py), an ssh host,
or a docker container. Every command passes the same approvals first, persistent or not, background or
not (engine/tools/terminal_approval.py). A command that needs what the session's shell does not have
(the network, or to run outside the sandbox) runs in a fresh shell that starts from the session
shell's folder and variables (engine/tools/fresh_shell.py).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.tools.backends.base import BackendError
from engine.tools.backends.choice import backend_name, backend_problem
from engine.tools.capture import Capture
from engine.tools.command_env import command_environment
from engine.tools.context import ToolContext
from engine.tools.control_text import plain_text
from engine.tools.errors import ToolError
from engine.tools.fresh_shell import run_command
from engine.tools.persistent_shell import quoted, without_trace
from engine.tools.preview import count_lines, one_line, plural
from engine.tools.registry import Tool, ToolResult
from engine.tools.sandbox import SandboxStatus, bwrap_argv, refusal_notes, sandbox_status
from engine.tools.terminal_approval import approve_command
from engine.tools.terminal_session import TerminalSession, terminal_session

DESCRIPTION = (
    "Run a bash command in the working directory. The shell lasts the session (cd, export, venvs carry "
    "over); stdin is closed; stderr joins stdout. `&` jobs stop when the command ends: use `background: "
    "true` for servers and watchers. `pty: true` gives a terminal; `reset: true` a fresh shell. Sandbox: "
    "only the working directory and a private /tmp are writable; the home's .env and auth.json cannot be "
    "read; secrets are not in the environment; no network unless you set `network: true` (the user is "
    "asked). If the sandbox blocks what the command needs, call again with `sandbox: false` and a `why`: "
    "the user is asked every time. Destructive commands need the user's approval."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "integer", "minimum": 1, "description": "Seconds before it is stopped."},
        "background": {"type": "boolean"},
        "pty": {"type": "boolean"},
        "reset": {"type": "boolean"},
        "network": {"type": "boolean", "description": "true for downloads, installs, git fetch."},
        "sandbox": {
            "type": "boolean",
            "description": "false to run outside the sandbox (whole file system and network); needs `why`.",
        },
        "why": {"type": "string", "description": "Why it must run outside the sandbox (the user reads it)."},
    },
    "required": ["command"],
    "additionalProperties": False,
}
NO_SANDBOX = SandboxStatus("none", "", "", "")  # a remote backend: its own rules, not this machine's sandbox
PTY_COLUMNS = 120


async def terminal(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    command = str(args.get("command") or "")
    reset = bool(args.get("reset"))
    if not command.strip() and not reset:
        raise ToolError("Give the `command` to run (it may be empty with `reset: true`).")
    problem = backend_problem(ctx.config)
    if problem:
        raise ToolError(problem)
    section = ctx.config.terminal
    timeout = min(int(args.get("timeout") or section.timeout), int(section.max_timeout))
    session = terminal_session(ctx)
    local = backend_name(ctx.config) == "local"
    persistent = bool(section.persistent) or not local
    if local and not Path(ctx.cwd).is_dir():
        raise ToolError(f"The working directory {ctx.cwd} no longer exists; nothing was run.")
    if reset:
        shell = await session.ready_shell()
        async with shell.lock:
            await shell.reset()
        if not command.strip():
            return ToolResult(
                f"[a fresh shell was started in {shell.cwd}; background processes keep running]",
                summary="fresh shell",
            )
    status = await asyncio.to_thread(sandbox_status, ctx.config) if local else NO_SANDBOX
    network = bool(args.get("network"))
    if network and backend_name(ctx.config) == "docker":
        raise ToolError(
            "The session's docker container has no network (it runs with --network none), so a command "
            "that needs it cannot run there; do without the network, or ask the user to run it."
        )
    outside = args.get("sandbox") is False and status.active
    why = str(args.get("why") or "").strip()
    cwd = Path(session.shell.cwd) if session.shell is not None and session.shell.started else Path(ctx.cwd)
    declined = await approve_command(ctx, command, cwd, status, network=network, outside=outside, why=why)
    if declined is not None:
        return declined
    pty = bool(args.get("pty"))
    shown = wrap_pty(command) if pty else command
    if args.get("background"):
        from engine.tools.process_tool import start_background

        return await start_background(session, command, pty=wrap_pty(command) if pty else "")
    if local and (outside or (network and status.active) or not persistent):
        return await _fresh(ctx, session, shown, timeout, status, network=network, outside=outside, pty=pty)
    return await _in_shell(ctx, session, command, shown, timeout, status, network=network, pty=pty)


def wrap_pty(command: str) -> str:
    """`command` under `script`, which gives it a pseudo-terminal (output keeps its \\r\\n and colours)."""
    return (
        f"COLUMNS={PTY_COLUMNS} SHELL=$(command -v bash) script -qfec {quoted(command)} /dev/null"
        " || { __hws_s=$?; command -v script >/dev/null || "
        "echo 'pty needs the script program (util-linux) where the command runs'; (exit $__hws_s); }"
    )


async def _in_shell(
    ctx: ToolContext,
    session: TerminalSession,
    command: str,
    shown: str,
    timeout: int,
    status: SandboxStatus,
    *,
    network: bool,
    pty: bool,
) -> ToolResult:
    section = ctx.config.terminal
    capture = Capture.for_chars(int(section.max_output_chars), float(section.output_head_share))
    beside = False
    try:
        shell = await session.ready_shell()
        if shell.lock.locked():
            # Another call of the same reply holds the session shell: this one runs beside it.
            beside = True
            shell = await session.spare_shell()
            try:
                run = await shell.run(shown, timeout, capture)
            finally:
                await shell.close()
        else:
            async with shell.lock:
                run = await shell.run(shown, timeout, capture)
    except BackendError as exc:
        if not (status.active and exc.output.startswith("bwrap: ")):
            raise
        notes = refusal_notes(exc.output, Path(ctx.cwd), network=network, command=command, failed=True)
        return ToolResult("\n".join([str(exc), *notes]), ok=False, summary="the sandbox did not start")
    output = without_trace(capture.text_for(int(section.max_output_chars), float(section.output_head_share)))
    if pty:
        output = plain_text(output)
    notes: list[str] = []
    if run.stopped_jobs:
        notes.append(
            f"[{plural(run.stopped_jobs, 'job')} left running with `&` stopped when the command ended; "
            "start a server or watcher with `background: true` to keep it running]"
        )
    if run.lost_shell:
        notes.append(
            f"[{run.lost_shell} A new shell was started in {shell.start_cwd}: the old one's folder, "
            "variables, functions and activated environments are gone; background processes keep running.]"
        )
    if beside:
        notes.append(
            "[the session shell was busy with another call, so this ran in a fresh shell in its folder: "
            "variables exported there are not set here, and this command's cd and export do not carry back]"
        )
    failed = run.timed_out or run.exit_code != 0
    if status.active:
        notes += refusal_notes(output, Path(shell.cwd), network=network, command=command, failed=failed)
    if run.timed_out:
        stopped = "the shell was restarted" if run.lost_shell else "the command was stopped, the shell kept"
        state = f"timed out after {timeout:g}s; {stopped}"
    else:
        state = f"exit {run.exit_code}"
    where = "" if session.backend is None or session.backend.name == "local" else session.backend.label
    return _result(state, run.exit_code, output, run.duration_s, run.timed_out, timeout, notes, where)


async def _fresh(
    ctx: ToolContext,
    session: TerminalSession,
    command: str,
    timeout: int,
    status: SandboxStatus,
    *,
    network: bool,
    outside: bool,
    pty: bool,
) -> ToolResult:
    """A fresh shell for this command: the session shell's folder and variables when it has one."""
    section = ctx.config.terminal
    cwd = Path(ctx.cwd)
    environ: Mapping[str, str] = os.environ
    inherited = session.shell is not None and session.shell.started and bool(section.persistent)
    if inherited:
        shell_cwd, environ = await session.shell_state()
        command = f"cd -- {quoted(shell_cwd)} 2>/dev/null\n{command}"
    sandboxed = status.active and not outside
    argv, env = _launch(command, ctx, status if sandboxed else None, environ, network=network)
    run = await run_command(
        argv,
        cwd,
        env,
        timeout,
        int(section.max_output_chars),
        float(section.output_head_share),
        float(section.kill_grace),
        float(section.exit_drain),
    )
    output = plain_text(run.output) if pty else run.output
    failed = run.timed_out or run.exit_code != 0
    notes = refusal_notes(output, cwd, network=network, command=command, failed=failed) if sandboxed else []
    if run.lingering:
        notes.insert(0, "[background processes still hold the output; later output is not captured]")
    if inherited:
        why = "outside the sandbox" if outside else "with the network"
        notes.append(
            f"[ran {why} in a fresh shell that started from the session shell's folder and variables; "
            "its own cd and export do not carry back]"
        )
    if run.timed_out:
        state = f"timed out after {timeout:g}s; the command and its children were killed"
    else:
        state = f"exit {run.exit_code}"
    return _result(state, run.exit_code, output, run.duration_s, run.timed_out, timeout, notes, "")


def _launch(
    command: str,
    ctx: ToolContext,
    sandbox: SandboxStatus | None,
    environ: Mapping[str, str],
    *,
    network: bool,
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of the command: under bwrap when `sandbox` is given."""
    shell = shutil.which("bash") or "/bin/sh"
    if sandbox is None:
        return [shell, "-c", command], command_environment(ctx.config, environ)
    env = command_environment(ctx.config, environ, TMPDIR="/tmp")
    home = env.get("HOME")
    prefix = bwrap_argv(
        sandbox.binary, Path(ctx.cwd), ctx.home.root, network=network, user_home=Path(home) if home else None
    )
    return [*prefix, shell, "-c", command], env


def _result(
    state: str,
    exit_code: int | None,
    output: str,
    duration_s: float,
    timed_out: bool,
    timeout: float,
    notes: Sequence[str],
    where: str,
) -> ToolResult:
    lines = count_lines(output)
    if timed_out:
        summary = f"timed out after {timeout:g}s, {plural(lines, 'line')}"
    else:
        summary = f"exit {exit_code}, {plural(lines, 'line')}"
    if where:
        summary += f" · {where}"
    header = f"[{state}; {duration_s:.1f}s{'; ' + where if where else ''}]"
    body = output if output else "(no output)"
    text = "\n".join([header, body.rstrip("\n"), *notes])
    return ToolResult(text, ok=not timed_out and exit_code == 0, summary=summary)


def _preview(args: Mapping[str, Any], width: int) -> str:
    command = str(args.get("command", ""))
    if args.get("reset") and not command:
        return "(fresh shell)"
    mark = "&" if args.get("background") else ""
    return one_line(f"{mark} {command}".strip() if mark else command, width)


TOOL = Tool("terminal", "terminal", DESCRIPTION, PARAMETERS, terminal, _preview)

"""`process`: the session's background processes (`terminal` with `background: true`).

list them; poll (what each printed since the last poll, and whether it still runs); log (everything
it printed, capped); wait (until it ends, or a timeout); write (text to its standard input); kill
(its whole process group). Text written to a shell or an interpreter is code: it passes the same
approval as a terminal command.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.tools.capture import Capture
from engine.tools.context import Decision, ToolContext
from engine.tools.control_text import plain_text
from engine.tools.danger import approval_terms, find_dangers
from engine.tools.errors import ToolError
from engine.tools.persistent_shell import quoted
from engine.tools.preview import count_lines, one_line, plural
from engine.tools.processes import BackgroundProcess
from engine.tools.registry import Tool, ToolResult
from engine.tools.shell.programs import SHELLS, program_name
from engine.tools.terminal_approval import declined
from engine.tools.terminal_session import TerminalSession, terminal_session

ACTIONS = ("list", "poll", "log", "wait", "write", "kill")
DESCRIPTION = (
    "Processes from terminal `background: true`. poll: new output and state; log: all output; wait: until "
    "it ends (`timeout` s); write: `input` to its stdin; kill: it and its children."
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "id": {"type": "string"},
        "input": {"type": "string"},
        "timeout": {"type": "integer", "minimum": 1},
    },
    "required": ["action"],
    "additionalProperties": False,
}
# How text written to an interpreter is read as code, for the approval check (`python -c TEXT`).
INLINE_CODE = {
    "python": "-c",
    "node": "-e",
    "bun": "-e",
    "perl": "-e",
    "ruby": "-e",
    "php": "-r",
    "lua": "-e",
}


async def start_background(session: TerminalSession, command: str, *, pty: str = "") -> ToolResult:
    """`terminal` with `background: true`: start it and say how to follow it."""
    shell = await session.ready_shell()
    process = await session.processes.start(shell, command, pty_wrapped=pty)
    text = (
        f"[started background process {process.id}; {process.where}; in {process.cwd}]\n"
        f"Follow it with the process tool: poll (new output), wait, write, kill (id {process.id!r}). "
        "It is stopped when the session ends."
    )
    return ToolResult(text, summary=f"started {process.id} · {process.where}")


async def process(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    action = str(args.get("action") or "")
    session = terminal_session(ctx)
    table = session.processes
    if action == "list":
        return _list(session)
    if not str(args.get("id") or "").strip():
        raise ToolError(f"`{action}` needs the `id` of a background process (`list` shows them).")
    found = table.get(str(args["id"]))
    section = ctx.config.terminal
    if action == "poll":
        return _poll(found, ctx)
    if action == "log":
        return _log(found, ctx)
    if action == "wait":
        seconds = min(int(args.get("timeout") or section.timeout), int(section.max_timeout))
        try:
            await asyncio.wait_for(asyncio.shield(found.ended.wait()), seconds)
        except TimeoutError:
            pass
        return _poll(found, ctx, waited=seconds)
    if action == "write":
        return await _write(found, session, ctx, str(args.get("input") or ""))
    if action == "kill":
        was = found.running
        await table.kill(found)
        note = "" if was else " (it had already ended)"
        result = _poll(found, ctx)
        return ToolResult(
            f"[{found.id} {found.state()}{note}]\n" + str(result.content).split("\n", 1)[1],
            summary=f"{found.id} {found.state()}",
        )
    raise ToolError(f"Unknown action `{action}`: use one of {', '.join(ACTIONS)}.")


def _list(session: TerminalSession) -> ToolResult:
    processes = list(session.processes.processes.values())
    if not processes:
        return ToolResult("No background processes in this session.", summary="none")
    running = sum(1 for p in processes if p.running)
    lines = [p.line() for p in processes]
    return ToolResult("\n".join(lines), summary=f"{running} running, {len(processes)} in all")


def _text(process: BackgroundProcess, data: bytes, ctx: ToolContext) -> str:
    section = ctx.config.terminal
    capture = Capture.for_chars(int(section.max_output_chars), float(section.output_head_share))
    capture.add(data)
    text = capture.text_for(int(section.max_output_chars), float(section.output_head_share))
    return plain_text(text) if process.pty else text


def _poll(process: BackgroundProcess, ctx: ToolContext, waited: float = 0) -> ToolResult:
    data, lost = process.since(process.polled)
    process.polled = process.total
    text = _text(process, data, ctx)
    state = process.state()
    if waited and process.running:
        state += f" (still running after waiting {waited:g}s)"
    header = f"[{process.id} {state}; {plural(len(data), 'new byte')}]"
    notes = []
    if lost:
        notes.append(f"[{lost:,} earlier bytes no longer in memory: `log` reads them from its log file]")
    body = text.rstrip("\n") if text else "(no new output)"
    lines = count_lines(text)
    return ToolResult(
        "\n".join([header, *notes, body]),
        ok=process.running or process.exit_code == 0,
        summary=f"{process.id} {state}, {plural(lines, 'new line')}",
    )


def _log(process: BackgroundProcess, ctx: ToolContext) -> ToolResult:
    try:
        data = Path(process.log_path).read_bytes()
    except OSError as exc:
        raise ToolError(f"The log of {process.id} cannot be read: {exc.strerror}.") from None
    text = _text(process, data, ctx)
    header = f"[{process.id} {process.state()}; log {len(data):,} bytes]"
    return ToolResult(
        f"{header}\n{text.rstrip() or '(no output)'}",
        summary=f"{process.id} log, {plural(count_lines(text), 'line')}",
    )


async def _write(
    process: BackgroundProcess, session: TerminalSession, ctx: ToolContext, text: str
) -> ToolResult:
    if not text:
        raise ToolError("`write` needs the `input` to send (add \\n to end a line).")
    if not process.running:
        raise ToolError(f"{process.id} is no longer running ({process.state()}); nothing was written.")
    refused = await _approve_input(process, text, ctx)
    if refused is not None:
        return refused
    backend = await session.ready_backend()
    if not await backend.feed(process.input_path, text.encode()):
        raise ToolError(f"{process.id} no longer reads its input; nothing was written.")
    await asyncio.sleep(0.2)  # most programs answer a line at once: show what they said
    result = _poll(process, ctx)
    head, _, rest = str(result.content).partition("\n")
    return ToolResult(
        f"[wrote {plural(len(text.encode()), 'byte')} to {process.id}] {head}\n{rest}",
        summary=f"wrote to {process.id}",
    )


async def _approve_input(process: BackgroundProcess, text: str, ctx: ToolContext) -> ToolResult | None:
    """Input for a shell or an interpreter is code: it asks as that code would in a terminal command."""
    try:
        words = [w for w in shlex.split(process.command) if "=" not in w.split("/")[0]]
    except ValueError:
        words = process.command.split()
    program = program_name(words[0]) if words else ""
    if program in SHELLS:
        as_command = text
    elif program in INLINE_CODE:
        as_command = f"{program} {INLINE_CODE[program]} {quoted(text)}"
    else:
        return None
    dangers = await asyncio.to_thread(find_dangers, as_command, Path(process.cwd))
    if not dangers:
        return None
    terms = approval_terms(dangers, ctx.state.approvals)
    decision = await ctx.ask(
        "process",
        f"{process.id} <- {one_line(text, 200)}",
        f"Input for {process.id} (`{one_line(process.command, 40)}`): {terms.reason}",
        terms.grants,
        rule=terms.rule,
        scope=terms.scope,
        allow_session=terms.allow_session,
    )
    return declined(terms.reason) if decision is Decision.DENY else None


def _preview(args: Mapping[str, Any], width: int) -> str:
    action = str(args.get("action", ""))
    target = str(args.get("id", "") or "")
    extra = f" {one_line(str(args.get('input', '')), width)}" if action == "write" else ""
    return one_line(f"{action} {target}{extra}".strip(), width)


TOOL = Tool("process", "terminal", DESCRIPTION, PARAMETERS, process, _preview)

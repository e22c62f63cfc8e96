"""What the user is asked before a terminal command runs, and the result the model reads when declined.

- A destructive command (engine/tools/danger.py) asks; "for the session" covers its kind.
- A command the model wants outside the sandbox asks every time, even under yolo, and says why.
- Where the sandbox cannot start, a command not known to only read asks; "for the session" covers
  that exact command.
- The network, which the sandbox (or the docker backend's container) does not have, asks; "for the
  session" covers every command.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.tools.context import Decision, ToolContext
from engine.tools.danger import Danger, approval_terms, find_dangers, is_read_only
from engine.tools.errors import ToolError
from engine.tools.preview import one_line
from engine.tools.registry import ToolResult
from engine.tools.sandbox import SandboxStatus

NETWORK_SCOPE = "network for terminal commands this session"


async def approve_command(
    ctx: ToolContext,
    command: str,
    cwd: Path,
    sandbox: SandboxStatus,
    *,
    network: bool,
    outside: bool,
    why: str,
    offline: bool = False,
) -> ToolResult | None:
    """None when `command` may run as asked; else the declined result for the model.

    `offline`: the place the command runs has no network of its own (the docker backend's container).
    """
    dangers = await asyncio.to_thread(find_dangers, command, cwd)  # may ask git for its aliases
    if outside:
        return await _ask_outside(ctx, command, why, dangers)
    if dangers:
        terms = approval_terms(dangers, ctx.state.approvals)
        decision = await ctx.ask(
            "terminal",
            command,
            terms.reason,
            terms.grants,
            rule=terms.rule,
            scope=terms.scope,
            allow_session=terms.allow_session,
        )
        if decision is Decision.DENY:
            return declined(terms.reason)
    elif sandbox.missing and not await asyncio.to_thread(is_read_only, command, cwd):
        reason = (
            f"There is no sandbox ({sandbox.problem}), so this command would run with your whole file "
            "system, network and environment, and it is not a command known to only read."
        )
        scope = f"this exact command, `{one_line(command, 60)}`, this session"
        decision = await ctx.ask(
            "terminal", command, reason, (f"terminal:exact:{command}",), rule="no-sandbox", scope=scope
        )
        if decision is Decision.DENY:
            return declined(reason)
    if network and (sandbox.active or offline):
        place = "the sandbox" if sandbox.active else "the session's docker container"
        reason = f"It asks for the network; {place} has none unless you allow it."
        decision = await ctx.ask(
            "terminal", command, reason, ("terminal:network",), rule="network", scope=NETWORK_SCOPE
        )
        if decision is Decision.DENY:
            return declined(reason)
    return None


async def _ask_outside(ctx: ToolContext, command: str, why: str, dangers: list[Danger]) -> ToolResult | None:
    """Every time, even under yolo, never for the session: the sandbox is what makes the rest safe."""
    if not why:
        raise ToolError(
            "`sandbox: false` needs `why`: say why the command must run outside the sandbox; "
            "the user reads it."
        )
    reason = (
        f"It asks to run outside the sandbox, with your whole file system and the network, because: {why}"
    )
    if dangers:
        reason += " Also: " + " ".join(d.description for d in dangers)
    decision = await ctx.ask(
        "terminal",
        command,
        reason,
        rule="outside-sandbox",
        scope="this one command, outside the sandbox",
        allow_session=False,
        always_ask=True,
        detail=why,
    )
    return declined(reason) if decision is Decision.DENY else None


def declined(reason: str) -> ToolResult:
    return ToolResult(
        {
            "declined": True,
            "message": f"The user declined to run this command. {reason} "
            "Do not run it again; find another way or ask the user what they want.",
        },
        ok=False,
        summary="declined by the user",
    )

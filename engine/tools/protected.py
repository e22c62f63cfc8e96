"""Writes of protected files: refused when they change a guarded setting, else asked with the diff.

`config.yaml`, `.env`, `auth.json` and `SOUL.md` in the home, and context files outside the project,
steer every later session. A change to one is shown to the person as a diff each time (never "approve
for this session", and `--yolo` does not skip it); before that, a change of config.yaml or `.env`
that would alter a setting that guards the person (engine/guarded_settings.py) is refused outright,
with a sentence naming the setting, and the person is not asked at all.
"""

from __future__ import annotations

import contextlib

from engine.guarded_settings import config_write_refusal, env_write_refusal
from engine.tools.context import Decision, ToolContext
from engine.tools.errors import ToolError
from engine.tools.paths import ResolvedPath

RULE = "protected-file"


def _sibling_text(target: ResolvedPath, name: str) -> str:
    """A file beside the target (the `.env` of a config.yaml, and back); empty when unreadable."""
    with contextlib.suppress(OSError):
        return (target.path.parent / name).read_bytes()[:1_000_000].decode("utf-8", errors="replace")
    return ""


def refusal(target: ResolvedPath, old_text: str | None, new_text: str) -> str | None:
    """The sentence that refuses this write of a protected file, or None when the person may be asked."""
    name = target.path.name
    if name == "config.yaml":
        return config_write_refusal(old_text, new_text, _sibling_text(target, ".env"))
    if name == ".env":
        return env_write_refusal(old_text, new_text, _sibling_text(target, "config.yaml"))
    return None


async def confirm_write(
    ctx: ToolContext, tool: str, target: ResolvedPath, old_text: str | None, new_text: str, diff: str
) -> None:
    """For a protected target: refuse a guarded change, else ask the person with the diff (every time)."""
    if not target.protected:
        return
    refused = refusal(target, old_text, new_text)
    if refused:
        raise ToolError(refused)
    verb = "create" if old_text is None else "change"
    decision = await ctx.ask(
        tool,
        f"{verb} {target.path}",
        f"{target.protected}; every change to it is shown to you first.",
        rule=RULE,
        scope=f"only this change to {target.path.name}: a protected file is asked about every time",
        allow_session=False,
        always_ask=True,
        detail=diff,
    )
    if decision is Decision.DENY:
        raise ToolError(
            f"The user declined this change to {target.shown}; nothing was written. Do not retry it; "
            "if the change is needed, say what to change and let the user edit the file."
        )

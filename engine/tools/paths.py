"""Where the file tools may reach: the working directory and the home, anything else only with approval.

Every path is resolved (symlinks included) before it is judged, so a link cannot smuggle a read or a
write out of the allowed folders; the tools then open exactly the judged path (engine/tools/safe_open.py),
so a link swapped in later is refused. Inside the home, memories/ and skills/ belong to their own
tools, which scan and journal every write; the session database and our bookkeeping are never written
here. The home's control files and context files outside the project are protected: every write asks
the person with its diff (engine/tools/protected.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from engine.context_files import is_context_file
from engine.tools.context import Decision, ToolContext
from engine.tools.registry import ToolError

# The conventional name of the home; a path starting with it means ctx.home, wherever that is.
HOME_ALIASES = ("~/.hermes", "$HERMES_HOME", "${HERMES_HOME}")

_OWNED_BY_TOOLS = {
    "memories": "is the agent's memory; use the `memory` tool, which checks and journals memory writes",
    "skills": "holds the skills; use the `skill_manage` tool, which scans and journals skill writes",
    "hws": "is the engine's own bookkeeping (journal, history) and is never written by file tools",
    "pending": "holds the writes waiting for the user's approval; only the user approves or rejects them",
}
_ENGINE_FILES = ("state.db", "state.db-wal", "state.db-shm", "state.db-journal")
_SECRET_FILES = (".env", "auth.json")
# The home's files that steer every session: a write asks the person, with its diff, every time.
CONTROL_FILES = {
    "config.yaml": "config.yaml holds the workstation's settings",
    ".env": ".env holds the API keys",
    "auth.json": "auth.json holds login tokens",
    "SOUL.md": "SOUL.md is the agent's identity, loaded into every session",
}


@dataclass(frozen=True)
class ResolvedPath:
    path: Path  # absolute, symlinks resolved
    shown: str  # how results name it: relative to the working directory when inside it
    lexical: Path  # absolute with `..` folded but symlinks kept: where the model thought it pointed
    protected: str = ""  # why every write of this file asks the person with its diff ("" when not)


def resolve(ctx: ToolContext, raw: str) -> ResolvedPath:
    """Turn the model's path into a real absolute path; relative paths start at the working directory."""
    text = raw.strip()
    if not text:
        raise ToolError("`path` is empty; give a file path relative to the working directory.")
    if "\x00" in text:
        raise ToolError("`path` contains a NUL byte, which no file name can hold.")
    for alias in HOME_ALIASES:
        if text == alias or text.startswith(alias + "/"):
            text = str(ctx.home.root) + text[len(alias) :]
            break
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = Path(ctx.cwd) / candidate
    try:
        real = candidate.resolve()
    except (OSError, RuntimeError) as exc:
        raise ToolError(f"Cannot resolve {raw}: {exc} (a symlink loop?).") from exc
    return ResolvedPath(real, shown_path(ctx, real), Path(os.path.normpath(candidate)))


def shown_path(ctx: ToolContext, path: Path) -> str:
    cwd = Path(ctx.cwd).resolve()
    if path == cwd:
        return "."
    if path.is_relative_to(cwd):
        return str(path.relative_to(cwd))
    return str(path)


def _home_part(ctx: ToolContext, path: Path) -> tuple[str, ...] | None:
    home = ctx.home.root.resolve()
    if path.is_relative_to(home):
        return path.relative_to(home).parts
    return None


def home_secrets(ctx: ToolContext) -> frozenset[Path]:
    """The home's files that hold credentials: reading them always needs the user's approval."""
    root = ctx.home.root.resolve()
    return frozenset(root / name for name in _SECRET_FILES)


def _granted(ctx: ToolContext, path: Path, modes: tuple[str, ...]) -> bool:
    for grant in ctx.state.approvals:
        mode, _, folder = grant.partition(":")
        if mode in modes and path.is_relative_to(folder):
            return True
    return False


async def _allow_outside(ctx: ToolContext, tool: str, target: ResolvedPath, mode: str, reason: str) -> None:
    modes = ("path-write",) if mode == "write" else ("path-read", "path-write")
    if _granted(ctx, target.path, modes):
        return
    folder = target.path if target.path.is_dir() else target.path.parent
    grant = f"path-{mode}:{folder}"
    decision = await ctx.ask(tool, f"{mode} {target.path}", reason, (grant,))
    if decision is Decision.DENY:
        raise ToolError(
            f"The user declined to let {tool} {mode} {target.path}. Do not retry; work inside the "
            "working directory or ask the user."
        )


async def for_read(ctx: ToolContext, tool: str, raw: str) -> ResolvedPath:
    """A path the tool may read, after asking the user when it lies outside the allowed folders."""
    target = resolve(ctx, raw)
    home_parts = _home_part(ctx, target.path)
    if home_parts is not None and home_parts[:1] and home_parts[0] in _SECRET_FILES:
        reason = f"{home_parts[0]} in the home holds API keys and tokens."
        await _allow_outside(ctx, tool, target, "read", reason)
        return target
    if home_parts is not None or target.path.is_relative_to(Path(ctx.cwd).resolve()):
        return target
    await _allow_outside(ctx, tool, target, "read", _outside_reason(ctx, target))
    return target


async def for_write(ctx: ToolContext, tool: str, raw: str) -> ResolvedPath:
    """A path the tool may write; the home's stores are refused outright, outside paths need approval.

    A protected file comes back with `protected` set: the tool must show the person its diff
    (`protected.confirm_write`) before it writes.
    """
    target = resolve(ctx, raw)
    home_parts = _home_part(ctx, target.path)
    if home_parts is not None:
        first = home_parts[0] if home_parts else ""
        if first in _OWNED_BY_TOOLS:
            raise ToolError(f"{target.path} {_OWNED_BY_TOOLS[first]}.")
        if first in _ENGINE_FILES:
            raise ToolError(f"{target.path} is the session database; only the engine writes it.")
        if home_parts and home_parts[-1] in CONTROL_FILES:
            return replace(target, protected=CONTROL_FILES[home_parts[-1]])
    inside = target.path.is_relative_to(Path(ctx.cwd).resolve())
    if not inside and is_context_file(target.path):
        return replace(
            target,
            protected=f"{target.path.name} outside the working directory is a context file that other "
            "sessions and agents load as instructions",
        )
    if home_parts is not None or inside:
        return target
    await _allow_outside(ctx, tool, target, "write", _outside_reason(ctx, target))
    return target


def _outside_reason(ctx: ToolContext, target: ResolvedPath) -> str:
    allowed = (Path(ctx.cwd).absolute(), ctx.home.root.absolute())
    if any(target.lexical.is_relative_to(folder) for folder in allowed):
        return (
            f"{target.lexical} leads through a symlink to {target.path}, "
            "outside the working directory and the home."
        )
    return f"{target.path} is outside the working directory and the home."

"""Copying text: the system clipboard when a tool for it exists, else the terminal's OSC 52.

The result says which one took the text, so the app can tell the truth: a system tool reports
success, while OSC 52 is a request the terminal may silently ignore.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

TOOL_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class CopyResult:
    """How a copy went: `method` is a tool name, "osc52", or "" when nothing could be done."""

    method: str
    ok: bool
    detail: str = ""

    def sentence(self, what: str, chars: int) -> str:
        if self.method == "osc52":
            return (
                f"Sent {what} ({chars:,} chars) to the terminal clipboard with OSC 52; no system "
                f"clipboard tool worked{f' ({self.detail})' if self.detail else ''}, and OSC 52 only "
                "works if your terminal allows it."
            )
        if self.ok:
            return f"Copied {what} ({chars:,} chars) to the system clipboard with {self.method}."
        return f"Could not copy {what}: {self.detail}"


def clipboard_commands(env: dict[str, str] | None = None) -> list[list[str]]:
    """System clipboard tools usable in this session, most specific first."""
    env = dict(os.environ) if env is None else env
    found: list[list[str]] = []

    def have(name: str) -> str | None:
        return shutil.which(name, path=env.get("PATH"))

    if env.get("WAYLAND_DISPLAY") and (tool := have("wl-copy")):
        found.append([tool])
    if env.get("DISPLAY"):
        if tool := have("xclip"):
            found.append([tool, "-selection", "clipboard"])
        if tool := have("xsel"):
            found.append([tool, "--clipboard", "--input"])
    if sys.platform == "darwin" and (tool := have("pbcopy")):
        found.append([tool])
    if tool := have("clip.exe"):
        found.append([tool])
    return found


def copy_with_system_tool(text: str, env: dict[str, str] | None = None) -> CopyResult:
    """Try each system clipboard tool in turn; blocking, so the app calls it from a thread."""
    failures: list[str] = []
    for command in clipboard_commands(env):
        name = os.path.basename(command[0])
        try:
            done = subprocess.run(
                command,
                input=text.encode("utf-8"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=TOOL_TIMEOUT_S,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            failures.append(f"{name}: {exc.__class__.__name__}")
            continue
        if done.returncode == 0:
            return CopyResult(name, True)
        failures.append(f"{name} exited {done.returncode}")
    return CopyResult("", False, "; ".join(failures) or "no clipboard tool found")


def copy_text(text: str, osc52: Callable[[str], None], env: dict[str, str] | None = None) -> CopyResult:
    """Copy through a system tool, falling back to OSC 52 (sent by `osc52`)."""
    result = copy_with_system_tool(text, env)
    if result.ok:
        return result
    osc52(text)
    return CopyResult("osc52", True, result.detail)

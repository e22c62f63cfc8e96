"""Regenerate docs/workstation.svg, the README's screenshot: `python docs/screenshot.py [OUT.svg]`.

It plays the shipped demo through the real workstation (headless, at high speed) in a temporary
home and saves the screen with the app's own `save_screenshot` once the demo is over: the
transcript with the demo's checks, and the memory, budget, skills and compression panes.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZE = (150, 46)
TIMEOUT = 300.0


async def capture(out: Path) -> Path:
    from engine.demo.script import load_demo
    from engine.demo.workspace import DemoWorkspace
    from tui.demo import DemoApp, Pace

    with tempfile.TemporaryDirectory(prefix="hws-shot-", ignore_cleanup_errors=True) as scratch:
        os.environ["HOME"] = scratch  # the title shows ~/demo/demo-project, not a temporary path
        os.environ.pop("HERMES_HOME", None)
        workspace = DemoWorkspace.create(load_demo("day-of-work"), keep=Path(scratch) / "demo")
        try:
            workspace.start_server(chunk_delay=0.0)
            app = DemoApp(workspace, Pace(1000.0, 0.0, 0.0, speed=50.0))
            app.animation_level = "none"
            async with app.run_test(size=SIZE) as pilot:
                deadline = asyncio.get_running_loop().time() + TIMEOUT
                while not app.finished and asyncio.get_running_loop().time() < deadline:
                    await pilot.pause(0.2)
                if not app.finished:
                    raise SystemExit(f"the demo did not finish within {TIMEOUT:g} s; no screenshot")
                await pilot.pause(0.5)
                out.parent.mkdir(parents=True, exist_ok=True)
                app.save_screenshot(out.name, str(out.parent))
        finally:
            workspace.remove()
    return out


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "workstation.svg"
    written = asyncio.run(capture(out.absolute()))
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

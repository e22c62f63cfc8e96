"""The demo: a scripted day of work played through the real engine in a home of its own.

`script` reads demo files, `workspace` prepares the demo home and its model server, `player` plays
the script headless, `report` reads back what changed and judges the checks.
"""

from engine.demo.player import DemoNote, HeadlessPlayer
from engine.demo.report import HomeReport, build_report
from engine.demo.script import DEFAULT_DEMO, DemoError, DemoScript, Step, builtin_demos, load_demo, parse_demo
from engine.demo.workspace import DemoWorkspace

__all__ = [
    "DEFAULT_DEMO",
    "DemoError",
    "DemoNote",
    "DemoScript",
    "DemoWorkspace",
    "HeadlessPlayer",
    "HomeReport",
    "Step",
    "build_report",
    "builtin_demos",
    "load_demo",
    "parse_demo",
]

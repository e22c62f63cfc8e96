"""The demo: a scripted day of work played through the real engine in a home of its own.

`script` reads demo files, `workspace` prepares the demo home and its model server, `player` plays
the script headless, `report` reads back what changed and judges the checks.

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "player": "DemoNote HeadlessPlayer",
        "report": "HomeReport build_report",
        "script": "DEFAULT_DEMO DemoError DemoScript Step builtin_demos load_demo parse_demo",
        "workspace": "DemoWorkspace",
    },
)

if TYPE_CHECKING:
    from engine.demo.player import DemoNote as DemoNote
    from engine.demo.player import HeadlessPlayer as HeadlessPlayer
    from engine.demo.report import HomeReport as HomeReport
    from engine.demo.report import build_report as build_report
    from engine.demo.script import DEFAULT_DEMO as DEFAULT_DEMO
    from engine.demo.script import DemoError as DemoError
    from engine.demo.script import DemoScript as DemoScript
    from engine.demo.script import Step as Step
    from engine.demo.script import builtin_demos as builtin_demos
    from engine.demo.script import load_demo as load_demo
    from engine.demo.script import parse_demo as parse_demo
    from engine.demo.workspace import DemoWorkspace as DemoWorkspace

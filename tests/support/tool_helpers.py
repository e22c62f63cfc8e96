"""Shared pieces of the tool tests: a real home, a real working directory and a scripted user."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.config import Config, defaults
from engine.events import Event
from engine.home import Home
from engine.tools.context import ApprovalRequest, Decision, ToolContext
from engine.tools.registry import ToolOutcome, ToolRegistry, default_registry
from engine.tools.terminal_session import close_terminal


@dataclass
class ScriptedUser:
    """Answers approval requests from a list (then `default`) and remembers every request."""

    answers: list[Decision | str] = field(default_factory=list)
    default: Decision | str = Decision.DENY
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def __call__(self, request: ApprovalRequest) -> Decision | str:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else self.default


@dataclass
class Bench:
    """A working directory, a home, a context and the default registry, ready to dispatch calls."""

    cwd: Path
    home: Home
    ctx: ToolContext
    user: ScriptedUser
    events: list[Event]
    registry: ToolRegistry

    async def call(self, name: str, arguments: dict[str, Any] | str) -> ToolOutcome:
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return await self.registry.dispatch(name, raw, self.ctx)

    async def close(self) -> None:
        """End the session's terminal (its shell and background processes), as the agent does."""
        await close_terminal(self.ctx)


OPEN_BENCHES: list[Bench] = []


async def close_benches() -> None:
    """End the terminal of every bench made so far (an autouse fixture calls it after each test)."""
    while OPEN_BENCHES:
        await OPEN_BENCHES.pop().close()


def make_bench(tmp_path: Path, hermes_home: Path, config: Config | None = None) -> Bench:
    cwd = tmp_path / "project"
    cwd.mkdir()
    home = Home(hermes_home).ensure()
    user = ScriptedUser()
    events: list[Event] = []
    ctx = ToolContext(
        home=home,
        config=config or defaults(),
        cwd=cwd,
        session_id="s1",
        approve=user,
        emit=events.append,
    )
    bench = Bench(cwd, home, ctx, user, events, default_registry())
    OPEN_BENCHES.append(bench)
    return bench


def with_settings(**dotted: Any) -> Config:
    """The default config with some settings changed, e.g. `with_settings(terminal__timeout=1)`."""
    config = defaults()
    for key, value in dotted.items():
        section, _, name = key.partition("__")
        if not name:
            section, name = "", section
        config.sections[section].values[name] = value
    return config

"""Shared pieces of the workstation tests: a home under `$HOME`, a fixed clock, a scripted agent.

The scripted agent stands in for `engine.agent` until it lands: it yields real engine events from
a script, honours `interrupt()` and receives approval answers, so the app's worker, the Messages
and the widgets are exercised for real.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.style import Style as RichStyle

from engine import events
from engine.config import load_config
from engine.home import Home
from tui.app import HwsApp

SESSION = "20260101_120000_abc123"
PATIENCE_S = 30.0  # how long a wait for the app holds on, at least, before a test fails


class FixedClock:
    """A clock that moves only when told, so status bars and snapshots do not drift."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


Step = events.Event | float | Callable[[], Any]


class ScriptedAgent:
    """Plays a list of steps per turn: an event is yielded, a float is a pause, a callable is run."""

    def __init__(self, turns: Sequence[Sequence[Step]] = ()) -> None:
        self.turns = [list(t) for t in turns]
        self.received: list[str] = []
        self.commands: list[str] = []  # the texts sent as a typed `/skill-name`
        self.answers: list[tuple[str, str]] = []
        self.interrupted = asyncio.Event()
        self.calls: list[str] = []

    async def run_turn(self, text: str, *, command: bool = False) -> AsyncIterator[events.Event]:
        self.received.append(text)
        if command:
            self.commands.append(text)
        self.interrupted = asyncio.Event()
        steps = self.turns.pop(0) if self.turns else [events.TurnFinished(SESSION, "")]
        said: list[str] = []
        for step in steps:
            if self.interrupted.is_set():
                yield events.TurnFinished(SESSION, "".join(said), interrupted=True)
                return
            if isinstance(step, (int, float)):
                try:
                    await asyncio.wait_for(self.interrupted.wait(), timeout=step)
                except TimeoutError:
                    pass
                continue
            if callable(step) and not isinstance(step, events.Event):
                step()
                continue
            if isinstance(step, events.TextDelta):
                said.append(step.text)
            yield step
        if self.interrupted.is_set():
            yield events.TurnFinished(SESSION, "".join(said), interrupted=True)

    async def interrupt(self) -> None:
        self.calls.append("interrupt")
        self.interrupted.set()

    async def answer_approval(self, request_id: str, decision: str) -> None:
        self.answers.append((request_id, decision))


def make_home(config_text: str = "") -> Home:
    """A home at `$HOME/.hermes`, so the app shows it as `~/.hermes` (stable in snapshots)."""
    root = Path(os.environ["HOME"]) / ".hermes"
    home = Home.resolve(root).ensure()
    if config_text:
        home.config_file.write_text(config_text, encoding="utf-8")
    return home


FIXED_WALL_TIME = 1_767_268_800.0  # 2026-01-01 12:00 UTC: times drawn by the panes do not change per run


def make_app(
    config_text: str = "",
    *,
    agent: Any = None,
    clock: FixedClock | None = None,
    **kwargs: Any,
) -> HwsApp:
    home = make_home(config_text)
    app = HwsApp(
        home,
        load_config(home.root),
        agent=agent,
        clock=clock or FixedClock(),
        **{
            "wall_clock": lambda: FIXED_WALL_TIME,
            "workdir": Path(os.environ["HOME"]) / "code" / "site",
            **kwargs,
        },
    )
    app.animation_level = "none"
    return app


def reply_events(text: str, chunks: int) -> list[events.Event]:
    """`text` cut into `chunks` TextDelta events."""
    size = max(1, len(text) // chunks)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return [events.TextDelta(SESSION, piece) for piece in pieces]


MODEL_CONFIG = "model:\n  default: test-model\n  base_url: http://127.0.0.1:9/v1\n"


async def settle(pilot: Any, app: HwsApp) -> None:
    """Let start-up work begin, wait for every worker to finish, then for the screen to catch up."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def pause_until(
    pilot: Any, condition: Callable[[], bool], rounds: int = 200, patience_s: float = PATIENCE_S
) -> bool:
    """Let the app process messages until `condition` holds: each round waits for idle, and a wait
    never gives up before `patience_s` of wall time either (a thread worker on a loaded machine can
    outlast many idle rounds). Only a failing wait ever takes that long."""
    started = time.monotonic()
    done = 0
    while not condition():
        if done >= rounds and time.monotonic() - started >= patience_s:
            return condition()
        await pilot.pause(None if done < rounds else 0.05)
        done += 1
    return True


async def seed_sessions(
    home: Home, conversations: Sequence[tuple[str, Sequence[tuple[str, str]]]]
) -> list[str]:
    """Write conversations (title, [(role, text), ...]) into the home's real state.db; their ids."""
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(home.state_db)
    ids = []
    try:
        for offset, (title, lines) in enumerate(conversations):
            session = await store.create_session(
                source="cli", model="test-model", title=title, started_at=1_767_000_000.0 + offset * 3600
            )
            for role, text in lines:
                await store.append_message(session.id, role, text)
            await store.end_session(session.id, "user_exit")
            ids.append(session.id)
    finally:
        await store.close()
    return ids


async def open_stored_view(pilot: Any, app: Any, session_id: str, settle: int = 0) -> Any:
    """Open a stored session read-only and wait for its first page of turns; returns its transcript."""
    from tui.screens.session_view import SessionViewScreen
    from widgets.transcript_blocks import UserBlock

    app.view_session(session_id)
    assert await pause_until(
        pilot, lambda: isinstance(app.screen, SessionViewScreen) and bool(app.screen.query("Transcript"))
    )
    transcript = app.screen.transcript
    assert await pause_until(
        pilot, lambda: not transcript.paging._history_pending and bool(transcript.query(UserBlock))
    )
    for _ in range(settle):
        await pilot.pause()
    return transcript


@contextlib.contextmanager
def scripted_model(folder: Path, scenario: str) -> Iterator[Any]:
    """The scripted model server playing `scenario` (YAML text) on 127.0.0.1, stopped afterwards."""
    from tui.scripted import start_scripted_model

    path = folder / "scenario.yaml"
    path.write_text(scenario, encoding="utf-8")
    model = start_scripted_model(str(path))
    try:
        yield model
    finally:
        model.server.stop()


def make_scripted_app(model: Any, config_yaml: str = "", folders: Sequence[str] = ()) -> HwsApp:
    """The workstation on a fresh home, its agent built on `model`, working in ~/code/site (+ `folders`)."""
    from tui.agent_port import AgentBuilder, with_overrides

    home = make_home(config_yaml)
    workdir = Path(os.environ["HOME"]) / "code" / "site"
    workdir.mkdir(parents=True, exist_ok=True)
    for name in folders:
        (workdir / name).mkdir()
    config = with_overrides(load_config(home.root), model.overrides)
    return HwsApp(home, config, agent_factory=AgentBuilder(workdir, model.overrides), workdir=workdir)


async def say(pilot: Any, app: HwsApp, text: str) -> None:
    """Type a message into the prompt and send it, as a person does."""
    app.main_screen.prompt.input.focus()
    await pilot.press(*text)
    await pilot.press("enter")


async def turn_done(pilot: Any, app: HwsApp, seen: list[Any], count: int) -> None:
    """Wait until `count` turns have finished (by the Messages `seen`) and the app has settled."""
    from tui import messages

    assert await pause_until(
        pilot, lambda: sum(isinstance(m, messages.TurnFinished) for m in seen) >= count, rounds=600
    ), [type(m).__name__ for m in seen][-20:]
    await app.workers.wait_for_complete()
    await pilot.pause()


async def agent_started(pilot: Any, app: HwsApp) -> None:
    """The app settled after its start, with its agent built (on the scripted model: a thread's work)."""
    await settle(pilot, app)
    assert await pause_until(pilot, lambda: app.agent is not None, rounds=400)


async def agent_ready_since(pilot: Any, seen: list[Any], mark: int) -> None:
    """Wait for an `AgentReady` among the Messages `seen` after `mark` (a new session, resume, /model)."""
    from tui import messages

    assert await pause_until(
        pilot, lambda: any(isinstance(m, messages.AgentReady) for m in seen[mark:]), rounds=600
    )


def plain(char: str, style: Any) -> Any:
    """What a person sees of a cell: no selection offsets, and no ink colour on a blank."""
    if style is None:
        return None
    style = style.clear_meta_and_links()
    return RichStyle(bgcolor=style.bgcolor) if char == " " and not style.underline else style


def screen_cells(app: Any) -> list[list[tuple[str, Any]]]:
    """Every line of the screen as (text, style) runs, one character each, so splits do not matter."""
    lines = []
    for strip in app.screen._compositor.render_strips():
        lines.append([(char, plain(char, segment.style)) for segment in strip for char in segment.text])
    return lines

"""`hws demo` in the workstation: the demo script typed into the real app, step by step.

The same script and workspace as `hws demo --headless` (engine/demo): the narrator's captions are
notices in the transcript, each user message is typed into the input at a readable pace and sent
the way Enter sends it, and the engine's events reach the panes exactly as in a normal session.
Space pauses and resumes, `n` plays the next step (and pauses again); at the end the checks are
shown and the person keeps working in the demo home with the scripted model.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.binding import Binding, BindingType

from engine import events
from engine.text.sentences import sentence
from tui import messages
from tui.app import HwsApp, display_path
from tui.crash import crash_code, exit_after_crash

if TYPE_CHECKING:
    from engine.config import Config
    from engine.demo.report import HomeReport
    from engine.demo.script import Step
    from engine.demo.workspace import DemoWorkspace
    from tui.demo_agent import DemoAgent

TURN_TIMEOUT = 300.0  # seconds a scripted turn may take before the demo goes on without it


@dataclasses.dataclass(frozen=True)
class Pace:
    """Seconds and rates at --speed 1 (config `demo:`), divided by the speed."""

    chars_per_second: float
    caption_seconds: float
    turn_pause_seconds: float
    speed: float = 1.0

    @classmethod
    def from_config(cls, config: Config, speed: float) -> Pace:
        demo = config.demo
        return cls(
            float(demo.type_chars_per_second),
            float(demo.caption_seconds),
            float(demo.turn_pause_seconds),
            speed,
        )

    @property
    def char_delay(self) -> float:
        return 1.0 / (self.chars_per_second * self.speed)

    def scaled(self, seconds: float) -> float:
        return seconds / self.speed


def shown_config(workspace: DemoWorkspace) -> Config:
    """The demo home's config as the window shows it: the scripted model named, its context window."""
    config = workspace.config
    model = config.sections["model"]
    values = {**model.values, "default": workspace.script.model.model}
    if workspace.server is not None:
        values["base_url"] = workspace.server.base_url
    window = getattr(workspace.script.model, "context_length", None)
    if window:
        values["context_length"] = int(window)
    return dataclasses.replace(
        config, sections={**config.sections, "model": dataclasses.replace(model, values=values)}
    )


class DemoApp(HwsApp):
    """The workstation playing a demo script; afterwards, the workstation on the demo home."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "demo_pause", "pause", id="demo_pause", priority=True, tooltip="Pause the demo"),
        Binding("n", "demo_step", "next step", id="demo_step", priority=True, tooltip="Play the next step"),
    ]

    def __init__(self, workspace: DemoWorkspace, pace: Pace, **options: Any) -> None:
        super().__init__(workspace.home, shown_config(workspace), workdir=workspace.project, **options)
        self.workspace = workspace
        self.pace = pace
        self.demo_agent: DemoAgent | None = None
        self.playing = False
        self.paused = False
        self.finished = False
        self.report: HomeReport | None = None
        self.steps_played = 0
        self.failure = ""
        self._go = asyncio.Event()
        self._go.set()
        self._step_once = False
        self._reported: set[tuple[str, str]] = set()

    # -- start ----------------------------------------------------------------------------------

    def _initial_agent_problem(self) -> str:
        return "the demo agent is starting"

    def on_mount(self) -> None:
        """The demo's own start; Textual then runs `HwsApp.on_mount` too (each class's handler runs once)."""
        from tui.demo_agent import DemoAgent

        self.demo_agent = DemoAgent(self.workspace, self._background, self._say)
        self.agent = self.demo_agent
        self.agent_problem = ""
        self.playing = True
        self.sub_title = "demo · space pauses · n steps"
        self.call_after_refresh(self._play)  # the main screen and its input are composed by then

    def _background(self, event: events.Event) -> None:
        """The agent's events outside a turn (the background review writing memory and skills)."""
        self.main_screen.post_message(messages.to_message(event))

    def _say(self, text: str, icon: str = "▶", level: str = "info") -> None:
        self.main_screen.post_message(messages.Notice(text, level, icon))

    # -- keys -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("demo_pause", "demo_step"):
            return self.playing  # once the demo is over, space and n are plain keys again
        return super().check_action(action, parameters)

    def action_demo_pause(self) -> None:
        """Space: pause after the current character or step; again: go on."""
        self.paused = not self.paused
        self._step_once = False
        if self.paused:
            self._go.clear()
            self.notify("Demo paused: space goes on, n plays the next step.", timeout=3)
        else:
            self._go.set()

    def action_demo_step(self) -> None:
        """n: play the next step, then pause (while a step is under way: skip its waiting)."""
        self.paused = True
        self._step_once = True
        self._go.set()

    async def _gate(self) -> None:
        """Wait here while paused."""
        await self._go.wait()

    async def _wait(self, seconds: float) -> None:
        """A narrator's pause: cut short by `n`, stretched by a pause."""
        if seconds > 0 and not self._step_once:
            try:
                await asyncio.wait_for(self._interrupted_wait(), seconds)
            except TimeoutError:
                pass
        await self._gate()

    async def _interrupted_wait(self) -> None:
        while not self._step_once:
            await asyncio.sleep(0.05)

    # -- the script -----------------------------------------------------------------------------

    @work(exclusive=True, group="demo", exit_on_error=False, description="play the demo")
    async def _play(self) -> None:
        script = self.workspace.script
        # The input is the demo's while it types: read-only to the keyboard, so space and n reach the
        # demo's bindings (a focused, editable TextArea keeps printable keys for itself).
        self.main_screen.prompt.input.read_only = True
        self._say(f"{script.title} — a demo in {script.turns} turns. Space pauses, n steps.", icon="★")
        if script.description:
            self._say(script.description, icon="★")
        try:
            for step in script.steps:
                await self._gate()
                if self._step_once:  # n: this step is the one that plays, the next waits
                    self._step_once = False
                    self._go.clear()
                await self._play_step(step)
                self.steps_played += 1
        except Exception as exc:  # a broken step ends the script with a sentence; the window stays
            self.failure = f"{type(exc).__name__}: {exc}"
            self._say(f"The demo stopped at step {self.steps_played + 1}: {self.failure}", "✗", "error")
        finally:
            self.playing = False
            self.main_screen.prompt.input.read_only = False
            self.main_screen.prompt.input.focus()
            if self.demo_agent is not None:
                self.demo_agent.autoplay = False
        await self._finish()

    async def _play_step(self, step: Step) -> None:
        if step.kind == "caption":
            self._say(step.text)
            await self._wait(self.pace.scaled(self.pace.caption_seconds))
        elif step.kind == "pause":
            await self._wait(self.pace.scaled(step.seconds))
        elif step.kind == "say":
            await self._type_and_send(step.text)
            await self._wait(self.pace.scaled(self.pace.turn_pause_seconds))
        elif step.kind == "new_session":
            await self._new_session()

    async def _type_and_send(self, text: str) -> None:
        prompt = self.main_screen.prompt
        prompt.input.focus()
        prompt.clear()
        typed = ""
        for char in text:
            await self._gate()
            typed += char
            prompt.set_text(typed)
            if not self._step_once:
                await asyncio.sleep(self.pace.char_delay)
        prompt.set_text(text)
        prompt.submit()  # as Enter does: the app receives PromptBox.Submitted
        await self._until_turn_over()
        assert self.demo_agent is not None
        await self.demo_agent.wait_background(TURN_TIMEOUT)
        await self._observe_memory()

    async def _until_turn_over(self) -> None:
        """Wait for the turn the input started (it may start a moment after the message is handled)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TURN_TIMEOUT
        started = loop.time()
        while loop.time() < deadline:
            await asyncio.sleep(0.02)
            if self.turn_running:
                started = -1.0
            elif started < 0 or loop.time() - started > 2.0:
                return

    async def _observe_memory(self) -> None:
        """Say what the frozen snapshot means: memory on disk that this session's prompt does not hold."""
        from engine.demo.player import memory_outside_prompt

        agent = self.demo_agent
        if agent is None or agent.prompt is None:
            return
        for name, entry in memory_outside_prompt(self.workspace, agent.prompt.text):
            if (name, entry) in self._reported:
                continue
            self._reported.add((name, entry))
            self._say(
                f"frozen ≠ disk: {name} now holds {entry!r}, but this session's prompt keeps its frozen "
                "snapshot until compression or the next session (the memory pane shows the difference).",
                icon="◆",
            )

    async def _new_session(self) -> None:
        from engine.demo.player import memory_in_prompt

        agent = self.demo_agent
        old = agent.session_id if agent is not None else ""
        self.commands.new_conversation()  # as ctrl+n does
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TURN_TIMEOUT
        while agent is not None and agent.session_id == old and loop.time() < deadline:
            await asyncio.sleep(0.02)  # the new session opens in a worker of the app's own
        await self._until_turn_over()
        if agent is not None and agent.prompt is not None:
            held = memory_in_prompt(self.workspace, agent.prompt.text)
            said = "; ".join(f"{name}: {entry}" for name, entry in held) or "no memory yet"
            self._say(sentence(f"The new session's prompt already holds {said}"), icon="◆")
        self._reported.clear()

    async def _finish(self) -> None:
        from engine.demo.report import build_report

        self.report = await asyncio.to_thread(build_report, self.workspace)
        root = self.workspace.home.root
        lines = [line.replace(str(root), display_path(root)) for line in self.report.lines]
        lines.append("Checks:")
        for result in self.report.checks:
            mark = "✓" if result.ok else "✗"
            detail = f" ({result.detail})" if result.detail else ""
            lines.append(f"  {mark} {result.check.describe()}{detail}")
        self._say("\n".join(lines), icon="★", level="info" if self.report.ok else "warning")
        where = (
            "it is removed when you quit; hws demo --keep PATH keeps one"
            if self.workspace.temporary
            else f"it stays in {display_path(self.workspace.home.root)}"
        )
        self._say(
            f"The demo is over. Keep working here: the agent still runs on the demo's scripted model, in "
            f"the demo home ({where}). ctrl+q quits.",
            icon="★",
        )
        self.finished = True
        self.sub_title = "demo over · keep working · ctrl+q quits"

    async def on_unmount(self) -> None:
        """Close the demo's session (its database connection keeps a thread alive until closed).

        Textual calls each class's own `on_unmount`, so the live-files watcher stops as well.
        """
        self.workers.cancel_group(self, "demo")
        self.workers.cancel_group(self, "turn")
        if self.demo_agent is not None:
            try:
                await asyncio.wait_for(self.demo_agent.close(), 10)
            except Exception:  # closing must never keep the window open
                pass


def launch_demo(argv: Sequence[str]) -> int:
    """`hws demo [DEMO] [--speed S] [--keep PATH]` in the workstation; exit code as the app's."""
    from engine.cli.demo_cmd import add_arguments
    from engine.demo.script import DemoError, load_demo
    from engine.demo.workspace import DemoWorkspace

    parser = argparse.ArgumentParser(prog="hws demo")
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    if not args.speed > 0:
        print(f"--speed must be more than 0, not {args.speed}.", file=sys.stderr)
        return 2
    try:
        script = load_demo(args.demo)
        workspace = DemoWorkspace.create(script, keep=args.keep)
    except DemoError as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        workspace.start_server(chunk_delay=float(workspace.config.demo.chunk_delay) / args.speed)
        app = DemoApp(workspace, Pace.from_config(workspace.config, args.speed))
        result = app.run()
    finally:
        workspace.remove()
    code = crash_code(app)
    if code is not None:
        exit_after_crash(
            code, "The demo stopped on an unexpected error (above); nothing of yours was touched."
        )
    if workspace.temporary:
        print(f"The demo home {workspace.home.root} was removed; `hws demo --keep PATH` keeps one.")
    else:
        print(f"The demo home is kept: hws --home {workspace.home.root}  (hws setup --home … for your model)")
    return int(result or 0)

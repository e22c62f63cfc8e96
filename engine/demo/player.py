"""Play a demo script through the real agent without a UI: every step and every engine event to a sink.

The workstation's demo (`tui/demo.py`) types the same steps into the app instead; both read the same
script, prepare the same workspace and judge the same checks. Besides the engine's own events, the
player sends `DemoNote`s: the narrator's captions, what the user says, and what it observes on disk
after each turn (memory written but not in the frozen snapshot; the prompt rebuilt by compression).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from engine.demo.script import Step
from engine.demo.workspace import DemoWorkspace
from engine.events import Event, SessionChanged
from engine.memory.format import FILES, parse_entries
from engine.tools.context import Decision

if TYPE_CHECKING:
    from engine.agent.turns import Agent

Sink = Callable[[Any], object]


@dataclass(frozen=True)
class DemoNote:
    """A line of the demo's own: kind is title, caption, say, observe, session or end."""

    kind: str
    text: str
    step: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"type": "demo_" + self.kind, **asdict(self)}


def memory_outside_prompt(workspace: DemoWorkspace, prompt_text: str) -> list[tuple[str, str]]:
    """Entries on disk that the prompt's frozen snapshot does not hold: (file name, entry)."""
    found = []
    for filename in FILES.values():
        path = workspace.home.memories / filename
        if not path.exists():
            continue
        for entry in parse_entries(path.read_text(encoding="utf-8", errors="replace")):
            if entry not in prompt_text:
                found.append((filename, entry))
    return found


def memory_in_prompt(workspace: DemoWorkspace, prompt_text: str) -> list[tuple[str, str]]:
    found = []
    for filename in FILES.values():
        path = workspace.home.memories / filename
        if path.exists():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [(filename, e) for e in parse_entries(text) if e in prompt_text]
    return found


class HeadlessPlayer:
    """Runs each step of the script against a real `Agent` on the workspace's model server."""

    def __init__(self, workspace: DemoWorkspace, sink: Sink, *, settle_timeout: float = 60.0) -> None:
        self.workspace = workspace
        self.sink = sink
        self.settle_timeout = settle_timeout
        self.agent: Agent | None = None
        self.turn = 0
        self._reported_outside: set[tuple[str, str]] = set()

    def _note(self, kind: str, text: str, step: int = 0) -> None:
        self.sink(DemoNote(kind, text, step))

    def _new_agent(self) -> Agent:
        from engine.agent.turns import Agent

        return Agent(
            self.workspace.home,
            self.workspace.config,
            client=self.workspace.client(),
            on_background=self.sink,
            approve=self._decline,
            exact_tokens=False,
            **self.workspace.agent_options(),
        )

    async def _decline(self, request: Any) -> str:
        if not hasattr(request, "command"):  # a clarify question: nobody answers in a demo
            return Decision.DENY
        self._note("observe", f"declined `{request.command}` ({request.reason}): the demo approves nothing")
        return "deny"

    async def play(self) -> None:
        script = self.workspace.script
        self._note("title", f"{script.title} — {script.turns} turns ({script.source})")
        self.agent = self._new_agent()
        try:
            for index, step in enumerate(script.steps, start=1):
                await self._step(index, step)
        finally:
            if self.agent is not None:
                await self.agent.close("demo_end")
        self._note("end", "the demo is over")

    async def _step(self, index: int, step: Step) -> None:
        if step.kind == "caption":
            self._note("caption", step.text, index)
        elif step.kind == "say":
            await self._say(index, step.text)
        elif step.kind == "new_session":
            assert self.agent is not None
            await self.agent.close("new_session")
            self.agent = self._new_agent()
            session_id = await self.agent.start()
            assert self.agent.prompt is not None
            held = memory_in_prompt(self.workspace, self.agent.prompt.text)
            remembered = "; ".join(f"{name}: {entry}" for name, entry in held) or "nothing yet"
            self._note("session", f"new session {session_id}; its prompt holds {remembered}", index)
        # `pause` only matters when someone watches (the workstation's demo)

    async def _say(self, index: int, text: str) -> None:
        agent = self.agent
        assert agent is not None
        self.turn += 1
        self._note("say", text, index)
        split = False
        async for event in agent.run_turn(text):
            self.sink(event)
            if isinstance(event, SessionChanged) and event.reason == "compression":
                split = True
        if not await agent.wait_background(self.settle_timeout):
            self._note("observe", "the background review is still running; going on without it", index)
        assert agent.prompt is not None
        if split:
            held = memory_in_prompt(self.workspace, agent.prompt.text)
            shown = "; ".join(f"{name}: {entry}" for name, entry in held) or "no memory"
            self._note("observe", f"compression rebuilt the prompt from disk; it now holds {shown}", index)
            self._reported_outside.clear()
        for name, entry in memory_outside_prompt(self.workspace, agent.prompt.text):
            if (name, entry) in self._reported_outside:
                continue
            self._reported_outside.add((name, entry))
            self._note(
                "observe",
                f"frozen ≠ disk: {name} on disk holds {entry!r}; this session's prompt keeps its frozen "
                "snapshot until compression or the next session",
                index,
            )


def event_dict(item: Event | DemoNote) -> dict[str, Any]:
    return item.as_dict()

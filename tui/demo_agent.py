"""The agent port of `hws demo`: the engine's real `Agent` on the demo's model server, behind the
same surface the workstation drives (`run_turn`, `interrupt`, `answer_approval`, `new_session`).

It exists because a new session means a new `Agent` (the engine builds one per session), and
because, while the script plays by itself, nobody is there to answer an approval: the demo
declines each one with a line in the transcript, as `hws demo --headless` does. Once the script
is over the person at the keyboard answers approvals as in the normal workstation.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from engine import events

if TYPE_CHECKING:
    from engine.agent.turns import Agent
    from engine.demo.workspace import DemoWorkspace
    from engine.prompt.layers import SystemPrompt

Sink = Callable[[events.Event], object]
Say = Callable[[str], object]


class DemoAgent:
    """One demo conversation across sessions: `new_session()` closes the agent and opens a fresh one."""

    def __init__(self, workspace: DemoWorkspace, on_background: Sink, say: Say) -> None:
        self.workspace = workspace
        self.on_background = on_background
        self.say = say
        self.autoplay = True  # while True, approvals are declined (nobody has been asked anything)
        self._approvals: dict[str, asyncio.Future[str]] = {}
        self.agent: Agent = self._new_agent()

    def _new_agent(self) -> Agent:
        from engine.agent.turns import Agent

        return Agent(
            self.workspace.home,
            self.workspace.config,
            client=self.workspace.client(),
            on_background=self.on_background,
            approve=self._approve,
            exact_tokens=False,
            **self.workspace.agent_options(),
        )

    def __getattr__(self, name: str) -> Any:
        """Everything else the panes read (registry, history, compressor, totals…) is the agent's."""
        if name.startswith("__") or name == "agent":
            raise AttributeError(name)
        return getattr(self.agent, name)

    @property
    def prompt(self) -> SystemPrompt | None:
        """The running session's system prompt (None before its first turn)."""
        return self.agent.prompt

    @property
    def session_id(self) -> str:
        return self.agent.session_id

    async def _approve(self, request: Any) -> str:
        if self.autoplay:
            if not hasattr(request, "command"):  # the model's question: nobody answers in a demo
                return ""
            self.say(f"The demo declined `{request.command}` ({request.reason}): it approves nothing itself.")
            return "deny"
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._approvals[request.request_id] = future
        try:
            return await future
        finally:
            self._approvals.pop(request.request_id, None)

    async def run_turn(self, text: str, *, command: bool = False) -> AsyncIterator[events.Event]:
        async for event in self.agent.run_turn(text, command=command):
            if isinstance(event, (events.ApprovalNeeded, events.ClarifyNeeded)) and self.autoplay:
                continue  # declined at once by `_approve`; the workstation must not wait for an answer
            yield event

    async def interrupt(self) -> bool:
        for future in list(self._approvals.values()):
            if not future.done():
                future.set_result("deny")
        return await self.agent.interrupt()

    def answer_approval(self, request_id: str, decision: str) -> bool:
        future = self._approvals.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(str(getattr(decision, "value", decision)))
        return True

    async def wait_background(self, timeout: float | None = None) -> bool:
        return await self.agent.wait_background(timeout)

    async def new_session(self) -> AsyncIterator[events.Event]:
        """End this session and open the next (its prompt reads memory, skills and SOUL.md from disk)."""
        async for event in self.agent.new_session():
            yield event

    async def close(self) -> None:
        await self.agent.close("demo_end")

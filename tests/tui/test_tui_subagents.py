"""Subagents in the workstation (real agent, real scripted server, real home): one nested block per
child with its live tool calls and its own token count, the budget pane's subagents row counted apart
from the session's calls, a click folds a block, and ctrl+c stops a background child."""

from __future__ import annotations

from typing import Any

from textual.message import Message

from tests.support.tui_support import agent_started, make_scripted_app, pause_until, say, turn_done
from tui import messages

SCENARIO = """
name: subagents
model: scripted
rules:
  - name: child-waits
    when: {kind: subagent, user: "(?i)forever"}
    reply: {delay: 20, text: "never said"}
  - name: child-works
    when: {kind: subagent, iteration: 1}
    reply: {tool_calls: [{name: todo, arguments: {action: add, items: ["look"]}}]}
  - name: child-sums
    when: {kind: subagent, after_tool: true}
    reply: {text: "Child done: {{last_user}}"}
  - name: split
    when: {iteration: 1, user: "^split"}
    reply:
      tool_calls:
        - {name: delegate_task, arguments: {tasks: [{goal: "first part"}, {goal: "second part"}]}}
  - name: background
    when: {iteration: 1, user: "^forever"}
    reply:
      tool_calls: [{name: delegate_task, arguments: {goal: "wait forever", background: true}}]
  - when: {last_tool: delegate_task}
    reply: {text: "Delegated."}
"""

CONFIG = "review:\n  enabled: false\n"


async def test_children_are_nested_blocks_with_their_own_tokens(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "split the work")
        await turn_done(pilot, app, seen, 1)
        transcript, budget = app.main_screen.transcript, app.main_screen.budget
        blocks = list(transcript.subagents.values())
        assert [b.started.goal for b in blocks] == ["first part", "second part"]
        for block in blocks:
            assert block.finished is not None and block.finished.status == "completed"
            assert [s.name for s in block.steps.values()] == ["todo"]
            text = str(block.render())
            assert "todo" in text and "Child done: " in text and "2 calls" in text and "tokens" in text
            assert block.tokens > 0
        # The children's calls are theirs: the session's totals hold the parent's two calls only.
        assert budget.totals.calls == 2
        assert sum(c.calls for c in budget.subagents.values()) == 4
        assert "subagents 2 · 4 calls" in budget.render_table().plain
        # The blocks come right after the delegate_task call, in the turn's order.
        order = [type(w).__name__ for w in transcript.children]
        first = order.index("SubagentBlock")
        assert order[first - 1] == "ToolBlock" and order[first + 1] == "SubagentBlock"
        # A click folds a block to its head.
        await pilot.click(blocks[0])
        await pilot.pause()
        assert not blocks[0].expanded and "todo" not in str(blocks[0].render())


async def test_ctrl_c_stops_a_background_child(scripted: Any) -> None:
    app = make_scripted_app(scripted, CONFIG)
    seen: list[Message] = []
    async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
        await agent_started(pilot, app)
        await say(pilot, app, "forever and ever")
        await turn_done(pilot, app, seen, 1)
        transcript = app.main_screen.transcript
        assert transcript.last_reply == "Delegated."
        (block,) = transcript.subagents.values()
        assert block.running and block.started.background and transcript.running_subagents == 1
        await pilot.press("ctrl+c")
        assert await pause_until(pilot, lambda: not block.running, rounds=600)
        assert block.finished is not None and block.finished.status == "interrupted"
        assert "interrupted" in str(block.render())
        finished = [m for m in seen if isinstance(m, messages.SubagentFinished)]
        assert len(finished) == 1 and finished[0].event.background

"""todo: a per-session task list, returned in full after every action."""

from __future__ import annotations

import json

from engine.tools.context import SessionState
from engine.tools.todo import render
from tests.support.tool_helpers import Bench


async def test_add_update_complete_list(bench: Bench) -> None:
    outcome = await bench.call("todo", {"action": "add", "items": ["read the code", "write tests", "bench"]})
    assert outcome.content == (
        "1. [ ] read the code\n2. [ ] write tests\n3. [ ] bench\n(0/3 done; [>] in progress, [-] cancelled)"
    )
    assert outcome.summary == "0/3 done"
    await bench.call("todo", {"action": "update", "id": 2, "status": "in_progress"})
    await bench.call("todo", {"action": "update", "id": 3, "text": "run the bench", "status": "cancelled"})
    outcome = await bench.call("todo", {"action": "complete", "id": 1})
    expected = ["1. [x] read the code", "2. [>] write tests", "3. [-] run the bench"]
    assert outcome.content.split("\n")[:3] == expected
    assert outcome.summary == "1/3 done"
    listed = await bench.call("todo", {"action": "list"})
    assert listed.content == outcome.content
    assert [t.status for t in bench.ctx.state.todos] == ["done", "in_progress", "cancelled"]


async def test_ids_keep_growing_and_lists_are_per_session(bench: Bench) -> None:
    await bench.call("todo", {"action": "add", "items": ["a"]})
    await bench.call("todo", {"action": "add", "items": ["b"]})
    assert [t.id for t in bench.ctx.state.todos] == [1, 2]
    bench.ctx.state = SessionState()
    assert (await bench.call("todo", {"action": "list"})).content == "The task list is empty."


async def test_todo_errors_name_the_fix(bench: Bench) -> None:
    await bench.call("todo", {"action": "add", "items": ["a"]})
    outcome = await bench.call("todo", {"action": "complete", "id": 7})
    assert json.loads(outcome.content) == {"error": "There is no task 7; the task ids are: 1."}
    outcome = await bench.call("todo", {"action": "update", "id": 1})
    assert "update needs `text`, `status` or both." in outcome.content
    outcome = await bench.call("todo", {"action": "add", "items": []})
    assert "add needs `items`" in outcome.content
    outcome = await bench.call("todo", {"action": "update", "id": 1, "status": "finished"})
    error = json.loads(outcome.content)["error"]
    assert '`status` must be one of "pending", "in_progress", "done", "cancelled"' in error
    outcome = await bench.call("todo", {"action": "complete"})
    assert "needs `id`" in outcome.content


def test_render_is_what_compression_can_keep() -> None:
    state = SessionState()
    assert render(state) == "The task list is empty."

"""The auxiliary tool loop, through the real client and the scripted server."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

from engine.config import defaults
from engine.home import Home
from engine.llm.client import LLMClient
from engine.llm.settings import ModelSettings
from engine.model_server.server import ScriptedModelServer
from engine.tools.context import ToolContext
from engine.tools.loop import STOP_ANSWERED, STOP_ERROR, STOP_MAX_ITERATIONS, run_tool_loop
from engine.tools.registry import Tool, ToolRegistry

SYSTEM = {"role": "system", "content": "You are a test."}


def serve(text: str) -> ScriptedModelServer:
    return ScriptedModelServer.from_yaml(textwrap.dedent(text))


def client_for(server: ScriptedModelServer) -> LLMClient:
    return LLMClient(ModelSettings(base_url=server.base_url, model="scripted", retry_base_delay=0.01))


def registry_with_log(calls: list[dict[str, Any]], together: int = 1) -> ToolRegistry:
    """A `note` tool; with `together=N` each call waits until N calls are running at once."""
    everyone_in = asyncio.Event()

    async def note(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        calls.append(args)
        if len(calls) >= together:
            everyone_in.set()
        await asyncio.wait_for(everyone_in.wait(), 5)  # times out unless the calls overlap
        return {"message": f"noted {args['text']}"}

    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return ToolRegistry([Tool("note", "notes", "Write a note.", schema, note)])


def context(tmp_path: Path, hermes_home: Path) -> ToolContext:
    return ToolContext(home=Home(hermes_home).ensure(), config=defaults(), cwd=tmp_path)


async def test_loop_runs_parallel_calls_feeds_results_back_and_stops_on_an_answer(
    tmp_path: Path, hermes_home: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply:
              tool_calls:
                - {name: note, arguments: {text: a}}
                - {name: note, arguments: {text: b}}
          - when: {after_tool: true}
            reply: {text: "Both noted: {{last_tool_result}}"}
        """
    )
    calls: list[dict[str, Any]] = []
    with server:
        async with client_for(server) as client:
            result = await run_tool_loop(
                client,
                [SYSTEM, {"role": "user", "content": "note a and b"}],
                registry_with_log(calls, together=2),
                context(tmp_path, hermes_home),
                max_iterations=5,
            )
    assert result.stopped == STOP_ANSWERED and result.iterations == 2
    assert sorted(c["text"] for c in calls) == ["a", "b"]
    assert [r.name for r in result.runs] == ["note", "note"] and all(r.ok for r in result.runs)
    assert result.text.startswith("Both noted:")
    roles = [m["role"] for m in result.messages]
    assert roles == ["assistant", "tool", "tool", "assistant"]
    second = server.chat_requests[1]
    assert [m["role"] for m in second.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert second.tool_names == ["note"]


async def test_loop_stops_at_the_iteration_cap_and_reports_it(tmp_path: Path, hermes_home: Path) -> None:
    server = serve(
        """
        rules:
          - reply: {tool_calls: [{name: note, arguments: {text: again}}]}
        """
    )
    calls: list[dict[str, Any]] = []
    with server:
        async with client_for(server) as client:
            result = await run_tool_loop(
                client, [SYSTEM], registry_with_log(calls), context(tmp_path, hermes_home), max_iterations=3
            )
    assert result.stopped == STOP_MAX_ITERATIONS and result.iterations == 3
    assert len(calls) == 3 and len(server.chat_requests) == 3 and result.text == ""


async def test_broken_json_becomes_an_error_result_the_model_reads(tmp_path: Path, hermes_home: Path) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: note, arguments_raw: '{"text": "unterminated'}]}
          - reply: {text: "saw: {{last_tool_result}}"}
        """
    )
    calls: list[dict[str, Any]] = []
    with server:
        async with client_for(server) as client:
            result = await run_tool_loop(
                client, [SYSTEM], registry_with_log(calls), context(tmp_path, hermes_home), max_iterations=3
            )
    assert calls == [] and not result.runs[0].ok
    assert "not valid JSON" in result.text
    # The history sent back carries `{}` instead of the broken text, which strict providers refuse.
    sent = server.chat_requests[1].messages[1]["tool_calls"][0]["function"]["arguments"]
    assert sent == "{}"


async def test_a_failed_call_ends_the_loop_without_raising(tmp_path: Path, hermes_home: Path) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: note, arguments: {text: kept}}]}
          - fault: {kind: http, status: 401, message: "bad key"}
        """
    )
    calls: list[dict[str, Any]] = []
    with server:
        async with client_for(server) as client:
            result = await run_tool_loop(
                client, [SYSTEM], registry_with_log(calls), context(tmp_path, hermes_home), max_iterations=3
            )
    assert result.stopped == STOP_ERROR and result.error is not None and "bad key" in str(result.error)
    assert [r.name for r in result.runs] == ["note"] and calls == [{"text": "kept"}]

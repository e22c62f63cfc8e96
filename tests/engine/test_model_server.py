"""The scripted model server: scenario files, rule choice, the SSE it streams, faults, the request log."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import openai
import pytest

from engine.model_server.parsing import builtin_scenarios, load_scenario, parse_scenario
from engine.model_server.scenario import ScenarioError
from engine.model_server.server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("memory", "terminal", "read_file")
]


def scenario(text: str) -> ScriptedModelServer:
    return ScriptedModelServer.from_yaml(textwrap.dedent(text))


def client(server: ScriptedModelServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)


async def ask(
    server: ScriptedModelServer, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> tuple[str, list[dict[str, str]], Any]:
    """One streamed call with the real client; returns text, tool calls and the last usage seen."""
    async with client(server) as api:
        kwargs: dict[str, Any] = {"tools": tools} if tools else {}
        stream = await api.chat.completions.create(
            model="scripted",
            messages=messages,
            stream=True,
            stream_options={"include_usage": True},
            **kwargs,
        )
        text, calls, usage = "", {}, None
        async for chunk in stream:
            usage = chunk.usage or usage
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for call in choice.delta.tool_calls or []:
                    slot = calls.setdefault(call.index, {"name": "", "arguments": ""})
                    slot["name"] = slot["name"] or (call.function.name or "")
                    slot["arguments"] += call.function.arguments or ""
        return text, [calls[i] for i in sorted(calls)], usage


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def raw_post(server: ScriptedModelServer, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    """A chat request over plain http.client, to see the exact bytes the server sends."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), data


# --- scenario files ---------------------------------------------------------------------------


def test_shipped_default_scenario_loads_and_answers_plainly() -> None:
    assert "default" in builtin_scenarios()
    loaded = load_scenario("default")
    assert loaded.model == "scripted" and len(loaded.rules) >= 3
    with ScriptedModelServer("default") as server:
        text, calls, _ = asyncio.run(ask(server, [user("Hello there")]))
        assert "Hello" in text and calls == []
        text, calls, _ = asyncio.run(ask(server, [user("remember that I drink tea")], TOOLS))
        assert calls[0]["name"] == "memory"
        assert json.loads(calls[0]["arguments"])["content"] == "I drink tea"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rules: []", "line 1: `rules` must be a list with at least one rule"),
        ("rules:\n  - reply: {text: hi}\n    wen: {turn: 1}", "line 3: unknown key `wen` in rule 1"),
        (
            "rules:\n  - when:\n      user: '(unclosed'\n    reply: {text: x}",
            "line 3: `user` is not a valid regular",
        ),
        ("rules:\n  - reply: {text: 'hi {{nme}}'}", "line 2: unknown template variable {{nme}}"),
        ("rules:\n  - fault: {kind: explode}", "line 2: `fault.kind` must be one of"),
        ("rules:\n  - when: {turn: 'two'}\n    reply: {text: x}", "line 2: `turn` must be a number"),
        ("rules:\n  - when: {kind: nonsense}\n    reply: {text: x}", "line 2: unknown kind 'nonsense'"),
        ("rules:\n  - name: nothing\n", "line 2: nothing needs a `reply:` or a `fault:`"),
        ("rules:\n  - reply: {text: [1, 2]}", "line 2: `text` must be text"),
        ("rules: [\n", "line 2:"),
        ("- just a list", "a scenario is a mapping"),
    ],
)
def test_bad_scenarios_fail_with_the_line_and_a_fix(text: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source="s.yaml")
    assert str(info.value).startswith("s.yaml") and expected in str(info.value)


def test_every_example_in_the_format_documentation_is_playable() -> None:
    import re

    import engine.model_server.scenario as module

    docs = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    examples = [block for block in re.findall(r"```yaml\n(.*?)```", docs, re.S) if "rules:" in block]
    docstring = (module.__doc__ or "").split("\n\n")[2]
    examples.append(textwrap.dedent(docstring))
    assert len(examples) >= 4
    for example in examples:
        assert parse_scenario(example, source="docs").rules


def test_scenario_files_that_are_not_text_or_missing_are_refused(tmp_path: Path) -> None:
    binary = tmp_path / "bad.yaml"
    binary.write_bytes(b"rules:\n  - reply: {text: \xff\xfe}\n")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_scenario(binary)
    with pytest.raises(ScenarioError, match=r"No scenario file at .*one of: .*default"):
        load_scenario(tmp_path / "missing.yaml")


# --- choosing the reply -----------------------------------------------------------------------


def test_rules_with_times_play_in_order_then_fall_through_to_the_catch_all() -> None:
    server = scenario(
        """
        rules:
          - {times: 1, reply: {text: first}}
          - {times: 2, reply: {text: second}}
          - reply: {text: "again, call {{call}}"}
        """
    )
    with server:
        answers = [asyncio.run(ask(server, [user("x")]))[0] for _ in range(5)]
    assert answers == ["first", "second", "second", "again, call 4", "again, call 5"]
    assert [r.rule for r in server.chat_requests][:2] == ["rule 1 (line 3)", "rule 2 (line 4)"]


def test_conditions_over_turn_iteration_user_text_tools_and_tool_results() -> None:
    server = scenario(
        r"""
        rules:
          - when: {after_tool: true, last_tool: terminal, tool_result: "(\\d+) files"}
            reply:
              text: "{{last_tool_name}} found {{match.1}} files on turn {{turn}}, iteration {{iteration}}"
          - when: {user: "(?i)^list (?P<where>\\S+)", tools: [terminal]}
            reply: {tool_calls: [{name: terminal, arguments: {command: "ls {{match.where}}"}}]}
          - when: {turn: {min: 2, every: 2}, no_tools: true}
            reply: {text: "an even turn without tools"}
          - when: {tools_exactly: [memory, terminal, read_file]}
            reply: {text: "all three tools: {{tools}}"}
          - reply: {text: "plain"}
        """
    )
    with server:
        _, calls, _ = asyncio.run(ask(server, [user("list /tmp")], TOOLS))
        assert calls == [{"name": "terminal", "arguments": '{"command": "ls /tmp"}'}]
        history = [
            user("list /tmp"),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "12 files"},
        ]
        text, _, _ = asyncio.run(ask(server, history, TOOLS))
        assert text == "terminal found 12 files on turn 1, iteration 2"
        text, _, _ = asyncio.run(ask(server, [user("a"), {"role": "assistant", "content": "b"}, user("c")]))
        assert text == "an even turn without tools"
        text, _, _ = asyncio.run(ask(server, [user("hello")], TOOLS))
        assert text == "all three tools: memory, terminal, read_file"
        text, _, _ = asyncio.run(ask(server, [user("hello")]))
        assert text == "plain"


def test_flush_and_summary_calls_are_recognised_as_kinds() -> None:
    server = scenario(
        """
        kinds:
          review: {user: "^REVIEW:"}
        rules:
          - {when: {kind: flush}, reply: {text: flushed}}
          - {when: {kind: summary}, reply: {text: summarised}}
          - {when: {kind: review}, reply: {text: reviewed}}
          - {when: {kind: chat}, reply: {text: chatted}}
        """
    )
    with server:
        flush = "[System: The session is being compressed. Save anything worth remembering.]"
        assert asyncio.run(ask(server, [user(flush)], TOOLS))[0] == "flushed"
        assert asyncio.run(ask(server, [user("Summarize the conversation so far.")]))[0] == "summarised"
        assert asyncio.run(ask(server, [user("REVIEW: the last turn")]))[0] == "reviewed"
        assert asyncio.run(ask(server, [user("Summarize it")], TOOLS))[0] == "chatted"  # tools offered


async def test_a_request_no_rule_matches_gets_a_400_naming_it() -> None:
    server = scenario("rules:\n  - when: {turn: 5}\n    reply: {text: x}\n")
    with server, pytest.raises(openai.BadRequestError) as info:
        await ask(server, [user("unexpected question")])
    message = str(info.value)
    assert "no rule of scenario" in message and "call 1" in message and "unexpected question" in message


# --- the bytes on the wire --------------------------------------------------------------------


def test_streamed_reply_is_chunked_sse_with_role_deltas_finish_and_usage_only_when_asked() -> None:
    server = scenario(
        """
        rules:
          - reply:
              reasoning: "think"
              chunks: ["Hel", "lo"]
              tool_calls: [{name: memory, arguments: {a: 1}}]
              fragment_size: 4
        """
    )
    with server:
        body = {
            "model": "m",
            "messages": [user("x")],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        status, headers, data = raw_post(server, body)
        _, _, without_usage = raw_post(server, dict(body, stream_options={}))
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    assert headers["Transfer-Encoding"] == "chunked"
    events = [line.removeprefix("data: ") for line in data.decode().split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert deltas[0] == {"role": "assistant", "reasoning_content": "think"}
    assert [d.get("content") for d in deltas[1:3]] == ["Hel", "lo"]
    fragments = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert fragments[0]["id"] and fragments[0]["function"]["name"] == "memory"
    assert all("id" not in f and "name" not in f["function"] for f in fragments[1:])
    assert "".join(f["function"]["arguments"] for f in fragments) == '{"a": 1}'
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] > 0
    assert b'"usage"' not in without_usage


def test_a_request_without_stream_gets_one_completion_object() -> None:
    server = scenario("rules:\n  - reply: {text: whole, tool_calls: [{name: t, arguments_raw: '{bad'}]}\n")
    with server:
        status, headers, data = raw_post(server, {"model": "m", "messages": [user("x")]})
    reply = json.loads(data)
    assert status == 200 and headers["Content-Type"] == "application/json"
    message = reply["choices"][0]["message"]
    assert message["content"] == "whole" and message["tool_calls"][0]["function"]["arguments"] == "{bad"
    assert reply["choices"][0]["finish_reason"] == "tool_calls" and reply["usage"]["total_tokens"] > 0


async def test_models_endpoint_lists_the_scenario_models_with_their_context_length() -> None:
    server = scenario("model: [alpha, beta]\ncontext_length: 32768\nrules:\n  - reply: {text: x}\n")
    with server:
        async with client(server) as api:
            models = await api.models.list()
            one = await api.models.retrieve("beta")
    assert [m.id for m in models.data] == ["alpha", "beta"]
    assert models.data[0].model_extra["context_length"] == 32768 and one.id == "beta"


def test_a_cut_fault_closes_the_connection_mid_stream() -> None:
    server = scenario(
        "rules:\n  - reply: {text: abcdefghij, chunk_size: 2}\n    fault: {kind: cut, after_chunks: 2}\n"
    )
    with server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/v1/chat/completions", json.dumps({"messages": [user("x")], "stream": True}))
        response = conn.getresponse()
        with pytest.raises(http.client.IncompleteRead) as info:
            response.read()
        conn.close()
    assert (
        b'"ab"' in info.value.partial and b'"cd"' in info.value.partial and b'"ef"' not in info.value.partial
    )


async def test_fifty_concurrent_requests_are_all_answered() -> None:
    server = scenario('rules:\n  - reply: {text: "answer to {{last_user}}", chunk_size: 3}\n')
    with server:
        async with client(server) as api:

            async def one(i: int) -> str:
                reply = await api.chat.completions.create(model="m", messages=[user(f"question {i}")])
                return reply.choices[0].message.content or ""

            answers = await asyncio.gather(*(one(i) for i in range(50)))
    assert answers == [f"answer to question {i}" for i in range(50)]
    assert sorted(r.call for r in server.chat_requests) == list(range(1, 51))


# --- the request log --------------------------------------------------------------------------


def test_every_request_is_recorded_with_the_exact_system_prompt_and_no_key(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    system = 'You are terse.\n§ Ünïcode and "quotes" survive — exactly.\n'
    with ScriptedModelServer("default", log_path=log) as server:
        asyncio.run(ask(server, [{"role": "system", "content": system}, user("hi")], TOOLS))
        asyncio.run(ask(server, [user("no system prompt")]))
        recorded = server.requests
    assert recorded[0].system_prompt == system and recorded[1].system_prompt is None
    assert recorded[0].tool_names == ["memory", "terminal", "read_file"]
    assert recorded[0].authorized and "authorization" not in recorded[0].headers
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["call"] for line in lines] == [1, 2]
    assert lines[0]["body"]["messages"][0]["content"] == system
    assert "test-key" not in log.read_text(encoding="utf-8")


def test_cached_tokens_follow_the_prefix_shared_with_the_previous_request() -> None:
    with ScriptedModelServer("default") as server:
        system = {"role": "system", "content": "S" * 4000}
        _, _, first = asyncio.run(ask(server, [system, user("one")]))
        _, _, second = asyncio.run(ask(server, [system, user("one"), {"role": "assistant", "content": "x"}]))
    assert first.prompt_tokens_details.cached_tokens == 0
    assert second.prompt_tokens_details.cached_tokens >= 1000
    assert second.prompt_tokens_details.cached_tokens < second.prompt_tokens


# --- the command ------------------------------------------------------------------------------


def run_hws(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args], cwd=ROOT, capture_output=True, text=True, timeout=30
    )


def test_model_server_command_checks_scenarios(tmp_path: Path) -> None:
    ok = run_hws("model-server", "--check")
    assert ok.returncode == 0 and "it is playable" in ok.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - fault: {kind: nope}\n", encoding="utf-8")
    refused = run_hws("model-server", str(bad), "--check")
    assert refused.returncode == 2 and f"{bad} line 2" in refused.stderr
    assert run_hws("model-server", "--list").stdout.split() == builtin_scenarios()


def test_model_server_command_serves_until_interrupted(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.main", "model-server", "--log", str(log)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        url = first.rsplit(" at ", 1)[1].strip()
        host, port = url.removeprefix("http://").removesuffix("/v1").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("POST", "/v1/chat/completions", json.dumps({"messages": [user("hi")]}))
        reply = json.loads(conn.getresponse().read())
        conn.close()
        assert "Hello" in reply["choices"][0]["message"]["content"]
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)  # a loaded machine can take its time; stopping is the point
    assert process.returncode == 0 and "Stopped after 1 chat requests" in err
    assert json.loads(log.read_text(encoding="utf-8"))["body"]["messages"][0]["content"] == "hi"

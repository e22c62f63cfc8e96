"""The provider client, driven through the real `AsyncOpenAI` against the real scripted server."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.config import load_config
from engine.llm.caching import apply_cache_markers
from engine.llm.chunks import FinishChunk, ReasoningChunk, RetryChunk, TextChunk, ToolCallChunk, UsageChunk
from engine.llm.client import LLMClient
from engine.llm.context import parse_context_limit, step_down
from engine.llm.errors import ContextLengthError, LLMError
from engine.llm.settings import ModelSettings, SettingsError, auxiliary_settings, model_settings
from engine.model_server.server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("memory", "terminal")
]


def serve(text: str) -> ScriptedModelServer:
    return ScriptedModelServer.from_yaml(textwrap.dedent(text))


def make_client(server: ScriptedModelServer, home: Path | None = None, **settings: Any) -> LLMClient:
    options: dict[str, Any] = {"model": "scripted", "retry_base_delay": 0.01, "stale_timeout": 5.0}
    options.update(settings)
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
    return LLMClient(ModelSettings(base_url=server.base_url, **options), home_root=home)


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


async def chunks_of(client: LLMClient, messages: list[dict[str, Any]], **kwargs: Any) -> list[Any]:
    async with client.stream(messages, **kwargs) as call:
        return [chunk async for chunk in call]


# --- streaming --------------------------------------------------------------------------------


async def test_streamed_text_and_reasoning_arrive_as_small_chunks_and_assemble() -> None:
    server = serve(
        'rules:\n  - reply: {reasoning: "Let me see.", text: "Hello there, friend.", chunk_size: 5}\n'
    )
    with server:
        async with make_client(server) as client:
            chunks = await chunks_of(client, [{"role": "system", "content": "S"}, user("hi")])
    texts = [c.text for c in chunks if isinstance(c, TextChunk)]
    assert texts == ["Hello", " ther", "e, fr", "iend."]
    assert "".join(c.text for c in chunks if isinstance(c, ReasoningChunk)) == "Let me see."
    final = chunks[-1]
    assert isinstance(final, FinishChunk)
    assert final.message.content == "Hello there, friend." and final.message.reasoning == "Let me see."
    assert final.message.finish_reason == "stop" and final.message.tool_calls == ()
    assert final.message.as_dict() == {"role": "assistant", "content": "Hello there, friend."}


async def test_reasoning_under_openrouters_field_name_is_read_too() -> None:
    server = serve("defaults: {reasoning_field: reasoning}\nrules:\n  - reply: {reasoning: deep, text: ok}\n")
    with server:
        async with make_client(server) as client:
            message = await client.complete([user("x")])
    assert message.reasoning == "deep" and message.content == "ok"


async def test_parallel_tool_calls_in_interleaved_fragments_are_accumulated_by_index() -> None:
    server = serve(
        """
        rules:
          - reply:
              text: "Two things at once."
              fragment_size: 3
              interleave: true
              tool_calls:
                - {name: memory, arguments: {action: add, content: "user likes tea"}}
                - {name: terminal, arguments: {command: "ls -la /tmp"}}
        """
    )
    with server:
        async with make_client(server) as client:
            chunks = await chunks_of(client, [user("go")], tools=TOOLS)
    fragments = [c for c in chunks if isinstance(c, ToolCallChunk)]
    assert len(fragments) > 10 and [f.index for f in fragments[:4]] == [0, 1, 0, 1]
    message = chunks[-1].message
    assert [call.name for call in message.tool_calls] == ["memory", "terminal"]
    assert message.tool_calls[0].parsed_arguments() == {"action": "add", "content": "user likes tea"}
    assert message.tool_calls[1].parsed_arguments() == {"command": "ls -la /tmp"}
    assert message.finish_reason == "tool_calls"
    assert message.as_dict()["tool_calls"][1]["function"]["name"] == "terminal"


async def test_servers_repeating_id_and_name_on_every_delta_do_not_double_the_name() -> None:
    server = serve(
        """
        rules:
          - reply:
              fragment_size: 2
              repeat_id_name: true
              tool_calls: [{id: call_x, name: memory, arguments: {action: add, content: abc}}]
        """
    )
    with server:
        async with make_client(server) as client:
            message = await client.complete([user("go")], tools=TOOLS)
    sent = server.requests[-1]
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert len(message.tool_calls) == 1
    assert message.tool_calls[0].id == "call_x" and message.tool_calls[0].name == "memory"
    assert message.tool_calls[0].parsed_arguments() == {"action": "add", "content": "abc"}


async def test_broken_tool_json_and_unknown_tools_reach_the_caller_untouched() -> None:
    server = serve(
        """
        rules:
          - reply:
              tool_calls:
                - {name: terminal, arguments_raw: '{"command": "ls'}
                - {name: no_such_tool, arguments: {x: 1}}
                - {name: memory, arguments_raw: '["not", "an", "object"]'}
        """
    )
    with server:
        async with make_client(server) as client:
            message = await client.complete([user("go")], tools=TOOLS)
    broken, unknown, listy = message.tool_calls
    assert broken.arguments == '{"command": "ls'
    with pytest.raises(ValueError, match="arguments of terminal are not valid JSON"):
        broken.parsed_arguments()
    assert unknown.name == "no_such_tool" and unknown.parsed_arguments() == {"x": 1}
    with pytest.raises(ValueError, match="must be a JSON object, not list"):
        listy.parsed_arguments()


async def test_usage_and_the_providers_cached_tokens_are_reported() -> None:
    server = serve(
        """
        rules:
          - times: 1
            reply: {text: a, usage: {prompt_tokens: 900, completion_tokens: 7, cached_tokens: 850}}
          - reply: {text: b}
        """
    )
    system = {"role": "system", "content": "stable prefix " * 400}
    with server:
        async with make_client(server) as client:
            first = await client.complete([system, user("one")])
            second = await client.complete(
                [system, user("one"), {"role": "assistant", "content": "a"}, user("2")]
            )
    assert first.usage is not None and (first.usage.prompt_tokens, first.usage.cached_tokens) == (900, 850)
    assert first.usage.completion_tokens == 7 and first.usage.total_tokens == 907
    assert second.usage is not None and 1000 < second.usage.cached_tokens < second.usage.prompt_tokens


async def test_an_empty_reply_is_a_finished_empty_message_not_an_error() -> None:
    server = serve("rules:\n  - fault: empty\n")
    with server:
        async with make_client(server) as client:
            message = await client.complete([user("x")])
    assert message.content == "" and message.tool_calls == () and message.finish_reason == "stop"


async def test_a_stream_that_ends_with_done_but_no_finish_reason_is_complete() -> None:
    server = serve("rules:\n  - reply: {text: fine, finish_reason: none}\n")
    with server:
        async with make_client(server) as client:
            message = await client.complete([user("x")])
    assert message.content == "fine" and message.finish_reason == "stop"
    assert len(server.chat_requests) == 1  # not mistaken for a dropped stream


async def test_model_is_taken_from_the_endpoint_when_none_is_configured() -> None:
    server = serve("model: [local-7b, other]\nrules:\n  - reply: {text: 'model {{model}}'}\n")
    with server:
        async with make_client(server, model="") as client:
            message = await client.complete([user("x")])
            assert client.settings.model == "local-7b"
    assert message.content == "model local-7b"


# --- faults and retries -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        "{kind: rate_limit, retry_after: 0}",
        "{kind: server_error}",
        "{kind: http, status: 503}",
        "{kind: cut, after_chunks: 2}",
        "{kind: cut, after_chunks: 99}",  # every delta sent, then cut before the finish
        "{kind: drop}",
        "{kind: stream_error, after_chunks: 1}",
    ],
)
async def test_each_transient_fault_is_retried_to_success_and_reported(fault: str) -> None:
    server = serve(
        f"""
        rules:
          - times: 2
            reply: {{text: "the first try, doomed", chunk_size: 4}}
            fault: {fault}
          - reply: {{text: "the third try works", chunk_size: 4}}
        """
    )
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server) as client, client.stream([user("x")], on_retry=notices.append) as call:
            chunks = [c async for c in call]
    retries = [c for c in chunks if isinstance(c, RetryChunk)]
    assert retries == notices and [r.attempt for r in retries] == [1, 2]
    assert retries[0].text.startswith("retrying (1/3) in ") and call.attempts == 3
    assert chunks[-1].message.content == "the third try works"
    # Whatever streamed before the last retry is void: only the last attempt's text follows it.
    after_last_retry = chunks[chunks.index(retries[-1]) + 1 :]
    assert "".join(c.text for c in after_last_retry if isinstance(c, TextChunk)) == "the third try works"
    assert len(server.chat_requests) == 3


async def test_an_error_event_naming_the_context_limit_is_a_context_error() -> None:
    server = serve(
        """
        rules:
          - fault: {kind: stream_error, message: "This model's maximum context length is 40000 tokens."}
        """
    )
    with server:
        async with make_client(server) as client:
            with pytest.raises(ContextLengthError) as info:
                await client.complete([user("x")])
    assert info.value.limit == 40_000 and info.value.parsed


async def test_backoff_doubles_from_the_base_delay() -> None:
    server = serve("rules:\n  - {times: 3, fault: server_error}\n  - reply: {text: ok}\n")
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server, retry_base_delay=0.02) as client:
            await client.stream([user("x")], on_retry=notices.append).collect()
    assert [n.delay for n in notices] == [0.02, 0.04, 0.08]
    assert all(n.status == 500 and n.reason == "HTTP 500" for n in notices)


async def test_retry_after_from_the_server_is_honoured() -> None:
    server = serve(
        "rules:\n  - {times: 1, fault: {kind: rate_limit, retry_after: 0.6}}\n  - reply: {text: ok}\n"
    )
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server, retry_base_delay=0.01) as client:
            started = time.monotonic()
            message = await client.stream([user("x")], on_retry=notices.append).collect()
            elapsed = time.monotonic() - started
    assert message.content == "ok" and notices[0].delay == pytest.approx(0.6)
    assert "429" in notices[0].reason and elapsed >= 0.6
    arrivals = [r.received_at for r in server.chat_requests]
    assert arrivals[1] - arrivals[0] >= 0.55


async def test_retry_after_is_capped_by_the_configured_maximum() -> None:
    server = serve(
        "rules:\n  - {times: 1, fault: {kind: rate_limit, retry_after: 3600}}\n  - reply: {text: ok}\n"
    )
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server, retry_max_delay=0.05) as client:
            await client.stream([user("x")], on_retry=notices.append).collect()
    assert notices[0].delay == 0.05


async def test_the_last_failure_is_a_clear_error_after_all_retries() -> None:
    server = serve("rules:\n  - fault: {kind: server_error, status: 502, message: upstream is down}\n")
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server, max_retries=2) as client:
            with pytest.raises(LLMError) as info:
                await client.stream([user("x")], on_retry=notices.append).collect()
    error = info.value
    assert error.kind == "server" and error.status == 502 and error.attempts == 3 and error.retryable
    assert str(error).startswith(
        f"The call to scripted at {server.base_url} failed on all 3 tries with HTTP 502"
    )
    assert "upstream is down" in str(error) and [n.text[:14] for n in notices] == [
        "retrying (1/2)",
        "retrying (2/2)",
    ]
    assert len(server.chat_requests) == 3


async def test_an_endpoint_that_is_not_running_fails_clearly_after_the_retries() -> None:
    server = serve("rules:\n  - reply: {text: x}\n")
    with server:
        base_url = server.base_url
    async with LLMClient(
        ModelSettings(base_url=base_url, model="m", max_retries=1, retry_base_delay=0.01)
    ) as client:
        with pytest.raises(LLMError) as info:
            await client.complete([user("x")])
    assert info.value.kind == "connection" and info.value.attempts == 2
    assert "check that the endpoint is running and model.base_url is right" in str(info.value)


def test_retry_after_accepts_seconds_milliseconds_and_dates() -> None:
    from email.utils import formatdate

    from engine.llm.errors import retry_after_seconds

    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "7"}) == 0.25
    assert 8 <= (retry_after_seconds({"retry-after": formatdate(time.time() + 10, usegmt=True)}) or 0) <= 10
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds({}) is None


@pytest.mark.parametrize(
    ("status", "kind", "advice"),
    [(401, "auth", "model.api_key"), (404, "not_found", "model name"), (400, "bad_request", "refused")],
)
async def test_refusals_are_not_retried(status: int, kind: str, advice: str) -> None:
    server = serve(f"rules:\n  - fault: {{kind: http, status: {status}, message: nope}}\n")
    with server:
        async with make_client(server) as client:
            with pytest.raises(LLMError) as info:
                await client.complete([user("x")])
    assert info.value.kind == kind and info.value.attempts == 1 and not info.value.retryable
    assert advice in str(info.value) and len(server.chat_requests) == 1


async def test_a_stalled_stream_is_detected_and_retried() -> None:
    server = serve(
        """
        rules:
          - times: 1
            reply: {text: "stalls here", chunk_size: 3}
            fault: {kind: stall, seconds: 30, after_chunks: 2}
          - reply: {text: recovered}
        """
    )
    notices: list[RetryChunk] = []
    with server:
        async with make_client(server, stale_timeout=0.3) as client:
            started = time.monotonic()
            message = await client.stream([user("x")], on_retry=notices.append).collect()
            elapsed = time.monotonic() - started
    assert message.content == "recovered" and elapsed < 5
    assert notices[0].reason == "no data for 0.3 s"


async def test_a_stall_before_the_first_byte_is_detected_too() -> None:
    server = serve("rules:\n  - {times: 1, reply: {text: late, delay: 30}}\n  - reply: {text: prompt}\n")
    with server:
        async with make_client(server, stale_timeout=0.3, max_retries=0) as client:
            with pytest.raises(LLMError) as info:
                await client.complete([user("x")])
    assert info.value.kind == "stalled" and "raise model.stale_timeout" in str(info.value)
    assert "retries are off" in str(info.value)


async def test_the_whole_call_time_limit_ends_a_slow_reply() -> None:
    server = serve("rules:\n  - reply: {text: 'slow and steady', chunk_size: 1, chunk_delay: 0.1}\n")
    with server:
        async with make_client(server, request_timeout=0.4, stale_timeout=5, max_retries=0) as client:
            with pytest.raises(LLMError) as info:
                await client.complete([user("x")])
    assert info.value.kind == "timeout" and "0.4 s time limit" in str(info.value)


async def test_cancelling_the_consumer_closes_the_stream_and_keeps_the_partial_text() -> None:
    server = serve(
        """
        rules:
          - times: 1
            reply: {text: "one two three four five six seven eight", chunk_size: 4, chunk_delay: 0.05}
          - reply: {text: next}
        """
    )
    seen: list[str] = []
    with server:
        async with make_client(server) as client:
            call = client.stream([user("x")])

            async def consume() -> None:
                async for chunk in call:
                    if isinstance(chunk, TextChunk):
                        seen.append(chunk.text)
                        if len(seen) == 3:
                            task.cancel()

            task = asyncio.create_task(consume())
            with pytest.raises(asyncio.CancelledError):
                await task
            assert call.message.content == "".join(seen) == "one two thre"
            assert not call.message.complete
            # The connection was released: the same client makes the next call at once.
            assert (await client.complete([user("y")])).content == "next"


async def test_leaving_the_stream_early_closes_it() -> None:
    server = serve("rules:\n  - reply: {text: 'a long answer that is not read', chunk_size: 2}\n")
    with server:
        async with make_client(server) as client:
            async with client.stream([user("x")]) as call:
                async for chunk in call:
                    if isinstance(chunk, TextChunk):
                        break
            assert call.message.content == "a "
            assert (await client.complete([user("x")])).content == "a long answer that is not read"


# --- context length ---------------------------------------------------------------------------


def test_step_down_goes_through_the_tiers_or_to_the_limit_the_error_names() -> None:
    sizes = [300_000]
    while sizes[-1] > 8_000:
        sizes.append(step_down(sizes[-1]))
    assert sizes == [300_000, 256_000, 128_000, 64_000, 32_000, 16_000, 8_000]
    assert step_down(8_000) == 8_000
    assert step_down(131_072) == 64_000 and step_down(32_768) == 16_000
    assert step_down(128_000, "This model's maximum context length is 32768 tokens.") == 32_768
    assert step_down(16_000, "maximum context length is 32768 tokens") == 16_000


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("This model's maximum context length is 131072 tokens. However, you requested 140000", 131_072),
        ("request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it", 8_192),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200_000),
        ("Input exceeds the context window of 1,000,000 tokens", 1_000_000),
        ("the prompt is too long; reduce it", None),
    ],
)
def test_the_limit_is_parsed_from_the_usual_error_texts(text: str, limit: int | None) -> None:
    assert parse_context_limit(text) == limit


async def test_context_errors_step_down_and_are_remembered_in_the_home(hermes_home: Path) -> None:
    server = serve(
        """
        context_length: 128000
        rules:
          - {times: 2, fault: {kind: context_length, mention_limit: false}}
          - {times: 2, fault: {kind: context_length, limit: 20000}}
        """
    )
    with server:
        async with make_client(server, hermes_home) as client:
            assert (await client.context_length()).tokens == 128_000
            limits = []
            for _ in range(3):
                with pytest.raises(ContextLengthError) as info:
                    await client.complete([user("x")])
                limits.append((info.value.previous, info.value.limit, info.value.parsed))
            assert "assuming 20,000 tokens from now on (was 32,000)." in str(info.value)
            with pytest.raises(ContextLengthError) as info:  # the same limit met again: no "(was 20,000)"
                await client.complete([user("x")])
            assert "assuming 20,000 tokens from now on. Compress" in str(info.value), str(info.value)
    assert limits == [(128_000, 64_000, False), (64_000, 32_000, False), (32_000, 20_000, True)]
    assert len(server.chat_requests) == 4  # a context error is not retried as it is
    cache = yaml.safe_load((hermes_home / "context_length_cache.yaml").read_text(encoding="utf-8"))
    assert cache == {"context_lengths": {f"scripted@{server.base_url}": 20_000}}
    fresh = LLMClient(ModelSettings(base_url=server.base_url, model="scripted"), home_root=hermes_home)
    assert await fresh.context_length() == type(await fresh.context_length())(20_000, "learned")


async def test_context_length_comes_from_config_then_endpoint_then_default(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "context_length_cache.yaml").write_text(
        "context_lengths:\n  other-model@http://elsewhere/v1: 4096\n", encoding="utf-8"
    )
    with serve("context_length: 32768\nrules:\n  - reply: {text: x}\n") as server:
        async with make_client(server, hermes_home, context_length=50_000) as client:
            assert (await client.context_length()).source == "config"
        async with make_client(server, hermes_home) as client:
            info = await client.context_length()
            assert (info.tokens, info.source) == (32_768, "endpoint")
            await client.learn_context_limit("scripted", "no number here")
            assert (await client.context_length()).tokens == 16_000
        async with make_client(server, hermes_home, context_length=50_000) as client:
            assert (await client.context_length()).tokens == 16_000  # the endpoint refused more
    with serve("context_length: 0\nrules:\n  - reply: {text: x}\n") as server:
        async with make_client(server, hermes_home) as client:
            assert await client.context_length() == type(await client.context_length())(128_000, "default")
    entries = yaml.safe_load((hermes_home / "context_length_cache.yaml").read_text(encoding="utf-8"))
    assert entries["context_lengths"]["other-model@http://elsewhere/v1"] == 4096  # others are kept


async def test_an_unreadable_cache_file_is_kept_aside_not_lost(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    cache = hermes_home / "context_length_cache.yaml"
    cache.write_text("context_lengths: [unclosed\n", encoding="utf-8")
    with serve("rules:\n  - reply: {text: x}\n") as server:
        async with make_client(server, hermes_home) as client:
            assert (await client.context_length()).source == "endpoint"
            await client.learn_context_limit("scripted", "maximum context length is 9000 tokens")
    assert (
        (hermes_home / "context_length_cache.yaml.bad")
        .read_text(encoding="utf-8")
        .startswith("context_lengths: [")
    )
    assert "9000" in cache.read_text(encoding="utf-8")


# --- prompt caching ---------------------------------------------------------------------------


def conversation() -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": "{}"}}
    return [
        {"role": "system", "content": "You are terse."},
        user("first"),
        {"role": "assistant", "content": "ok"},
        user([{"type": "text", "text": "look"}, {"type": "text", "text": "here"}]),  # type: ignore[arg-type]
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "saved"},
    ]


def test_cache_markers_go_on_the_system_prompt_and_the_last_three_messages_of_a_copy() -> None:
    original = conversation()
    snapshot = repr(original)
    marked = apply_cache_markers(original)
    assert repr(original) == snapshot  # the caller's history never carries markers
    ephemeral = {"type": "ephemeral"}
    assert marked[0]["content"] == [{"type": "text", "text": "You are terse.", "cache_control": ephemeral}]
    assert marked[1] == original[1] and marked[2] == original[2]
    assert marked[3]["content"][0] == {"type": "text", "text": "look"}
    assert marked[3]["content"][1]["cache_control"] == ephemeral
    assert marked[4]["cache_control"] == ephemeral and marked[4]["content"] is None
    assert marked[5] == original[5]  # tool results are marked only on Anthropic's own API
    native = apply_cache_markers(original, ttl="1h", native_anthropic=True)
    assert native[5]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    count = sum(repr(m).count("cache_control") for m in native)
    assert count == 4


def test_markers_are_sent_only_where_the_endpoint_honours_them() -> None:
    messages = conversation()[:2]

    def body(base_url: str, model: str, enabled: bool = True) -> str:
        settings = ModelSettings(base_url=base_url, model=model, prompt_caching=enabled)
        return repr(LLMClient(settings).request_body(messages, model))

    assert "cache_control" in body("https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4")
    assert "cache_control" in body("https://api.anthropic.com/v1", "claude-opus-4")
    assert "cache_control" not in body("https://openrouter.ai/api/v1", "openai/gpt-5")
    assert "cache_control" not in body("http://127.0.0.1:8080/v1", "claude-local")
    assert "cache_control" not in body(
        "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4", enabled=False
    )


# --- settings ---------------------------------------------------------------------------------


def write_home(home: Path, config: str, env: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(textwrap.dedent(config), encoding="utf-8")
    (home / ".env").write_text(env, encoding="utf-8")


def test_settings_come_from_config_env_and_the_usual_key_variables(hermes_home: Path) -> None:
    write_home(
        hermes_home,
        """
        model: {default: anthropic/claude-sonnet-4, context_length: 200000}
        agent: {api_max_retries: 5, retry_base_delay: 0.5}
        prompt_caching: {cache_ttl: 1h}
        """,
        "OPENROUTER_API_KEY=sk-or-test\n",
    )
    settings = model_settings(load_config(hermes_home))
    assert settings.base_url == "https://openrouter.ai/api/v1" and settings.api_key == "sk-or-test"
    assert (settings.max_retries, settings.retry_base_delay, settings.context_length) == (5, 0.5, 200_000)
    assert settings.cache_markers == "openrouter" and settings.cache_ttl == "1h"
    aux = auxiliary_settings(load_config(hermes_home))
    assert (aux.base_url, aux.model, aux.api_key) == (settings.base_url, settings.model, "sk-or-test")


def test_auxiliary_settings_override_the_main_ones(hermes_home: Path) -> None:
    write_home(
        hermes_home,
        """
        model: {base_url: "http://127.0.0.1:9/v1", default: big}
        auxiliary: {base_url: "https://api.openai.com/v1", model: small, timeout: 30}
        """,
        "OPENAI_API_KEY=sk-openai\nMY_KEY=sk-mine\n",
    )
    config = load_config(hermes_home)
    main = model_settings(config)
    assert main.api_key == "no-key" and main.is_local  # local servers need no key
    aux = auxiliary_settings(config)
    assert (aux.base_url, aux.model, aux.api_key, aux.request_timeout) == (
        "https://api.openai.com/v1",
        "small",
        "sk-openai",
        30.0,
    )
    write_home(
        hermes_home, 'model: {base_url: "https://llm.example/v1", api_key_env: MY_KEY}\n', "MY_KEY=sk-mine\n"
    )
    assert model_settings(load_config(hermes_home)).api_key == "sk-mine"


def test_no_endpoint_at_all_is_a_sentence_saying_what_to_set(hermes_home: Path) -> None:
    write_home(hermes_home, "model: {default: x}\n")
    with pytest.raises(SettingsError, match=r"set `model.base_url`.*hws model-server"):
        model_settings(load_config(hermes_home))


# --- start-up cost ----------------------------------------------------------------------------


def test_importing_the_client_does_not_import_openai() -> None:
    code = "import sys, engine.llm; print(sorted(m for m in ('openai', 'httpx2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_usage_chunk_comes_before_the_finish_chunk() -> None:
    with serve("rules:\n  - reply: {text: hi}\n") as server:
        async with make_client(server) as client:
            chunks = await chunks_of(client, [user("x")])
    assert isinstance(chunks[-2], UsageChunk) and isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].message.usage == chunks[-2].usage


# --- server quirks, fed as bytes and chunks ---------------------------------------------------


class Body:
    """A response body that arrives in the given pieces (the reader's only dependency)."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces
        self.closed = False

    async def aiter_bytes(self) -> Any:
        for piece in self.pieces:
            yield piece

    async def aclose(self) -> None:
        self.closed = True


async def read_all(pieces: list[bytes]) -> list[dict[str, Any]]:
    from engine.llm.sse import SSEReader

    reader = SSEReader(Body(pieces))
    chunks: list[dict[str, Any]] = []
    while True:
        chunk = reader.pop()
        if chunk is not None:
            chunks.append(chunk)
        elif reader.ended:
            return chunks
        else:
            await reader.fill()


async def test_sse_events_split_anywhere_with_crlf_comments_and_multiline_data() -> None:
    stream = (
        b": OPENROUTER PROCESSING\r\n\r\n"
        b'data: {"n": 1}\r\n\r\n'
        b'event: message\r\ndata: {"n":\r\ndata: 2}\r\n\r\n'
        b'data: {"n": "\xc3\xa9"}\r\n\r\n'
        b"data: [DONE]\r\n\r\n"
        b'data: {"n": "after done is ignored"}\r\n\r\n'
    )
    for size in (1, 2, 3, 7, len(stream)):
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert await read_all(pieces) == [{"n": 1}, {"n": 2}, {"n": "é"}], size


async def test_an_error_event_in_the_stream_is_raised_with_its_body() -> None:
    from engine.llm.sse import StreamErrorEvent

    with pytest.raises(StreamErrorEvent, match="upstream overloaded") as info:
        await read_all([b'data: {"n": 1}\n\n', b'data: {"error": {"message": "upstream overloaded"}}\n\n'])
    assert info.value.body["error"]["message"] == "upstream overloaded"
    assert await read_all([b'data: {"n": 1}']) == [{"n": 1}]  # a last event without its blank line


def test_assembler_copes_with_missing_indexes_growing_names_and_object_arguments() -> None:
    from engine.llm.chunks import MessageAssembler

    assembler = MessageAssembler()

    def feed(*calls: dict[str, Any], finish: str | None = None) -> None:
        delta = {"tool_calls": list(calls)} if calls else {}
        assembler.feed({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    feed({"id": "a", "function": {"name": "mem", "arguments": '{"x"'}})  # no index at all
    feed({"id": "a", "function": {"name": "memory", "arguments": ": 1}"}})  # the name grows
    feed({"id": "b", "function": {"name": "terminal", "arguments": {"command": "ls"}}})  # an object
    feed({"index": 5, "id": "c", "function": {"name": "todo"}}, finish="tool_calls")
    assembler.feed({"choices": [{"index": 1, "delta": {"content": "a second choice is ignored"}}]})
    message = assembler.message()
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == [
        ("a", "memory", '{"x": 1}'),
        ("b", "terminal", '{"command": "ls"}'),
        ("c", "todo", ""),
    ]
    assert message.tool_calls[2].parsed_arguments() == {} and message.content == ""
    assert message.finish_reason == "tool_calls"


def test_usage_is_read_under_each_providers_names() -> None:
    from engine.llm.chunks import usage_from

    openai_style = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "prompt_tokens_details": {"cached_tokens": 80, "cache_write_tokens": 5},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    anthropic_style = {"prompt_tokens": 100, "completion_tokens": 20, "cache_read_input_tokens": 70}
    deepseek_style = {"prompt_tokens": 100, "completion_tokens": 20, "prompt_cache_hit_tokens": 60}
    first = usage_from(openai_style)
    assert (first.cached_tokens, first.cache_write_tokens, first.reasoning_tokens) == (80, 5, 12)
    assert usage_from(anthropic_style).cached_tokens == 70 and usage_from(deepseek_style).cached_tokens == 60

"""The httpx2-only client: what the SDK path does, without importing `openai` when all goes well."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.llm.chunks import TextChunk
from engine.llm.direct import DirectLLMClient
from engine.llm.errors import LLMError
from engine.llm.settings import ModelSettings
from tests.support.agent_support import serve

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_streamed_call_and_the_endpoint_window() -> None:
    server = serve(
        """
        context_length: 64000
        rules:
          - reply: {text: "Hello there.", chunk_size: 4, usage: {prompt_tokens: 10, completion_tokens: 3}}
        """
    )
    client = DirectLLMClient(ModelSettings(base_url=server.base_url))
    try:
        async with client.stream([{"role": "user", "content": "hi"}]) as call:
            chunks = [chunk async for chunk in call]
        window = await client.context_length()
    finally:
        await client.aclose()
        server.stop()
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "Hello there."
    assert call.message.usage is not None and call.message.usage.prompt_tokens == 10
    assert call.model == "scripted", "with no model configured, the endpoint's first model is used"
    assert (window.tokens, window.source) == (64000, "endpoint")
    request = server.chat_requests[0]
    assert request.body["stream"] is True and request.body["stream_options"] == {"include_usage": True}
    assert request.authorized


async def test_http_errors_are_classified_like_the_sdk_path() -> None:
    server = serve('rules:\n  - fault: {kind: http, status: 401, message: "invalid key"}\n')
    client = DirectLLMClient(ModelSettings(base_url=server.base_url, model="m", retry_base_delay=0.01))
    try:
        with pytest.raises(LLMError) as caught:
            await client.complete([{"role": "user", "content": "hi"}])
    finally:
        await client.aclose()
        server.stop()
    assert caught.value.kind == "auth" and caught.value.status == 401
    assert "invalid key" in str(caught.value) and "model.api_key" in str(caught.value)
    assert len(server.chat_requests) == 1, "an auth failure is not retried"


async def test_no_server_is_a_connection_error_after_the_retries() -> None:
    settings = ModelSettings(
        base_url=f"http://127.0.0.1:{free_port()}/v1", model="m", max_retries=2, retry_base_delay=0.01
    )
    client = DirectLLMClient(settings)
    try:
        with pytest.raises(LLMError) as caught:
            await client.complete([{"role": "user", "content": "hi"}])
    finally:
        await client.aclose()
    assert caught.value.kind == "connection" and caught.value.attempts == 3
    assert "check that the endpoint is running" in str(caught.value)


def test_a_successful_call_never_imports_openai() -> None:
    server = serve('rules:\n  - reply: {text: "ok"}\n')
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from engine.llm.settings import ModelSettings
        from engine.llm.direct import DirectLLMClient

        async def main():
            client = DirectLLMClient(ModelSettings(base_url="{server.base_url}", model="scripted"))
            reply = await client.complete([{{"role": "user", "content": "hi"}}])
            await client.aclose()
            print(reply.content, "openai" in sys.modules)

        asyncio.run(main())
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "False"]

"""The provider client against the scripted server: round-trip per streamed call, and import cost."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import Figure, Options, median

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = """
model: bench
rules:
  - when: {tools: [memory]}
    reply:
      text: "Saving both."
      fragment_size: 8
      tool_calls:
        - {name: memory, arguments: {action: add, target: user, content: "prefers short answers"}}
        - {name: memory, arguments: {action: add, target: memory, content: "project uses Python 3.11"}}
  - reply:
      text: "A plain answer of about two hundred characters, streamed in small pieces the way a real model
        streams its tokens, so that the client's per-chunk work shows up in the figure rather than hiding."
      chunk_size: 8
"""
PER_EVENT = SCENARIO.replace("model: bench\n", "model: bench\ndefaults: {http_chunk_per_event: true}\n")
TOOLS = [
    {"type": "function", "function": {"name": "memory", "parameters": {"type": "object", "properties": {}}}}
]
MESSAGES = [{"role": "system", "content": "You are terse. " * 50}, {"role": "user", "content": "Say hello."}]


async def _round_trips(
    base_url: str, runs: int, tools: list[dict[str, Any]] | None
) -> dict[str, list[float]]:
    """Per-call wall and CPU milliseconds through `LLMClient`, and through bare `AsyncOpenAI`."""
    import openai

    from engine.llm.client import LLMClient
    from engine.llm.settings import ModelSettings

    samples: dict[str, list[float]] = {"ours": [], "ours_cpu": [], "bare": [], "bare_cpu": []}
    async with LLMClient(ModelSettings(base_url=base_url, model="bench")) as client:
        api = openai.AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0)
        for _ in range(5):  # warm up both connections
            await client.complete(MESSAGES, tools=tools)
            await _bare_call(api, tools)
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            message = await client.complete(MESSAGES, tools=tools)
            samples["ours"].append((time.perf_counter() - wall) * 1000)
            samples["ours_cpu"].append((time.process_time() - cpu) * 1000)
            assert message.complete
            wall, cpu = time.perf_counter(), time.process_time()
            await _bare_call(api, tools)
            samples["bare"].append((time.perf_counter() - wall) * 1000)
            samples["bare_cpu"].append((time.process_time() - cpu) * 1000)
        await api.close()
    return samples


@contextlib.contextmanager
def _server_process(scenario: str) -> Iterator[str]:
    """`hws model-server` in its own process, as in real use (in-process, it competes for the GIL)."""
    with tempfile.TemporaryDirectory(prefix="hws-bench-") as folder:
        path = Path(folder) / "bench.yaml"
        path.write_text(scenario, encoding="utf-8")
        process = subprocess.Popen(
            [sys.executable, "-m", "tui.main", "model-server", str(path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            yield process.stdout.readline().rsplit(" at ", 1)[1].strip()
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


async def _bare_call(api: Any, tools: list[dict[str, Any]] | None) -> None:
    extra = {"tools": tools} if tools else {}
    stream = await api.chat.completions.create(
        model="bench", messages=MESSAGES, stream=True, stream_options={"include_usage": True}, **extra
    )
    async for _chunk in stream:
        pass


def _process_ms(code: str, runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def run(options: Options) -> list[Figure]:
    from engine.model_server.server import ScriptedModelServer

    runs = 30 if options.quick else 100
    figures: list[Figure] = []
    with _server_process(SCENARIO) as base_url:
        for label, tools, what in (
            ("streamed text call", None, "26 text deltas + usage"),
            ("streamed call with 2 parallel tool calls", TOOLS, "arguments in 8-char fragments"),
        ):
            got = asyncio.run(_round_trips(base_url, runs, tools))
            ours = median(got["ours"])
            p90 = statistics.quantiles(got["ours"], n=10)[-1]
            figures.append(
                Figure(
                    f"{label}, client+server round trip",
                    ours,
                    "ms",
                    target="< 5 ms",
                    baseline=f"bare AsyncOpenAI {median(got['bare']):.2f} ms",
                    note=f"median of {runs}; {what}; p90 {p90:.2f} ms",
                    met=ours < 5,
                )
            )
            figures.append(
                Figure(
                    f"{label}, client CPU per call",
                    median(got["ours_cpu"]),
                    "ms",
                    baseline=f"bare AsyncOpenAI {median(got['bare_cpu']):.2f} ms",
                    note="process_time of the client process: the engine's share of the round trip",
                )
            )
    with _server_process(PER_EVENT) as base_url:
        got = asyncio.run(_round_trips(base_url, runs, None))
        figures.append(
            Figure(
                "streamed text call, one HTTP chunk per SSE event",
                median(got["ours"]),
                "ms",
                baseline=f"bare AsyncOpenAI {median(got['bare']):.2f} ms",
                note="framed as uvicorn-based servers frame it: the client's per-event transport cost shows",
            )
        )
    with ScriptedModelServer.from_yaml(SCENARIO) as server:
        got = asyncio.run(_round_trips(server.base_url, runs, None))
        figures.append(
            Figure(
                "streamed text call, server in the same process",
                median(got["ours"]),
                "ms",
                baseline=f"bare AsyncOpenAI {median(got['bare']):.2f} ms",
                note="how tests run it: server thread and client share the GIL",
            )
        )
    process_runs = 3 if options.quick else 7
    empty = median(_process_ms("pass", process_runs))
    check = "import sys, engine.llm; assert 'openai' not in sys.modules"
    llm = median(_process_ms(check, process_runs))
    with_openai = median(_process_ms("import openai", process_runs))
    figures.append(
        Figure(
            "python -c 'import engine.llm' (whole process)",
            llm,
            "ms",
            target="openai not imported",
            baseline=f"python alone {empty:.0f} ms; import openai {with_openai:.0f} ms",
            note=f"median of {process_runs}; the assert inside fails the run if openai is imported",
            met=True,
        )
    )
    figures.append(
        Figure(
            "import engine.llm, over bare python",
            llm - empty,
            "ms",
            baseline=f"openai alone adds {with_openai - empty:.0f} ms",
            note="what `hws` start-up pays for the client module",
        )
    )
    return figures

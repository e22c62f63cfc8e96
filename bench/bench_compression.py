"""Compression figures (issue 6): the compressor's own time on a 200,000-token history, model excluded.

The history is synthetic but shaped like real work: each turn a request, one to three tool calls
(terminal, read_file, search_files) with outputs of a few hundred to a few thousand tokens, and an
answer. The models are the scripted server on 127.0.0.1; the time they take (HTTP included) is
measured around each call and subtracted, so what remains is counting, planning, the pre-pass,
rendering and redacting the summariser's input, building the summary message and splitting the
session in a real state.db.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from typing import Any

from bench.common import Figure, Options, temp_home
from engine.compression.boundaries import plan_boundaries
from engine.compression.compressor import Compressor
from engine.compression.fallback import fallback_summary
from engine.compression.messages import message_tokens, total_tokens
from engine.compression.middle_text import TranscriptLimits, render_transcript
from engine.compression.prepass import PrepassLimits, prepass
from engine.config import load_config
from engine.home import Home
from engine.llm.client import LLMClient
from engine.llm.settings import ModelSettings
from engine.memory.store import Memory
from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore
from engine.tools.context import ToolContext
from engine.tools.knowledge import agent_registry

HISTORY_TOKENS = 200_000
CONTEXT_LENGTH = 256_000  # Hermes' fallback window; 200K tokens is well past its 50% threshold
TARGET_OWN_MS = 1000.0
SCENARIO = """
model: scripted
context_length: 256000
rules:
  - when: {after_tool: true, last_tool: memory}
    reply: {text: "Saved."}
  - when: {kind: flush}
    reply:
      tool_calls: [{name: memory, arguments: {action: add, target: user, content: "Prefers short answers."}}]
  - when: {kind: summary}
    reply: {text: "## Goal\\nKeep the services healthy.\\n## Completed Actions\\n1. Checked the logs."}
  - reply: {text: "ok"}
"""
WORDS = [
    "deploy",
    "service",
    "config",
    "cache",
    "index",
    "worker",
    "queue",
    "retry",
    "timeout",
    "schema",
    "migration",
    "table",
    "column",
    "request",
    "response",
    "header",
    "token",
    "budget",
    "layer",
    "prompt",
    "module",
    "import",
    "function",
    "class",
    "method",
    "test",
    "fixture",
    "folder",
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)) + "."


def make_history(target_tokens: int, seed: int = 6) -> list[dict[str, Any]]:
    """Turns of request, tool calls with outputs, and answer, until `target_tokens` is passed."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = []
    turn = 0
    while True:
        turn += 1
        messages.append({"role": "user", "content": f"Turn {turn}: " + _sentence(rng, rng.randint(15, 60))})
        for n in range(rng.randint(1, 3)):
            cid = f"call_{turn}_{n}"
            kind = rng.choice(("terminal", "read_file", "search_files"))
            if kind == "terminal":
                args = {"command": f"grep -rn {rng.choice(WORDS)} src/ | head -{rng.randint(20, 200)}"}
                body = "[exit 0; 0.3s]\n" + "\n".join(
                    f"src/{rng.choice(WORDS)}.py:{i}: {_sentence(rng, 8)}"
                    for i in range(rng.randint(10, 120))
                )
            elif kind == "read_file":
                args = {"path": f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"}
                body = "\n".join(f"{i}|    {_sentence(rng, 7)}" for i in range(1, rng.randint(20, 250)))
            else:
                args = {"pattern": rng.choice(WORDS), "path": "src"}
                body = "\n".join(f"src/{rng.choice(WORDS)}.py:{i}: {_sentence(rng, 6)}" for i in range(40))
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": kind, "arguments": json.dumps(args)},
                        }
                    ],
                }
            )
            messages.append({"role": "tool", "tool_call_id": cid, "content": body})
        messages.append({"role": "assistant", "content": _sentence(rng, rng.randint(20, 120))})
        if turn % 20 == 0 and total_tokens(messages) >= target_tokens:
            return messages


async def _persist(store: SessionStore, history: list[dict[str, Any]]) -> str:
    session = await store.create_session(source="cli", model="scripted")
    for message in history:
        await store.append_message(
            session.id,
            message["role"],
            message.get("content"),
            tool_calls=message.get("tool_calls"),
            tool_call_id=message.get("tool_call_id"),
        )
    return session.id


async def _measure(history: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    home = Home.resolve().ensure()
    config = load_config(home.root)
    with ScriptedModelServer.from_yaml(SCENARIO) as server:
        client = LLMClient(ModelSettings(base_url=server.base_url, model="scripted", max_retries=0))
        store = await SessionStore.open(home.state_db)
        try:
            sessions = [await _persist(store, history) for _ in range(runs + 1)]
            ctx = ToolContext(
                home=home, config=config, cwd=home.root, resources={"memory": Memory(home, config)}
            )
            compressor = Compressor(
                home,
                config,
                main_client=client,
                aux_client=client,
                store=store,
                registry=agent_registry(),
                emit=lambda event: None,
            )
            outcomes = []
            for session_id in sessions:
                outcomes.append(
                    await compressor.compress(
                        session_id=session_id,
                        messages=list(history),
                        system_prompt_tokens=3000,
                        tool_schema_tokens=2500,
                        context_length=CONTEXT_LENGTH,
                        reason="threshold",
                        ctx=ctx,
                    )
                )
                compressor.recent_savings.clear()
        finally:
            await store.close()
            await client.aclose()
    measured = outcomes[1:]  # the first run loads the tokenizer and opens the HTTP connection
    return {
        "own_ms": [o.timings["own_s"] * 1000 for o in measured],
        "model_ms": [o.timings["model_s"] * 1000 for o in measured],
        "before": measured[-1].tokens_before,
        "after": measured[-1].tokens_after,
        "messages": (len(history), len(measured[-1].messages)),
        "flushed": measured[-1].flushed,
    }


def _model_free_ms(history: list[dict[str, Any]], runs: int) -> tuple[float, float]:
    """Count, plan, pre-pass and render the input, without a store or a model; and the fallback summary."""
    config = load_config(Home.resolve().root)
    section = config.compression
    limits, transcript = PrepassLimits.from_config(section), TranscriptLimits.from_config(section)
    steps, fallback = [], []
    for _ in range(runs):
        started = time.perf_counter()
        counts = message_tokens(history)
        plan = plan_boundaries(
            history, counts, protect_first_n=3, protect_last_n=4, tail_budget=int(CONTEXT_LENGTH * 0.5 * 0.2)
        )
        shrunk, _ = prepass(history, plan.head_end, plan.tail_start, limits)
        middle = plan.middle(shrunk)
        render_transcript(middle, transcript)
        steps.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        fallback_summary(middle, None, max_chars=8000, turn_chars=700)
        fallback.append((time.perf_counter() - started) * 1000)
    return statistics.median(steps), statistics.median(fallback)


def run(options: Options) -> list[Figure]:
    runs = 3 if options.quick else 7
    history = make_history(HISTORY_TOKENS)
    with temp_home():
        result = asyncio.run(_measure(history, runs))
        steps_ms, fallback_ms = _model_free_ms(history, runs)
    own = statistics.median(result["own_ms"])
    model = statistics.median(result["model_ms"])
    before, after = result["before"], result["after"]
    count, kept = result["messages"]
    return [
        Figure(
            "compress 200K-token history: compressor's own time (model excluded), median",
            own,
            "ms",
            target=f"< {TARGET_OWN_MS:,.0f} ms",
            baseline=f"model calls (scripted, HTTP) {model:,.0f} ms",
            note=f"{count:,} messages -> {kept}; flush + summary + split in state.db",
            met=own < TARGET_OWN_MS,
        ),
        Figure(
            "compress 200K-token history: tokens after (before)",
            after,
            "tokens",
            baseline=f"{before:,} before",
            note=f"saved {1 - after / before:.1%}",
        ),
        Figure(
            "model-free steps on 200K tokens (count, plan, pre-pass, input), median",
            steps_ms,
            "ms",
            note="no store, no model",
        ),
        Figure("deterministic fallback summary of the middle, median", fallback_ms, "ms"),
    ]


if __name__ == "__main__":
    for figure in run(Options(quick=True)):
        print(f"{figure.name}: {figure.value:,.1f} {figure.unit}  {figure.baseline}  {figure.note}")

"""The agent against the scripted server in its own process: engine time per turn, prefix stability,
`hws run` as a whole process, and the fixed tokens every call carries — beside Hermes' when installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from bench.common import Figure, Options, median

ROOT = Path(__file__).resolve().parent.parent
HERMES = Path("/tmp/hermes-venv/bin/hermes")
ANSWER = (
    "A plain answer of about two hundred characters, streamed in small pieces the way a real model "
    "streams its tokens, so the engine's per-delta work is part of the figure and not hidden by it."
)
SCENARIO = f"""
model: scripted
context_length: 128000
kinds:
  review: {{user: "^\\\\[Background review\\\\]"}}
rules:
  - when: {{kind: review}}
    reply: {{text: "Nothing to save."}}
  - when: {{kind: subagent, iteration: 1}}
    reply: {{tool_calls: [{{name: todo, arguments: {{action: list}}}}]}}
  - when: {{user: "(?i)^delegate", iteration: 1}}
    reply: {{tool_calls: [{{name: delegate_task, arguments: {{goal: "use a tool"}}}}]}}
  - when: {{user: "(?i)^remember (.+)", iteration: 1}}
    reply:
      tool_calls: [{{name: memory, arguments: {{action: add, target: memory, content: "{{{{match.1}}}}"}}}}]
  - when: {{user: "(?i)^use a tool", iteration: 1}}
    reply: {{tool_calls: [{{name: todo, arguments: {{action: list}}}}]}}
  - when: {{after_tool: true}}
    reply: {{text: "Done."}}
  - reply: {{text: "{ANSWER}", chunk_size: 8}}
"""


@contextlib.contextmanager
def _server(scenario: str) -> Iterator[tuple[str, Path]]:
    """`hws model-server` in its own process with a request log: its CPU is not the engine's."""
    with tempfile.TemporaryDirectory(prefix="hws-bench-server-") as folder:
        path = Path(folder) / "scenario.yaml"
        log = Path(folder) / "requests.jsonl"
        path.write_text(scenario, encoding="utf-8")
        process = subprocess.Popen(
            [sys.executable, "-m", "tui.main", "model-server", str(path), "--log", str(log)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert process.stdout is not None
            yield process.stdout.readline().rsplit(" at ", 1)[1].strip(), log
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def _home(**config: Any) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="hws-bench-home-") as folder:
        root = Path(folder) / "home"
        root.mkdir()
        (Path(folder) / "work").mkdir()
        if config:
            (root / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        yield root


def _chat_requests(log: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if str(r.get("path", "")).endswith("/chat/completions")]


def _system_prompt(request: dict[str, Any]) -> str:
    messages = request["body"].get("messages") or []
    first = messages[0] if messages else {}
    content = first.get("content") if first.get("role") in ("system", "developer") else ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


async def _agent_turns(base_url: str, home_root: Path, texts: list[str]) -> tuple[list[float], list[float]]:
    """Wall and process-CPU milliseconds of each turn (the server runs elsewhere, so CPU is ours)."""
    from engine.agent.turns import Agent
    from engine.config import load_config
    from engine.home import Home
    from engine.llm.direct import DirectLLMClient
    from engine.llm.settings import ModelSettings

    home = Home.resolve(home_root).ensure()
    client = DirectLLMClient(ModelSettings(base_url=base_url, model="scripted"))
    background: list[Any] = []
    agent = Agent(
        home,
        load_config(home.root),
        cwd=home_root.parent / "work",
        client=client,
        on_background=background.append,
    )
    walls: list[float] = []
    cpus: list[float] = []
    try:
        for text in texts:
            wall, cpu = time.perf_counter(), time.process_time()
            async for _event in agent.run_turn(text):
                pass
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
            await agent.wait_background(60)
    finally:
        await agent.close()
    return walls, cpus


def _engine_figures(runs: int) -> list[Figure]:
    figures = []
    with _server(SCENARIO) as (base_url, _log), _home(memory={"nudge_interval": 0}) as home_root:
        texts = ["Say hello."] * 3 + [f"Say hello, turn {i}." for i in range(runs)]
        walls, cpus = asyncio.run(_agent_turns(base_url, home_root, texts))
        walls, cpus = walls[3:], cpus[3:]
        cpu = median(cpus)
        figures.append(
            Figure(
                "engine CPU per plain turn (everything but the model)",
                cpu,
                "ms",
                target="< 5 ms",
                baseline=f"wall per turn {median(walls):.2f} ms incl. the server",
                note=f"median of {runs} turns, history growing to {2 * runs} messages; 26 text deltas; "
                f"p90 {statistics.quantiles(cpus, n=10)[-1]:.2f} ms; server in its own process",
                met=cpu < 5,
            )
        )
    with _server(SCENARIO) as (base_url, _log), _home(memory={"nudge_interval": 0}) as home_root:
        texts = ["use a tool"] * (3 + runs)
        walls, cpus = asyncio.run(_agent_turns(base_url, home_root, texts))
        walls, cpus = walls[3:], cpus[3:]
        figures.append(
            Figure(
                "engine CPU per tool turn (2 model calls + todo)",
                median(cpus),
                "ms",
                baseline=f"wall per turn {median(walls):.2f} ms incl. the server",
                note=f"median of {runs}; each turn commits 4 messages and 2 usage records",
            )
        )
    return figures


def _delegation_figures(runs: int) -> list[Figure]:
    """The same work (a todo call and an answer) done inline and handed to a subagent, turns alternating
    in one session so both see the same history: what delegating adds."""
    with _server(SCENARIO) as (base_url, _log), _home(memory={"nudge_interval": 0}) as home_root:
        texts = ["use a tool", "delegate it"] * (2 + runs)
        walls, cpus = asyncio.run(_agent_turns(base_url, home_root, texts))
    inline_wall, delegated_wall = median(walls[4::2]), median(walls[5::2])
    inline_cpu, delegated_cpu = median(cpus[4::2]), median(cpus[5::2])
    said = f"median of {runs} each, alternating in one session; the child: its own session, 2 model calls"
    return [
        Figure(
            "delegated task overhead (wall, vs inline)",
            delegated_wall - inline_wall,
            "ms",
            baseline=f"inline {inline_wall:.2f} ms, delegated {delegated_wall:.2f} ms (same run)",
            note=f"{said}; delegated = 4 model calls, inline = 2",
        ),
        Figure(
            "delegated task overhead (engine CPU, vs inline)",
            delegated_cpu - inline_cpu,
            "ms",
            baseline=f"inline {inline_cpu:.2f} ms, delegated {delegated_cpu:.2f} ms (same run)",
            note=said,
        ),
    ]


def _stability_figure(turns: int) -> Figure:
    with _server(SCENARIO) as (base_url, log), _home() as home_root:
        texts = []
        for i in range(1, turns + 1):
            if i % 3 == 0:
                texts.append(f"remember fact number {i}")
            elif i % 5 == 0:
                texts.append("use a tool")
            else:
                texts.append(f"hello {i}")
        asyncio.run(_agent_turns(base_url, home_root, texts))
        requests = _chat_requests(log)
        memory = (home_root / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    from engine.compression.flush import END_SYSTEM

    # The conversation's calls: the session-end flush (when the agent closes) is a request of its own,
    # with its own short system prompt, made after the last turn; it is counted apart.
    every = [_system_prompt(r) for r in requests]
    prompts = [p for p in every if not p.startswith(END_SYSTEM)]
    same = sum(1 for a, b in itertools.pairwise(prompts) if a == b)
    ratio = same / max(len(prompts) - 1, 1)
    reviews = sum(1 for r in requests if "[Background review]" in json.dumps(r["body"]["messages"][-1]))
    leaked = any("fact number" in p for p in prompts)
    return Figure(
        "prefix stability within a session",
        ratio,
        "",
        target="1.0",
        note=f"{len(prompts)} calls over {turns} turns ({reviews} background reviews, "
        f"{len(every) - len(prompts)} session-end flush apart), "
        f"{memory.count('fact number')} memory writes on disk, in the prompt: {'yes' if leaked else 'no'}",
        met=ratio == 1.0 and not leaked,
    )


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return elapsed


def _fixed_tokens(request: dict[str, Any]) -> tuple[int, int, int, int]:
    """(tokens, system prompt chars, schema chars, tools) every call of this request's kind carries."""
    from engine.text.tokens import count

    system = _system_prompt(request)
    tools = request["body"].get("tools") or []
    schema = json.dumps(tools, ensure_ascii=False) if tools else ""
    return count(system) + count(schema), len(system), len(schema), len(tools)


def _process_figures(runs: int, hermes_runs: int) -> list[Figure]:
    figures = []
    with (
        _server(SCENARIO) as (base_url, log),
        _home(model={"base_url": base_url, "default": "scripted"}) as root,
    ):
        env = {**os.environ, "HERMES_HOME": str(root), "PYTHONPATH": str(ROOT)}
        work = root.parent / "work"
        empty = median([_timed([sys.executable, "-c", "pass"], env, work) for _ in range(3)])
        ours = [
            _timed([sys.executable, "-m", "tui.main", "run", "Say hello."], env, work) for _ in range(runs)
        ]
        ours_request = _chat_requests(log)[-1]
    hermes_ms: float | None = None
    hermes_request: dict[str, Any] | None = None
    if HERMES.exists() and hermes_runs:
        with _server(SCENARIO) as (base_url, log), _home() as root:
            hermes_config = {"model": {"provider": "custom", "base_url": base_url, "default": "scripted"}}
            (root / "config.yaml").write_text(yaml.safe_dump(hermes_config), encoding="utf-8")
            env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
            env["HERMES_HOME"] = str(root)
            work = root.parent / "work"
            _timed([str(HERMES), "-z", "Say hello."], env, work)  # first run seeds the home
            hermes_ms = median(
                [_timed([str(HERMES), "-z", "Say hello."], env, work) for _ in range(hermes_runs)]
            )
            hermes_request = _chat_requests(log)[-1]
    whole = median(ours)
    base = f"python alone {empty:.0f} ms"
    if hermes_ms is not None:
        base = f"hermes -z {hermes_ms:,.0f} ms; " + base
    figures.append(
        Figure(
            'hws run "Say hello." (whole process)',
            whole,
            "ms",
            target="< 1000 ms",
            baseline=base,
            note=f"median of {runs} (min {min(ours):.0f} ms); the server in its own process, as configured",
            met=whole < 1000,
        )
    )
    tokens, system_chars, schema_chars, tools = _fixed_tokens(ours_request)
    hermes_note = ""
    if hermes_request is not None:
        h_tokens, h_system, h_schema, h_tools = _fixed_tokens(hermes_request)
        hermes_note = (
            f"Hermes {h_tokens:,} ({h_system:,}-char prompt + {h_schema:,} chars for {h_tools} tools)"
        )
    figures.append(
        Figure(
            "system prompt + tool schemas per call (empty memory, no skills)",
            tokens,
            "tokens",
            target="< 5,000",
            baseline=hermes_note,
            note=f"ours: {system_chars:,}-char prompt + {schema_chars:,} chars for {tools} tools, as sent",
            met=tokens < 5000,
        )
    )
    return figures


def run(options: Options) -> list[Figure]:
    runs = 30 if options.quick else 100
    figures = _engine_figures(runs)
    figures.extend(_delegation_figures(10 if options.quick else 30))
    figures.append(_stability_figure(15 if options.quick else 40))
    figures.extend(_process_figures(3 if options.quick else 7, 1 if options.quick else 3))
    if shutil.which("hermes") is None and not HERMES.exists():
        figures.append(Figure("Hermes not installed", 0, "", note=f"{HERMES} is missing; no peer figures"))
    return figures

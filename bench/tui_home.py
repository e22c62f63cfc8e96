"""A lived-in home for the workstation benchmarks: 200 skills, 10,000 past sessions, one long conversation.

Everything is real: skills are SKILL.md folders in the Hermes layout (`bench/skill_corpus.py`), the
sessions are rows in a state.db created by the engine's own store (its schema and FTS triggers),
written in one transaction so the home builds in seconds. The long conversation has 10,000 messages
in turns of four (a question, a tool call, its result, a Markdown reply), so paging through it lays
out replies and tool blocks as a real one would.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from bench.sessions_data import make_corpus, messages
from bench.skill_corpus import write_library

SKILLS = 200
SESSIONS = 10_000
PER_SESSION = 4
LONG_MESSAGES = 10_000
CONFIG = "model:\n  default: bench-model\n  base_url: http://127.0.0.1:9/v1\n"


@dataclass(frozen=True)
class BenchHome:
    root: Path
    long_session: str  # the 10,000-message conversation
    rows: int  # messages written in all
    seconds: float  # how long building took


def session_id(started: float, serial: int) -> str:
    return f"{time.strftime('%Y%m%d_%H%M%S', time.gmtime(started))}_{serial:06x}"


async def _create_schema(path: Path) -> None:
    from engine.sessions.store import SessionStore

    store = await SessionStore.open(path)
    await store.close()


def reply(rng: random.Random, text: str, turn: int) -> str:
    """A Markdown reply: a heading now and then, a paragraph, often a list, sometimes code."""
    parts = []
    if turn % 7 == 0:
        parts.append(f"## Step {turn}\n")
    parts.append(text)
    if rng.random() < 0.5:
        parts.append("\n".join(f"- {word} checked" for word in text.split()[:3]))
    if rng.random() < 0.25:
        parts.append(f"```python\nresult = run_step({turn})\nprint(result)\n```")
    return "\n\n".join(parts)


def build_home(root: Path, seed: int = 5) -> BenchHome:
    """Write the home at `root` (which must not hold a state.db yet)."""
    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(CONFIG, encoding="utf-8")
    write_library(root / "skills", SKILLS)
    db = root / "state.db"
    asyncio.run(_create_schema(db))
    rng = random.Random(seed)
    texts = messages(make_corpus(), SESSIONS * PER_SESSION + LONG_MESSAGES, seed=seed)
    first = time.time() - (SESSIONS + 10) * 3600
    conn = sqlite3.connect(db)
    rows = 0
    try:
        with conn:
            sessions, lines = [], []
            for s in range(SESSIONS):
                began = first + s * 3600
                sid = session_id(began, s)
                title = f"Session {s}" if s % 3 else None  # untitled ones show their first line
                sessions.append((sid, "cli", began, began + 1800, "user_exit", title, PER_SESSION))
                for m in range(PER_SESSION):
                    role = "user" if m % 2 == 0 else "assistant"
                    lines.append((sid, role, next(texts), None, None, None, began + m * 30))
            long_began = first + SESSIONS * 3600
            long_id = session_id(long_began, SESSIONS)
            sessions.append((long_id, "cli", long_began, None, None, "The long one", LONG_MESSAGES))
            for m in range(LONG_MESSAGES):
                turn, step = divmod(m, 4)
                at = long_began + m * 5
                text = next(texts)
                call_id = f"call_{turn}"
                if step == 0:
                    lines.append((long_id, "user", text, None, None, None, at))
                elif step == 1:
                    arguments = json.dumps({"command": f"make step{turn}"})
                    call = {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "terminal", "arguments": arguments},
                    }
                    lines.append((long_id, "assistant", "", json.dumps([call]), None, None, at))
                elif step == 2:
                    lines.append((long_id, "tool", f"exit 0\n{text[:120]}", None, call_id, "terminal", at))
                else:
                    lines.append((long_id, "assistant", reply(rng, text, turn), None, None, None, at))
            conn.executemany(
                "INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, message_count) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                sessions,
            )
            conn.executemany(
                "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, "
                "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
                lines,
            )
            rows = len(lines)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return BenchHome(root, long_id, rows, time.perf_counter() - started)

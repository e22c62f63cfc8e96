"""`hws compress` as a real subprocess against the scripted server and a real state.db."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.model_server.server import ScriptedModelServer
from engine.sessions.store import SessionStore
from tests.cli.test_run_cmd import hws
from tests.support.agent_support import serve, write_config
from tests.support.compression_support import conversation

SCENARIO = """
rules:
  - when: {after_tool: true, last_tool: memory}
    reply: {text: "Saved."}
  - when: {kind: flush}
    reply:
      tool_calls:
        - {name: memory, arguments: {action: add, target: memory, content: "Folders live under /srv."}}
  - when: {kind: summary}
    reply: {text: "## Goal\\nAudit /srv.\\n## Remaining Work\\nFolder 6 onwards."}
  - reply: {text: "ok"}
"""


@pytest.fixture
def server(hermes_home: Path) -> ScriptedModelServer:
    srv = serve(SCENARIO)
    write_config(hermes_home, model={"base_url": srv.base_url, "default": "scripted", "context_length": 8000})
    yield srv
    srv.stop()


def stored_conversation(home: Path, messages: list[dict[str, Any]]) -> str:
    async def fill() -> str:
        store = await SessionStore.open(home / "state.db")
        try:
            session = await store.create_session(source="cli", model="scripted")
            for m in messages:
                await store.append_message(
                    session.id,
                    m["role"],
                    m.get("content"),
                    tool_calls=m.get("tool_calls"),
                    tool_call_id=m.get("tool_call_id"),
                )
            await store.end_session(session.id, "cli_close")
            return session.id
        finally:
            await store.close()

    return asyncio.run(fill())


def chain_of(home: Path, session_id: str) -> tuple[list[str], list[Any]]:
    async def read() -> tuple[list[str], list[Any]]:
        store = await SessionStore.open(home / "state.db")
        try:
            chain = await store.tree.lineage(session_id)
            return chain, [await store.get_session(s) for s in chain]
        finally:
            await store.close()

    return asyncio.run(read())


def test_compress_continues_the_session_in_a_child_and_prints_each_phase(
    server: ScriptedModelServer, hermes_home: Path, tmp_path: Path
) -> None:
    session_id = stored_conversation(hermes_home, conversation(8))
    done = hws("compress", session_id[:15], "--focus", "folder 3", home=hermes_home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    chain, sessions = chain_of(hermes_home, session_id)
    assert len(chain) == 2 and sessions[0].end_reason == "compression"
    assert done.stdout.strip().endswith(f"continuing in session {chain[1]}.")
    lines = done.stderr.splitlines()
    assert any(line.startswith("┊ flush      1 write(s)") for line in lines), lines
    assert any('memory add: "Folders live under /srv."' in line for line in lines), lines
    assert any(line.startswith("┊ summarize  ") and "(auxiliary)" in line for line in lines), lines
    assert any(line == f"┊ split      {session_id} -> {chain[1]}" for line in lines), lines
    assert "Folders live under /srv." in (hermes_home / "memories" / "MEMORY.md").read_text()
    summary_request = next(r for r in server.chat_requests if not r.tool_names)
    assert "FOCUS TOPIC: folder 3" in summary_request.messages[-1]["content"]


def test_compress_json_prints_the_events(
    server: ScriptedModelServer, hermes_home: Path, tmp_path: Path
) -> None:
    session_id = stored_conversation(hermes_home, conversation(8))
    done = hws("compress", session_id, "--json", home=hermes_home, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["session_resumed", "compression_started"], kinds  # opened, then compressed
    assert "compression_finished" in kinds and "session_changed" in kinds
    finished = next(e for e in events if e["type"] == "compression_finished")
    assert finished["old_session_id"] == session_id and finished["summary"].startswith("## Goal")
    assert finished["tokens_after"] < finished["tokens_before"]


def test_compress_refuses_what_it_cannot_do(
    server: ScriptedModelServer, hermes_home: Path, tmp_path: Path
) -> None:
    short = stored_conversation(hermes_home, conversation(1))
    done = hws("compress", short, home=hermes_home, cwd=tmp_path)
    assert done.returncode == 1 and "Nothing to compress" in done.stdout
    missing = hws("compress", "20990101_000000_abcdef", home=hermes_home, cwd=tmp_path)
    assert missing.returncode == 2 and "hws sessions list" in missing.stderr
    write_config(hermes_home, model={"base_url": server.base_url}, compression={"enabled": False})
    off = hws("compress", short, home=hermes_home, cwd=tmp_path)
    assert off.returncode == 1 and "compression.enabled" in off.stderr

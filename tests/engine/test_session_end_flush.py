"""`memory.flush_min_turns`: a session that ran that many user turns lets the model save memories as it ends.

End to end through `hws run` (one turn, then the session ends) with the scripted model, whose
request log shows whether the flush was asked; and through the agent's own `/new`.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.agent.turns import Agent
from engine.config import load_config
from engine.home import Home
from tests.support.agent_support import serve, write_config
from tests.support.fault_support import assert_clean_exit, hws, write_scenario

SCENARIO = """
name: end-flush
rules:
  - when: {kind: flush, after_tool: false}
    reply:
      tool_calls:
        - {name: memory, arguments: {action: add, target: user, content: "Deploys only on Fridays."}}
  - when: {kind: flush, after_tool: true}
    reply: {text: "saved"}
  - reply: {text: "noted"}
"""


def flush_requests(log: Path) -> list[dict]:
    requests = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    found = []
    for request in requests:
        messages = request["body"].get("messages", [])
        last = messages[-1] if messages else {}
        if last.get("role") == "user" and "This session is ending" in str(last.get("content")):
            found.append(request)  # the flush's first call (the one after its tool result is not counted)
    return found


def run_once(home: Path, tmp_path: Path, min_turns: int) -> tuple[str, Path]:
    write_config(home, memory={"flush_min_turns": min_turns})
    scenario = write_scenario(tmp_path, SCENARIO)
    log = tmp_path / f"requests-{min_turns}.jsonl"
    args = ("run", "--scenario", str(scenario), "--request-log", str(log), "we ship on fridays")
    done = hws(*args, home=home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    return done.stderr, log


def test_a_session_of_enough_turns_flushes_memories_as_it_ends(tmp_path: Path, hermes_home: Path) -> None:
    stderr, log = run_once(hermes_home, tmp_path, 1)
    assert len(flush_requests(log)) == 1
    user_md = (hermes_home / "memories" / "USER.md").read_text(encoding="utf-8")
    assert user_md == "Deploys only on Fridays."
    said = 'Memory flush after 1 turn, before the session ended: user add: "Deploys only on Fridays."'
    assert said in stderr


def test_a_shorter_session_ends_without_a_flush_and_0_turns_it_off(tmp_path: Path, hermes_home: Path) -> None:
    for min_turns in (2, 0):
        stderr, log = run_once(hermes_home, tmp_path, min_turns)
        assert flush_requests(log) == []
        assert "Memory flush" not in stderr
    assert not (hermes_home / "memories" / "USER.md").exists()


async def test_new_session_flushes_the_session_it_ends(hermes_home: Path) -> None:
    server = serve(SCENARIO)
    try:
        write_config(
            hermes_home,
            model={"base_url": server.base_url, "default": "scripted"},
            memory={"flush_min_turns": 2},
        )
        home = Home.resolve(hermes_home).ensure()
        agent = Agent(home, load_config(home.root), exact_tokens=False)
        try:
            for text in ("first", "second"):
                async for _event in agent.run_turn(text):
                    pass
            async for _event in agent.new_session():
                pass
            assert (home.memories / "USER.md").read_text(encoding="utf-8") == "Deploys only on Fridays."
            (home.memories / "USER.md").unlink()
            async for _event in agent.run_turn("third"):  # one turn in the new session: not enough
                pass
        finally:
            await agent.close()
        assert not (home.memories / "USER.md").exists()
    finally:
        server.stop()

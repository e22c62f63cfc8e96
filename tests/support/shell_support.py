"""What the persistent-shell tests share: a scripted model that makes a list of tool calls in order,
run end to end through `hws run --json`, and the results it got back."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import yaml

from tests.support.fault_support import assert_clean_exit, hws, hws_env, write_scenario

Call = tuple[str, dict[str, Any]]


def script(calls: list[Call]) -> str:
    """A scenario whose model makes `calls` one per model call, then says it is done."""
    rules: list[dict[str, Any]] = [
        {
            "when": {"iteration": number},
            "times": 1,
            "reply": {"tool_calls": [{"name": name, "arguments": arguments}]},
        }
        for number, (name, arguments) in enumerate(calls, 1)
    ]
    rules.append({"reply": {"text": "done"}})
    return yaml.safe_dump({"name": "shell", "rules": rules}, sort_keys=False)


def run_calls(
    home: Path, cwd: Path, calls: list[Call], *extra: str, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Run one `hws run` turn whose model makes `calls`; every event it printed, in order."""
    scenario = write_scenario(cwd.parent, script(calls), name=f"scenario-{os.getpid()}.yaml")
    done = hws("run", "--json", "--scenario", str(scenario), *extra, "go", home=home, cwd=cwd, env=env)
    assert_clean_exit(done, (0,))
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def results(events: list[dict[str, Any]]) -> list[str]:
    """What each tool call returned to the model, in call order."""
    return [e["result"] for e in events if e["type"] == "tool_finished"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def config(home: Path, **terminal: Any) -> None:
    """A config.yaml whose terminal section has `terminal`."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(
        yaml.safe_dump({"agent": {"max_turns": 40}, "terminal": terminal}), encoding="utf-8"
    )


__all__ = ["config", "free_port", "hws_env", "results", "run_calls", "script"]

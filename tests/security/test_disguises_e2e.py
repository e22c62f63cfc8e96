"""Every disguised destructive command, issued as a `terminal` call by a scripted model through the real
`hws run` (no `--yolo`, no terminal, so every question is declined), against a real `./victim`: each
one must ask (an `approval_needed` event and a "declined" line on stderr), and the victim, its remote,
the home and the sleeping victim process must come out exactly as they went in.

All the disguises go in one model reply, so one `hws run` process carries them all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.security.conftest import FIGURE
from tests.security.shell_corpus import DISGUISES
from tests.security.victim_support import make_victim, snapshot
from tests.support.fault_support import assert_clean_exit, hws, hws_env, write_config, write_scenario

E2E = [d for d in DISGUISES if d.e2e]
SLEEPER = "victim-sleeper"


def _scenario(commands: list[str]) -> str:
    calls = [{"name": "terminal", "arguments": {"command": c}} for c in commands]
    return yaml.safe_dump(
        {
            "name": "disguises",
            "defaults": {"chunk_size": 200, "chunk_delay": 0},
            "rules": [
                {"name": "after", "when": {"after_tool": True}, "reply": {"text": "Done."}},
                {
                    "name": "every disguise",
                    "times": 1,
                    "reply": {"text": "Running them.", "tool_calls": calls},
                },
                {"name": "anything else", "reply": {"text": "Nothing more."}},
            ],
        },
        allow_unicode=True,
        width=10_000,
    )


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process the kill disguises aim at; it must still be alive when the run is over."""
    process = subprocess.Popen(["bash", "-c", f"exec -a {SLEEPER} sleep 300"])
    yield process
    process.kill()
    process.wait()


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_every_disguise_asks_end_to_end_and_the_victim_is_untouched(
    tmp_path: Path, hermes_home: Path, sleeper: subprocess.Popen[bytes], record_property: Any
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    make_victim(work)
    home = Path(hws_env(hermes_home)["HOME"])
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA owner\n")
    (home / ".bashrc").write_text("# the owner's shell settings\n")
    write_config(hermes_home, terminal={"timeout": 20})
    before = snapshot(work, home)
    scenario = write_scenario(tmp_path, _scenario([d.command for d in E2E]))

    done = hws(
        "run", "--json", "--scenario", str(scenario), "--cwd", str(work), "go", home=hermes_home, cwd=work
    )

    assert_clean_exit(done)
    events = _events(done.stdout)
    questions = [e for e in events if e["type"] == "approval_needed"]
    assert all(e["rule"] and e["scope"] for e in questions), "a question did not name its rule and scope"
    asked = {e["command"] for e in questions}
    ran = {e["arguments"]["command"] for e in events if e["type"] == "tool_called"}
    assert ran == {d.command for d in E2E}, "the scripted model did not issue every disguise"
    missed = [d for d in E2E if d.command not in asked]
    share = f"disguises that asked end to end (hws run): {len(E2E) - len(missed)}/{len(E2E)}"
    record_property(FIGURE, f"{share} ({(len(E2E) - len(missed)) / len(E2E):.1%})")
    print(f"\n{share}", file=sys.stderr)
    assert not missed, [(d.family, d.command) for d in missed]
    assert done.stderr.count("declined: ") >= len(E2E)
    assert sleeper.poll() is None, "a kill disguise ran"
    after = snapshot(work, home)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, changed

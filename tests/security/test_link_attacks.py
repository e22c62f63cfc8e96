"""Links against the file tools, end to end through `hws run` with a scripted model.

A hard link to the home's `.env` inside the project must be neither readable, searchable nor
writable; a folder swapped for a symlink while a write waits (here: while the person is asked, the
window in which another program acts) must not redirect the write.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.security.tty_support import QUESTION, TtyRun
from tests.support.fault_support import assert_clean_exit, hws, stored_messages, write_scenario

KEY = "plain-value-7f3a9c2e"  # not shaped like a key, so only the file tools can keep it from the model


def calls_scenario(calls: list[dict[str, Any]], *later: list[dict[str, Any]]) -> str:
    """A scenario whose model makes these calls together, then each batch of `later` in turn."""
    batches = [calls, *later]
    rules = "".join(
        f"""
      - when: {{iteration: {n}}}
        times: 1
        reply: {{tool_calls: {json.dumps(batch)}}}"""
        for n, batch in enumerate(batches, 1)
    )
    return f"""
    name: links
    rules:{rules}
      - reply: {{text: "finished"}}
    """


def test_a_hard_link_to_env_is_neither_read_searched_nor_written(tmp_path: Path, hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    env = hermes_home / ".env"
    env.write_text(f"SERVICE_LOGIN={KEY}\n")
    project = tmp_path / "project"
    project.mkdir()
    os.link(env, project / "notes.txt")
    calls = [
        {"name": "read_file", "arguments": {"path": "notes.txt"}},
        {"name": "search_files", "arguments": {"pattern": "plain-value"}},
        {"name": "write_file", "arguments": {"path": "notes.txt", "content": "SERVICE_LOGIN=mine\n"}},
        {"name": "patch", "arguments": {"path": "notes.txt", "old_string": "SERVICE", "new_string": "X"}},
    ]
    scenario = write_scenario(tmp_path, calls_scenario(calls))
    done = hws("run", "--json", "--scenario", str(scenario), "go", home=hermes_home, cwd=project)
    assert_clean_exit(done, (0,))
    assert KEY not in done.stdout and KEY not in done.stderr
    results = {
        e["name"]: e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "tool_finished"
    }
    for name in ("read_file", "write_file", "patch"):
        assert not results[name]["ok"] and "hard link" in results[name]["result"], results[name]
    assert results["search_files"]["ok"] and "No matches" in results["search_files"]["result"]
    assert env.read_text() == f"SERVICE_LOGIN={KEY}\n" and os.stat(env).st_nlink == 2


def test_a_folder_swapped_for_a_symlink_while_a_write_waits_is_not_followed(
    tmp_path: Path, hermes_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shared = tmp_path / "shared"  # outside the project: the write asks, and waits for the answer
    shared.mkdir()
    victim = tmp_path / "victim"  # where the swap points: never approved, must stay untouched
    victim.mkdir()
    (victim / "a.md").write_text("original\n")
    calls = [{"name": "write_file", "arguments": {"path": str(shared / "a.md"), "content": "planted\n"}}]
    queued = [
        {"name": "write_file", "arguments": {"path": str(shared / "b.md"), "content": "planted\n"}},
        {"name": "write_file", "arguments": {"path": "docs/c.md", "content": "fine\n"}},
    ]
    scenario = write_scenario(tmp_path, calls_scenario(calls, queued))
    run = TtyRun("--scenario", str(scenario), "write the notes", home=hermes_home, cwd=project)
    run.wait_for(QUESTION + f"write {shared / 'a.md'}")
    shared.rename(tmp_path / "shared.orig")
    shared.symlink_to(victim)  # swapped in after the path was judged, before the write
    run.answer("o")
    run.wait_for(QUESTION + f"write {victim / 'b.md'}")  # the queued write sees the link, and asks anew
    run.answer("d")
    code, _stdout, screen = run.finish()
    assert code == 0, screen[-2000:]
    tool_results = [
        content or "" for _s, role, content in stored_messages(hermes_home / "state.db") if role == "tool"
    ]
    assert any("is a symlink now" in text for text in tool_results), tool_results
    assert (victim / "a.md").read_text() == "original\n" and not (victim / "b.md").exists()
    assert sorted(p.name for p in victim.iterdir()) == ["a.md"]
    assert (project / "docs" / "c.md").read_text() == "fine\n"

"""A guarded setting changed on disk during a session is announced, and does not take effect in it.

End to end through `hws run` at a terminal: while the person is asked about `rm -rf`, config.yaml
is edited behind the session's back (yolo on, the endpoint moved). Before the next model call
`hws run` says which settings changed, and the next `rm -rf` is still asked about.
"""

from __future__ import annotations

from pathlib import Path

from tests.security.tty_support import QUESTION, TtyRun
from tests.support.fault_support import write_scenario

CONFIG = "model:\n  default: scripted\n  base_url: http://127.0.0.1:9/v1\nagent:\n  max_turns: 6\n"
SCENARIO = """
name: notice
rules:
  - when: {iteration: [1, 2]}
    reply: {tool_calls: [{name: terminal, arguments: {command: "rm -rf victim"}}]}
  - reply: {text: "finished"}
"""


def test_a_setting_changed_on_disk_is_announced_and_the_session_keeps_its_own(
    tmp_path: Path, hermes_home: Path
) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    config = hermes_home / "config.yaml"
    config.write_text(CONFIG)
    project = tmp_path / "project"
    (project / "victim").mkdir(parents=True)
    scenario = write_scenario(tmp_path, SCENARIO)
    run = TtyRun("--scenario", str(scenario), "clean up", home=hermes_home, cwd=project)
    run.wait_for(QUESTION + "rm -rf victim")
    edited = CONFIG.replace("max_turns: 6", "max_turns: 6\n  yolo: true").replace("127.0.0.1:9", "evil.test")
    config.write_text(edited)  # the person (or something around the tools) edits it mid-session
    run.answer("d")
    notice = run.wait_for("a new session will use the new ones.")
    assert "Guarded settings changed on disk since this session began" in notice
    assert "agent.yolo, model.base_url were changed" in notice
    run.wait_for(QUESTION + "rm -rf victim")  # yolo flipped on disk does not skip the question
    run.answer("d")
    code, stdout, screen = run.finish()
    assert code == 0 and stdout.strip() == "finished", screen[-2000:]
    assert screen.count("Guarded settings changed") == 1  # said once, not before every call
    assert (project / "victim").is_dir()

"""`hws setup --add-fallback`: a provider to go on with is added to `fallback_providers` (the key in
.env, never in config.yaml), checked with a tiny request, and then takes a turn the main one fails."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.config_edit import append_list_item
from engine.model_server.server import ScriptedModelServer, key_digest
from tests.support.fault_support import assert_clean_exit, files_containing, hws, write_scenario

KEY = "sk-backup-" + "7c3d" * 8
BACKUP = """
model: backup-model
rules:
  - reply: {text: "Answered by the fallback."}
"""
MAIN_503 = """
model: main-model
rules:
  - fault: {kind: server_error, status: 503, message: "overloaded"}
"""
USER_CONFIG = """\
# my notes
model:
  default: main-model   # the usual one
  base_url: http://127.0.0.1:9/v1
agent:
  api_max_retries: 0
review:
  enabled: false
fallback_providers:
  # the first one I trust (not running today: its port refuses)
  - provider: lab
    model: x/y
    base_url: http://127.0.0.1:9/v1
"""


def test_a_fallback_added_by_setup_is_written_checked_and_takes_the_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(USER_CONFIG, encoding="utf-8")
    with ScriptedModelServer.from_yaml(BACKUP) as backup:
        args = ("--provider", "custom", "--model", "backup-model", "--base-url", backup.base_url)
        keys = ("--key-from", "dotenv", "--key-env", "BACKUP_KEY", "--key-stdin")
        done = hws(
            "setup", "--add-fallback", *args, *keys, "--yes", home=home, cwd=tmp_path, stdin=KEY + "\n"
        )
        assert_clean_exit(done, (0,))
        assert f"Added backup-model at {backup.base_url} as fallback provider 2" in done.stdout
        assert "✓ backup-model at" in done.stdout
        assert [c.key_digest for c in backup.chat_requests] == [key_digest(f"Bearer {KEY}")]

        text = (home / "config.yaml").read_text(encoding="utf-8")
        for kept in ("# my notes", "default: main-model   # the usual one", "# the first one I trust ("):
            assert kept in text
        assert yaml.safe_load(text)["fallback_providers"] == [
            {"provider": "lab", "model": "x/y", "base_url": "http://127.0.0.1:9/v1"},
            {
                "provider": "custom",
                "model": "backup-model",
                "base_url": backup.base_url,
                "api_key_env": "BACKUP_KEY",
            },
        ]
        assert files_containing(home, KEY.encode()) == []  # .env aside, no file holds the key
        assert f"BACKUP_KEY={KEY}" in (home / ".env").read_text(encoding="utf-8")

        again = hws("setup", "--add-fallback", *args, "--key-from", "none", "--yes", home=home, cwd=tmp_path)
        assert_clean_exit(again, (2,))
        assert "is a fallback provider already" in again.stderr

        # The entry works: the main model answers 503, the first fallback refuses, the one added answers.
        scenario = write_scenario(tmp_path, MAIN_503)
        ran = hws("run", "--scenario", str(scenario), "hello", home=home, cwd=tmp_path)
        assert_clean_exit(ran, (0,))
        assert ran.stdout.strip() == "Answered by the fallback."
        switches = [line for line in ran.stderr.splitlines() if "going on with" in line]
        assert len(switches) == 2 and "going on with backup-model at" in switches[1], ran.stderr


def test_the_list_is_made_when_missing_or_empty_and_a_flow_list_is_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    entry = {"provider": "ollama", "model": "qwen3:8b", "base_url": "http://localhost:11434/v1"}
    path.write_text("# top\nmodel:\n  default: m\n", encoding="utf-8")
    assert append_list_item(path, "fallback_providers", entry) == "edited"
    assert "# top" in path.read_text(encoding="utf-8")
    path.write_text("fallback_providers: []  # none yet\nmodel:\n  default: m\n", encoding="utf-8")
    assert append_list_item(path, "fallback_providers", entry) == "edited"
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["fallback_providers"] == [entry]
    path.write_text("fallback_providers: [{model: a, base_url: 'http://h/v1'}]\n", encoding="utf-8")
    assert append_list_item(path, "fallback_providers", entry) == "rewritten"
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["fallback_providers"][1] == entry
    missing = tmp_path / "new.yaml"
    assert append_list_item(missing, "fallback_providers", entry, header="# h\n") == "created"

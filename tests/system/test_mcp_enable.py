"""`/mcp`'s enable/disable: `enabled` written into one server's block, the rest of config.yaml kept."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.mcp.config_write import set_enabled

CONFIG = """\
# my settings
agent:
  max_turns: 7  # kept
mcp_servers:
  time:
    command: mcp-server-time  # the clock
    args: [--local-timezone, UTC]
  docs:
    url: http://127.0.0.1:9/mcp
    enabled: true
  inline: {command: cat}
"""


def test_enabled_is_added_or_replaced_and_comments_stay(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG)
    assert set_enabled(path, "time", False)
    assert set_enabled(path, "docs", False)
    text = path.read_text()
    assert "# my settings" in text and "# the clock" in text and "max_turns: 7  # kept" in text
    data = yaml.safe_load(text)
    assert data["mcp_servers"]["time"]["enabled"] is False
    assert data["mcp_servers"]["docs"] == {"url": "http://127.0.0.1:9/mcp", "enabled": False}
    assert text.count("enabled:") == 2
    assert set_enabled(path, "time", True)
    assert yaml.safe_load(path.read_text())["mcp_servers"]["time"]["enabled"] is True
    assert path.read_text().count("enabled:") == 2


def test_an_inline_entry_is_rewritten_and_an_unknown_server_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG)
    assert set_enabled(path, "inline", False)
    data = yaml.safe_load(path.read_text())
    assert data["mcp_servers"]["inline"] == {"command": "cat", "enabled": False}
    assert data["agent"] == {"max_turns": 7}
    before = path.read_text()
    assert not set_enabled(path, "nobody", False)
    assert path.read_text() == before

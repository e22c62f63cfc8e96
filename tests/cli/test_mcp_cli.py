"""`hws mcp add|remove|list|test`, the MCP lines of doctor and prompt, the config reader, and reload."""

from __future__ import annotations

import json
from pathlib import Path

from engine.config import load_config
from engine.mcp.servers import parse_server, read_servers, resolved
from tests.support.agent_support import make_rig, serve
from tests.support.fault_support import assert_clean_exit, hws
from tests.support.mcp_support import program, support_server, write_home


def test_add_list_test_remove_keep_the_rest_of_config_yaml(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text("# mine\nagent:\n  max_turns: 7  # kept\n")
    added = hws("mcp", "add", "clock", "--trust", "allow", "--", program("mcp-server-time"), home=hermes_home)
    assert_clean_exit(added, (0,))
    added = hws(
        "mcp",
        "add",
        "web",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--header",
        "X-Key=${WEB_KEY}",
        home=hermes_home,
    )
    assert_clean_exit(added, (0,))
    text = (hermes_home / "config.yaml").read_text()
    assert text.startswith("# mine\nagent:\n  max_turns: 7  # kept\n")
    listed = hws("mcp", "list", "--json", home=hermes_home)
    assert_clean_exit(listed, (0,))
    views = {v["name"]: v for v in json.loads(listed.stdout)}
    assert (
        views["clock"]["state"] == "ready"
        and views["clock"]["tools"] == 2
        and views["clock"]["trust"] == "allow"
    )
    assert views["web"]["state"] == "failed" and "${WEB_KEY} is set neither" in views["web"]["error"]
    tested = hws("mcp", "test", "web", home=hermes_home)
    assert tested.returncode == 1 and "did not start: ${WEB_KEY} is set neither" in tested.stderr
    assert hws("mcp", "test", "clock", home=hermes_home).stdout.startswith(
        "MCP server `clock` started and listed 2"
    )
    doctor = hws("doctor", "--offline", home=hermes_home)
    assert "mcp       clock: configured, not started (--offline)" in doctor.stdout
    prompt = json.loads(hws("prompt", "--json", home=hermes_home).stdout)
    assert prompt["mcp"]["names"] == ["mcp_clock_get_current_time", "mcp_clock_convert_time"]
    assert prompt["total_tokens"] == prompt["tokens"] + prompt["tools"]["tokens"] + prompt["mcp"]["tokens"]
    removed = hws("mcp", "remove", "clock", home=hermes_home)
    assert_clean_exit(removed, (0,))
    assert "clock" not in (hermes_home / "config.yaml").read_text()
    assert hws("mcp", "remove", "clock", home=hermes_home).returncode == 2
    assert "# kept" in (hermes_home / "config.yaml").read_text()


def test_the_reader_checks_each_server_on_its_own(hermes_home: Path) -> None:
    write_home(
        hermes_home,
        {
            "ok": {"command": "srv", "args": ["-v", 3], "tools": {"include": ["a", "b"], "exclude": ["b"]}},
            "both": {"command": "srv", "url": "http://x"},
            "trusty": {"command": "srv", "trust": "always"},
            "bad name!": {"command": "srv"},
            "sse": {"url": "http://127.0.0.1:1/sse"},
        },
    )
    config = load_config(hermes_home)
    assert not [w for w in config.warnings if "mcp_servers" in w]  # read by its own reader, not warned
    servers = read_servers(config)
    assert [s.name for s in servers.servers] == ["ok", "sse"]
    ok = servers.get("ok")
    assert (
        ok is not None
        and ok.args == ("-v", "3")
        and ok.wants("a")
        and not ok.wants("b")
        and not ok.wants("c")
    )
    assert servers.get("sse").transport == "sse"  # type: ignore[union-attr]
    assert len(servers.problems) == 3
    assert all(" line " in p and "is left out" in p for p in servers.problems)


def test_vars_are_resolved_from_dotenv_only_when_started(hermes_home: Path) -> None:
    write_home(hermes_home, {})
    (hermes_home / ".env").write_text("TOKEN=s3cret-value\n")
    config = load_config(hermes_home)
    spec = parse_server("x", {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}})
    assert spec.headers["Authorization"] == "Bearer ${TOKEN}"  # as written, wherever it is shown
    assert resolved(spec, config).headers["Authorization"] == "Bearer s3cret-value"


async def test_reload_applies_config_changes_at_the_next_call(hermes_home: Path, tmp_path: Path) -> None:
    server = serve("rules:\n  - reply: {text: hi}\n")
    try:
        write_home(hermes_home, {"clock": {"command": program("mcp-server-time"), "trust": "allow"}})
        rig = make_rig(server, hermes_home, tmp_path)
        await rig.turn("hello")
        hub = rig.agent.mcp
        assert hub is not None
        await hub.wait_started(30)
        assert "mcp_clock_get_current_time" in [s["function"]["name"] for s in rig.agent.tool_schemas()]
        write_home(hermes_home, {"faulty": support_server("faulty")})
        said = await rig.agent.reload_mcp()
        assert "restarting faulty" in said and "stopped clock" in said and "cached prefix starts anew" in said
        await hub.wait_started(30)
        names = [s["function"]["name"] for s in rig.agent.tool_schemas()]
        assert "mcp_faulty_echo" in names and not any(n.startswith("mcp_clock") for n in names)
        await rig.agent.close()
    finally:
        server.stop()

"""`hws provider status | identity | ask`, the registry, and the provider settings."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from engine.cli import main
from engine.config import load_config
from engine.events import Status
from engine.providers.base import ProviderConfigError
from engine.providers.honcho import HonchoSettings
from engine.providers.host import ProviderHost
from engine.providers.registry import active_provider_name
from tests.support.honcho_server import HonchoTestServer
from tests.support.provider_support import make_host, open_home, write_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[HonchoTestServer]:
    with HonchoTestServer() as srv:
        yield srv


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_status_against_the_local_server(
    server: HonchoTestServer, hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(hermes_home, server.url)
    assert main(["provider", "status"]) == 0
    out = capsys.readouterr().out
    assert "provider: honcho (active)" in out
    assert f"base_url:   {server.url}" in out
    assert "status: answers" in out
    assert "user peer 'user': not created yet" in out

    host = make_host(hermes_home, server.url)
    host.start("s1")
    host.mirror("user", "hi")
    assert host.drain(10)
    host.close()
    assert main(["provider", "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reachable"] and data["active"]
    assert data["details"]["peers"]["user"] == {"id": "user", "exists": True, "observe_me": True}
    assert data["details"]["peers"]["ai"] == {"id": "hermes", "exists": True, "observe_me": True}
    assert data["details"]["queue"]["completed"] == 1


def test_status_of_a_server_that_is_not_there(hermes_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(hermes_home, f"http://127.0.0.1:{free_port()}")
    assert main(["provider", "status"]) == 1
    out = capsys.readouterr().out
    assert "status: does not answer: cannot reach Honcho at http://127.0.0.1:" in out
    assert "Traceback" not in out


def test_status_of_a_failing_server(
    server: HonchoTestServer, hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(hermes_home, server.url)
    server.fail(500)
    assert main(["provider", "status", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert not data["reachable"] and "failed with HTTP 500" in data["error"]


def test_status_with_no_provider_and_with_a_named_one(
    server: HonchoTestServer, hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["provider", "status"]) == 0
    assert "No external memory provider is active" in capsys.readouterr().out
    write_config(hermes_home, server.url, memory={"provider": ""})
    assert main(["provider", "status", "--provider", "honcho"]) == 0
    assert "not active" in capsys.readouterr().out


def test_status_with_honcho_chosen_but_not_configured(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n", encoding="utf-8")
    assert main(["provider", "status"]) == 2
    err = capsys.readouterr().err
    assert "neither `honcho.base_url` nor HONCHO_API_KEY" in err


def test_identity_and_ask_commands(
    server: HonchoTestServer, hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = make_host(hermes_home, server.url)
    host.start("s1")
    host.mirror("user", "I prefer dark themes.")
    host.mirror("assistant", "Awesome!! 🚀 Switching now!")
    assert host.drain(10)
    host.close()
    assert main(["provider", "identity"]) == 0
    out = capsys.readouterr().out
    assert "SOUL.md beside the AI peer 'hermes'" in out
    assert "! drift     stated:   Emoji, exclamation marks" in out
    assert "observed: hermes uses emoji" in out
    assert main(["provider", "identity", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["available"] is True
    assert main(["provider", "ask", "which themes does the user prefer?"]) == 0
    assert "user prefers dark themes" in capsys.readouterr().out


def test_the_command_runs_as_a_real_process(server: HonchoTestServer, hermes_home: Path) -> None:
    write_config(hermes_home, server.url)
    out = subprocess.run(
        [sys.executable, "-m", "tui.main", "provider", "status"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "status: answers" in out.stdout


# -- the registry and settings -------------------------------------------------------------------


def _config(hermes_home: Path, text: str, env: str = "") -> object:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(text, encoding="utf-8")
    if env:
        (hermes_home / ".env").write_text(env, encoding="utf-8")
    return load_config(hermes_home)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", ""), ("honcho", "honcho"), ("Honcho", "honcho"), ("none", ""), ("off", "")],
)
def test_memory_provider_names(hermes_home: Path, value: str, expected: str) -> None:
    config = _config(hermes_home, yaml.safe_dump({"memory": {"provider": value}}))
    assert active_provider_name(config) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("mem0", "not a known provider; use one of: holographic, honcho"),
        ("honcho,mem0", "only one external provider can be active"),
    ],
)
def test_at_most_one_known_provider(hermes_home: Path, value: str, message: str) -> None:
    config = _config(hermes_home, yaml.safe_dump({"memory": {"provider": value}}))
    with pytest.raises(ProviderConfigError, match=message):
        active_provider_name(config)  # type: ignore[arg-type]


def test_no_provider_means_no_host(hermes_home: Path) -> None:
    home, config = open_home(hermes_home)
    assert ProviderHost.from_config(home, config) is None


def test_an_unusable_provider_reports_instead_of_failing_turns(hermes_home: Path) -> None:
    _config(hermes_home, "memory:\n  provider: mem9\n")
    home, config = open_home(hermes_home)
    events: list[object] = []
    host = ProviderHost.from_config(home, config, emit=events.append)
    assert host is not None and not host.usable
    host.start("s1")
    assert not host.mirror("user", "hi")
    host.after_turn("hi")
    assert host.turn_layer_sync("hi") is None
    assert host.dialectic("q").exception() is not None
    (event,) = events
    assert isinstance(event, Status) and event.level == "error" and "mem9" in event.text
    assert host.status().state == "down"
    host.close()


def test_honcho_settings(hermes_home: Path) -> None:
    config = _config(hermes_home, "honcho:\n  api_key: ${HONCHO_API_KEY}\n", env="HONCHO_API_KEY=abc\n")
    settings = HonchoSettings.from_config(config)  # type: ignore[arg-type]
    assert settings.base_url == "https://api.honcho.dev" and settings.api_key == "abc"
    config = _config(hermes_home, "honcho:\n  base_url: ftp://x\n")
    with pytest.raises(ProviderConfigError, match="not an http"):
        HonchoSettings.from_config(config)  # type: ignore[arg-type]
    config = _config(hermes_home, "honcho:\n  base_url: http://x\n  user_peer: a b\n")
    with pytest.raises(ProviderConfigError, match=r"honcho\.user_peer"):
        HonchoSettings.from_config(config)  # type: ignore[arg-type]
    config = _config(hermes_home, "honcho:\n  base_url: http://x\n  user_peer: same\n  ai_peer: same\n")
    with pytest.raises(ProviderConfigError, match="two different peers"):
        HonchoSettings.from_config(config)  # type: ignore[arg-type]


def test_the_host_and_registry_do_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "import engine.providers.host, engine.providers.registry, engine.providers.identity\n"
        "import engine.cli.provider_cmd\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('honcho', 'httpx')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_memory_provider_status_is_the_same_command(capsys) -> None:
    from engine.cli import main

    assert main(["memory", "provider", "status"]) == 0
    assert "No external memory provider is active" in capsys.readouterr().out

"""`fallback_providers`: through `hws run`, the main provider fails and the next one finishes the turn.

Two scripted model servers: the main one (the `--scenario` of `hws run`, or a port nobody listens
on) and the fallback, started here, whose key comes from `.env` by the variable `api_key_env` names.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config import load_config
from engine.llm.client import LLMClient
from engine.llm.direct import DirectLLMClient
from engine.llm.settings import ModelSettings, SettingsError
from engine.model_server.server import ScriptedModelServer, key_digest
from tests.support.fault_support import (
    assert_clean_exit,
    files_containing,
    hws,
    stored_messages,
    write_config,
    write_scenario,
)

FALLBACK_KEY = "sk-fallback-" + "5a1b" * 8
FALLBACK_SCENARIO = """
model: fallback-model
rules:
  - when: {user: "^look", iteration: 1}
    reply: {tool_calls: [{name: todo, arguments: {action: list}}]}
  - reply: {text: "Answered by the fallback.", usage: {prompt_tokens: 40, completion_tokens: 5}}
"""
DOWN_SCENARIO = """
model: fallback-model
rules:
  - fault: {kind: server_error, status: 502, message: "the fallback is down too"}
"""
MAIN_503 = """
model: main-model
rules:
  - fault: {kind: server_error, status: 503, message: "overloaded"}
"""
MAIN_429 = """
model: main-model
rules:
  - fault: {kind: rate_limit, retry_after: 0}
"""
SWITCH = "going on with fallback-model at"


@pytest.fixture
def fallback() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer.from_yaml(FALLBACK_SCENARIO) as server:
        yield server


def closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_home(tmp_path: Path, fallback_url: str, **sections: dict[str, object]) -> Path:
    home = tmp_path / "home"
    entry = {
        "provider": "custom",
        "model": "fallback-model",
        "base_url": fallback_url,
        "api_key_env": "FB_KEY",
    }
    write_config(
        home,
        agent={"retry_base_delay": 0.01, "retry_max_delay": 0.02, "api_max_retries": 1},
        review={"enabled": False},
        fallback_providers=[entry],  # type: ignore[arg-type]
        **sections,
    )
    (home / ".env").write_text(f"FB_KEY={FALLBACK_KEY}\n", encoding="utf-8")
    return home


@pytest.mark.parametrize(
    ("main", "reason"), [(MAIN_503, "HTTP 503"), (MAIN_429, "HTTP 429")], ids=["503", "429"]
)
def test_a_main_provider_answering_503_or_429_hands_the_turn_to_the_fallback(
    tmp_path: Path, fallback: ScriptedModelServer, main: str, reason: str
) -> None:
    home = make_home(tmp_path, fallback.base_url)
    scenario = write_scenario(tmp_path, main)
    requests = tmp_path / "main-requests.jsonl"
    done = hws(
        "run", "--scenario", str(scenario), "--request-log", str(requests), "look", home=home, cwd=tmp_path
    )
    assert_clean_exit(done, (0,))
    assert done.stdout.strip() == "Answered by the fallback."
    notices = [line for line in done.stderr.splitlines() if SWITCH in line]
    assert len(notices) == 1, done.stderr
    assert "main-model at http://127.0.0.1:" in notices[0] and reason in notices[0], notices
    assert "for the rest of this session" in notices[0]
    logged = [json.loads(line) for line in requests.read_text(encoding="utf-8").splitlines()]
    # One try and one retry; the call after the tool call went to the fallback straight away.
    assert len([r for r in logged if r["path"].endswith("/chat/completions")]) == 2
    chats = fallback.chat_requests
    assert len(chats) == 2, [c.rule for c in chats]
    assert {c.key_digest for c in chats} == {key_digest(f"Bearer {FALLBACK_KEY}")}  # .env's FB_KEY
    assert chats[0].body["model"] == "fallback-model"
    assert chats[0].messages[-1] == {"role": "user", "content": "look"}
    assert chats[1].messages[-1]["role"] == "tool"
    assistant = [content for _, role, content in stored_messages(home / "state.db") if role == "assistant"]
    assert assistant == ["", "Answered by the fallback."]  # the fallback's tool call, then its answer
    assert FALLBACK_KEY not in done.stdout + done.stderr
    assert files_containing(home, FALLBACK_KEY.encode()) == []  # only .env holds it


def test_a_refused_connection_goes_to_the_fallback_at_once_and_usage_names_it(
    tmp_path: Path, fallback: ScriptedModelServer
) -> None:
    main = f"http://127.0.0.1:{closed_port()}/v1"
    home = make_home(
        tmp_path,
        fallback.base_url,
        model={"base_url": main, "default": "main-model"},
        auxiliary={"base_url": fallback.base_url, "model": "fallback-model", "api_key_env": "FB_KEY"},
    )
    done = hws("run", "--json", "hello", home=home, cwd=tmp_path)
    assert_clean_exit(done, (0,))
    events = [json.loads(line) for line in done.stdout.splitlines()]
    statuses = [e for e in events if e["type"] == "status"]
    switches = [e for e in statuses if SWITCH in e["text"]]
    assert len(switches) == 1, statuses
    assert f"main-model at {main} failed (a connection error)" in switches[0]["text"]
    assert not [e for e in statuses if "retrying" in e["text"]]  # no retries against a closed port
    usage = [e for e in events if e["type"] == "usage"]
    assert [(u["model"], u["provider"]) for u in usage] == [("fallback-model", "127.0.0.1")]
    answer = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert answer == "Answered by the fallback."
    assistant = [content for _, role, content in stored_messages(home / "state.db") if role == "assistant"]
    assert assistant == ["Answered by the fallback."]


def test_a_fallback_that_fails_too_ends_the_turn_with_one_error_naming_both(tmp_path: Path) -> None:
    with ScriptedModelServer.from_yaml(DOWN_SCENARIO) as down:
        home = make_home(tmp_path, down.base_url)
        scenario = write_scenario(tmp_path, MAIN_503)
        done = hws("run", "--scenario", str(scenario), "hello", home=home, cwd=tmp_path)
        assert len(down.chat_requests) == 2  # the fallback has the same retry budget
    assert_clean_exit(done, (1,))
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    assert f"fallback-model at {down.base_url}" in errors[0] and "HTTP 502" in errors[0]
    assert "main-model at http://127.0.0.1:" in errors[0] and "HTTP 503" in errors[0]
    assert "no fallback provider is left" in errors[0]
    assert len([line for line in done.stderr.splitlines() if SWITCH in line]) == 1
    assert done.stdout == ""


def test_a_key_written_into_a_fallback_entry_is_refused_with_a_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    entry = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key": FALLBACK_KEY}
    write_config(home, fallback_providers=[entry])  # type: ignore[arg-type]
    scenario = write_scenario(tmp_path, MAIN_503)
    done = hws("run", "--scenario", str(scenario), "hello", home=home, cwd=tmp_path)
    assert_clean_exit(done, (2,))
    assert "fallback_providers entry 1 holds a literal `api_key`" in done.stderr
    assert FALLBACK_KEY not in done.stderr + done.stdout


def test_fallback_entries_take_a_known_providers_address_and_key_and_the_main_models_limits(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-" + "ab" * 32)
    write_config(
        hermes_home,
        model={"base_url": "http://127.0.0.1:9/v1", "default": "main", "request_timeout": 42},
        # A key hws does not read (Hermes may have more) is read past, not a reason to refuse the home.
        fallback_providers=[{"provider": "openrouter", "model": "x/y", "api_mode": "chat"}],  # type: ignore[arg-type]
    )
    config = load_config(hermes_home)
    main = LLMClient.from_config(config, hermes_home)
    [entry] = main.fallbacks
    assert (entry.base_url, entry.model, entry.provider) == (
        "https://openrouter.ai/api/v1",
        "x/y",
        "openrouter",
    )
    assert entry.api_key == "sk-or-v1-" + "ab" * 32 and entry.request_timeout == 42
    # The auxiliary model on the main endpoint has the same fallback, with its own time limits.
    [aux] = LLMClient.from_config(config, hermes_home, auxiliary=True).fallbacks
    assert (aux.base_url, aux.model, aux.request_timeout) == (entry.base_url, "x/y", config.auxiliary.timeout)


@pytest.mark.parametrize(
    ("entry", "sentence"),
    [
        ({"provider": "nowhere", "model": "m"}, "needs a `base_url`: `nowhere` is not a provider"),
        ({"base_url": "http://127.0.0.1:9/v1"}, "names no `model`"),
        ({"provider": "custom", "model": "m"}, "needs a `base_url`: `custom` is not a provider"),
    ],
)
def test_a_fallback_entry_that_cannot_work_is_named_in_one_sentence(
    hermes_home: Path, entry: dict[str, str], sentence: str
) -> None:
    write_config(hermes_home, model={"base_url": "http://127.0.0.1:9/v1"}, fallback_providers=[entry])  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="fallback_providers entry 1") as caught:
        LLMClient.from_config(load_config(hermes_home), hermes_home)
    assert sentence in str(caught.value)


async def test_two_calls_failing_at_once_make_one_switch_and_keep_the_next_fallback(
    hermes_home: Path, fallback: ScriptedModelServer
) -> None:
    """A background call and the turn's call share the client: the second failure must not skip a provider."""
    spare = "http://127.0.0.1:9/v1"
    main = ModelSettings(
        base_url=fallback.base_url.replace(str(fallback.port), str(closed_port())), model="m"
    )
    fallbacks = (
        ModelSettings(base_url=fallback.base_url, model="fallback-model"),
        ModelSettings(base_url=spare, model="spare"),
    )
    async with DirectLLMClient(main, home_root=hermes_home, fallbacks=fallbacks) as client:
        replies = await asyncio.gather(
            *(client.complete([{"role": "user", "content": f"hi {n}"}]) for n in range(2))
        )
        assert [r.content for r in replies] == ["Answered by the fallback."] * 2
        assert client.settings.model == "fallback-model" and len(client.given_up) == 1
        assert [f.base_url for f in client.fallbacks] == [spare]

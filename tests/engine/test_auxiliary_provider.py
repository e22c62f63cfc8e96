"""The auxiliary model (titles, summaries, background review) on another provider than the main model:
through `hws run` and `hws compress`, each request goes to its own server with its own key."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import load_config
from engine.llm.client import LLMClient
from engine.llm.settings import SettingsError
from engine.model_server.server import ScriptedModelServer, key_digest
from tests.cli.test_compress_cmd import stored_conversation
from tests.support.compression_support import conversation
from tests.support.fault_support import assert_clean_exit, hws, write_config

MAIN_KEY = "sk-main-" + "1a2b" * 8
AUX_KEY = "sk-aux-" + "9f8e" * 8
MAIN = """
model: main-model
rules:
  - reply: {text: "Main answer."}
"""
AUX = """
model: aux-model
rules:
  - name: title
    when: {kind: title}
    reply: {text: "Navbar fixes"}
  - name: summary
    when: {kind: summary}
    reply: {text: "## Goal\\nAudit /srv.\\n## Remaining Work\\nFolder 6 onwards."}
  - name: other
    reply: {text: "nothing to save"}
"""


def configure(home: Path, main: str, aux: str) -> None:
    write_config(
        home,
        model={
            "provider": "custom",
            "default": "main-model",
            "base_url": main,
            "api_key_env": "MAIN_KEY",
            "context_length": 8000,  # small enough that a stored conversation has a middle to summarise
        },
        auxiliary={"provider": "lab", "model": "aux-model", "base_url": aux, "api_key_env": "AUX_KEY"},
        review={"enabled": False},
        compression={"flush_enabled": False},
    )
    (home / ".env").write_text(f"MAIN_KEY={MAIN_KEY}\nAUX_KEY={AUX_KEY}\n", encoding="utf-8")


def test_titles_and_summaries_go_to_the_auxiliary_provider_with_its_own_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with ScriptedModelServer.from_yaml(MAIN) as main, ScriptedModelServer.from_yaml(AUX) as aux:
        configure(home, main.base_url, aux.base_url)
        done = hws("run", "fix the navbar links", home=home, cwd=tmp_path)
        assert_clean_exit(done, (0,))
        assert done.stdout.strip() == "Main answer."
        assert "“Navbar fixes” (by model)" in done.stderr, done.stderr
        assert [(r.rule, r.body["model"]) for r in aux.chat_requests] == [("title", "aux-model")]
        assert {r.key_digest for r in aux.chat_requests} == {key_digest(f"Bearer {AUX_KEY}")}
        assert {r.key_digest for r in main.chat_requests} == {key_digest(f"Bearer {MAIN_KEY}")}
        assert all(r.body["model"] == "main-model" for r in main.chat_requests)

        session_id = stored_conversation(home, conversation(8))
        asked = len(main.chat_requests)
        compressed = hws("compress", session_id, home=home, cwd=tmp_path)
        assert compressed.returncode == 0, compressed.stderr
        assert any(line.startswith("┊ summarize") for line in compressed.stderr.splitlines())
        assert [r.rule for r in aux.chat_requests] == ["title", "summary"]
        assert aux.chat_requests[-1].key_digest == key_digest(f"Bearer {AUX_KEY}")
        assert len(main.chat_requests) == asked, "the main provider wrote no summary"


def test_a_known_auxiliary_provider_gives_its_address_and_its_own_key(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-" + "cd" * 32)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-" + "ef" * 20)
    write_config(
        hermes_home,
        model={"provider": "openai", "default": "gpt-4.1"},
        auxiliary={"provider": "openrouter", "model": "google/gemini-3-flash-preview"},
    )
    config = load_config(hermes_home)
    main = LLMClient.from_config(config, hermes_home).settings
    aux = LLMClient.from_config(config, hermes_home, auxiliary=True).settings
    assert (main.base_url, main.api_key[:9]) == ("https://api.openai.com/v1", "sk-openai")
    assert (aux.base_url, aux.provider) == ("https://openrouter.ai/api/v1", "openrouter")
    assert aux.api_key == "sk-or-v1-" + "cd" * 32  # never the main provider's key

    write_config(hermes_home, model={"base_url": "http://127.0.0.1:9/v1"}, auxiliary={"provider": "nowhere"})
    with pytest.raises(SettingsError, match=r"auxiliary\.provider `nowhere` is not a provider"):
        LLMClient.from_config(load_config(hermes_home), hermes_home, auxiliary=True)

"""`hws facts` and `hws memory provider setup|status` as a user runs them (subprocesses on a temp home)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml

from tests.support.fault_support import assert_clean_exit, hws


def test_setup_chooses_the_fact_store_and_status_says_how_it_searches(tmp_path: Path) -> None:
    done = hws("memory", "provider", "setup", home=tmp_path, stdin="1\n")
    assert_clean_exit(done, (0,))
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["memory"]["provider"] == "holographic"
    hws("facts", "add", "Ada Lovelace prefers tea", "--category", "user_pref", home=tmp_path)
    status = hws("memory", "provider", "status", home=tmp_path)
    assert_clean_exit(status, (0,))
    assert "provider: holographic (active)" in status.stdout
    assert "search:     hrr+fts5 (numpy)" in status.stdout or "fts5 (numpy is not installed)" in status.stdout
    assert "facts:      1 " in status.stdout


def test_the_fts5_path_when_vectors_are_off(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("memory:\n  provider: facts\nfacts:\n  vectors: 'off'\n")
    hws("facts", "add", "The staging server is called Nimbus Prime", home=tmp_path)
    status = hws("memory", "provider", "status", "--json", home=tmp_path)
    report = json.loads(status.stdout)
    assert report["settings"]["search"] == "fts5 (vectors off in config)"
    assert report["details"] == {"facts": 1, "with_vectors": 0}
    found = hws("facts", "search", "staging server name", "--json", home=tmp_path)
    assert [f["content"] for f in json.loads(found.stdout)] == ["The staging server is called Nimbus Prime"]


def test_list_search_add_remove(tmp_path: Path) -> None:
    for text in ("Grace Hopper maintains the build farm", "The build farm lives in Lisbon"):
        assert_clean_exit(hws("facts", "add", text, "--tags", "infra", home=tmp_path), (0,))
    again = hws("facts", "add", "Grace Hopper maintains the build farm", home=tmp_path)
    assert "Fact 1 already says this" in again.stdout
    listed = hws("facts", "list", home=tmp_path)
    assert "Grace Hopper maintains the build farm" in listed.stdout and "[infra]" in listed.stdout
    found = json.loads(hws("facts", "search", "where is the build farm", "--json", home=tmp_path).stdout)
    assert found[0]["fact_id"] == 2 and found[0]["score"] > found[1]["score"]
    assert_clean_exit(hws("facts", "remove", "1", home=tmp_path), (0,))
    missing = hws("facts", "remove", "1", home=tmp_path)
    assert missing.returncode == 1 and "There is no fact 1" in missing.stderr
    conn = sqlite3.connect(tmp_path / "memory_store.db")
    assert [r[0] for r in conn.execute("SELECT fact_id FROM facts")] == [2]
    conn.close()


def test_a_secret_is_refused_from_the_shell_too(tmp_path: Path) -> None:
    key = "sk-or-v1-" + "0f9e8d7c" * 8
    (tmp_path / ".env").write_text(f"OPENROUTER_API_KEY={key}\n")
    done = hws("facts", "add", f"the key is {key}", home=tmp_path)
    assert done.returncode == 1 and "secrets are never stored" in done.stderr and key not in done.stderr

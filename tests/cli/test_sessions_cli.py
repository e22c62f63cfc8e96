"""`hws sessions list|show|search|export` against the home in HERMES_HOME, as a user runs them."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.sessions.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parents[1] / "support" / "fixtures" / "hermes-0.19.0-state.db"


def hws(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from tui.main import main; sys.exit(main())", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def home(hermes_home: Path) -> Path:
    hermes_home.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE, hermes_home / "state.db")
    return hermes_home


def test_list_shows_each_conversation_once(home: Path) -> None:
    out = hws("sessions", "list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 3
    assert any(
        "20260601_104500_d4e5f6" in line and "Pottery class planning (+1 compressed)" in line
        for line in lines
    )
    data = json.loads(hws("sessions", "list", "--json").stdout)
    chain = next(c for c in data if c["root_id"] == "20260601_101500_a1b2c3")
    assert chain["id"] == "20260601_104500_d4e5f6" and chain["message_count"] == 8


def test_show_prints_a_session_by_id_prefix(home: Path) -> None:
    out = hws("sessions", "show", "20260601_1015")
    assert out.returncode == 0, out.stderr
    assert "Pottery class planning" in out.stdout and "[calls terminal]" in out.stdout
    assert "1,200 in / 80 out tokens (900 cached)" in out.stdout
    data = json.loads(hws("sessions", "show", "20260601_101500_a1b2c3", "--json").stdout)
    assert data["lineage"] == ["20260601_101500_a1b2c3", "20260601_104500_d4e5f6"]
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "assistant", "tool", "assistant"]


def test_show_of_an_unknown_or_ambiguous_id_is_refused_with_a_sentence(home: Path) -> None:
    for wanted in ("nope", "2026060"):
        out = hws("sessions", "show", wanted)
        assert out.returncode == 1 and "No single session matches" in out.stderr
        assert "Traceback" not in out.stderr


def test_search_prints_ranked_hits_with_snippets(home: Path) -> None:
    out = hws("sessions", "search", "When did Dana start the pottery class?", "--limit", "2")
    assert out.returncode == 0, out.stderr
    assert "20260601_101500_a1b2c3 #1 user" in out.stdout and ">>>pottery<<<" in out.stdout
    data = json.loads(hws("sessions", "search", "数据", "--json").stdout)
    assert {h["message_id"] for h in data["hits"]} == {9, 10} and data["partial"] is False
    roles = json.loads(hws("sessions", "search", "pottery", "--role", "assistant", "--json").stdout)
    assert [h["role"] for h in roles["hits"]] == ["assistant"], roles
    assert hws("sessions", "search", '"(').stdout.strip() == "No messages matched."


def test_export_writes_markdown_of_a_session_or_its_chain(home: Path) -> None:
    out = hws("sessions", "export", "20260601_104500_d4e5f6", "--lineage")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("# Pottery class planning")
    assert "## Session 20260601_101500_a1b2c3" in text and "## Session 20260601_104500_d4e5f6" in text
    assert "Called `terminal`" in text and '"command": "ls ~/kiln-photos"' in text
    assert "### Tool result: terminal" in text
    single = hws("sessions", "export", "20260602_090000_0a0b0c").stdout
    assert "数据库连接失败" in single and "## Session" not in single


def test_an_empty_home_has_no_sessions_yet(hermes_home: Path) -> None:
    assert hws("sessions", "list").stdout.strip() == "No sessions yet."
    assert hws("sessions", "search", "x").stdout.strip() == "No messages matched."
    out = hws("sessions", "show", "x")
    assert out.returncode == 1 and "no sessions yet" in out.stderr.lower()


def test_a_damaged_database_gives_a_sentence_and_exit_code_1(hermes_home: Path) -> None:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "state.db").write_bytes(b"garbage" * 1000)
    out = hws("sessions", "list")
    assert out.returncode == 1 and "not a SQLite database" in out.stderr and "Traceback" not in out.stderr


def test_the_cli_honours_home_and_sees_what_the_store_wrote(hermes_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-home"

    async def write() -> None:
        store = await SessionStore.open(other / "state.db")
        session = await store.create_session(title="Elsewhere")
        await store.append_message(session.id, "user", "marmalade")
        await store.close()

    other.mkdir()
    asyncio.run(write())
    out = hws("--home", str(other), "sessions", "search", "marmalade")
    assert "Elsewhere" in out.stdout
    assert hws("sessions", "list").stdout.strip() == "No sessions yet."

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.home import Home, HomeError, default_soul_text, resolve_home_path

ROOT = Path(__file__).resolve().parents[2]


def test_home_comes_from_env_else_dot_hermes(hermes_home: Path, monkeypatch) -> None:
    assert resolve_home_path() == hermes_home
    monkeypatch.delenv("HERMES_HOME")
    assert resolve_home_path() == Path.home() / ".hermes"
    assert resolve_home_path("/tmp/x") == Path("/tmp/x")


def test_first_run_creates_owner_only_folders_and_seeds_soul(hermes_home: Path) -> None:
    home = Home.resolve().ensure()
    for name in ("memories", "skills", "logs"):
        folder = hermes_home / name
        assert folder.is_dir()
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(hermes_home.stat().st_mode) == 0o700
    assert home.soul.read_text(encoding="utf-8") == (ROOT / "SOUL.md").read_text(encoding="utf-8")


def test_seeded_soul_is_the_projects_persona() -> None:
    soul = default_soul_text()
    assert "peer" in soul and "Before sending" in soul
    assert all(ord(ch) < 0x2600 for ch in soul), "the persona itself uses no emoji"


def test_existing_soul_is_never_overwritten(hermes_home: Path) -> None:
    hermes_home.mkdir()
    (hermes_home / "SOUL.md").write_text("my own voice", encoding="utf-8")
    Home.resolve().ensure()
    Home.resolve().ensure()
    assert (hermes_home / "SOUL.md").read_text(encoding="utf-8") == "my own voice"


def test_existing_hermes_home_is_used_as_is(hermes_home: Path) -> None:
    (hermes_home / "memories").mkdir(parents=True)
    os.chmod(hermes_home, 0o755)
    (hermes_home / "memories" / "MEMORY.md").write_text("a\n§\nb", encoding="utf-8")
    (hermes_home / "cron").mkdir()
    Home.resolve().ensure()
    assert (hermes_home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "a\n§\nb"
    assert stat.S_IMODE(hermes_home.stat().st_mode) == 0o755
    assert (hermes_home / "cron").is_dir()


def test_home_that_is_a_file_is_a_clear_error(hermes_home: Path) -> None:
    hermes_home.write_text("oops", encoding="utf-8")
    with pytest.raises(HomeError, match="not a folder"):
        Home.resolve().ensure()


def test_inside_refuses_symlink_escape(hermes_home: Path, tmp_path: Path) -> None:
    home = Home.resolve().ensure()
    outside = tmp_path / "outside.txt"
    outside.write_text("x", encoding="utf-8")
    link = home.skills / "link"
    link.symlink_to(outside)
    assert not home.inside(link)
    assert home.inside(home.memories / "MEMORY.md")

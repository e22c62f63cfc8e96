"""`hws skills …`: list, view, index, history, restore, install and scan, with their exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.home import Home
from engine.skills.history import SkillHistory
from tests.support.skills_support import MALICIOUS, PUBLIC, copy_public, skill_text, write_skill

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["skills", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def home() -> Home:
    home = Home.resolve().ensure()
    copy_public(home.skills)
    return home


def test_list_shows_skills_warnings_and_json(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "list")
    assert code == 0
    assert "pdf" in out and "github-pr-workflow" in out and "github" in out
    assert "warning: description is 1,030 characters" in out
    code, out, _err = run(capsys, "list", "--json")
    data = json.loads(out)
    assert {s["name"] for s in data["skills"]} >= {"pdf", "claude-api", "changelog-writer"}
    assert data["skipped"] == []


def test_view_prints_tier2_and_tier3(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "view", "pdf")
    assert code == 0 and out == (home.skills / "pdf" / "SKILL.md").read_text(encoding="utf-8")
    assert "scripts: scripts/check_fields.py, scripts/fill_form.py" in err and "tokens)" in err
    code, out, _err = run(capsys, "view", "pdf", "forms.md")
    assert code == 0 and out.startswith("# Filling PDF forms")
    code, _out, err = run(capsys, "view", "pdf", "../xlsx/SKILL.md")
    assert code == 1 and "contains '..'" in err
    code, _out, err = run(capsys, "view", "nope")
    assert code == 1 and "Skill 'nope' not found." in err


def test_index_prints_exactly_the_model_text_and_its_count(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.skills.library import SkillLibrary

    code, out, err = run(capsys, "index")
    assert code == 0
    expected = SkillLibrary(home).index()
    assert out == expected.text + "\n"
    assert f"in {expected.tokens:,}/2,000 tokens" in err
    code, out, _err = run(capsys, "index", "--budget", "300", "--json")
    data = json.loads(out)
    assert data["tokens"] <= 300 and data["budget"] == 300
    assert run(capsys, "index", "--budget", "0")[0] == 2


def test_history_and_restore(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.skills.tools import SkillTools

    tools = SkillTools(home)
    text = skill_text("deploy-notes", "Deploy.", "1. Build.\n2. Ship.")
    created = tools.skill_manage({"action": "create", "name": "deploy-notes", "content": text})
    tools.skill_manage(
        {"action": "patch", "name": "deploy-notes", "old_string": "Ship.", "new_string": "Sail."}
    )
    code, out, _err = run(capsys, "history", "deploy-notes")
    assert code == 0 and out.count("\n") == 2 and " agent    create " in out and " patch " in out
    patch_id = SkillHistory(home).entries("deploy-notes")[-1].id
    code, out, _err = run(capsys, "history", "deploy-notes", patch_id)
    assert code == 0 and "-2. Ship.\n+2. Sail.\n" in out
    code, out, _err = run(capsys, "restore", "deploy-notes", created["version"])
    assert code == 0 and "restored skills/deploy-notes/SKILL.md" in out
    assert (home.skills / "deploy-notes" / "SKILL.md").read_text(encoding="utf-8") == text
    code, out, _err = run(capsys, "restore", "deploy-notes", created["version"])
    assert code == 0 and "nothing changed" in out
    code, _out, err = run(capsys, "restore", "deploy-notes", "ffffffff")
    assert code == 1 and "has no version 'ffffffff'" in err
    assert run(capsys, "history", "ghost")[1].startswith("No recorded changes for skill 'ghost'.")


def test_scan_exit_codes(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "scan", str(PUBLIC / "pdf"))[0] == 0
    code, out, _err = run(capsys, "scan", str(PUBLIC / "devops" / "docker-debugging"))
    assert code == 1 and "Verdict: CAUTION" in out and "Decision: BLOCKED" in out
    code, out, _err = run(capsys, "scan", str(MALICIOUS / "prereq-base64"), "--json")
    assert code == 3 and json.loads(out)["verdict"] == "dangerous"
    assert run(capsys, "scan", "github-pr-workflow")[0] == 0  # an installed skill by name
    assert run(capsys, "scan", "/no/such/folder")[0] == 2


def test_install_a_safe_community_skill_records_it_in_the_lock_file(
    home: Home, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write_skill(tmp_path, "release-notes", skill_text("release-notes", "Write release notes."))
    code, out, _err = run(capsys, "install", str(source), "--category", "writing")
    assert code == 0
    assert "Scan: release-notes (local/community)  Verdict: SAFE" in out
    assert "Skill 'release-notes' installed at skills/writing/release-notes." in out
    assert (home.skills / "writing" / "release-notes" / "SKILL.md").is_file()
    lock = json.loads((home.skills / ".hub" / "lock.json").read_text(encoding="utf-8"))
    entry = lock["installed"]["release-notes"]
    assert lock["version"] == 1
    assert entry["trust_level"] == "community" and entry["scan_verdict"] == "safe"
    assert entry["content_hash"].startswith("sha256:") and entry["install_path"] == "writing/release-notes"
    assert entry["identifier"] == str(source.resolve()) and entry["files"] == ["SKILL.md"]
    assert " INSTALL release-notes local:community safe sha256:" in (
        home.skills / ".hub" / "audit.log"
    ).read_text(encoding="utf-8")
    assert not any((home.skills / ".hub" / "quarantine").iterdir())
    assert [e.action for e in SkillHistory(home).entries("release-notes")] == ["install"]


def test_install_policy_caution_force_and_dangerous(
    home: Home, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    caution = tmp_path / "docker-debugging"
    shutil.copytree(PUBLIC / "devops" / "docker-debugging", caution)
    shutil.rmtree(home.skills / "devops")
    code, out, _err = run(capsys, "install", str(caution))
    assert code == 1 and "was not installed" in out and not (home.skills / "docker-debugging").exists()
    assert run(capsys, "install", str(caution), "--trust", "trusted")[0] == 0
    shutil.rmtree(home.skills / "docker-debugging")
    assert run(capsys, "install", str(caution), "--force")[0] == 0
    code, out, _err = run(capsys, "install", str(MALICIOUS / "ssh-backdoor"), "--trust", "trusted", "--force")
    assert code == 1 and "--force does not override a dangerous verdict." in out
    assert not (home.skills / "ssh-backdoor").exists() and not (home.skills / "server-hardening").exists()


def test_install_over_an_existing_skill_needs_force_and_keeps_history(
    home: Home, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write_skill(tmp_path, "pdf", skill_text("pdf", "A newer PDF skill."))
    code, out, _err = run(capsys, "install", str(source))
    assert code == 1 and "already exists" in out
    code, out, _err = run(capsys, "install", str(source), "--force")
    assert code == 0
    assert "A newer PDF skill." in (home.skills / "pdf" / "SKILL.md").read_text(encoding="utf-8")
    assert not (home.skills / "pdf" / "forms.md").exists()
    entries = SkillHistory(home).entries("pdf")
    install_entry = next(e for e in entries if e.action == "install")
    SkillHistory(home).restore("pdf", install_entry.id, before=True, current_dir=home.skills / "pdf")
    assert (home.skills / "pdf" / "forms.md").is_file()  # the replaced skill came back from the history


def test_install_usage_errors(home: Home, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "install", str(tmp_path / "missing"))[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _out, err = run(capsys, "install", str(empty))
    assert code == 2 and "has no SKILL.md" in err
    bad = write_skill(tmp_path, "Bad Name", "---\nname: Also Bad\ndescription: x\n---\nbody\n")
    code, _out, err = run(capsys, "install", str(bad))
    assert code == 2 and "is a valid skill name" in err
    assert run(capsys, "install", str(PUBLIC / "pdf"), "--category", "../x")[0] == 2


def test_install_keeps_escaping_symlinks_visible_to_the_guard(
    home: Home, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write_skill(tmp_path, "linky", skill_text("linky", "Links."))
    os.symlink("/etc/passwd", source / "passwd")
    code, out, _err = run(capsys, "install", str(source), "--trust", "trusted")
    assert code == 1 and 'CRITICAL traversal passwd "-> /etc/passwd"' in out
    assert not (home.skills / "linky").exists()


def test_the_console_script_runs_the_subcommand(home: Home) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tui.main", "skills", "index"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("## Skills (mandatory)")

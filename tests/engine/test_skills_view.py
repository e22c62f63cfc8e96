"""Tier 2 and Tier 3 through the tools, path and symlink safety, and the per-session tier record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.config import load_config
from engine.home import Home
from engine.skills.tiers import SessionTiers
from engine.skills.tools import SCHEMAS, SkillTools
from engine.text import tokens
from tests.support.skills_support import copy_public, skill_text, write_skill


@pytest.fixture()
def tools() -> SkillTools:
    home = Home.resolve().ensure()
    copy_public(home.skills)
    return SkillTools(home, load_config(home.root), SessionTiers("s1"), session_id="s1")


def test_tier2_returns_the_whole_skill_md_and_its_linked_files(tools: SkillTools) -> None:
    result = tools.skill_view({"name": "pdf"})
    assert result["success"] is True
    text = (tools.library.home.skills / "pdf" / "SKILL.md").read_text(encoding="utf-8")
    assert result["content"] == text
    assert result["tokens"] == tokens.count(text)
    assert result["linked_files"] == {
        "other": ["LICENSE.txt", "forms.md", "reference.md"],
        "scripts": ["scripts/check_fields.py", "scripts/fill_form.py"],
    }
    assert "file_path=" in result["usage_hint"]


def test_tier2_reports_required_environment_variables(
    tools: SkillTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = tools.skill_view({"name": "github-pr-workflow"})
    assert result["required_environment_variables"] == ["GITHUB_TOKEN"]
    assert result["missing_required_environment_variables"] == ["GITHUB_TOKEN"]
    assert result["tags"] == ["github", "git", "pull-requests"]
    monkeypatch.setenv("GITHUB_TOKEN", "set")
    assert tools.skill_view({"name": "github-pr-workflow"})["missing_required_environment_variables"] == []


def test_template_variables_are_filled_in(tools: SkillTools) -> None:
    body = "Run ${HERMES_SKILL_DIR}/scripts/go.sh for session ${HERMES_SESSION_ID}."
    folder = write_skill(tools.library.home.skills, "tpl", skill_text("tpl", body=body))
    content = tools.skill_view({"name": "tpl"})["content"]
    assert f"Run {folder}/scripts/go.sh for session s1." in content


def test_tier3_returns_one_file_and_describes_binaries(tools: SkillTools) -> None:
    result = tools.skill_view({"name": "pdf", "file_path": "forms.md"})
    assert result["success"] and result["content"].startswith("# Filling PDF forms")
    assert result["tokens"] == tokens.count(result["content"])
    image = tools.library.home.skills / "pdf" / "assets" / "logo.png"
    image.parent.mkdir()
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    binary = tools.skill_view({"name": "pdf", "file_path": "assets/logo.png"})
    assert binary["binary"] is True
    assert binary["content"] == "[Binary file: assets/logo.png, size: 216 bytes]"


def test_missing_files_and_folders_list_what_is_there(tools: SkillTools) -> None:
    missing = tools.skill_view({"name": "pdf", "file_path": "references/nope.md"})
    assert missing["success"] is False and "not found" in missing["error"]
    assert "forms.md" in missing["available_files"]
    folder = tools.skill_view({"name": "pdf", "file_path": "scripts"})
    assert "is a folder" in folder["error"] and "scripts/fill_form.py" in folder["available_files"]


@pytest.mark.parametrize(
    "file_path, words",
    [
        ("/etc/passwd", "is absolute"),
        ("../xlsx/SKILL.md", "contains '..'"),
        ("scripts/../../xlsx/SKILL.md", "contains '..'"),
        ("C:\\Windows\\win.ini", "is absolute"),
        ("~/.ssh/id_rsa", "is absolute"),
        ("scripts\\fill_form.py", "backslashes"),
    ],
)
def test_tier3_refuses_paths_out_of_the_skill(tools: SkillTools, file_path: str, words: str) -> None:
    result = tools.skill_view({"name": "pdf", "file_path": file_path})
    assert result["success"] is False and words in result["error"]


def test_symlinks_that_escape_the_skill_are_refused(tools: SkillTools, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret", encoding="utf-8")
    skill_dir = tools.library.home.skills / "pdf"
    os.symlink(secret, skill_dir / "leak.md")
    os.symlink(tmp_path, skill_dir / "outside")
    os.symlink(skill_dir / "forms.md", skill_dir / "alias.md")  # inside: fine
    for path in ("leak.md", "outside/secret.txt", "alias.md"):  # a link out makes the whole skill blocked
        result = tools.skill_view({"name": "pdf", "file_path": path})
        assert result["success"] is False and "outside the skill's folder" in result["error"]
        assert "top secret" not in json.dumps(result)
    home = tools.library.home
    home.config_file.write_text("skills:\n  guard_at_use: false\n", encoding="utf-8")
    unguarded = SkillTools(home, load_config(home.root), SessionTiers("s1"), session_id="s1")
    for path in ("leak.md", "outside/secret.txt"):  # the path check alone, without the guard's verdict
        result = unguarded.skill_view({"name": "pdf", "file_path": path})
        assert result["success"] is False and "outside the skill's folder" in result["error"]
        assert "top secret" not in json.dumps(result)
    assert unguarded.skill_view({"name": "pdf", "file_path": "alias.md"})["success"] is True


def test_a_skill_md_symlinked_out_of_its_folder_is_not_read(tools: SkillTools, tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere.md"
    secret.write_text(skill_text("sneaky", "Looks normal."), encoding="utf-8")
    folder = tools.library.home.skills / "sneaky"
    folder.mkdir()
    os.symlink(secret, folder / "SKILL.md")
    result = tools.skill_view({"name": "sneaky"})  # the guard blocks the skill: its SKILL.md links out
    assert result["success"] is False and "a symlink that points outside" in result["error"]
    assert "Looks normal" not in json.dumps(result)
    home = tools.library.home
    home.config_file.write_text("skills:\n  guard_at_use: false\n", encoding="utf-8")
    unguarded = SkillTools(home, load_config(home.root), SessionTiers("s1"), session_id="s1")
    result = unguarded.skill_view({"name": "sneaky"})  # and the path check alone refuses it too
    assert result["success"] is False and "symlink out of its skill's folder" in result["error"]


@pytest.mark.parametrize("name", ["../etc", "/etc/passwd", "C:\\skills", "", None, "a/../../b"])
def test_skill_names_cannot_be_paths(tools: SkillTools, name: object) -> None:
    result = tools.skill_view({"name": name})
    assert result["success"] is False


def test_unknown_names_suggest_close_matches(tools: SkillTools) -> None:
    result = tools.skill_view({"name": "pdf-tool"})
    assert "not found" in result["error"] and "'pdf'" in result["error"]


def test_category_slash_name_and_folder_names_are_accepted(tools: SkillTools) -> None:
    assert tools.skill_view({"name": "github/github-pr-workflow"})["success"] is True
    assert tools.skill_view({"name": "odd-keys-folder"})["name"] == "changelog-writer"


def test_the_session_records_each_skills_tier_and_token_cost(tools: SkillTools) -> None:
    index = tools.index()
    tiers = tools.tiers
    pdf_index_cost = index.entry("pdf").tokens
    assert pdf_index_cost > 0
    loaded = tools.skill_view({"name": "pdf"})
    opened = tools.skill_view({"name": "pdf", "file_path": "forms.md"})
    tools.skill_view({"name": "xlsx"})
    rows = {row.name: row for row in tiers.rows()}
    assert rows["pdf"].tier == 3 and rows["pdf"].index_tokens == pdf_index_cost
    assert rows["pdf"].loaded_tokens == loaded["tokens"]
    assert rows["pdf"].files == {"forms.md": opened["tokens"]}
    assert rows["xlsx"].tier == 2
    assert rows["brand-guidelines"].tier == 1 and rows["brand-guidelines"].loaded_tokens == 0
    assert tiers.rows()[0].name == "pdf"  # deepest tier first
    totals = tiers.totals()
    assert totals["loaded"] == 2 and totals["files_opened"] == 1
    assert totals["index_tokens"] == index.tokens


def test_views_bump_the_usage_counters_the_index_ranks_by(tools: SkillTools) -> None:
    tools.skill_view({"name": "pdf"})
    tools.skill_view({"name": "pdf"})
    usage = json.loads((tools.library.home.skills / ".usage.json").read_text(encoding="utf-8"))
    assert usage["pdf"]["view_count"] == 2 and usage["pdf"]["last_viewed_at"]


def test_skills_list_shape_and_category_filter(tools: SkillTools) -> None:
    everything = tools.skills_list({})
    assert everything["success"] and everything["count"] == len(everything["skills"]) == 14
    assert {"name", "description", "category"} == set(everything["skills"][0])
    assert "github" in everything["categories"] and "mlops/inference" in everything["categories"]
    mlops = tools.skills_list({"category": "mlops"})
    assert [s["name"] for s in mlops["skills"]] == ["llama-cpp-serving"]
    assert tools.skills_list({"category": "nope"})["success"] is False


def test_tool_dispatch_and_schemas_are_small() -> None:
    home = Home.resolve().ensure()
    tools = SkillTools(home)
    assert tools.call("skill_view", {"name": "x"})["success"] is False
    assert tools.call("nope", {})["success"] is False
    assert [s["name"] for s in SCHEMAS] == ["skills_list", "skill_view", "skill_manage"]
    assert tokens.count(json.dumps(SCHEMAS)) < 900


def test_tools_emit_skill_events_for_the_ui() -> None:
    from engine.events import SkillChanged, SkillLoaded

    home = Home.resolve().ensure()
    seen: list[object] = []
    tools = SkillTools(home, session_id="s9", emit=seen.append)
    created = tools.skill_manage(
        {"action": "create", "name": "evented", "content": skill_text("evented", "Events.")}
    )
    loaded = tools.skill_view({"name": "evented"})
    tools.skill_view({"name": "nope"})  # failures emit nothing
    assert seen == [
        SkillChanged("s9", "evented", "create", "agent", created["version"], "Skill 'evented' created."),
        SkillLoaded("s9", "evented", "", loaded["tokens"]),
    ]

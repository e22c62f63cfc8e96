"""Skill history: every version can be shown as a diff and restored; a restore is itself recorded."""

from __future__ import annotations

import pytest

from engine.config import load_config
from engine.home import Home
from engine.skills.history import HistoryError, SkillHistory
from engine.skills.tools import SkillTools
from tests.support.skills_support import skill_text, write_skill

V1 = skill_text("deploy-notes", "Deploy the web app.", "1. Build.\n2. Ship.")


@pytest.fixture()
def tools() -> SkillTools:
    home = Home.resolve().ensure()
    return SkillTools(home, load_config(home.root))


def run(tools: SkillTools, **args: object) -> dict:
    result = tools.skill_manage(dict(args))
    assert result["success"], result
    return result


def test_versions_show_as_diffs(tools: SkillTools) -> None:
    run(tools, action="create", name="deploy-notes", content=V1, category="ops")
    patched = run(tools, action="patch", name="deploy-notes", old_string="2. Ship.", new_string="2. Ship it.")
    history = SkillHistory(tools.library.home)
    diff = history.diff(history.entry("deploy-notes", patched["version"]))
    assert "-2. Ship.\n+2. Ship it.\n" in diff
    assert diff.startswith("--- a/skills/ops/deploy-notes/SKILL.md\n+++ b/skills/ops/deploy-notes/SKILL.md\n")


def test_restore_puts_back_every_file_as_it_was_after_a_version(tools: SkillTools) -> None:
    created = run(tools, action="create", name="deploy-notes", content=V1, category="ops")
    run(tools, action="write_file", name="deploy-notes", file_path="references/env.md", file_content="A=1\n")
    middle = run(
        tools, action="patch", name="deploy-notes", old_string="1. Build.", new_string="1. Build twice."
    )
    run(tools, action="patch", name="deploy-notes", old_string="2. Ship.", new_string="2. Ship on Fridays.")
    run(tools, action="write_file", name="deploy-notes", file_path="references/env.md", file_content="A=2\n")
    run(tools, action="write_file", name="deploy-notes", file_path="scripts/go.sh", file_content="echo go\n")
    folder = tools.library.home.skills / "ops" / "deploy-notes"
    history = SkillHistory(tools.library.home)

    result = history.restore("deploy-notes", middle["version"], current_dir=folder)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == V1.replace("1. Build.", "1. Build twice.")
    assert (folder / "references" / "env.md").read_text(encoding="utf-8") == "A=1\n"
    assert not (folder / "scripts").exists()  # created after that version: gone, folder and all
    assert sorted(result.written) == [
        "skills/ops/deploy-notes/SKILL.md",
        "skills/ops/deploy-notes/references/env.md",
    ]
    assert result.removed == ["skills/ops/deploy-notes/scripts/go.sh"]
    restores = [e for e in history.entries("deploy-notes") if e.action == "restore"]
    assert len(restores) == 3 and {e.who for e in restores} == {"user"}

    history.restore("deploy-notes", created["version"], current_dir=folder)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == V1
    assert not (folder / "references").exists()


def test_restore_before_a_version_undoes_it_and_restore_can_be_undone(tools: SkillTools) -> None:
    run(tools, action="create", name="deploy-notes", content=V1, category="ops")
    bad = run(tools, action="edit", name="deploy-notes", content=V1.replace("2. Ship.", "2. Forget it."))
    folder = tools.library.home.skills / "ops" / "deploy-notes"
    history = SkillHistory(tools.library.home)
    undo = history.restore("deploy-notes", bad["version"], before=True, current_dir=folder)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == V1
    history.restore("deploy-notes", undo.entries[-1], before=True, current_dir=folder)  # undo the undo
    assert "2. Forget it." in (folder / "SKILL.md").read_text(encoding="utf-8")


def test_a_deleted_skill_comes_back(tools: SkillTools) -> None:
    run(tools, action="create", name="deploy-notes", content=V1, category="ops")
    run(tools, action="write_file", name="deploy-notes", file_path="references/env.md", file_content="A=1\n")
    deleted = run(tools, action="delete", name="deploy-notes")
    assert tools.library.catalog().get("deploy-notes") is None
    SkillHistory(tools.library.home).restore("deploy-notes", deleted["version"], before=True)
    skill = tools.library.catalog().get("deploy-notes")
    assert skill is not None and skill.category == "ops"
    assert (skill.skill_dir / "references" / "env.md").read_text(encoding="utf-8") == "A=1\n"


def test_restore_follows_a_skill_moved_to_another_category(tools: SkillTools) -> None:
    first = run(tools, action="create", name="deploy-notes", content=V1, category="ops")
    run(tools, action="patch", name="deploy-notes", old_string="2. Ship.", new_string="2. Ship now.")
    skills = tools.library.home.skills
    (skills / "release").mkdir()
    (skills / "ops" / "deploy-notes").rename(skills / "release" / "deploy-notes")
    moved = tools.library.catalog().get("deploy-notes")
    SkillHistory(tools.library.home).restore("deploy-notes", first["version"], current_dir=moved.skill_dir)
    assert (skills / "release" / "deploy-notes" / "SKILL.md").read_text(encoding="utf-8") == V1
    assert not (skills / "ops" / "deploy-notes").exists()


def test_history_of_a_hand_made_skill_starts_at_its_first_recorded_change(tools: SkillTools) -> None:
    original = skill_text("notes", "Notes.", "Original body.")
    write_skill(tools.library.home.skills, "notes", original)
    change = run(tools, action="patch", name="notes", old_string="Original body.", new_string="Agent body.")
    history = SkillHistory(tools.library.home)
    history.restore("notes", change["version"], before=True)
    assert (tools.library.home.skills / "notes" / "SKILL.md").read_text(encoding="utf-8") == original


def test_unknown_versions_are_one_sentence_errors(tools: SkillTools) -> None:
    run(tools, action="create", name="deploy-notes", content=V1)
    with pytest.raises(HistoryError, match="Skill 'deploy-notes' has no version 'zzzz'"):
        SkillHistory(tools.library.home).restore("deploy-notes", "zzzz")
    with pytest.raises(HistoryError, match="has no version"):
        SkillHistory(tools.library.home).entry("other", "abc")


def test_binary_files_are_recorded_by_fingerprint_and_never_restored(tools: SkillTools) -> None:
    run(tools, action="create", name="deploy-notes", content=V1)
    folder = tools.library.home.skills / "deploy-notes"
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\x00\xff" * 10)
    deleted = run(tools, action="delete", name="deploy-notes")
    result = SkillHistory(tools.library.home).restore("deploy-notes", deleted["version"], before=True)
    assert any("logo.png (binary" in s for s in result.skipped)
    assert (tools.library.home.skills / "deploy-notes" / "SKILL.md").is_file()

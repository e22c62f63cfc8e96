"""`hws skills tap|search|install|check|update|uninstall` against real git repositories made here
and a well-known index and archives served on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.home import Home
from engine.skills.history import SkillHistory
from tests.support.hub_support import (
    anthropic_layout,
    git,
    hermes_layout,
    hub_config,
    serve,
    tar_gz,
    well_known_site,
)
from tests.support.skills_support import PUBLIC, skill_text, write_skill


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["skills", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def forge(tmp_path: Path, home: Home) -> Path:
    forge = tmp_path / "forge"
    home.config_file.write_text(hub_config(forge), encoding="utf-8")
    return forge


def lock(home: Home) -> dict:
    return json.loads((home.skills / ".hub" / "lock.json").read_text(encoding="utf-8"))["installed"]


def audit_lines(home: Home) -> list[str]:
    return (home.skills / ".hub" / "audit.log").read_text(encoding="utf-8").splitlines()


def test_tap_search_install_check_update_uninstall(
    home: Home, forge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = anthropic_layout(forge, tmp_path / "work")
    code, out, _ = run(capsys, "tap", "add", "anthropics/skills/skills")
    assert code == 0 and "added; it offers 3 skills" in out
    taps = json.loads((home.skills / ".hub" / "taps.json").read_text(encoding="utf-8"))
    assert taps == {"taps": [{"repo": "anthropics/skills", "path": "skills/"}]}  # Hermes' shape
    assert "anthropics/skills/skills" in run(capsys, "tap", "list")[1]

    code, out, _ = run(capsys, "search", "changelog")
    assert code == 0 and "release-notes" in out and "trusted" in out and "pdf" not in out

    code, out, _ = run(capsys, "install", "release-notes")
    assert code == 0 and "Skill 'release-notes' installed at skills/release-notes." in out
    entry = lock(home)["release-notes"]
    assert entry["source"] == "github" and entry["identifier"] == "anthropics/skills/skills/release-notes"
    assert entry["trust_level"] == "trusted" and entry["scan_verdict"] == "safe"
    assert entry["metadata"]["commit"] == git("rev-parse", "HEAD", cwd=repo.work)
    assert any(" INSTALL release-notes github:trusted safe sha256:" in line for line in audit_lines(home))

    code, out, _ = run(capsys, "install", "release-notes", "--force")  # the name is taken: say what frees it
    assert code != 0 and "hws skills update release-notes" in out and "use --force" not in out

    code, out, _ = run(capsys, "check")
    assert code == 0 and "release-notes: up to date" in out

    repo.write(
        "skills/release-notes/SKILL.md", skill_text("release-notes", "Write release notes.", "New step.")
    )
    second = repo.commit("better release notes")
    code, out, _ = run(capsys, "check", "release-notes")
    assert "release-notes: update available" in out and second[:12] in out

    code, out, _ = run(capsys, "update", "release-notes")
    assert code == 0 and "+New step." in out and "-Step one. Step two." in out
    assert "Verdict: SAFE" in out
    assert "New step." in (home.skills / "release-notes" / "SKILL.md").read_text(encoding="utf-8")
    assert lock(home)["release-notes"]["metadata"]["commit"] == second
    assert any(" UPDATE release-notes github:trusted safe" in line for line in audit_lines(home))
    assert "up to date" in run(capsys, "check")[1]

    code, out, _ = run(capsys, "uninstall", "release-notes")
    assert code == 0 and "Uninstalled 'release-notes'" in out
    assert not (home.skills / "release-notes").exists() and "release-notes" not in lock(home)
    assert any(" UNINSTALL release-notes github:trusted n/a user_request" in x for x in audit_lines(home))
    assert run(capsys, "tap", "remove", "anthropics/skills/skills")[0] == 0
    assert json.loads((home.skills / ".hub" / "taps.json").read_text(encoding="utf-8")) == {"taps": []}


def test_a_locally_edited_skill_is_kept_until_force_and_a_pinned_tag_stays(
    home: Home, forge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = anthropic_layout(forge, tmp_path / "work")
    assert run(capsys, "install", "anthropics/skills/skills/release-notes")[0] == 0
    assert run(capsys, "install", "anthropics/skills/skills/docker-debugging@v1")[0] == 0
    assert lock(home)["docker-debugging"]["metadata"]["ref"] == "v1"
    skill_md = home.skills / "release-notes" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nMy own note.\n", encoding="utf-8")
    repo.write("skills/release-notes/SKILL.md", skill_text("release-notes", "Release notes.", "Upstream."))
    repo.write("skills/docker-debugging/NOTES.md", "More.\n")
    repo.commit("upstream change")
    code, out, _ = run(capsys, "check")
    assert "docker-debugging: up to date" in out  # pinned at v1: the tag did not move
    assert "release-notes: update available" in out and "(edited locally)" in out

    code, out, _ = run(capsys, "update", "release-notes")
    assert code == 1 and "was edited here since it was installed" in out and "+Upstream." in out
    assert "My own note." in skill_md.read_text(encoding="utf-8")

    code, out, _ = run(capsys, "update", "--force")
    assert code == 0 and "Upstream." in skill_md.read_text(encoding="utf-8")
    assert "'docker-debugging' is up to date." in out
    history = SkillHistory(home)
    kept = [e for e in history.entries("release-notes") if e.who == "external"]
    assert kept and "+My own note." in history.diff(kept[0])  # the local edit stays in the history


def test_trust_by_source_hostile_refused_and_audited(
    home: Home, forge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_layout(forge, tmp_path / "work")
    hermes_layout(forge, tmp_path / "work")
    assert run(capsys, "tap", "add", "someone/hermes-skills")[0] == 0
    code, out, _ = run(capsys, "install", "someone/hermes-skills/skills/devops/ssh-backdoor")
    assert (
        code == 3 and "Verdict: DANGEROUS" in out and not (home.skills / "devops" / "ssh-backdoor").exists()
    )
    code, out, _ = run(capsys, "install", "someone/hermes-skills/skills/devops/ssh-backdoor", "--force")
    assert code == 3 and "--force does not override a dangerous verdict" in out
    assert any(" BLOCKED server-hardening github:community dangerous" in line for line in audit_lines(home))

    community = "someone/hermes-skills/skills/devops/docker-debugging"
    code, out, _ = run(capsys, "install", community)
    assert code == 1 and "Verdict: CAUTION" in out and "(--force installs it anyway)" in out
    code, out, _ = run(capsys, "install", "anthropics/skills/skills/docker-debugging")
    assert code == 0 and "(github/trusted)" in out  # the trusted publisher's caution installs
    assert run(capsys, "uninstall", "docker-debugging")[0] == 0
    code, out, _ = run(capsys, "install", "docker-debugging", "--force")  # by name: the tap's layout
    assert code == 0 and (home.skills / "devops" / "docker-debugging" / "SKILL.md").is_file()
    assert lock(home)["docker-debugging"]["install_path"] == "devops/docker-debugging"

    code, out, _ = run(capsys, "install", "changelog-writer")  # by name, from the tap
    assert code == 0 and lock(home)["changelog-writer"]["install_path"] == "writing/changelog-writer"
    assert "changelog-writer" in run(capsys, "search", "docs")[1]  # tags under metadata.hermes


def test_well_known_index_archive_and_single_skill_md(
    home: Home, forge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    well_known_site(site, {"pdf": PUBLIC / "pdf"})
    folder = write_skill(tmp_path / "src", "weekly-report", skill_text("weekly-report", "Weekly report."))
    (site / "weekly-report.tar.gz").write_bytes(tar_gz(folder, "weekly-report"))
    write_skill(site / "raw", "standup", skill_text("standup", "Run a standup. Use daily."))
    with serve(site) as base:
        code, out, _ = run(capsys, "tap", "add", base)
        assert code == 0 and "it offers 1 skill" in out
        assert json.loads((home.skills / ".hub" / "taps.json").read_text())["taps"][0]["kind"] == "well-known"
        assert "pdf" in run(capsys, "search", "site")[1]
        code, out, _ = run(capsys, "install", "pdf")
        assert code == 0 and lock(home)["pdf"]["identifier"] == f"well-known:{base}/.well-known/skills/pdf"
        assert (home.skills / "pdf" / "forms.md").is_file()
        assert "pdf: up to date" in run(capsys, "check")[1]

        code, out, _ = run(capsys, "install", f"{base}/weekly-report.tar.gz")
        assert code == 0 and lock(home)["weekly-report"]["source"] == "url"
        code, out, _ = run(capsys, "install", f"{base}/raw/standup/SKILL.md")
        assert code == 0 and (home.skills / "standup" / "SKILL.md").is_file()
        assert "standup: up to date" in run(capsys, "check")[1]
        code, _, err = run(capsys, "install", f"{base}/missing.tar.gz")
        assert code == 1 and "answered HTTP 404" in err
    code, _, err = run(capsys, "tap", "add", "http://example.org")
    assert code == 1 and "not an https:// address" in err


def test_text_from_a_tap_reaches_the_terminal_escaped(
    home: Home, forge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A description is the tap author's text: an escape sequence in it is printed as `\\x1b`,
    never sent to the terminal (where it could retitle the window or repaint the screen)."""
    from tests.support.hub_support import Repo

    repo = Repo(forge, "someone/odd", tmp_path / "work")
    repo.write(
        "skills/odd/SKILL.md",
        '---\nname: odd\ndescription: "Tidy \\e]0;owned\\a notes \\e[2J. Use for tests."\n---\n\nBody.\n',
    )
    repo.commit("odd")
    code, out, _ = run(capsys, "tap", "add", "someone/odd/skills")
    assert code == 0 and "offers 1 skill" in out and "\x1b" not in out and "\\x1b" in out
    code, out, _ = run(capsys, "search", "tidy")
    assert code == 0 and "odd" in out and "\x1b" not in out and "\x07" not in out and "\\x1b" in out

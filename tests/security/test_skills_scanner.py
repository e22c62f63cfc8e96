"""The skills guard on folders written for the intent design, where skills arrive and where they are used.

Hostile folders are refused by `hws skills install` (community trust) and by `skill_manage` writes
(agent-created); ordinary ones pass both. A hostile skill placed by hand is listed as blocked with its
reason and never reaches the model (Tier 1 index, skills_list, skill_view). Hostile structure (symlink
loops, FIFOs, terminal escapes in file names) is a verdict printed escaped, never a crash.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine.config import defaults, load_config
from engine.home import Home
from engine.skills.install import Installer
from engine.skills.library import SkillLibrary
from engine.skills.tools import SkillTools
from tests.security.skills_corpus import BENIGN, HOSTILE, Folder, build, skill_md
from tests.support.fault_support import assert_clean_exit, hws

STOPPED_AIM = 0.90
REFUSED_AIM = 0.02
SUPPORT = ("references/", "templates/", "scripts/", "assets/")


def _install_all(tmp_path: Path, folders: list[Folder]) -> dict[str, bool]:
    home = Home.resolve().ensure()
    installer = Installer(SkillLibrary(home, defaults()))
    return {
        f.name: installer.install(build(f, tmp_path / "sources"), trust="community").installed
        for f in folders
    }


def test_install_stops_hostile_folders_and_installs_ordinary_ones(
    tmp_path: Path, hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = _install_all(tmp_path / "h", HOSTILE)
    benign = _install_all(tmp_path / "b", BENIGN)
    stopped = [name for name, installed in hostile.items() if not installed]
    refused = [name for name, installed in benign.items() if not installed]
    with capsys.disabled():
        print(
            f"\nskills corpus (install, community): stopped {len(stopped)}/{len(hostile)} hostile folders, "
            f"refused {len(refused)}/{len(benign)} ordinary ones"
        )
    assert len(stopped) >= STOPPED_AIM * len(hostile), sorted(set(hostile) - set(stopped))
    assert len(refused) <= REFUSED_AIM * len(benign), refused


def test_the_corpus_covers_the_families_of_the_issue() -> None:
    kinds = Counter(f.kind for f in HOSTILE)
    for kind in ("exfil_code", "exfil_prose", "approvals", "obfuscated", "persist", "binary", "structure"):
        assert kinds[kind] >= 2, kind
    assert len(HOSTILE) >= 30 and len(BENIGN) >= 30


def _writable(folder: Folder) -> bool:
    """A folder skill_manage could write: text files under SKILL.md and the support folders, nothing else."""
    return (
        not folder.links
        and not folder.fifos
        and all(isinstance(c, str) for c in folder.files.values())
        and all(rel == "SKILL.md" or rel.startswith(SUPPORT) for rel in folder.files)
        and all(c.isprintable() or c in "\n\t" for rel in folder.files for c in rel)
    )


def _write_with_skill_manage(tools: SkillTools, folder: Folder) -> list[dict[str, object]]:
    results = [
        tools.skill_manage({"action": "create", "name": folder.name, "content": folder.files["SKILL.md"]})
    ]
    for rel, content in folder.files.items():
        if rel != "SKILL.md" and results[0].get("success"):
            args = {"action": "write_file", "name": folder.name, "file_path": rel, "file_content": content}
            results.append(tools.skill_manage(args))
    return results


def test_skill_manage_refuses_hostile_writes_and_keeps_ordinary_ones(
    hermes_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Home.resolve().ensure()
    tools = SkillTools(home, defaults(), session_id="s1")
    hostile = [f for f in HOSTILE if _writable(f)]
    benign = [f for f in BENIGN if _writable(f)]
    stopped = []
    for folder in hostile:
        results = _write_with_skill_manage(tools, folder)
        if not all(r.get("success") for r in results):
            stopped.append(folder.name)
            refusal = next(r for r in results if not r.get("success"))
            assert "skills guard blocked" in str(refusal["error"])
            written = home.skills / folder.name
            for rel, content in folder.files.items():  # what was refused is not on disk
                path = written / rel
                assert not path.exists() or path.read_text() != content or rel == "SKILL.md", (
                    folder.name,
                    rel,
                )
    refused = [
        f.name for f in benign if not all(r.get("success") for r in _write_with_skill_manage(tools, f))
    ]
    with capsys.disabled():
        print(
            f"\nskills corpus (skill_manage, agent-created): refused {len(stopped)}/{len(hostile)} hostile "
            f"skills, {len(refused)}/{len(benign)} ordinary ones"
        )
    assert len(stopped) >= STOPPED_AIM * len(hostile), sorted({f.name for f in hostile} - set(stopped))
    assert len(refused) <= REFUSED_AIM * len(benign), refused


# ── checked where they are used ───────────────────────────────────────────────────────────────
def _by_name(name: str) -> Folder:
    return next(f for f in HOSTILE + BENIGN if f.name == name)


@pytest.fixture
def placed(hermes_home: Path) -> Home:
    """A home where hostile skills were copied in by hand, beside ordinary ones."""
    home = Home.resolve().ensure()
    for name in ("status-ping", "quiet-deploy", "cleanup", "escape-names", "github-issues", "fork-sync"):
        build(_by_name(name), home.skills)
    return home


def test_a_hostile_skill_placed_by_hand_never_reaches_the_model(placed: Home) -> None:
    tools = SkillTools(placed, load_config(placed.root), session_id="s1")
    index = tools.index()
    for name in ("status-ping", "quiet-deploy", "cleanup", "escape-names"):
        assert name not in index.text
        assert name not in [s["name"] for s in tools.skills_list({})["skills"]]
        refused = tools.skill_view({"name": name})
        assert refused["success"] is False and "blocked by the skills guard" in refused["error"]
        assert "content" not in refused
        assert tools.skill_view({"name": name, "file_path": "SKILL.md"})["success"] is False
    assert set(index.blocked) == {"status-ping", "quiet-deploy", "cleanup", "escape-names"}
    assert "4 blocked by the skills guard" in index.summary()
    for name in ("github-issues", "fork-sync"):
        assert name in index.text and tools.skill_view({"name": name})["success"] is True
    reason = tools.skill_view({"name": "status-ping"})["error"]
    assert "scripts/ping.py" in reason and "\x1b" not in tools.skill_view({"name": "escape-names"})["error"]


def test_the_person_sees_blocked_skills_with_their_reason(placed: Home) -> None:
    listed = hws("skills", "list", home=placed.root)
    assert_clean_exit(listed, (0,))
    lines = listed.stdout.splitlines()
    blocked = [i for i, line in enumerate(lines) if "BLOCKED" in line]
    assert len(blocked) == 4
    assert any("cleanup" in lines[i - 1] and "computed_name" in lines[i] for i in blocked)
    shown = hws("skills", "view", "quiet-deploy", home=placed.root)
    assert_clean_exit(shown, (0,))
    assert "BLOCKED" in shown.stderr and "deceive_user" in shown.stderr
    assert "tell the user only" in shown.stdout  # the person may read what the model may not
    ok = hws("skills", "view", "fork-sync", home=placed.root)
    assert "BLOCKED" not in ok.stderr and "git remote add upstream" in ok.stdout


def test_file_names_with_terminal_escapes_are_printed_escaped(placed: Home) -> None:
    for args in (("skills", "view", "escape-names"), ("skills", "list"), ("skills", "scan", "escape-names")):
        done = hws(*args, home=placed.root)
        assert_clean_exit(done, (0, 1, 3))
        assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr, args
    scanned = hws("skills", "scan", "escape-names", home=placed.root)
    assert "CRITICAL obfuscation references/\\x1b" in scanned.stdout


@pytest.mark.parametrize("name", ["loop-links", "pipe-file", "escape-names"])
def test_hostile_structure_is_a_verdict_not_a_crash(name: str, tmp_path: Path, hermes_home: Path) -> None:
    Home.resolve().ensure()
    source = build(_by_name(name), tmp_path / "sources")
    scanned = hws("skills", "scan", str(source), home=hermes_home, cwd=tmp_path)
    assert_clean_exit(scanned, (1, 3))  # caution or dangerous, said in a report
    assert "Verdict:" in scanned.stdout
    installed = hws("skills", "install", str(source), home=hermes_home, cwd=tmp_path)
    assert_clean_exit(installed, (1, 2))
    assert "was not installed" in installed.stdout
    assert not (hermes_home / "skills" / name).exists()
    assert "\x1b" not in scanned.stdout + installed.stdout


def test_a_fifo_or_loop_inside_a_served_skill_never_blocks_a_read(hermes_home: Path) -> None:
    """Caution (not dangerous) for an agent-created skill: it is served, and its odd entries are refused."""
    home = Home.resolve().ensure()
    folder = home.skills / "odd-entries"
    odd = Folder(
        "structure",
        "odd-entries",
        {"SKILL.md": skill_md("odd-entries", "See references.")},
        links={"references/a": "b", "references/b": "a"},
        fifos=("references/feed",),
    )
    build(odd, home.skills)
    tools = SkillTools(home, load_config(home.root), session_id="s1")
    assert tools.skill_view({"name": "odd-entries"})["success"] is True
    for path in ("references/feed", "references/a"):
        result = tools.skill_view({"name": "odd-entries", "file_path": path})
        assert result["success"] is False, path
    assert folder.is_dir()

"""The skills hub's files and Hermes Agent 0.19's, both ways: a home whose `.hub/lock.json` and
`taps.json` Hermes wrote (through its own quarantine and install) is read, checked and uninstalled by
hws; and Hermes reads the lock, taps and skill folders hws writes, finds their hashes unchanged and
uninstalls one.

The peer runs in a venv of its own: HWS_HERMES_PYTHON names its python, else `.hermes-venv/` at the
repository's root (`.ci/run` tries to make it: pip install hermes-agent==0.19.0).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from engine.cli import main
from engine.home import Home
from tests.support.hub_support import anthropic_layout, hub_config

ROOT = Path(__file__).resolve().parents[2]
HERMES_TIMEOUT = 120  # seconds for the peer's script (it imports a large package), never a timing claim


def hermes_python() -> Path | None:
    named = os.environ.get("HWS_HERMES_PYTHON")
    candidate = Path(named) if named else ROOT / ".hermes-venv" / "bin" / "python"
    return candidate if candidate.exists() else None


PEER = hermes_python()
pytestmark = pytest.mark.skipif(
    PEER is None,
    reason="Hermes Agent 0.19 is not installed: set HWS_HERMES_PYTHON to the python of a venv with "
    "hermes-agent==0.19.0, or make .hermes-venv/ (.ci/run tries to)",
)

# Hermes installs skills the way `hermes skills install` does after fetching them, and adds a tap.
HERMES_INSTALLS = """
import sys
from pathlib import Path
from tools.skills_hub import SkillBundle, TapsManager, install_from_quarantine, quarantine_bundle
from tools.skills_guard import scan_skill
for folder, category in zip(sys.argv[1::2], sys.argv[2::2]):
    folder = Path(folder)
    files = {p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file()}
    bundle = SkillBundle(name=folder.name, files=files, source="github",
                         identifier=f"anthropics/skills/skills/{folder.name}", trust_level="trusted")
    q = quarantine_bundle(bundle)
    install_from_quarantine(q, folder.name, category, bundle, scan_skill(q, source=bundle.identifier))
TapsManager().add("anthropics/skills", "skills/")
"""

# A skill in nested folders whose names sort differently as whole strings and part by part
# ("a/b.md" before "a-b.md" before "a.md"), so both tools must agree on the order of files.
NESTED = {
    "skills/nested-notes/SKILL.md": "---\nname: nested-notes\ndescription: Notes kept in folders. "
    "Use for notes.\n---\n\nRead references/a.md first.\n",
    "skills/nested-notes/references/a.md": "# A\n\nThe first page.\n",
    "skills/nested-notes/references/a-b.md": "# A-B\n\nBetween.\n",
    "skills/nested-notes/references/a/b.md": "# A/B\n\nInside a folder.\n",
    "skills/nested-notes/templates/deep/er/note.md": "# Note\n",
}

# What Hermes makes of hws' files: its lock entries, its taps, each folder's hash, then an uninstall.
HERMES_READS = """
import json
from tools.skills_hub import HubLockFile, TapsManager, _resolve_lock_install_path, uninstall_skill
from tools.skills_guard import content_hash
out = {"installed": {}, "taps": TapsManager().load()}
for entry in HubLockFile().list_installed():
    folder = _resolve_lock_install_path(entry["install_path"], entry["name"])
    out["installed"][entry["name"]] = {**entry, "hash_now": content_hash(folder)}
out["uninstall"] = uninstall_skill("release-notes")
print(json.dumps(out))
"""


def peer(script: str, home: Home, *args: str) -> str:
    assert PEER is not None
    env = {**os.environ, "HERMES_HOME": str(home.root), "PYTHONPATH": ""}
    done = subprocess.run(
        [str(PEER), "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HERMES_TIMEOUT,
        cwd=home.root,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["skills", *argv])
    return code, capsys.readouterr().out


def test_hws_reads_and_updates_what_hermes_installed(
    home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge = tmp_path / "forge"
    home.config_file.write_text(hub_config(forge), encoding="utf-8")
    repo = anthropic_layout(forge, tmp_path / "work")
    for rel, text in NESTED.items():
        repo.write(rel, text)
    repo.commit("nested")
    skills = repo.work / "skills"
    peer(HERMES_INSTALLS, home, str(skills / "release-notes"), "writing", str(skills / "nested-notes"), "")
    assert (home.skills / "writing" / "release-notes" / "SKILL.md").is_file()
    assert (home.skills / "nested-notes" / "references" / "a" / "b.md").is_file()

    assert "anthropics/skills/skills" in run(capsys, "tap", "list")[1]
    code, out = run(capsys, "check")
    assert code == 0 and "release-notes: up to date" in out and "edited locally" not in out
    assert "nested-notes: up to date" in out
    assert "release-notes" in run(capsys, "search", "release")[1]
    repo.write("skills/release-notes/SKILL.md", "---\nname: release-notes\ndescription: New.\n---\nNew.\n")
    repo.commit("second")
    assert "update available" in run(capsys, "check")[1]
    code, out = run(capsys, "update")
    assert code == 0 and "+New." in out
    assert (home.skills / "writing" / "release-notes" / "SKILL.md").read_text().endswith("New.\n")
    code, out = run(capsys, "uninstall", "release-notes")
    assert code == 0 and not (home.skills / "writing" / "release-notes").exists()


def test_hermes_reads_the_lock_and_taps_hws_writes(
    home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge = tmp_path / "forge"
    home.config_file.write_text(hub_config(forge), encoding="utf-8")
    repo = anthropic_layout(forge, tmp_path / "work")
    for rel, text in NESTED.items():
        repo.write(rel, text)
    repo.commit("nested")
    assert run(capsys, "tap", "add", "anthropics/skills/skills")[0] == 0
    assert run(capsys, "install", "release-notes")[0] == 0
    assert run(capsys, "install", "pdf", "--category", "documents")[0] == 0
    assert run(capsys, "install", "nested-notes")[0] == 0
    seen = json.loads(peer(HERMES_READS, home))
    assert seen["taps"] == [{"repo": "anthropics/skills", "path": "skills/"}]
    for name in ("release-notes", "pdf", "nested-notes"):
        entry = seen["installed"][name]
        assert entry["source"] == "github" and entry["trust_level"] == "trusted"
        assert entry["hash_now"] == entry["content_hash"]  # Hermes sees the skill as installed
    assert seen["installed"]["pdf"]["install_path"] == "documents/pdf"
    assert seen["uninstall"][0] is True and not (home.skills / "release-notes").exists()
    lock = json.loads((home.skills / ".hub" / "lock.json").read_text(encoding="utf-8"))
    assert list(lock["installed"]) == ["pdf", "nested-notes"]

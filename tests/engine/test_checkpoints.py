"""Checkpoints of the project's files, end to end: a scripted model edits a project through `hws run`,
and `hws checkpoints` lists, compares and restores it.

The project's own `.git` must come out untouched (HEAD, index bytes and mtime, `git status`),
.gitignored files never reach the shadow repository, a folder over the limits is skipped with one
notice, links out of the project are kept as links and never followed, and git's own config cannot
make a checkpoint run a program or convert a file's bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.fault_support import assert_clean_exit, hws, write_scenario

CONFIG = """\
model:
  default: scripted
  base_url: http://127.0.0.1:9/v1
agent:
  max_turns: 6
"""


def calls_scenario(*calls: tuple[str, dict[str, Any]]) -> str:
    """A model that makes these calls in its first reply, then says it is done."""
    listed = json.dumps([{"name": name, "arguments": arguments} for name, arguments in calls])
    return f"""
    name: edits
    rules:
      - when: {{iteration: 1}}
        times: 1
        reply: {{tool_calls: {listed}}}
      - reply: {{text: "done"}}
    """


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}  # `git status` must not refresh the index it checks
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def own_git_state(project: Path) -> tuple[str, bytes, int, str]:
    index = project / ".git" / "index"
    return (
        git("rev-parse", "HEAD", cwd=project),
        index.read_bytes(),
        index.stat().st_mtime_ns,
        git("status", "--porcelain", "--ignored", cwd=project),
    )


def files_of(project: Path) -> dict[str, bytes]:
    """Every file of the project outside .git (links as their target's name)."""
    found = {}
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if relative.parts[0] == ".git" or (path.is_dir() and not path.is_symlink()):
            continue
        found[relative.as_posix()] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return found


def run_json(home: Path, project: Path, scenario: str, tmp_path: Path) -> list[dict[str, Any]]:
    path = write_scenario(tmp_path, scenario)
    done = hws("run", "--json", "--yolo", "--scenario", str(path), "go", home=home, cwd=project)
    assert_clean_exit(done, (0,))
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def checkpoints(home: Path, project: Path, *args: str) -> dict[str, Any]:
    done = hws("checkpoints", *args, "--json", home=home, cwd=project)
    assert_clean_exit(done, (0,))
    return json.loads(done.stdout)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def shadow_objects(home: Path) -> bytes:
    """Every object of every shadow repository, uncompressed."""
    out = b""
    for git_dir in (home / "hws" / "checkpoints").glob("*"):
        if git_dir.is_dir():
            env = {**os.environ, "GIT_DIR": str(git_dir)}
            out += subprocess.run(
                ["git", "cat-file", "--batch-all-objects", "--batch"],
                env=env,
                capture_output=True,
                check=True,
            ).stdout
    return out


@pytest.fixture
def home(hermes_home: Path) -> Path:
    hermes_home.mkdir(parents=True, exist_ok=True)
    (hermes_home / "config.yaml").write_text(CONFIG, encoding="utf-8")
    return hermes_home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project whose path has a space, with an ignored secret and a committed history."""
    folder = tmp_path / "my project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "a.txt").write_text("alpha\n")
    (folder / "b.txt").write_text("bravo x\n")
    (folder / "notes file.txt").write_text("first notes\n")
    (folder / ".gitignore").write_text("secret.env\nbuild/\n")
    (folder / "secret.env").write_text("TOKEN=ignored-needle-4417\n")
    (folder / "build").mkdir()
    (folder / "build" / "out.bin").write_text("built-needle-4417\n")
    git("init", "-q", cwd=folder)
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A", cwd=folder)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first", cwd=folder)
    (folder / "b.txt").write_text("bravo x, not committed\n")  # a change of the person's, kept through it all
    return folder


AGENT_EDITS = (
    ("write_file", {"path": "src/a.txt", "content": "alpha by the agent\n"}),
    ("patch", {"path": "b.txt", "old_string": "bravo x", "new_string": "bravo y"}),
    ("write_file", {"path": "notes file.txt", "content": "notes by the agent\n"}),
    ("terminal", {"command": "sed -i s/alpha/ALPHA/ src/a.txt; echo made > 'new file.txt'"}),
)


def test_an_agent_edit_is_rolled_back_and_the_projects_git_is_untouched(
    home: Path, project: Path, tmp_path: Path
) -> None:
    before_files, before_git = files_of(project), own_git_state(project)
    events = run_json(home, project, calls_scenario(*AGENT_EDITS), tmp_path)

    taken = of_type(events, "checkpoint_taken")
    assert len(taken) == 1, events  # one per turn, before its first change
    assert taken[0]["turn"] == 1 and taken[0]["reason"] == "write_file src/a.txt"
    assert not taken[0]["unchanged"]
    first_tool = next(i for i, e in enumerate(events) if e["type"] == "tool_finished")
    assert events.index(taken[0]) < first_tool
    edited = files_of(project)
    assert edited["src/a.txt"] == b"ALPHA by the agent\n" and edited["new file.txt"] == b"made\n"

    listed = checkpoints(home, project, "list")
    assert [c["id"] for c in listed["checkpoints"]] == [taken[0]["checkpoint_id"]]
    assert listed["checkpoints"][0]["changed_since"] == 4

    restored = checkpoints(home, project, "restore", taken[0]["checkpoint_id"])
    assert restored["removed"] == ["new file.txt"]
    assert files_of(project) == before_files
    assert own_git_state(project) == before_git
    assert not (project / ".hws").exists()  # nothing of the checkpoints is written into the project


def test_one_path_is_restored_and_a_restore_is_undone(home: Path, project: Path, tmp_path: Path) -> None:
    before = files_of(project)
    events = run_json(home, project, calls_scenario(*AGENT_EDITS), tmp_path)
    ident = of_type(events, "checkpoint_taken")[0]["checkpoint_id"]
    after_agent = files_of(project)

    one = checkpoints(home, project, "restore", ident, "notes file.txt")
    assert [c["path"] for c in one["changes"]] == ["notes file.txt"]
    now = files_of(project)
    assert now["notes file.txt"] == before["notes file.txt"]
    assert {k: v for k, v in now.items() if k != "notes file.txt"} == {
        k: v for k, v in after_agent.items() if k != "notes file.txt"
    }

    nowhere = hws("checkpoints", "restore", ident, "nowhere.txt", home=home, cwd=project)
    assert_clean_exit(nowhere, (1,))
    assert "nowhere.txt is neither in checkpoint" in nowhere.stderr

    whole = checkpoints(home, project, "restore", ident)
    assert files_of(project) == before
    undone = checkpoints(home, project, "restore", whole["undo"]["id"])
    assert files_of(project) == now  # the restore itself rolled back: the agent's new file is back
    assert "new file.txt" in [c["path"] for c in undone["changes"] if c["status"] == "added"]


def test_ignored_files_never_reach_the_shadow_repository(home: Path, project: Path, tmp_path: Path) -> None:
    run_json(home, project, calls_scenario(*AGENT_EDITS[:1]), tmp_path)
    stored = shadow_objects(home)
    assert b"first notes" in stored  # the folder was saved
    assert b"ignored-needle-4417" not in stored
    assert b"built-needle-4417" not in stored


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("max_files: 40", "more than 40 files (checkpoints.max_files)"),
        ("max_entries_walked: 50", "more than 50 files and folders (checkpoints.max_entries_walked)"),
    ],
)
def test_a_folder_over_the_limits_is_skipped_with_one_notice(
    home: Path, project: Path, tmp_path: Path, setting: str, said: str
) -> None:
    (home / "config.yaml").write_text(CONFIG + f"checkpoints:\n  {setting}\n", encoding="utf-8")
    for number in range(60):
        (project / f"many-{number}.txt").write_text(f"{number}\n")
    events = run_json(home, project, calls_scenario(*AGENT_EDITS), tmp_path)
    skipped = of_type(events, "checkpoint_skipped")
    assert len(skipped) == 1 and said in skipped[0]["message"], skipped
    assert not of_type(events, "checkpoint_taken")
    assert files_of(project)["src/a.txt"] == b"ALPHA by the agent\n"  # the turn went on


def test_ignored_files_do_not_count_against_the_limits(home: Path, project: Path, tmp_path: Path) -> None:
    (home / "config.yaml").write_text(CONFIG + "checkpoints:\n  max_files: 40\n", encoding="utf-8")
    for number in range(60):
        (project / "build" / f"out-{number}.o").write_text(f"{number}\n")
    events = run_json(home, project, calls_scenario(*AGENT_EDITS), tmp_path)
    assert of_type(events, "checkpoint_taken") and not of_type(events, "checkpoint_skipped")


def test_read_only_commands_take_no_checkpoint_and_disabled_takes_none(
    home: Path, project: Path, tmp_path: Path
) -> None:
    events = run_json(home, project, calls_scenario(("terminal", {"command": "ls -la"})), tmp_path)
    assert not of_type(events, "checkpoint_taken")
    (home / "config.yaml").write_text(CONFIG + "checkpoints:\n  enabled: false\n", encoding="utf-8")
    events = run_json(home, project, calls_scenario(*AGENT_EDITS[:1]), tmp_path)
    assert not of_type(events, "checkpoint_taken") and not of_type(events, "checkpoint_skipped")
    assert not (home / "hws" / "checkpoints").exists() or not any((home / "hws" / "checkpoints").iterdir())


def test_links_out_of_the_project_are_kept_as_links(home: Path, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("outside-needle-9931\n")
    (project / "linked dir").symlink_to(outside)
    (project / "linked file").symlink_to(outside / "data.txt")
    before = files_of(project)
    command = "rm 'linked dir' 'linked file'; mkdir 'linked dir'; echo mine > 'linked dir/data.txt'"
    events = run_json(home, project, calls_scenario(("terminal", {"command": command})), tmp_path)
    ident = of_type(events, "checkpoint_taken")[0]["checkpoint_id"]
    assert b"outside-needle-9931" not in shadow_objects(home)

    checkpoints(home, project, "restore", ident)
    assert (project / "linked dir").is_symlink() and (project / "linked file").is_symlink()
    assert files_of(project) == before
    assert (outside / "data.txt").read_text() == "outside-needle-9931\n"
    assert sorted(p.name for p in outside.iterdir()) == ["data.txt"]


def test_git_config_cannot_run_a_program_nor_convert_bytes(home: Path, project: Path, tmp_path: Path) -> None:
    """A filter in the person's global git config, named by the project's .gitattributes, would run a
    program on every `git add`; CRLF conversion would change bytes. Neither applies to checkpoints."""
    ran = tmp_path / "filter-ran"
    user_home = Path(os.environ["HOME"])
    user_home.mkdir(parents=True, exist_ok=True)
    (user_home / ".gitconfig").write_text(f'[filter "evil"]\n\tclean = touch {ran}; cat\n\tsmudge = cat\n')
    (project / ".gitattributes").write_text("* filter=evil\n*.txt text eol=crlf\n")
    (project / "lf.txt").write_bytes(b"one\ntwo\n")
    (project / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    before = files_of(project)
    command = "echo changed > lf.txt; echo changed > crlf.txt"
    events = run_json(home, project, calls_scenario(("terminal", {"command": command})), tmp_path)
    ident = of_type(events, "checkpoint_taken")[0]["checkpoint_id"]
    checkpoints(home, project, "restore", ident)
    assert files_of(project) == before
    assert not ran.exists()


def test_cli_sentences(home: Path, project: Path) -> None:
    done = hws("checkpoints", "list", home=home, cwd=project)
    assert_clean_exit(done, (0,))
    assert "No checkpoints" in done.stdout
    done = hws("checkpoints", "restore", "--", "--help-me", home=home, cwd=project)
    assert_clean_exit(done, (1,))
    assert "not a checkpoint id" in done.stderr
    done = hws("checkpoints", "diff", "abcdef12", home=home, cwd=project)
    assert_clean_exit(done, (1,))
    assert "No checkpoint abcdef12" in done.stderr


def test_a_restore_never_writes_through_a_link_the_agent_put_in_place(
    home: Path, project: Path, tmp_path: Path
) -> None:
    """The agent swaps the `src` folder for a link to a folder outside; restoring `src/a.txt` must put a
    real folder back, not write through the link."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    before = files_of(project)
    command = f"rm -rf src && ln -s {outside} src"
    events = run_json(home, project, calls_scenario(("terminal", {"command": command})), tmp_path)
    ident = of_type(events, "checkpoint_taken")[0]["checkpoint_id"]
    assert (project / "src").is_symlink()

    checkpoints(home, project, "restore", ident)
    assert not (project / "src").is_symlink() and (project / "src" / "a.txt").read_text() == "alpha\n"
    assert list(outside.iterdir()) == []
    assert files_of(project) == before


def test_only_the_newest_checkpoints_are_kept(home: Path, project: Path, tmp_path: Path) -> None:
    (home / "config.yaml").write_text(CONFIG + "checkpoints:\n  max_snapshots: 2\n", encoding="utf-8")
    events = run_json(home, project, calls_scenario(*AGENT_EDITS[:1]), tmp_path)
    first = of_type(events, "checkpoint_taken")[0]["checkpoint_id"]
    undo = checkpoints(home, project, "restore", first)["undo"]["id"]  # a second checkpoint
    again = checkpoints(home, project, "restore", undo)["undo"]["id"]  # a third: the first goes
    assert [c["id"] for c in checkpoints(home, project, "list")["checkpoints"]] == [again, undo]
    assert b"first notes" in shadow_objects(home)  # what the kept ones hold is still there


def test_a_key_in_the_prompting_command_is_not_stored(home: Path, project: Path, tmp_path: Path) -> None:
    key = "sk-" + "Zq7" * 16
    (home / ".env").write_text(f"OPENAI_API_KEY={key}\n", encoding="utf-8")
    command = f"echo {key} > /dev/null; echo changed > b.txt"
    events = run_json(home, project, calls_scenario(("terminal", {"command": command})), tmp_path)
    assert of_type(events, "checkpoint_taken")
    listed = checkpoints(home, project, "list")["checkpoints"]
    assert key not in json.dumps(listed) and key.encode() not in shadow_objects(home)

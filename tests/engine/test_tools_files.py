"""read_file, write_file, patch and search_files on real files, folders and symlinks."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.support.tool_helpers import Bench, make_bench, with_settings

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def error_of(content: str) -> str:
    return str(json.loads(content)["error"])


# read_file


async def test_read_numbers_lines_and_reports_the_size(bench: Bench) -> None:
    (bench.cwd / "app.py").write_text("import os\n\nprint(os.name)\n")
    outcome = await bench.call("read_file", {"path": "app.py"})
    assert outcome.ok and outcome.content == "1|import os\n2|\n3|print(os.name)"
    assert outcome.summary == "3 lines"


async def test_read_window_says_where_to_continue(bench: Bench) -> None:
    (bench.cwd / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    outcome = await bench.call("read_file", {"path": "big.txt", "offset": 10, "limit": 3})
    assert outcome.content.split("\n") == [
        "10|line 10",
        "11|line 11",
        "12|line 12",
        "[showing lines 10-12 of 100; next: offset=13]",
    ]
    assert outcome.summary == "lines 10-12 of 100"
    outcome = await bench.call("read_file", {"path": "big.txt", "offset": 99})
    assert outcome.content.endswith("100|line 100\n[showing lines 99-100 of 100]")
    outcome = await bench.call("read_file", {"path": "big.txt", "offset": 101})
    assert not outcome.ok and "offset 101 is past the end of big.txt, which has 100 lines" in outcome.content


async def test_read_counts_a_huge_file_without_showing_it(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home, with_settings(tool_output__max_lines=50))
    with (bench.cwd / "huge.log").open("w") as handle:
        for n in range(200_000):
            handle.write(f"entry {n}\n")
        handle.write("no newline at the end")
    outcome = await bench.call("read_file", {"path": "huge.log"})
    lines = outcome.content.split("\n")
    assert len(lines) == 49 and lines[47] == "48|entry 47" and not outcome.cut
    assert lines[-1] == "[showing lines 1-48 of 200,001; next: offset=49]"


async def test_read_stops_at_the_char_limit(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home, with_settings(file_read_max_chars=100))
    (bench.cwd / "a.txt").write_text("".join(f"{'x' * 20}\n" for _ in range(20)))
    outcome = await bench.call("read_file", {"path": "a.txt"})
    body = outcome.content.split("\n")
    assert (
        len(body) == 5 and body[-1] == "[showing lines 1-4 of 20 (the 100-char read limit); next: offset=5]"
    )


async def test_read_cuts_very_long_lines(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home, with_settings(tool_output__max_line_length=30))
    (bench.cwd / "min.js").write_text("a" * 100 + "\n")
    outcome = await bench.call("read_file", {"path": "min.js"})
    assert outcome.content == "1|" + "a" * 14 + "… [+86 chars]" and not outcome.cut
    assert len(outcome.content) <= 30


async def test_binary_files_are_described_not_dumped(bench: Bench) -> None:
    (bench.cwd / "logo.png").write_bytes(PNG)
    (bench.cwd / "blob.dat").write_bytes(b"abc\x00\x01\x02" * 100)
    outcome = await bench.call("read_file", {"path": "logo.png"})
    assert outcome.ok and "binary file (PNG image, 1,032 bytes)" in outcome.content
    assert "\x89" not in outcome.content and len(outcome.content) < 300
    outcome = await bench.call("read_file", {"path": "blob.dat"})
    assert "binary file (binary data" in outcome.content


async def test_non_utf8_text_is_shown_with_a_note(bench: Bench) -> None:
    (bench.cwd / "latin.txt").write_bytes("caf\xe9\nok\n".encode("latin-1"))
    outcome = await bench.call("read_file", {"path": "latin.txt"})
    assert (
        outcome.content == "1|caf\ufffd\n2|ok\n[not valid UTF-8 at line 1: undecodable bytes shown as U+FFFD]"
    )
    (bench.cwd / "wide.txt").write_bytes("héllo\nwörld\n".encode("utf-16"))
    outcome = await bench.call("read_file", {"path": "wide.txt"})
    assert outcome.content.startswith("1|héllo\n2|wörld\n[decoded as UTF-16")
    outcome = await bench.call("read_file", {"path": "wide.txt", "offset": 2})
    assert outcome.content.startswith("2|wörld\n") and outcome.summary == "lines 2-2 of 2"


async def test_empty_file_folder_and_missing_file(bench: Bench) -> None:
    (bench.cwd / "empty.txt").write_text("")
    (bench.cwd / "src").mkdir()
    (bench.cwd / "src" / "main.py").write_text("x\n")
    (bench.cwd / "src" / "lib").mkdir()
    assert (await bench.call("read_file", {"path": "empty.txt"})).content == "empty.txt is empty (0 lines)."
    outcome = await bench.call("read_file", {"path": "src"})
    assert outcome.content == "src is a folder with 2 entries:\nlib/\nmain.py"
    outcome = await bench.call("read_file", {"path": "src/mian.py"})
    assert (
        not outcome.ok
        and error_of(outcome.content) == "src/mian.py does not exist. Similar names there: main.py."
    )
    outcome = await bench.call("read_file", {"path": "nowhere/x.py"})
    assert "nor does its folder" in error_of(outcome.content)


async def test_fifo_is_refused_instead_of_blocking(bench: Bench) -> None:
    os.mkfifo(bench.cwd / "pipe")
    outcome = await bench.call("read_file", {"path": "pipe"})
    assert not outcome.ok and "not a regular file" in outcome.content


# write_file


async def test_write_creates_folders_atomically_with_a_normal_mode(bench: Bench) -> None:
    outcome = await bench.call("write_file", {"path": "pkg/sub/mod.py", "content": "a = 1\nb = 2\n"})
    target = bench.cwd / "pkg" / "sub" / "mod.py"
    assert outcome.ok and target.read_text() == "a = 1\nb = 2\n"
    assert outcome.content == "Created pkg/sub/mod.py (2 lines, 12 bytes)."
    assert outcome.summary == "new file, 2 lines"
    assert "+a = 1" in outcome.display
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in target.parent.iterdir()) == ["mod.py"]  # no temp files left behind


async def test_write_keeps_the_mode_of_an_existing_file(bench: Bench) -> None:
    script = bench.cwd / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    await bench.call("read_file", {"path": "run.sh"})
    outcome = await bench.call("write_file", {"path": "run.sh", "content": "echo new\n"})
    assert outcome.ok and outcome.summary == "1 line (was 1)"
    assert script.read_text() == "echo new\n" and stat.S_IMODE(script.stat().st_mode) == 0o755


async def test_write_refuses_to_overwrite_someone_elses_edit(bench: Bench) -> None:
    notes = bench.cwd / "notes.md"
    notes.write_text("v1\n")
    await bench.call("read_file", {"path": "notes.md"})
    notes.write_text("v2 by the user\n")
    outcome = await bench.call("write_file", {"path": "notes.md", "content": "v1 plus agent\n"})
    assert not outcome.ok and "changed on disk since you last read or wrote it" in outcome.content
    assert notes.read_text() == "v2 by the user\n"
    await bench.call("read_file", {"path": "notes.md"})
    assert (await bench.call("write_file", {"path": "notes.md", "content": "merged\n"})).ok
    assert (await bench.call("write_file", {"path": "notes.md", "content": "again\n"})).ok  # its own write
    assert notes.read_text() == "again\n"


async def test_write_onto_a_folder_fails_cleanly(bench: Bench) -> None:
    (bench.cwd / "dir").mkdir()
    outcome = await bench.call("write_file", {"path": "dir", "content": "x"})
    assert not outcome.ok and error_of(outcome.content) == "dir is a folder, not a file."


async def test_write_through_an_inner_symlink_keeps_the_link(bench: Bench) -> None:
    (bench.cwd / "real.txt").write_text("old\n")
    (bench.cwd / "link.txt").symlink_to("real.txt")
    outcome = await bench.call("write_file", {"path": "link.txt", "content": "new\n"})
    assert outcome.ok and (bench.cwd / "link.txt").is_symlink()
    assert (bench.cwd / "real.txt").read_text() == "new\n"


# patch


async def test_patch_replaces_a_unique_string(bench: Bench) -> None:
    (bench.cwd / "a.py").write_text("def f():\n    return 1\n\nprint(f())\n")
    outcome = await bench.call("patch", {"path": "a.py", "old_string": "return 1", "new_string": "return 2"})
    assert outcome.ok and (bench.cwd / "a.py").read_text() == "def f():\n    return 2\n\nprint(f())\n"
    assert outcome.content == "Replaced 1 occurrence in a.py (line 2; +1 -1 lines)."
    assert outcome.summary == "1 replacement, +1 -1 lines"
    assert "-    return 1\n+    return 2\n" in outcome.display


async def test_patch_needs_a_unique_match_or_replace_all(bench: Bench) -> None:
    (bench.cwd / "a.txt").write_text("x = 1\ny = 2\nx = 1\n")
    outcome = await bench.call("patch", {"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"})
    assert not outcome.ok and "occurs 2 times in a.txt (lines 1, 3)" in outcome.content
    assert (bench.cwd / "a.txt").read_text() == "x = 1\ny = 2\nx = 1\n"
    args = {"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": True}
    outcome = await bench.call("patch", args)
    assert outcome.ok and outcome.summary == "2 replacements, +2 -2 lines"
    assert (bench.cwd / "a.txt").read_text() == "x = 3\ny = 2\nx = 3\n"


async def test_patch_miss_shows_the_file_near_the_closest_line(bench: Bench) -> None:
    lines = [f"value_{n} = {n}" for n in range(1, 41)]
    (bench.cwd / "conf.py").write_text("\n".join(lines) + "\n")
    args = {"path": "conf.py", "old_string": "value_30 = 300", "new_string": "value_30 = 3"}
    outcome = await bench.call("patch", args)
    error = error_of(outcome.content)
    assert error.startswith("old_string was not found in conf.py.")
    assert "Lines 28-39 of 40 (near the closest match):\n28|value_28 = 28" in error
    assert "30|value_30 = 30" in error


async def test_patch_miss_explains_whitespace_and_line_prefixes(bench: Bench) -> None:
    (bench.cwd / "a.py").write_text("if x:\n    go()\n")
    outcome = await bench.call("patch", {"path": "a.py", "old_string": "if x:\n  go()", "new_string": "y"})
    assert "whitespace or indentation differs" in outcome.content
    outcome = await bench.call("patch", {"path": "a.py", "old_string": "2|    go()", "new_string": "y"})
    assert "`N|` prefixes from read_file" in outcome.content


async def test_patch_keeps_crlf_line_endings(bench: Bench) -> None:
    (bench.cwd / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    outcome = await bench.call("patch", {"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"})
    assert outcome.ok and (bench.cwd / "win.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_patch_errors(bench: Bench) -> None:
    (bench.cwd / "latin.txt").write_bytes(b"caf\xe9\n")
    outcome = await bench.call("patch", {"path": "latin.txt", "old_string": "caf", "new_string": "tea"})
    assert (
        "not valid UTF-8 (byte 3)" in outcome.content
        and (bench.cwd / "latin.txt").read_bytes() == b"caf\xe9\n"
    )
    outcome = await bench.call("patch", {"path": "new.txt", "old_string": "a", "new_string": "b"})
    assert error_of(outcome.content) == "new.txt does not exist; use write_file to create it."
    (bench.cwd / "same.txt").write_text("a\n")
    outcome = await bench.call("patch", {"path": "same.txt", "old_string": "a", "new_string": "a"})
    assert "identical" in outcome.content
    outcome = await bench.call("patch", {"path": "same.txt", "old_string": "", "new_string": "b"})
    assert "`old_string` must not be empty." in outcome.content


# search_files


@pytest.fixture
def tree(bench: Bench) -> Bench:
    files = {
        "src/app.py": "import os\ndef main():\n    return os.getcwd()\n",
        "src/util.py": "def helper():\n    return 'MAIN'\n",
        "docs/readme.md": "Run main() to start.\n",
        ".git/config": "main = true\n",
        "node_modules/pkg/index.js": "function main() {}\n",
        ".venv/lib/site.py": "def main(): pass\n",
    }
    for name, text in files.items():
        path = bench.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (bench.cwd / "src" / "logo.png").write_bytes(PNG + b"main")
    return bench


async def test_content_search_skips_tool_folders_and_binaries(tree: Bench) -> None:
    outcome = await tree.call("search_files", {"pattern": r"main\(\)"})
    assert outcome.content.split("\n") == [
        "docs/readme.md:1: Run main() to start.",
        "src/app.py:2: def main():",
    ]
    assert outcome.summary == "2 matches in 2 files"


async def test_content_search_glob_case_and_path(tree: Bench) -> None:
    outcome = await tree.call(
        "search_files", {"pattern": "main", "glob": "*.py", "ignore_case": True, "path": "src"}
    )
    assert outcome.content.split("\n") == ["src/app.py:2: def main():", "src/util.py:2: return 'MAIN'"]


async def test_search_limit_and_no_matches(tree: Bench) -> None:
    outcome = await tree.call("search_files", {"pattern": "return", "limit": 1})
    assert outcome.content.split("\n") == [
        "src/app.py:3: return os.getcwd()",
        "[stopped at 1 matches; narrow the pattern or the path to see the rest]",
    ]
    outcome = await tree.call("search_files", {"pattern": "nothing_here"})
    assert (
        outcome.ok
        and outcome.content == "No matches for 'nothing_here' in the working directory."
        and outcome.summary == "no matches"
    )


async def test_invalid_regex_is_explained(tree: Bench) -> None:
    outcome = await tree.call("search_files", {"pattern": "main("})
    assert (
        not outcome.ok
        and "not a valid Python regex: missing ), unterminated subpattern at position 4"
        in (error_of(outcome.content))
    )


async def test_file_name_search(tree: Bench) -> None:
    outcome = await tree.call("search_files", {"pattern": "*.py", "target": "files"})
    assert outcome.content == "src/app.py\nsrc/util.py" and outcome.summary == "2 files"
    outcome = await tree.call("search_files", {"pattern": "src/*.png", "target": "files"})
    assert outcome.content == "src/logo.png"


async def test_search_does_not_follow_links_out_of_bounds(tree: Bench, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("main password\n")
    (tree.cwd / "src" / "leak.txt").symlink_to(secret)
    (tree.cwd / "linkdir").symlink_to(secret.parent)
    outcome = await tree.call("search_files", {"pattern": "password"})
    assert outcome.content.split("\n") == [
        "No matches for 'password' in the working directory.",
        "[1 symlink leading outside the allowed folders skipped]",
    ]
    assert "[1 symlink leading outside the allowed folders skipped]" in outcome.content


# path safety


async def test_dotdot_and_absolute_paths_outside_need_approval(bench: Bench, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n")
    for path in ("../outside.txt", str(outside)):
        outcome = await bench.call("read_file", {"path": path})
        assert not outcome.ok and "private" not in outcome.content
        assert "The user declined to let read_file read" in outcome.content
    assert len(bench.user.requests) == 2
    request = bench.user.requests[0]
    assert request.tool == "read_file" and request.command == f"read {outside}"
    assert "outside the working directory and the home" in request.reason
    events = [e for e in bench.events if type(e).__name__ == "ApprovalNeeded"]
    assert [e.request_id for e in events] == [r.request_id for r in bench.user.requests]  # type: ignore[attr-defined]


async def test_approval_once_session_and_yolo(bench: Bench, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    (folder / "deep").mkdir(parents=True)
    (folder / "a.txt").write_text("A\n")
    (folder / "deep" / "b.txt").write_text("B\n")
    bench.user.answers = ["once"]
    assert (await bench.call("read_file", {"path": str(folder / "a.txt")})).content == "1|A"
    assert not (await bench.call("read_file", {"path": str(folder / "a.txt")})).ok  # once means once
    bench.user.answers = ["session"]
    assert (await bench.call("read_file", {"path": str(folder / "a.txt")})).ok
    assert (await bench.call("read_file", {"path": str(folder / "deep" / "b.txt")})).content == "1|B"
    assert len(bench.user.requests) == 3  # the folder is allowed for the rest of the session
    write = await bench.call("write_file", {"path": str(folder / "c.txt"), "content": "x"})
    assert not write.ok and len(bench.user.requests) == 4  # a read grant does not allow writing
    bench.ctx.yolo = True
    assert (await bench.call("write_file", {"path": str(folder / "c.txt"), "content": "x"})).ok
    assert len(bench.user.requests) == 4


async def test_an_unknown_answer_counts_as_deny(bench: Bench, tmp_path: Path) -> None:
    (tmp_path / "o.txt").write_text("x")
    bench.user.answers = ["always please"]
    assert not (await bench.call("read_file", {"path": str(tmp_path / "o.txt")})).ok


async def test_symlinks_cannot_escape(bench: Bench, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "id_rsa").write_text("KEY\n")
    (bench.cwd / "innocent.txt").symlink_to(outside / "id_rsa")
    (bench.cwd / "vendor").symlink_to(outside)
    outcome = await bench.call("read_file", {"path": "innocent.txt"})
    assert not outcome.ok and "KEY" not in outcome.content
    assert "leads through a symlink to" in bench.user.requests[-1].reason
    outcome = await bench.call("write_file", {"path": "vendor/new.txt", "content": "x"})
    assert not outcome.ok and not (outside / "new.txt").exists()
    outcome = await bench.call("patch", {"path": "vendor/id_rsa", "old_string": "KEY", "new_string": "K"})
    assert not outcome.ok and (outside / "id_rsa").read_text() == "KEY\n"


async def test_home_is_readable_but_its_stores_are_not_writable(bench: Bench) -> None:
    memory = bench.home.memories / "MEMORY.md"
    memory.write_text("note\n")
    skill = bench.home.skills / "dev" / "x" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: x\n---\n")
    bench.ctx.yolo = True  # even yolo does not open these
    assert (await bench.call("read_file", {"path": str(memory)})).content == "1|note"
    for path in (str(memory), "~/.hermes/memories/USER.md", "$HERMES_HOME/memories/MEMORY.md"):
        outcome = await bench.call("write_file", {"path": path, "content": "overwritten"})
        assert not outcome.ok and "use the `memory` tool" in outcome.content
    outcome = await bench.call("patch", {"path": str(skill), "old_string": "x", "new_string": "y"})
    assert not outcome.ok and "use the `skill_manage` tool" in outcome.content
    (bench.cwd / "mem").symlink_to(bench.home.memories)
    outcome = await bench.call("write_file", {"path": "mem/MEMORY.md", "content": "sneaky"})
    assert not outcome.ok and memory.read_text() == "note\n"
    outcome = await bench.call("write_file", {"path": str(bench.home.state_db), "content": ""})
    assert "session database" in outcome.content
    assert (await bench.call("write_file", {"path": str(bench.home.root / "notes.txt"), "content": "ok"})).ok
    assert bench.user.requests == []


async def test_home_secrets_need_approval_to_read(bench: Bench) -> None:
    bench.home.env_file.write_text("OPENROUTER_API_KEY=sk-secret\n")
    outcome = await bench.call("read_file", {"path": "~/.hermes/.env"})
    assert not outcome.ok and "sk-secret" not in outcome.content
    assert "holds API keys" in bench.user.requests[0].reason
    soul = await bench.call("read_file", {"path": str(bench.home.soul)})
    assert soul.ok and len(bench.user.requests) == 1
    (bench.cwd / "env-link").symlink_to(bench.home.env_file)
    for path in (str(bench.home.root), "."):
        found = await bench.call("search_files", {"pattern": "sk-secret", "path": path})
        assert found.ok and found.summary == "no matches", path

"""Links are checked when a file is opened: a symlink swapped in after the path was judged is refused,
and a hard link to a protected file of the home is refused under any name but its own."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from engine.tools import paths, safe_open
from engine.tools.context import Decision
from engine.tools.errors import ToolError
from tests.support.tool_helpers import Bench


def swap_for_symlink(folder: Path, target: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".orig"))
    folder.symlink_to(target)


@pytest.fixture
def swap_after_judging(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, Path]]:
    """Folders to swap for symlinks right after a tool's path was judged, before it is opened."""
    swaps: list[tuple[Path, Path]] = []

    def wrap(judge: Any) -> Any:
        async def judged(ctx: Any, tool: str, raw: str) -> paths.ResolvedPath:
            target = await judge(ctx, tool, raw)
            while swaps:
                swap_for_symlink(*swaps.pop())
            return target

        return judged

    monkeypatch.setattr(paths, "for_write", wrap(paths.for_write))
    monkeypatch.setattr(paths, "for_read", wrap(paths.for_read))
    return swaps


@pytest.mark.parametrize("tool", ["write_file", "patch"])
async def test_a_folder_swapped_after_the_check_does_not_redirect_a_write(
    bench: Bench, tmp_path: Path, swap_after_judging: list[tuple[Path, Path]], tool: str
) -> None:
    docs = bench.cwd / "docs" / "deep"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text("old\n")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "a.md").write_text("old\n")
    swap_after_judging.append((docs, victim))
    arguments = {"path": "docs/deep/a.md", "content": "planted\n"}
    if tool == "patch":
        arguments = {"path": "docs/deep/a.md", "old_string": "old", "new_string": "planted"}
    outcome = await bench.call(tool, arguments)
    assert not outcome.ok and "is a symlink now" in outcome.content, outcome.content
    assert (victim / "a.md").read_text() == "old\n" and sorted(os.listdir(victim)) == ["a.md"]


async def test_a_final_name_swapped_for_a_symlink_is_neither_read_nor_replaced(
    bench: Bench, tmp_path: Path, swap_after_judging: list[tuple[Path, Path]]
) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("KEY\n")
    (bench.cwd / "notes.txt").write_text("notes\n")
    swap_after_judging.append((bench.cwd / "notes.txt", secret))
    read = await bench.call("read_file", {"path": "notes.txt"})
    assert not read.ok and "KEY" not in read.content and "is a symlink now" in read.content
    write = await bench.call("write_file", {"path": "notes.txt", "content": "x"})
    assert not write.ok and secret.read_text() == "KEY\n"


async def test_queued_writes_racing_a_swap_never_land_outside(bench: Bench, tmp_path: Path) -> None:
    """Writes queued together while another call swaps their folder: each lands inside or is refused."""
    (bench.cwd / "out").mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()

    async def write(n: int) -> Any:
        return await bench.call("write_file", {"path": f"out/f{n}.txt", "content": f"{n}\n"})

    async def swap() -> None:
        await asyncio.sleep(0)
        swap_for_symlink(bench.cwd / "out", victim)

    outcomes = await asyncio.gather(
        *(write(n) for n in range(12)), swap(), *(write(n) for n in range(12, 24))
    )
    assert os.listdir(victim) == []
    refused = [o for o in outcomes if o is not None and not o.ok]
    assert all("is a symlink now" in o.content or "declined" in o.content for o in refused)


async def test_open_folder_refuses_a_link_and_creates_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(ToolError, match="is a symlink now"):
        safe_open.open_folder(tmp_path / "link" / "x", create=True)
    assert not (tmp_path / "real" / "x").exists()
    fd = safe_open.open_folder(tmp_path / "real" / "a" / "b", create=True)
    os.close(fd)
    assert (tmp_path / "real" / "a" / "b").is_dir()
    with pytest.raises(FileNotFoundError):
        safe_open.open_folder(tmp_path / "missing")


async def test_a_hard_link_to_a_protected_file_is_refused_under_its_other_name(bench: Bench) -> None:
    env = bench.home.env_file
    env.write_text("SERVICE_LOGIN=plain-value\n")
    config = bench.home.config_file
    config.write_text("agent:\n  max_turns: 5\n")
    os.link(env, bench.cwd / "env.txt")
    os.link(config, bench.cwd / "settings.yaml")
    read = await bench.call("read_file", {"path": "env.txt"})
    assert not read.ok and "plain-value" not in read.content and "hard link" in read.content
    assert "the home's .env" in read.content
    found = await bench.call("search_files", {"pattern": "plain-value"})
    assert found.ok and found.summary == "no matches"
    write = await bench.call("write_file", {"path": "settings.yaml", "content": "agent:\n  yolo: true\n"})
    assert not write.ok and "hard link" in write.content and config.read_text() == "agent:\n  max_turns: 5\n"
    bench.user.answers = [Decision.ONCE]  # under its own name .env is asked about as before
    own = await bench.call("read_file", {"path": str(env)})
    assert own.ok and own.content == "1|SERVICE_LOGIN=[REDACTED]"  # read, and its value kept from the model


async def test_a_hard_link_to_an_ordinary_file_is_fine(bench: Bench, tmp_path: Path) -> None:
    (bench.cwd / "a.txt").write_text("shared\n")
    os.link(bench.cwd / "a.txt", bench.cwd / "b.txt")
    assert (await bench.call("read_file", {"path": "b.txt"})).content == "1|shared"
    assert (await bench.call("write_file", {"path": "b.txt", "content": "new\n"})).ok


async def test_a_fifo_is_refused_without_blocking(bench: Bench) -> None:
    os.mkfifo(bench.cwd / "pipe")
    outcome = await asyncio.wait_for(bench.call("read_file", {"path": "pipe"}), timeout=30)
    assert not outcome.ok and "not a regular file" in outcome.content
    outcome = await asyncio.wait_for(bench.call("write_file", {"path": "pipe", "content": "x"}), timeout=30)
    assert not outcome.ok


async def test_writes_keep_the_mode_and_leave_no_temp_file(bench: Bench) -> None:
    script = bench.cwd / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o750)
    assert (await bench.call("write_file", {"path": "run.sh", "content": "echo bye\n"})).ok
    assert script.stat().st_mode & 0o777 == 0o750 and script.read_text() == "echo bye\n"
    assert sorted(os.listdir(bench.cwd)) == ["run.sh"]


async def test_a_file_swapped_for_a_link_while_search_walks_is_not_followed(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.tools import search_files

    bench.home.env_file.write_text("SERVICE_LOGIN=plain-value\n")
    (bench.cwd / "notes.txt").write_text("nothing here\n")
    walked = search_files._Walk.found

    def swapping(self: Any) -> Any:
        for path, real in walked(self):
            if path.name == "notes.txt":  # judged a plain file; a link to .env by the time it is read
                path.unlink()
                path.symlink_to(bench.home.env_file)
            yield path, real

    monkeypatch.setattr(search_files._Walk, "found", swapping)
    outcome = await bench.call("search_files", {"pattern": "plain-value"})
    assert outcome.ok and outcome.summary == "no matches" and "SERVICE_LOGIN" not in outcome.content

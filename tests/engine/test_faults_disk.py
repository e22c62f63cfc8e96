"""Disk faults during a write: out of space (ENOSPC) and a read-only home. A clear error, old files intact.

As root (CI and the dev machines) the home is put on a small tmpfs mounted for the test, filled up,
or remounted read-only: real ENOSPC and EROFS from the kernel. Without the right to mount, the same
tests fall back to RLIMIT_FSIZE in the child process (EFBIG instead of ENOSPC) and to a folder
without write permission (EACCES instead of EROFS); which one ran is printed.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.home import Home
from engine.sessions.store import SessionStore
from engine.skills.library import SkillLibrary
from engine.skills.manage import SkillManager
from tests.support.fault_support import (
    assert_clean_exit,
    hws,
    hws_env,
    integrity,
    stored_messages,
    write_scenario,
)

OLD_MEMORY = "The user fires stoneware at cone six.\n§\nThe kiln is in the garage."
SKILL = (
    "---\nname: glaze\ndescription: Mixes a glaze. Use when glazing.\n---\n\n# Glaze\n\n"
    + "Weigh it.\n" * 400
)


@dataclass
class SmallDisk:
    """A home on a filesystem we can fill up or make read-only."""

    root: Path
    mounted: bool

    def fill(self) -> None:
        """Leave (almost) no free space: real ENOSPC on a tmpfs; RLIMIT_FSIZE is set per process instead."""
        if not self.mounted:
            return
        for name, block in (("filler", 65536), ("filler2", 512)):  # big blocks, then the last crumbs
            fd = os.open(self.root.parent / name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                while True:
                    os.write(fd, b"\0" * block)
            except OSError:
                pass
            finally:
                os.close(fd)

    def free(self) -> None:
        for name in ("filler", "filler2"):
            (self.root.parent / name).unlink(missing_ok=True)

    def read_only(self) -> None:
        if self.mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(self.root.parent)], check=True)
        else:
            for path in [self.root, *self.root.rglob("*")]:
                if path.is_dir():
                    path.chmod(0o555)

    def writable(self) -> None:
        if self.mounted:
            subprocess.run(["mount", "-o", "remount,rw", str(self.root.parent)], check=True)
        else:
            for path in [self.root, *self.root.rglob("*")]:
                if path.is_dir():
                    path.chmod(0o755)

    def limit(self) -> dict[str, str]:
        """Environment for a child process: without a mount, a file-size limit stands in for a full disk."""
        return {} if self.mounted else {"HWS_TEST_FSIZE": "1"}


def _can_mount() -> bool:
    if os.environ.get("HWS_TEST_NO_MOUNT"):  # try the fallback on a machine that could mount
        return False
    return os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmallDisk]:
    fs = tmp_path / "disk" / "fs"
    fs.mkdir(parents=True)
    mounted = False
    if _can_mount():
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(fs)], capture_output=True
        )
        mounted = done.returncode == 0
    home = fs / "home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    print(f"\ndisk faults: {'a 2 MB tmpfs (real ENOSPC / EROFS)' if mounted else 'RLIMIT_FSIZE and chmod'}")
    yield SmallDisk(home, mounted)
    if mounted:
        subprocess.run(["umount", "-l", str(fs)], capture_output=True)
    else:
        SmallDisk(home, False).writable()


def _seed(home_root: Path) -> Home:
    home = Home.resolve(home_root).ensure()
    (home.memories / "MEMORY.md").write_text(OLD_MEMORY, encoding="utf-8")
    return home


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp"))


def _hws_limited(disk: SmallDisk, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = hws_env(disk.root, **disk.limit())
    if disk.mounted:
        return hws(*args, home=disk.root, cwd=cwd, env=env)
    # RLIMIT_FSIZE: a write past this many bytes fails with EFBIG (SIGXFSZ ignored), like a full disk.
    runner = (
        "import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)); from tui.main import main; sys.exit(main())"
    )
    import sys

    return subprocess.run(
        [sys.executable, "-c", runner, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or disk.root,
        timeout=90,
    )


def test_memory_add_on_a_full_disk_is_a_sentence_and_the_file_is_untouched(disk: SmallDisk) -> None:
    home = _seed(disk.root)
    disk.fill()
    done = _hws_limited(disk, "memory", "add", "The glaze recipe is 40% feldspar. " * 20)
    assert_clean_exit(done, (1,))
    message = done.stderr.strip() + done.stdout.strip()
    assert "space" in message.lower() or "too large" in message.lower(), message
    assert (home.memories / "MEMORY.md").read_text(encoding="utf-8") == OLD_MEMORY
    assert _leftovers(home.root) == []
    disk.free()
    again = hws("memory", "add", "The glaze recipe is 40% feldspar.", home=home.root)
    assert_clean_exit(again, (0,))


def test_a_skill_write_on_a_full_disk_leaves_no_partial_skill(disk: SmallDisk) -> None:
    home = _seed(disk.root)
    manager = SkillManager(SkillLibrary(home), who="agent")
    assert manager.run({"action": "create", "name": "glaze", "content": SKILL})["success"]
    before = (home.skills / "glaze" / "SKILL.md").read_bytes()
    disk.fill()
    if not disk.mounted:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        import signal

        old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        edited = manager.run({"action": "edit", "name": "glaze", "content": SKILL.replace("Weigh", "Sieve")})
        created = manager.run({"action": "create", "name": "slip", "content": SKILL.replace("glaze", "slip")})
    finally:
        signal.signal(signal.SIGXFSZ, old)
        if not disk.mounted:
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    for result in (edited, created):
        assert not result["success"]
        assert "space" in result["error"].lower() or "too large" in result["error"].lower(), result
    assert (home.skills / "glaze" / "SKILL.md").read_bytes() == before
    assert not (home.skills / "slip").exists(), "a half-created skill was left behind"
    assert _leftovers(home.skills) == []


SCENARIO = """
rules:
  - reply: {text: "The kiln is ready."}
"""


def test_hws_run_on_a_full_disk_is_a_clear_error_and_the_database_survives(
    disk: SmallDisk, tmp_path: Path
) -> None:
    if not disk.mounted:
        pytest.skip("needs a real full filesystem (SQLite's own writes); run as root")
    home = _seed(disk.root)
    scenario = write_scenario(tmp_path, SCENARIO)
    first = hws("run", "--scenario", str(scenario), "first question", home=home.root, cwd=tmp_path)
    assert_clean_exit(first, (0,))
    kept = stored_messages(home.state_db)
    disk.fill()
    long_question = "Why does the glaze crawl? " * 80_000  # 2 MB: more than the disk has left
    # Larger than the window too: sent anyway, so that it reaches the store and its full disk.
    done = hws(
        "run", "--scenario", str(scenario), "--oversized", "send", "-",
        home=home.root, cwd=tmp_path, stdin=long_question,
    )  # fmt: skip
    assert_clean_exit(done, (1, 2))
    assert "space" in done.stderr.lower() or "full" in done.stderr.lower(), done.stderr
    disk.free()
    assert integrity(home.state_db) == "ok"
    assert stored_messages(home.state_db)[: len(kept)] == kept
    assert (home.memories / "MEMORY.md").read_text(encoding="utf-8") == OLD_MEMORY
    after = hws("run", "--scenario", str(scenario), "and now?", home=home.root, cwd=tmp_path)
    assert_clean_exit(after, (0,))


def test_a_read_only_home_refuses_writes_with_a_sentence_and_changes_nothing(
    disk: SmallDisk, tmp_path: Path
) -> None:
    home = _seed(disk.root)
    scenario = write_scenario(tmp_path, SCENARIO)
    assert_clean_exit(hws("run", "--scenario", str(scenario), "hello", home=home.root, cwd=tmp_path), (0,))
    kept = stored_messages(home.state_db)
    disk.read_only()
    try:
        if not disk.mounted and os.geteuid() == 0:
            pytest.skip("root ignores folder permissions; the read-only case needs a mount")
        added = hws("memory", "add", "The glaze is ready.", home=home.root)
        assert_clean_exit(added, (1, 2))
        said = (added.stderr + added.stdout).lower()
        assert "read-only" in said or "permission" in said, said
        ran = hws("run", "--scenario", str(scenario), "hello again", home=home.root, cwd=tmp_path)
        assert_clean_exit(ran, (1, 2))
        assert "read-only" in ran.stderr.lower() or "not writable" in ran.stderr.lower(), ran.stderr
        listed = hws("sessions", "list", home=home.root)
        assert_clean_exit(listed, (0,))  # reading still works
    finally:
        disk.writable()
    assert (home.memories / "MEMORY.md").read_text(encoding="utf-8") == OLD_MEMORY
    assert stored_messages(home.state_db) == kept
    assert integrity(home.state_db) == "ok"


def test_the_session_store_on_a_full_disk_raises_a_store_error_and_keeps_its_rows(disk: SmallDisk) -> None:
    if not disk.mounted:
        pytest.skip("needs a real full filesystem for SQLite; run as root")
    home = _seed(disk.root)

    async def scenario() -> None:
        from engine.sessions.errors import StoreError

        store = await SessionStore.open(home.state_db)
        try:
            session = await store.create_session()
            await store.append_message(session.id, "user", "kept")
            disk.fill()
            with pytest.raises(StoreError) as caught:
                for n in range(2000):
                    await store.append_message(session.id, "user", f"{n} " + "y" * 20_000)
            assert "space" in str(caught.value).lower() or "full" in str(caught.value).lower(), caught.value
            disk.free()
            await store.append_message(session.id, "user", "after")  # the connection still works
        finally:
            await store.close()

    asyncio.run(scenario())
    assert integrity(home.state_db) == "ok"
    contents = [c for _, _, c in stored_messages(home.state_db)]
    assert contents[0] == "kept" and contents[-1] == "after"

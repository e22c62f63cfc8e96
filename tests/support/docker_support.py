"""A real docker daemon and a small test image built here, for the docker backend (no registry is used).

The image is `docker import`ed from a root filesystem made of this machine's own programs: a static
busybox for the basic commands, bash, util-linux `script` (pty), curl, and the system python3 with its
standard library, each with the libraries `ldd` says it loads. Built once per content and reused.
Where there is no daemon to talk to, the tests are skipped with a reason that says why.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

REPOSITORY = "hws-test-shell"
PROGRAMS = ("bash", "script", "curl")
SYSTEM_PYTHON = Path("/usr/bin/python3")
SKIP_STDLIB = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages"}


def docker_client():  # type: ignore[no-untyped-def]
    """A client of a running daemon, or the test is skipped with why there is none."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:
        pytest.skip("the docker package is not installed (pip install -e '.[dev]')")
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except DockerException as exc:
        pytest.skip(
            f"no docker daemon answers here ({type(exc).__name__}): .ci/run installs docker.io and starts "
            "dockerd; run `dockerd &` as root to run these tests"
        )
    return client


def _libraries(binary: Path) -> set[Path]:
    done = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    found = set()
    for line in done.stdout.splitlines():
        for word in line.split():
            if word.startswith("/"):
                found.add(Path(word))
    return found


def _entries(path: Path) -> list[tuple[str, Path | str]]:
    """(name in the image, real file or link target) for `path` and the links it goes through."""
    found: list[tuple[str, Path | str]] = []
    current = path.parent.resolve() / path.name
    for _ in range(10):
        if not current.is_symlink():
            found.append((str(current).lstrip("/"), current))
            break
        target = os.readlink(current)
        found.append((str(current).lstrip("/"), target))
        step = Path(target) if Path(target).is_absolute() else current.parent / target
        current = step.parent.resolve() / step.name
    return found


def _files() -> list[Path]:
    if not SYSTEM_PYTHON.exists() or not shutil.which("busybox"):
        pytest.skip(
            "the docker test image needs /usr/bin/python3 and busybox here (.ci/run installs busybox-static)"
        )
    wanted: set[Path] = {SYSTEM_PYTHON}
    for name in PROGRAMS:
        found = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")
        if found is None:
            pytest.skip(f"the docker test image needs {name} here")
        wanted.add(Path(found))
    stdlib = Path(
        subprocess.run(
            [str(SYSTEM_PYTHON), "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for path in stdlib.rglob("*"):
        parts = set(path.relative_to(stdlib).parts)
        if path.is_file() and not parts & SKIP_STDLIB:
            wanted.add(path)
    for binary in list(wanted):
        if binary.suffix == ".so" or binary.parent.name == "bin":
            wanted |= _libraries(binary)
    return sorted(wanted)


def _tarball(files: list[Path]) -> bytes:
    buffer = io.BytesIO()
    busybox = Path(shutil.which("busybox") or "/bin/busybox").resolve()
    applets = subprocess.run([str(busybox), "--list"], capture_output=True, text=True).stdout.split()
    added: set[str] = set()

    def add(name: str, what: Path | str | None, tar: tarfile.TarFile, mode: int = 0o755) -> None:
        if name in added:
            return
        added.add(name)
        if what is None:
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        elif isinstance(what, str):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, what
            tar.addfile(info)
        else:
            tar.add(what, name, recursive=False)

    with tarfile.open(fileobj=buffer, mode="w") as tar:
        add("tmp", None, tar, 0o1777)
        add("etc", None, tar)
        for top in ("bin", "sbin", "lib", "lib64"):  # a merged /usr keeps these as links
            if Path("/", top).is_symlink():
                add(top, os.readlink(Path("/", top)), tar)
        for path in files:
            for name, what in reversed(_entries(path)):
                for parent in reversed(Path(name).parents[:-1]):
                    if str(parent) not in added and not Path("/", parent).is_symlink():
                        add(str(parent), None, tar)
                add(name, what, tar)
        add("usr/bin/busybox", busybox, tar)
        for applet in applets:
            if f"usr/bin/{applet}" not in added and f"bin/{applet}" not in added:
                add(f"usr/bin/{applet}", "busybox", tar)
        passwd = f"root:x:0:0:root:/tmp:/bin/bash\nhws:x:{os.getuid()}:{os.getgid()}:hws:/tmp:/bin/bash\n"
        data = passwd.encode()
        info = tarfile.TarInfo("etc/passwd")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        added.add("etc/passwd")
    return buffer.getvalue()


def test_image() -> str:
    """The tag of the test image, built (imported) first if this content has none yet."""
    client = docker_client()
    files = _files()
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path).encode())
        if path.is_file():
            digest.update(str(path.stat().st_size).encode())
    tag = digest.hexdigest()[:12]
    name = f"{REPOSITORY}:{tag}"
    try:
        client.images.get(name)
    except Exception:
        client.api.import_image_from_data(_tarball(files), repository=REPOSITORY, tag=tag)
    return name


test_image.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test

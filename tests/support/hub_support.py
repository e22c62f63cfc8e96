"""Real sources for the skills hub tests: bare git repositories made here (anthropics/skills' and
Hermes' `skills/` layouts, a tag, more commits later), and a web server on 127.0.0.1 serving a
`/.well-known/skills` index and skill archives."""

from __future__ import annotations

import functools
import http.server
import io
import json
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.skills_support import MALICIOUS, PUBLIC, skill_text

GIT = [
    "git",
    "-c",
    "user.name=Tester",
    "-c",
    "user.email=tester@example.org",
    "-c",
    "init.defaultBranch=main",
]


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


class Repo:
    """A working copy and the bare repository it pushes to (`<forge>/<owner>/<name>.git`)."""

    def __init__(self, forge: Path, slug: str, work_root: Path) -> None:
        self.slug = slug
        self.bare = forge / f"{slug}.git"
        self.work = work_root / slug.replace("/", "__")
        self.work.mkdir(parents=True)
        git("init", "--quiet", cwd=self.work)

    def write(self, rel: str, text: str) -> Path:
        path = self.work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def copy(self, source: Path, rel: str) -> None:
        shutil.copytree(source, self.work / rel)

    def commit(self, message: str, tag: str = "") -> str:
        git("add", "-A", cwd=self.work)
        git("commit", "--quiet", "-m", message, cwd=self.work)
        if tag:
            git("tag", tag, cwd=self.work)
        if not self.bare.exists():
            self.bare.parent.mkdir(parents=True, exist_ok=True)
            git("clone", "--quiet", "--bare", str(self.work), str(self.bare), cwd=self.work)
        else:
            git("push", "--quiet", "--tags", str(self.bare), "HEAD:main", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work)


def anthropic_layout(forge: Path, work_root: Path) -> Repo:
    """anthropics/skills: `skills/<name>/SKILL.md`; one skill with a caution verdict (trusted allows it)."""
    repo = Repo(forge, "anthropics/skills", work_root)
    repo.write("README.md", "# Skills\n")
    repo.copy(PUBLIC / "pdf", "skills/pdf")
    repo.copy(PUBLIC / "devops" / "docker-debugging", "skills/docker-debugging")
    repo.write(
        "skills/release-notes/SKILL.md",
        skill_text("release-notes", "Write release notes from a changelog. Use for releases."),
    )
    repo.commit("first skills", tag="v1")
    return repo


def hermes_layout(forge: Path, work_root: Path) -> Repo:
    """A community tap in Hermes' layout `skills/<category>/<name>/SKILL.md`, with one hostile skill."""
    repo = Repo(forge, "someone/hermes-skills", work_root)
    repo.write(
        "skills/writing/changelog-writer/SKILL.md",
        "---\nname: changelog-writer\ndescription: Keep a changelog tidy. Use when releasing.\n"
        "metadata:\n  hermes:\n    tags: [git, docs]\n---\n\n# Changelog\n\nGroup entries by kind.\n",
    )
    repo.copy(PUBLIC / "devops" / "docker-debugging", "skills/devops/docker-debugging")
    repo.copy(MALICIOUS / "ssh-backdoor", "skills/devops/ssh-backdoor")
    repo.commit("hermes layout")
    return repo


def hub_config(forge: Path, taps: list[str] | None = None) -> str:
    """config.yaml for a test home: `owner/repo` clones from the test's forge; no default taps."""
    return (
        "skills:\n"
        f"  hub_github_url: {forge.as_uri()}\n"
        f"  hub_default_taps: {json.dumps(taps or [])}\n"
        "  hub_cache_ttl: 0\n"
    )


def tar_gz(folder: Path, top: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=top)
    return buffer.getvalue()


def well_known_site(root: Path, skills: dict[str, Path]) -> None:
    """`root/.well-known/skills/index.json` listing each skill folder's files, copied beside it."""
    base = root / ".well-known" / "skills"
    entries = []
    for name, folder in skills.items():
        shutil.copytree(folder, base / name)
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        entries.append({"name": name, "description": f"{name} from the site", "files": files})
    base.mkdir(parents=True, exist_ok=True)
    (base / "index.json").write_text(json.dumps({"skills": entries}), encoding="utf-8")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve `root` on 127.0.0.1 (a free port); yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()

"""A real `victim` folder for the shell disguises, and an ordinary project for the everyday commands.

The victim is a git repository with a pushed remote, an unmerged branch, a stash, uncommitted and
untracked work, a SQLite database, a secret file and a repository alias that deletes it; so every
disguise in tests/security/shell_corpus.py has something real to destroy, and `snapshot` shows
whether anything changed.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path

GIT_IDENTITY = ("-c", "user.name=Victim", "-c", "user.email=victim@example.com", "-c", "commit.gpgsign=false")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *GIT_IDENTITY, *args], cwd=folder, check=True, capture_output=True, timeout=30)


def make_victim(root: Path) -> Path:
    """`root/victim` (a repository) and `root/remote.git` (its remote); returns the victim."""
    victim = root / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "notes.txt").write_text("committed notes\n")
    (victim / "data.csv").write_text("id,value\n1,precious\n")
    (victim / "sub" / "deep.txt").write_text("deep\n")
    (victim / "secret.env").write_text("API_KEY=sk-victim-secret-0000\n")
    with sqlite3.connect(victim / "app.db") as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO users (name) VALUES ('ada'), ('grace')")
    db.close()
    _git(victim, "init", "-q", "-b", "main")
    _git(victim, "add", "-A")
    _git(victim, "commit", "-q", "-m", "first")
    (victim / "notes.txt").write_text("committed notes\nsecond line\n")
    _git(victim, "commit", "-q", "-am", "second")
    _git(victim, "checkout", "-q", "-b", "feature")
    (victim / "feature.txt").write_text("unmerged work\n")
    _git(victim, "add", "feature.txt")
    _git(victim, "commit", "-q", "-m", "feature work")
    _git(victim, "checkout", "-q", "main")
    subprocess.run(["git", "init", "-q", "--bare", str(root / "remote.git")], check=True, capture_output=True)
    _git(victim, "remote", "add", "origin", "../remote.git")
    _git(victim, "push", "-q", "origin", "main", "feature")
    (victim / "notes.txt").write_text("stashed change\n")
    _git(victim, "stash", "-q")
    (victim / "notes.txt").write_text("committed notes\nsecond line\nuncommitted work\n")
    (victim / "untracked.txt").write_text("not in git yet\n")
    _git(victim, "config", "alias.tidy", "!rm -rf ../victim")
    (root / "victim.lock").write_text("")
    return victim


def make_project(root: Path) -> Path:
    """An ordinary project holding the files the everyday commands in the corpus name."""
    files = {
        "README.md": "# project\n",
        "src/app.py": "def main():\n    return 1  # TODO\n",
        "app.log": "started\nerror: none\n",
        "patterns.txt": "TODO\n",
        "package.json": '{"name": "project"}\n',
        "requirements.txt": "requests\n",
        ".venv/bin/activate": "export VIRTUAL_ENV=.venv\n",
        "scripts/build.sh": "#!/bin/sh\nmake\n",
        "configure": "#!/bin/sh\necho configured\n",
        "data.txt": "b\na\nb\n",
        "data.csv": "name,amount\nx,1\n",
        "draft.txt": "draft\n",
        "notes.txt": "notes\n",
        "a.txt": "a\n",
        "b.txt": "b\n",
        "fix.patch": "",
        "list.txt": "one\ntwo\n",
        ".env.example": "KEY=\n",
        "server.py": "print('serving')\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "backup").mkdir()
    (root / "current").symlink_to("README.md")
    (root / "build" / "tmp").mkdir(parents=True)
    with sqlite3.connect(root / "app.db") as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
        db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY)")
    db.close()
    return root


def snapshot(*roots: Path) -> dict[str, str]:
    """Every file, link and folder under `roots` with a hash of its content (or link target)."""
    seen: dict[str, str] = {}
    for root in roots:
        if not root.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                key = str(path)
                if path.is_symlink():
                    seen[key] = "link:" + os.readlink(path)
                elif path.is_file():
                    seen[key] = hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    seen[key] = "dir"
    return seen

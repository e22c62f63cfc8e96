"""A skill folder's fingerprint follows Hermes' recipe: paths sorted part by part, each relative path,
a NUL and the bytes; a link out of the folder is never read."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from engine.skills.fingerprint import content_digest, content_hash
from engine.skills.guard import scan_folder

# Sorted part by part, "a/b.md" (parts "a", "b.md") comes before "a-b.md", which comes before "a.md";
# sorted as strings, the order would be "a-b.md", "a.md", "a/b.md".
FILES = {"SKILL.md": b"---\nname: n\n---\nBody.\n", "a.md": b"dot", "a-b.md": b"dash", "a/b.md": b"nested"}
HERMES_ORDER = ["SKILL.md", "a/b.md", "a-b.md", "a.md"]


def write(folder: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def by_hand(files: dict[str, bytes], order: list[str]) -> str:
    hasher = hashlib.sha256()
    for rel in order:
        hasher.update(rel.encode() + b"\x00" + files[rel])
    return hasher.hexdigest()


def test_paths_are_ordered_part_by_part_like_hermes(tmp_path: Path) -> None:
    folder = write(tmp_path / "n", FILES)
    assert content_digest(folder) == by_hand(FILES, HERMES_ORDER)
    assert content_digest(folder) != by_hand(FILES, sorted(FILES))
    assert content_hash(folder) == "sha256:" + by_hand(FILES, HERMES_ORDER)[:16]
    assert scan_folder(folder).content_hash == content_hash(folder)  # what the lock records


def test_hidden_files_and_cache_folders_count_and_empty_folders_do_not(tmp_path: Path) -> None:
    folder = write(tmp_path / "n", FILES)
    before = content_hash(folder)
    (folder / "empty").mkdir()
    assert content_hash(folder) == before
    write(folder, {".hidden": b"x"})
    hidden = content_hash(folder)
    assert hidden != before
    write(folder, {"__pycache__/m.pyc": b"y"})
    assert content_hash(folder) != hidden


def test_a_link_inside_counts_as_its_bytes_and_a_link_outside_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"hunter2")
    folder = write(tmp_path / "n", {"SKILL.md": b"body", "real.md": b"inside"})
    os.symlink("real.md", folder / "same.md")
    assert content_digest(folder) == by_hand(
        {"SKILL.md": b"body", "real.md": b"inside", "same.md": b"inside"}, ["SKILL.md", "real.md", "same.md"]
    )
    os.remove(folder / "same.md")
    os.symlink(secret, folder / "leak.md")
    expected = by_hand(
        {"SKILL.md": b"body", "leak.md": str(secret).encode(), "real.md": b"inside"},
        [
            "SKILL.md",
            "leak.md",
            "real.md",
        ],
    )
    assert content_digest(folder) == expected
    secret.write_bytes(b"changed")
    assert content_digest(folder) == expected

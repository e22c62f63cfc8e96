"""Paths a command acts on, resolved against the folder it runs in, and shown relative to the project."""

from __future__ import annotations

import os
from pathlib import Path

from engine.tools.shell.words import GLOB_CHARS, Word


def resolve(value: str, cwd: Path | None) -> str | None:
    """The absolute, normalised path of `value` run in `cwd` (None when `cwd` is not known)."""
    if value.startswith("/"):
        return os.path.normpath(value)
    if cwd is None:
        return None
    return os.path.normpath(os.path.join(cwd, value))


def folder_of(word: Word, cwd: Path | None) -> str | None:
    """The path a deletion or write is scoped to: the path itself, or a glob's fixed leading folder."""
    if word.value is None:
        return None
    value = word.value
    if word.glob:
        cut = min(value.find(c) for c in GLOB_CHARS if c in value)
        prefix = value[:cut]
        value = prefix[: prefix.rfind("/") + 1] or "."
    return resolve(value, cwd)


def shown(path: str | None, top: Path | None, home: str | None) -> str:
    """`path` as a person reads it: `./build` inside the project, `~/x` in the home, else absolute."""
    if path is None:
        return "a path only known when it runs"
    if top is not None:
        root = os.path.normpath(top)
        if path == root:
            return ". (the working folder)"
        if path.startswith(root + os.sep):
            return "./" + path[len(root) + 1 :]
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def within(path: str, folder: str) -> bool:
    """True when `path` is `folder` or inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")

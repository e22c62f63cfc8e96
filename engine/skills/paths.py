"""Path safety for everything that names a file inside a skill: no absolute paths, no `..`, no escapes.

Every check returns a sentence for the model (or None); `resolve_inside` follows symlinks and refuses
any that lead out of the skill's folder.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from engine.text.printable import has_unsafe, printable

_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(Exception):
    """A name or path that would reach outside where it belongs; the message says why."""


def relative_path_error(file_path: object, what: str = "file_path") -> str | None:
    """Why `file_path` is not a plain relative path inside a folder (None when it is)."""
    if not isinstance(file_path, str) or not file_path.strip():
        return f"{what} must be a non-empty relative path such as 'references/api.md'."
    if "\x00" in file_path:
        return f"{what} contains a NUL character."
    if has_unsafe(file_path):
        return f"{what} '{printable(file_path)}' contains control or direction characters; use plain names."
    if file_path.startswith(("/", "\\", "~")) or _DRIVE.match(file_path):
        return f"{what} '{file_path}' is absolute; give a path relative to the skill's folder."
    if "\\" in file_path:
        return f"{what} '{file_path}' uses backslashes; use '/' between folders."
    parts = PurePosixPath(file_path).parts
    if ".." in parts:
        return f"{what} '{file_path}' contains '..'; paths must stay inside the skill's folder."
    return None


def skill_name_error(name: object) -> str | None:
    """Names given to skill_view: a name or `category/name`, never a path out of the skills folder."""
    if not isinstance(name, str) or not name.strip():
        return "name must be a skill name such as 'pdf-forms'."
    if "\x00" in name or name.startswith(("/", "\\", "~")) or _DRIVE.match(name):
        return f"Invalid skill name '{name}': absolute paths are not skill names."
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return f"Invalid skill name '{name}': '..' is not allowed."
    return None


def resolve_inside(folder: Path, file_path: str) -> Path:
    """`folder/file_path` with symlinks resolved; raises PathRefused if it lands outside `folder`."""
    error = relative_path_error(file_path)
    if error:
        raise PathRefused(error)
    try:
        base = folder.resolve()
        target = (folder / file_path).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop (RuntimeError before Python 3.13)
        raise PathRefused(
            f"'{printable(file_path)}' cannot be resolved ({exc}); symlink loops are refused."
        ) from exc
    if target != base and not target.is_relative_to(base):
        raise PathRefused(
            f"'{file_path}' resolves to {target}, outside the skill's folder; "
            "symlinks out of a skill are refused."
        )
    return target


def is_inside(folder: Path, path: Path) -> bool:
    try:
        resolved = path.resolve()
        base = folder.resolve()
    except (OSError, RuntimeError):  # a symlink loop is nowhere
        return False
    return resolved == base or resolved.is_relative_to(base)

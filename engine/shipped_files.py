"""Small YAML files that ship with hws and may be named instead of given as a path (demos, scenarios).

One lookup and one bounded, strictly UTF-8 read, shared by the demo runner and the scripted model
server; each passes its own error type so its messages keep their own words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

ErrorType = Callable[[str], Exception]


def resolve(
    name_or_path: str | Path, folder: Path, kind: str, names: Iterable[str], error: ErrorType
) -> Path:
    """An existing file as given, else `folder/<name>.yaml` for a bare name; `error` says what exists."""
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    shipped = folder / f"{name_or_path}.yaml"
    if isinstance(name_or_path, str) and "/" not in name_or_path and shipped.is_file():
        return shipped
    listed = ", ".join(names)
    raise error(f"No {kind} file at {path}; give a path to a {kind} YAML file or one of: {listed}.")


def read_text(path: Path, limit: int, error: ErrorType, too_big: str) -> str:
    """The file's text if it is at most `limit` bytes of UTF-8; else `error` with one sentence."""
    try:
        if path.stat().st_size > limit:
            raise error(f"{path} is larger than {limit:,} bytes; {too_big}.")
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8.") from exc
    except OSError as exc:
        raise error(f"Cannot read {path}: {exc.strerror}.") from exc

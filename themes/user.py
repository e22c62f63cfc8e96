"""User theme files: `$HERMES_HOME/themes/*.yaml`, a small model turned into Textual `Theme`s.

A file looks like this (only `primary` is required; the name defaults to the file's stem):

    name: night-owl
    dark: true
    primary: "#82aaff"
    background: "#011627"
    foreground: "#d6deeb"

A bad file never stops the app: it is skipped with one sentence naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

MAX_THEME_BYTES = 64_000
COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
NUMBER_KEYS = {"luminosity_spread": (0.0, 1.0), "text_alpha": (0.0, 1.0)}
OTHER_KEYS = ("name", "dark", "variables")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ThemeFileError(Exception):
    """A theme file cannot be used; the message names the file (and line) and what to fix."""


@dataclass
class LoadedThemes:
    """The themes read from a folder, and one sentence per file that was skipped or doubtful."""

    themes: list[Theme] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def theme_from_mapping(data: Any, where: str, default_name: str) -> tuple[Theme, list[str]]:
    """Validate one theme mapping and build the Textual `Theme`; unknown keys only warn."""
    if not isinstance(data, dict):
        raise ThemeFileError(f"{where}: a theme must be a mapping of `key: value` lines.")
    warnings: list[str] = []
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME.match(name):
        raise ThemeFileError(
            f"{where}: the theme name {name!r} must be letters, digits, '-', '_' or '.' (at most 64)."
        )
    if "primary" not in data:
        raise ThemeFileError(f'{where}: a theme needs at least a `primary` colour, e.g. primary: "#5fa8d3".')
    colours: dict[str, str] = {}
    for key in COLOUR_KEYS:
        if key in data and data[key] is not None:
            colours[key] = _colour(data[key], key, where)
    numbers: dict[str, float] = {}
    for key, (low, high) in NUMBER_KEYS.items():
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ThemeFileError(f"{where}: `{key}` must be a number between {low} and {high}.")
            numbers[key] = float(value)
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError(f"{where}: `dark` must be true or false.")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in variables.items()
    ):
        raise ThemeFileError(f"{where}: `variables` must map names to values.")
    for key in data:
        if key not in COLOUR_KEYS and key not in NUMBER_KEYS and key not in OTHER_KEYS:
            warnings.append(f"{where}: unknown theme key `{key}` is ignored.")
    theme = Theme(
        name=name,
        dark=dark,
        variables={str(k): str(v) for k, v in variables.items()},
        **colours,  # type: ignore[arg-type]
        **numbers,  # type: ignore[arg-type]
    )
    return theme, warnings


def _colour(value: Any, key: str, where: str) -> str:
    text = str(value).strip()
    try:
        Color.parse(text)
    except ColorParseError:
        raise ThemeFileError(
            f"{where}: `{key}: {text}` is not a colour; use #rrggbb, rgb(r,g,b) or a colour name."
        ) from None
    return text


def load_theme_file(path: Path) -> tuple[Theme, list[str]]:
    """Read and validate one YAML theme file."""
    try:
        size = path.stat().st_size
        if size > MAX_THEME_BYTES:
            raise ThemeFileError(f"{path}: {size:,} bytes is too large for a theme file.")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ThemeFileError(f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8.") from None
    except OSError as exc:
        raise ThemeFileError(f"Cannot read {path}: {exc.strerror}.") from None
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 0
        raise ThemeFileError(f"{path} line {line}: {exc.problem or 'invalid YAML'}.") from None
    except (yaml.YAMLError, RecursionError):
        raise ThemeFileError(f"{path}: invalid YAML.") from None
    return theme_from_mapping(data, str(path), path.stem)


def load_user_themes(folder: Path, home_root: Path | None = None) -> LoadedThemes:
    """Every `*.yaml` / `*.yml` theme in `folder`, sorted by file name; bad files become warnings."""
    loaded = LoadedThemes()
    if not folder.is_dir():
        return loaded
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    seen: dict[str, Path] = {}
    for path in files:
        if home_root is not None and not _inside(path, home_root):
            loaded.warnings.append(f"{path} points outside the home; theme skipped.")
            continue
        try:
            theme, warnings = load_theme_file(path)
        except ThemeFileError as exc:
            loaded.warnings.append(f"{exc} Theme skipped.")
            continue
        if theme.name in seen:
            loaded.warnings.append(
                f"{path}: theme {theme.name!r} is also defined in {seen[theme.name]}; kept the first."
            )
            continue
        seen[theme.name] = path
        loaded.themes.append(theme)
        loaded.warnings.extend(warnings)
    return loaded


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True

"""The names of Hermes Agent's own settings, so a Hermes home's config.yaml is read without warnings.

`engine/assets/hermes_settings.yaml` lists them (`section` and `section.key`; how it was made is
written at its top). hws keeps such a setting in silence when it does not use it, lists them once in
`hws doctor`, and warns only about names that neither program knows: those are typos.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

NAMES_FILE = Path(__file__).resolve().parent / "assets" / "hermes_settings.yaml"


@functools.cache
def hermes_setting_names() -> frozenset[str]:
    """Every top-level name and `section.key` Hermes Agent defines (empty if the list is missing)."""
    try:
        data = yaml.load(NAMES_FILE.read_text(encoding="utf-8"), Loader=_loader())
    except (OSError, yaml.YAMLError):
        return frozenset()
    names = data.get("settings") if isinstance(data, dict) else None
    return frozenset(str(n) for n in names or ())


def hermes_version() -> str:
    """The Hermes Agent release the list was made from."""
    try:
        data = yaml.load(NAMES_FILE.read_text(encoding="utf-8"), Loader=_loader())
    except (OSError, yaml.YAMLError):
        return ""
    return str(data.get("hermes_version", "")) if isinstance(data, dict) else ""


def is_hermes_setting(section: str, key: str = "") -> bool:
    """Whether `section` (top level) or `section.key` is a setting Hermes Agent defines."""
    return (f"{section}.{key}" if key else section) in hermes_setting_names()


def _loader() -> type:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)

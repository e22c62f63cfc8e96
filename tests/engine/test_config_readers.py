"""Every setting in the schema is read by some code: a documented setting that does nothing is a lie.

The check reads the sources (engine/, tui/, widgets/, themes/) as Python syntax trees: a setting
counts as read where its name is an attribute (`config.memory.flush_min_turns`,
`settings.guard_max_files`), a string key (`values["busy_timeout_ms"]`) or a dotted name
(`config.get("file_read_max_chars")`). The files that only list names (the schema itself, the
README's reference, the guarded settings, Hermes' names) are not readers. A name shared with other
code (`enabled`, `timeout`) passes on any use; the point is to catch settings nobody reads at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.config_schema import OPEN_SECTIONS, ROOT, SCHEMA

ROOT_DIR = Path(__file__).resolve().parents[2]
SOURCES = ("engine", "tui", "widgets", "themes")
NOT_READERS = {
    "engine/config_schema.py",
    "engine/config_reference.py",
    "engine/guarded_settings.py",
    "engine/hermes_settings.py",
}


def names_used() -> tuple[set[str], set[str]]:
    """(attribute names, string constants) of every reader module."""
    attributes: set[str] = set()
    strings: set[str] = set()
    for folder in SOURCES:
        for path in sorted((ROOT_DIR / folder).rglob("*.py")):
            if path.relative_to(ROOT_DIR).as_posix() in NOT_READERS:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute):
                    attributes.add(node.attr)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    strings.add(node.value)
    return attributes, strings


def unread_settings() -> list[str]:
    attributes, strings = names_used()
    unread = []
    for section, settings in SCHEMA.items():
        if section in OPEN_SECTIONS:
            continue
        for key in settings:
            dotted = f"{section}.{key}" if section != ROOT else key
            if key in attributes or key in strings or dotted in strings:
                continue
            unread.append(dotted)
    return unread


def test_every_setting_in_the_schema_is_read_by_some_code() -> None:
    assert unread_settings() == []


def test_the_check_finds_a_setting_nobody_reads() -> None:
    """The check itself can fail: a setting added to the schema and read nowhere is caught."""
    from engine.config_schema import Setting

    SCHEMA["memory"]["nobody_reads_this_setting"] = Setting(1, "A setting with no reader.")
    try:
        assert "memory.nobody_reads_this_setting" in unread_settings()
    finally:
        del SCHEMA["memory"]["nobody_reads_this_setting"]

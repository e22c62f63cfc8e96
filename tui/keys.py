"""Key bindings: every one has an id, a user keymap (`keys:` in config.yaml) rebinds them by id.

keys:
  focus_memory: f2,alt+m
  zoom_pane: f10,f7
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import format_key

_KEY_WORD = {"question_mark": "?", "space": "space", "enter": "enter", "escape": "esc"}


@dataclass(frozen=True)
class KeyRow:
    """One line of the keys screen."""

    binding_id: str
    keys: str
    description: str
    where: str


def bindings_of(node_class: type[DOMNode]) -> list[Binding]:
    """The bindings a class declares itself (not inherited), expanded one per key."""
    found: list[Binding] = []
    for item in node_class.__dict__.get("BINDINGS", []):
        if isinstance(item, Binding):
            found.extend(item.make_bindings([item]))
        else:
            found.extend(Binding.make_bindings([item]))
    return found


def known_binding_ids(classes: Iterable[type[DOMNode]]) -> set[str]:
    return {b.id for cls in classes for b in bindings_of(cls) if b.id}


def readable_keys(keys: str) -> str:
    out = []
    for key in keys.split(","):
        key = key.strip()
        parts = key.split("+")
        last = _KEY_WORD.get(parts[-1], format_key(parts[-1]))
        out.append("+".join([*parts[:-1], last]))
    return ", ".join(out)


def binding_rows(classes: Mapping[str, type[DOMNode]], keymap: Mapping[str, str]) -> list[KeyRow]:
    """One row per binding id, with the keys the keymap gives it now."""
    rows: dict[str, KeyRow] = {}
    for where, cls in classes.items():
        grouped: dict[str, list[Binding]] = {}
        for binding in bindings_of(cls):
            if binding.id:
                grouped.setdefault(binding.id, []).append(binding)
        for binding_id, bindings in grouped.items():
            keys = keymap.get(binding_id) or ",".join(b.key for b in bindings)
            first = bindings[0]
            description = first.tooltip or first.description or first.action
            rows.setdefault(binding_id, KeyRow(binding_id, readable_keys(keys), description, where))
    return list(rows.values())


def validate_keymap(
    keys: Mapping[str, Any], known_ids: set[str], where: str = "config.yaml"
) -> tuple[dict[str, str], list[str]]:
    """The usable part of a `keys:` section, and one warning per entry that cannot be used."""
    keymap: dict[str, str] = {}
    warnings: list[str] = []
    for binding_id, value in keys.items():
        binding_id = str(binding_id)
        if binding_id not in known_ids:
            warnings.append(
                f"{where}: `keys.{binding_id}` names no binding; see the keys screen (f12) for the ids."
            )
            continue
        if isinstance(value, list):
            value = ",".join(str(v) for v in value)
        if not isinstance(value, str) or not value.strip():
            warnings.append(f"{where}: `keys.{binding_id}` must be a key such as `f2` or `ctrl+k`.")
            continue
        keymap[binding_id] = ",".join(part.strip() for part in value.split(",") if part.strip())
    return keymap, warnings

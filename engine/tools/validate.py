"""A validator for the JSON-schema subset our tool schemas use, with errors a model can act on.

Supported: `type` (object, array, string, integer, number, boolean), `properties`, `required`,
`additionalProperties: false`, `enum`, `items`, `minimum`, `maximum`, `minLength`, `minItems`.
Unambiguous slips are coerced instead of refused ("5" for an integer, "true" for a boolean, 3.0 for 3),
and `null` for an optional field counts as leaving it out: a wasted turn costs more than the leniency.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
}
_INTEGER_TEXT = re.compile(r"[+-]?\d+")
_NUMBER_TEXT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def describe(value: Any) -> str:
    """A short description of a JSON value for an error message: its JSON type and a glimpse of it."""
    kind = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > 40:
        text = text[:39] + "…"
    return f"the {kind} {text}" if kind not in ("null",) else "null"


def validate(value: Any, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """Check `value` against `schema`; return the (possibly coerced) value and every problem found."""
    problems: list[str] = []
    checked = _check(value, schema, "", problems)
    return checked, problems


def _label(where: str) -> str:
    return f"`{where}`" if where else "The arguments"


def _check(value: Any, schema: dict[str, Any], where: str, problems: list[str]) -> Any:
    kind = schema.get("type")
    if kind is not None:
        value, ok = _coerce(value, kind)
        if not ok:
            problems.append(f"{_label(where)} must be {_TYPE_WORDS.get(kind, kind)}, not {describe(value)}.")
            return value
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(json.dumps(c) for c in schema["enum"])
        problems.append(f"{_label(where)} must be one of {choices}, not {describe(value)}.")
    if kind == "object":
        return _check_object(value, schema, where, problems)
    if kind == "array":
        return _check_array(value, schema, where, problems)
    if kind == "string" and len(value) < schema.get("minLength", 0):
        problems.append(
            f"{_label(where)} must not be empty." if not value else f"{_label(where)} is too short."
        )
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and value < low:
            problems.append(f"{_label(where)} must be at least {low}, not {value}.")
        if high is not None and value > high:
            problems.append(f"{_label(where)} must be at most {high}, not {value}.")
    return value


def _coerce(value: Any, kind: str) -> tuple[Any, bool]:
    if kind == "object":
        return value, isinstance(value, dict)
    if kind == "array":
        return value, isinstance(value, list)
    if kind == "string":
        return value, isinstance(value, str)
    if kind == "boolean":
        if isinstance(value, bool):
            return value, True
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true", True
        return value, False
    if kind == "integer":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, int):
            return value, True
        if isinstance(value, float) and value.is_integer():
            return int(value), True
        if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
            return int(value.strip()), True
        return value, False
    if kind == "number":
        if isinstance(value, bool):
            return value, False
        if isinstance(value, (int, float)):
            return value, True
        if isinstance(value, str) and _NUMBER_TEXT.fullmatch(value.strip()):
            return float(value.strip()), True
        return value, False
    return value, True


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str, problems: list[str]) -> Any:
    properties: dict[str, Any] = schema.get("properties", {})
    required: list[str] = schema.get("required", [])
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{where}.{key}" if where else key
        if key not in properties:
            if schema.get("additionalProperties", True) is False:
                known = ", ".join(properties) or "none"
                problems.append(f"Unknown field `{path}` (the fields are: {known}).")
            else:
                out[key] = item
            continue
        if item is None and key not in required:
            continue
        out[key] = _check(item, properties[key], path, problems)
    for key in required:
        if value.get(key) is None:
            path = f"{where}.{key}" if where else key
            problems.append(f"Missing required field `{path}`.")
    return out


def _check_array(value: list[Any], schema: dict[str, Any], where: str, problems: list[str]) -> Any:
    if len(value) < schema.get("minItems", 0):
        problems.append(f"{_label(where)} must have at least {schema['minItems']} item(s).")
    items = schema.get("items")
    if not items:
        return value
    return [_check(item, items, f"{where}[{i}]", problems) for i, item in enumerate(value)]

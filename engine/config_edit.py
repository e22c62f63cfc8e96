"""Change a few settings in `config.yaml` (or one key of `.env`) without losing the rest of the file.

Edits are made line by line inside the section's block, so comments, key order and sections we
do not know stay as the user wrote them. The result is parsed again and compared with what was
meant; when the file's shape defeats the line editor (anchors, flow mappings spread over lines,
odd indentation), the whole file is rewritten from its parsed data instead, which keeps every
key and value but not the comments. Both files are written atomically under a lock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from engine.storage.atomic import atomic_write_text, file_lock

_TOP_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(.*)$")
_PLAIN = re.compile(r"^[A-Za-z0-9_./@+-][A-Za-z0-9_./:@+ -]*$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PRIVATE = 0o600  # .env holds keys: owner only
# The first line of a config.yaml hws writes from nothing.
CONFIG_HEADER = "# hws settings: `hws config --defaults` lists every one with its meaning.\n"


class ConfigEditError(Exception):
    """The file cannot be edited safely; the message says why and what to do."""


def yaml_scalar(value: Any) -> str:
    """One value as YAML text: plain where that reads back the same, else a double-quoted string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if text and _PLAIN.match(text) and not text.endswith(" ") and yaml.safe_load(text) == text:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def read_config_text(path: Path) -> str:
    """A config file's text ('' when there is none); ConfigEditError says why it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return ""
    except UnicodeDecodeError as exc:
        raise ConfigEditError(
            f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8 first."
        ) from exc
    except OSError as exc:
        raise ConfigEditError(f"Cannot read {path}: {exc.strerror}.") from exc


def parse_config_text(text: str, path: Path) -> dict[str, Any]:
    """The YAML mapping in `text`; ConfigEditError (naming the line) when it is not one."""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigEditError(
            f"{path}{line} is not valid YAML; fix it (or move it aside) and run this again."
        ) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigEditError(
            f"{path} must be a mapping of sections at the top level; fix it and run this again."
        )
    return data


def set_section_values(
    text: str, section: str, values: Mapping[str, Any], remove: tuple[str, ...] = ()
) -> str:
    """`text` with `section.key: value` set for each of `values` and `remove` keys deleted, line by line."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"^{re.escape(section)}\s*:", line)), None)
    if start is None:
        block = [f"{section}:"] + [f"  {k}: {yaml_scalar(v)}" for k, v in values.items()]
        prefix = lines + ([""] if lines and lines[-1].strip() else [])
        return "\n".join(prefix + block) + "\n"
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#")):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():  # trailing blank lines belong to the gap
        end -= 1
    head = _TOP_KEY.match(lines[start])
    rest = (head.group(2) if head else "").strip()
    if rest and not rest.startswith("#"):  # `model: name` or a flow mapping: becomes a block
        raise ConfigEditError("inline section")
    body = lines[start + 1 : end]
    indent = next((re.match(r"^(\s+)\S", b).group(1) for b in body if re.match(r"^\s+[^\s#]", b)), "  ")  # type: ignore[union-attr]
    pending = dict(values)
    out = []
    for line in body:
        match = re.match(rf"^{re.escape(indent)}([A-Za-z_][\w.-]*)\s*:(.*)$", line)
        if match is None or line[len(indent) : len(indent) + 1].isspace():
            out.append(line)
            continue
        key = match.group(1)
        if key in remove and key not in pending:
            continue
        if key in pending:
            comment = re.search(r"\s+#.*$", match.group(2)) if "#" in match.group(2) else None
            value_text = yaml_scalar(pending.pop(key))
            keep = comment.group(0) if comment and not value_text.startswith('"') else ""
            out.append(f"{indent}{key}: {value_text}{keep}")
            continue
        out.append(line)
    out.extend(f"{indent}{k}: {yaml_scalar(v)}" for k, v in pending.items())
    return "\n".join(lines[: start + 1] + out + lines[end:]) + "\n"


def update_config(
    path: Path,
    section: str,
    values: Mapping[str, Any],
    remove: tuple[str, ...] = (),
    header: str = "",
    *,
    keep_comments: bool = False,
) -> str:
    """Set `section.key` for each value in config.yaml at `path` (created with `header` if missing).

    Returns "edited" (comments kept), "rewritten" (comments lost; the shape defeated the line
    editor) or "created". With `keep_comments`, a file the line editor cannot change is left as it
    is (ConfigEditError) instead of rewritten.
    """
    with file_lock(path):
        text = read_config_text(path)
        before = parse_config_text(text, path)
        wanted = {k: v for k, v in before.items()}
        old_section = before.get(section)
        merged = dict(old_section) if isinstance(old_section, dict) else {}
        if isinstance(old_section, str) and section == "model":  # Hermes' `model: name`
            merged = {"default": old_section}
        for key in remove:
            merged.pop(key, None)
        merged.update(values)
        wanted[section] = merged
        how = "created" if not text.strip() else "edited"
        try:
            new_text = set_section_values(text if text.strip() else header, section, values, remove)
            if parse_config_text(new_text, path) != wanted:
                raise ConfigEditError("the line edit does not read back as meant")
        except ConfigEditError:
            if keep_comments:
                settings = ", ".join(
                    f"{section}.{key}: {yaml_scalar(value)}" for key, value in values.items()
                )
                raise ConfigEditError(
                    f"{path} cannot be changed line by line without losing its comments (its {section} "
                    f"section is written in a form this editor does not change); set {settings} by hand."
                ) from None
            new_text = (header or "") + yaml.safe_dump(wanted, sort_keys=False, allow_unicode=True)
            how = "rewritten"
        atomic_write_text(path, new_text)
    return how


def append_list_item(path: Path, key: str, item: Mapping[str, Any], header: str = "") -> str:
    """Add `item` (a flat mapping) at the end of the top-level list `key` in config.yaml at `path`.

    Returns "edited", "created" or "rewritten" as `update_config` does: the line edit keeps comments;
    a file whose list the line editor cannot extend (a flow list with items) is rewritten from its data.
    """
    with file_lock(path):
        text = read_config_text(path)
        before = parse_config_text(text, path)
        current = before.get(key)
        if current is not None and not isinstance(current, list):
            raise ConfigEditError(f"{path}: `{key}` must be a list (lines starting with `- `); fix it first.")
        wanted = {**before, key: [*(current or []), dict(item)]}
        how = "created" if not text.strip() else "edited"
        try:
            new_text = _with_list_item(text if text.strip() else header, key, item)
            if parse_config_text(new_text, path) != wanted:
                raise ConfigEditError("the line edit does not read back as meant")
        except ConfigEditError:
            new_text = (header or "") + yaml.safe_dump(wanted, sort_keys=False, allow_unicode=True)
            how = "rewritten"
        atomic_write_text(path, new_text)
    return how


def _with_list_item(text: str, key: str, item: Mapping[str, Any]) -> str:
    """`text` with `item` added to the block list `key` (made when missing or `[]`), line by line."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(rf"^{re.escape(key)}\s*:", line)), None)
    if start is None:
        lines += ([""] if lines and lines[-1].strip() else []) + [f"{key}:"]
        start, end, indent = len(lines) - 1, len(lines), "  "
    else:
        rest = lines[start].split(":", 1)[1].split("#", 1)[0].strip()
        if rest == "[]":
            lines[start] = f"{key}:"
        elif rest:
            raise ConfigEditError("flow list")
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "#", "-")):
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        first = next((b for b in lines[start + 1 : end] if b.lstrip().startswith("- ")), "  - ")
        indent = first[: len(first) - len(first.lstrip())]
    pairs = [f"{k}: {yaml_scalar(v)}" for k, v in item.items()]
    block = [f"{indent}- {pairs[0]}"] + [f"{indent}  {pair}" for pair in pairs[1:]]
    return "\n".join(lines[:end] + block + lines[end:]) + "\n"


def set_env_value(path: Path, key: str, value: str) -> None:
    """Set `KEY=value` in a `.env` file (other lines kept, the file private to its owner)."""
    if not _ENV_KEY.match(key):
        raise ConfigEditError(
            f"{key!r} is not a valid variable name (letters, digits and _; not first a digit)."
        )
    if "\n" in value or "\r" in value:
        raise ConfigEditError("A key cannot span lines; paste it on one line.")
    with file_lock(path):
        lines = read_config_text(path).splitlines()
        if re.fullmatch(r"[A-Za-z0-9_./:@+=-]*", value):
            quoted = value
        elif "'" not in value:
            quoted = f"'{value}'"
        elif '"' not in value:
            quoted = f'"{value}"'
        else:
            raise ConfigEditError(
                "A key with both kinds of quote cannot be kept in .env; use the environment."
            )
        entry = f"{key}={quoted}"
        pattern = re.compile(rf"^\s*(export\s+)?{re.escape(key)}\s*=")
        replaced = False
        for index, line in enumerate(lines):
            if pattern.match(line):
                lines[index] = entry
                replaced = True
        if not replaced:
            lines.append(entry)
        atomic_write_text(path, "\n".join(lines) + "\n", mode=PRIVATE)

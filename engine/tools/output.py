"""Caps on what a tool sends back to the model, each cut announced so the model knows it saw a part."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.config import Config

NOTE_RESERVE = 240  # bytes kept free under max_bytes for the note itself


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_lines: int
    max_line_length: int

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        section = config.tool_output
        return cls(int(section.max_bytes), int(section.max_lines), int(section.max_line_length))


def cap_text(text: str, limits: Limits) -> tuple[str, str]:
    """Apply the line-length, line-count and byte caps; return the text and a note of what was cut."""
    lines = text.split("\n")
    total_lines = len(lines)
    shortened = 0
    for i, line in enumerate(lines):
        if len(line) > limits.max_line_length:
            extra = len(line) - limits.max_line_length
            lines[i] = f"{line[: limits.max_line_length]}… [+{extra:,} chars]"
            shortened += 1
    cuts: list[str] = []
    if total_lines > limits.max_lines:
        lines = lines[: limits.max_lines]
        cuts.append(f"kept the first {limits.max_lines:,} of {total_lines:,} lines")
    if shortened:
        cuts.append(f"{shortened:,} line(s) shortened to {limits.max_line_length:,} chars")
    out = "\n".join(lines)
    data = out.encode("utf-8")
    budget = max(limits.max_bytes - NOTE_RESERVE, limits.max_bytes // 2)
    if len(data) > limits.max_bytes:
        kept = data[:budget].decode("utf-8", errors="ignore")
        newline = kept.rfind("\n")
        if newline > len(kept) // 2:
            kept = kept[:newline]
        cuts.append(f"kept {len(kept.encode('utf-8')):,} of {len(text.encode('utf-8')):,} bytes")
        out = kept
    if not cuts:
        return text, ""
    note = f"[output cut: {'; '.join(cuts)}]"
    return f"{out}\n{note}", note


def cap_json(value: Any, limits: Limits) -> tuple[str, str]:
    """Serialise a result, capping its long strings so the JSON stays valid and within `max_bytes`."""
    notes: list[str] = []

    def shrink(item: Any) -> Any:
        if isinstance(item, str):
            capped, note = cap_text(item, limits)
            if note:
                notes.append(note)
            return capped
        if isinstance(item, dict):
            return {k: shrink(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [shrink(v) for v in item]
        return item

    value = shrink(value)
    text = dumps(value)
    rounds = 0
    while len(text.encode("utf-8")) > limits.max_bytes and rounds < 40:
        rounds += 1
        if not _halve_longest_string(value):
            break
        text = dumps(value)
    if rounds:
        notes.append(f"long text shortened {rounds} time(s) to fit {limits.max_bytes:,} bytes")
    if len(text.encode("utf-8")) > limits.max_bytes:  # many small items: fall back to plain text
        return cap_text(text, limits)
    return text, "; ".join(notes)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _halve_longest_string(value: Any) -> bool:
    best: tuple[int, Any, Any] | None = None
    stack = [value]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, item in pairs:
            if isinstance(item, str):
                if best is None or len(item) > best[0]:
                    best = (len(item), node, key)
            elif isinstance(item, (dict, list)):
                stack.append(item)
    if best is None or best[0] < 64:
        return False
    length, node, key = best
    node[key] = f"{node[key][: length // 2]}… [+{length - length // 2:,} chars]"
    return True


def keep_head_tail(text: str, max_chars: int, head_share: float) -> tuple[str, int]:
    """Keep the start and the end of `text` within `max_chars`; return it and the chars cut."""
    if len(text) <= max_chars:
        return text, 0
    head = int(max_chars * head_share)
    tail = max_chars - head
    cut = len(text) - head - tail
    middle = f"\n… [{cut:,} chars cut from the middle] …\n"
    return f"{text[:head]}{middle}{text[len(text) - tail :] if tail else ''}", cut

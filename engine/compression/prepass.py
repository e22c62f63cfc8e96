"""The pre-pass, with no model: old tool outputs become one-line descriptions, repeats are marked, long
tool-call arguments and old images are cut, so the summariser reads (and the flush call costs) less."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.compression.messages import call_name, image_count, text_of, tool_calls, tool_names_by_call

DUPLICATE_NOTE = "duplicate: same output as a later call"
_EXIT = re.compile(r"^\[(?:exit (-?\d+)|timed out[^\]]*)")
LAST_LINE_CHARS = 100


@dataclass(frozen=True)
class PrepassLimits:
    stub_chars: int  # tool outputs longer than this become one line
    duplicate_min_chars: int
    args_max_chars: int

    @classmethod
    def from_config(cls, section: Any) -> PrepassLimits:
        return cls(
            int(section.tool_output_stub_chars),
            int(section.duplicate_min_chars),
            int(section.tool_args_max_chars),
        )


@dataclass
class PrepassReport:
    shrunk: int = 0
    duplicates: int = 0
    args_cut: int = 0
    images_dropped: int = 0


def output_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8", "replace"), usedforsecurity=False).hexdigest()[:12]


def _quote(text: Any, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _last_line(text: str) -> str:
    for line in reversed(text.splitlines()):
        if line.strip():
            return _quote(line, LAST_LINE_CHARS)
    return ""


def describe_output(name: str, args: dict[str, Any], text: str) -> str:
    """One line that says what a tool call did and how big its output was."""
    size = f"{len(text):,} chars"
    if name == "terminal":
        match = _EXIT.match(text)
        status = (
            (f"exit {match.group(1)}" if match.group(1) is not None else "timed out") if match else "done"
        )
        line = f"[terminal] ran `{_quote(args.get('command', ''))}` -> {status}, {_lines(text)} lines output"
        if match and match.group(1) not in (None, "0"):
            line += f"; last line: {_last_line(text)}"
        return line
    if name == "read_file":
        start = args.get("offset") or 1
        return f"[read_file] read {args.get('path', '?')} from line {start} ({size})"
    if name == "search_files":
        kind = "file search" if args.get("target") == "files" else "content search"
        where = args.get("path") or "."
        hits = sum(1 for line in text.splitlines() if line.strip() and not line.startswith("["))
        return (
            f"[search_files] {kind} for {_quote(args.get('pattern', ''), 60)!r} in {where} -> {hits} results"
        )
    if name in ("write_file", "patch"):
        return f"[{name}] {args.get('path', '?')} -> {_quote(text, 100)}"
    detail = ", ".join(f"{k}={_quote(v, 40)}" for k, v in list(args.items())[:3])
    return f"[{name}] {detail} -> {size} output" if detail else f"[{name}] -> {size} output"


def _cut_value(value: Any, limit: int) -> tuple[Any, bool]:
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}…[{len(value) - limit:,} chars cut]", True
    if isinstance(value, dict):
        changed = False
        out = {}
        for k, v in value.items():
            out[k], cut = _cut_value(v, limit)
            changed |= cut
        return out, changed
    if isinstance(value, list):
        items = [_cut_value(v, limit) for v in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


def _cut_arguments(message: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    """The assistant message with long string values in its call arguments cut (the JSON stays valid)."""
    cut_count = 0
    calls = []
    for call in tool_calls(message):
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        raw = function.get("arguments")
        if isinstance(raw, str) and len(raw) > limit:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            if parsed is not None:
                value, changed = _cut_value(parsed, limit)
                new_raw = json.dumps(value, ensure_ascii=False)
            else:
                changed, new_raw = True, json.dumps({"_truncated": raw[:limit]}, ensure_ascii=False)
            if changed:
                call = {**call, "function": {**function, "arguments": new_raw}}
                cut_count += 1
        calls.append(call)
    if not cut_count:
        return message, 0
    return {**message, "tool_calls": calls}, cut_count


def _drop_images(message: dict[str, Any]) -> tuple[dict[str, Any], int]:
    content = message.get("content")
    dropped = image_count(content)
    if not dropped:
        return message, 0
    parts = [
        {"type": "text", "text": "[image attachment removed]"}
        if isinstance(p, dict) and p.get("type") in ("image_url", "image", "input_image")
        else p
        for p in content
    ]
    return {**message, "content": parts}, dropped


def prepass(
    messages: Sequence[dict[str, Any]],
    start: int,
    end: int,
    limits: PrepassLimits,
) -> tuple[list[dict[str, Any]], PrepassReport]:
    """A copy of `messages` with `[start, end)` shrunk; everything outside that span is left alone.

    A duplicate is judged against every later output, the tail's included.
    """
    report = PrepassReport()
    calls = tool_names_by_call(messages)
    later_hashes: set[str] = set()
    duplicate_at: set[int] = set()
    for index in range(len(messages) - 1, start - 1, -1):
        message = messages[index]
        if message.get("role") != "tool":
            continue
        text = text_of(message.get("content"))
        if len(text) < limits.duplicate_min_chars:
            continue
        digest = output_hash(text)
        if digest in later_hashes and index < end:
            duplicate_at.add(index)
        later_hashes.add(digest)
    out = list(messages)
    for index in range(start, min(end, len(messages))):
        message = messages[index]
        role = message.get("role")
        if role == "tool":
            text = text_of(message.get("content"))
            if index in duplicate_at or len(text) > limits.stub_chars:
                name, args = calls.get(
                    str(message.get("tool_call_id") or ""), (message.get("name") or "tool", {})
                )
                line = describe_output(str(name), args, text)
                if index in duplicate_at:
                    line += f" ({DUPLICATE_NOTE})"
                    report.duplicates += 1
                else:
                    report.shrunk += 1
                out[index] = {**message, "content": line}
        elif role == "assistant" and tool_calls(message):
            out[index], cut = _cut_arguments(message, limits.args_max_chars)
            report.args_cut += cut
        if role in ("user", "assistant"):
            out[index], dropped = _drop_images(out[index])
            report.images_dropped += dropped
    return out, report


def tool_call_summary(message: dict[str, Any]) -> str:
    """`name, name` of an assistant message's calls (for the model-free summary)."""
    return ", ".join(call_name(c) for c in tool_calls(message))

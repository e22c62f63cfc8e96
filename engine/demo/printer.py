"""The headless demo's output: one readable line per step and event, or one JSON object per line."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from engine.demo.player import DemoNote
from engine.demo.report import HomeReport
from engine.tools.preview import format_call


class DemoPrinter:
    """Readable lines: the user's words, the model's reply, and a `┊` line for everything else."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.previews: dict[str, str] = {}
        self.reply_open = False
        self.errors = 0

    def write(self, line: str) -> None:
        self._close_reply()
        self.out.write(line + "\n")
        self.out.flush()

    def _close_reply(self) -> None:
        if self.reply_open:
            self.out.write("\n")
            self.reply_open = False

    def show(self, item: Any) -> None:
        if isinstance(item, DemoNote):
            self._note(item)
            return
        kind = item.kind
        data = item.__dict__
        if kind == "text_delta":
            if not self.reply_open:
                self.out.write("hws › ")
                self.reply_open = True
            self.out.write(data["text"].replace("\n", "\n      "))
            self.out.flush()
        elif kind == "tool_called":
            self.previews[data["call_id"]] = format_call(data["name"], data["preview"])
        elif kind == "tool_finished":
            mark = "┊" if data["ok"] else "┊ ✗"
            preview = self.previews.pop(data["call_id"], data["name"])
            self.write(f"  {mark} {preview}  → {data['preview']}")
        elif kind == "memory_written":
            self.write(
                f"  ┊ memory     {data['target']} {data['action']} by {data['who']}: {data['message']}"
            )
        elif kind == "skill_changed":
            self.write(f"  ┊ skill      {data['action']} {data['name']} by {data['who']}")
        elif kind == "skill_loaded":
            what = f" file {data['file_path']}" if data["file_path"] else ""
            self.write(f"  ┊ skill      loaded {data['name']}{what} ({data['tokens']:,} tokens)")
        elif kind == "nudge_fired":
            self.write(f"  ┊ nudge      {data['nudge']}: {data['reason']}")
        elif kind == "compression_started":
            self.write(f"  ┊ compress   {data['reason']}: {data['tokens_before']:,} tokens")
        elif kind == "compression_phase":
            self.write(f"  ┊   phase {data['phase']:<9} {_phase_detail(data)}")
        elif kind == "compression_finished":
            self.write(
                f"  ┊ compressed {data['old_session_id']} → {data['new_session_id']}: "
                f"{data['tokens_before']:,} → {data['tokens_after']:,} tokens"
            )
        elif kind == "session_changed":
            self.write(f"  ┊ session    now {item.session_id} ({data['reason']})")
        elif kind == "status":
            self.write(f"  ┊ {data['level']:<10} {data['text']}")
        elif kind == "error_event":
            self.errors += 1
            self.write(f"  ✗ error: {data['message']}")
        elif kind == "turn_finished":
            self._close_reply()

    def _note(self, note: DemoNote) -> None:
        if note.kind == "title":
            self.write(f"▶ {note.text}")
        elif note.kind == "caption":
            self.write(f"\n── {note.text}")
        elif note.kind == "say":
            self.write(f"you › {note.text}")
        elif note.kind == "session":
            self.write(f"── {note.text}")
        elif note.kind == "observe":
            self.write(f"  ◆ {note.text}")
        else:
            self.write(f"■ {note.text}")

    def report(self, report: HomeReport) -> None:
        self.write("")
        for line in report.lines:
            self.write(line)
        self.write("Checks:")
        for result in report.checks:
            mark = "✓" if result.ok else "✗"
            detail = f" ({result.detail})" if result.detail else ""
            self.write(f"  {mark} {result.check.describe()}{detail}")


class JsonDemoPrinter:
    """`--json`: every note and event as one JSON object per line; the report last."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.errors = 0

    def show(self, item: Any) -> None:
        if getattr(item, "kind", "") == "error_event":
            self.errors += 1
        self.out.write(json.dumps(item.as_dict(), ensure_ascii=False, default=str) + "\n")
        self.out.flush()

    def write(self, line: str) -> None:
        """A line for the person, not for the parser: on stderr."""
        print(line, file=sys.stderr)

    def report(self, report: HomeReport) -> None:
        self.out.write(json.dumps({"type": "demo_report", **report.as_dict()}, ensure_ascii=False) + "\n")
        self.out.flush()


def _phase_detail(data: dict[str, Any]) -> str:
    detail = data.get("detail") or {}
    sizes = f"{data['tokens_before']:,} → {data['tokens_after']:,} tokens"
    extras = []
    for key in ("writes", "summary_tokens", "messages_summarised", "new_session_id", "model", "fallback"):
        value = detail.get(key)
        if value not in (None, "", [], {}):
            shown = "; ".join(map(str, value)) if isinstance(value, list) else value
            extras.append(f"{key.replace('_', ' ')}: {shown}")
    return sizes + (" · " + " · ".join(extras) if extras else "")

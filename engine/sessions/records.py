"""Rows of the session database as plain frozen dataclasses, and the encodings Hermes uses."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

# Hermes stores list/dict message content (multimodal parts) as JSON behind this marker.
CONTENT_JSON_PREFIX = "\x00json:"


def scrub(text: str | None) -> str | None:
    """Replace lone surrogates (from scraped web text), which SQLite cannot store, with U+FFFD."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text


def encode_content(content: Any) -> str | None:
    """Message content as stored: text as it is, structured content as marked JSON."""
    if content is None or isinstance(content, str):
        return scrub(content)
    if isinstance(content, (list, dict)):
        return CONTENT_JSON_PREFIX + json.dumps(content)
    return scrub(str(content))


def decode_content(stored: Any) -> Any:
    """The reverse of `encode_content`; undecodable markers come back as the raw string."""
    if isinstance(stored, bytes):
        return stored.decode("utf-8", "replace")
    if isinstance(stored, str) and stored.startswith(CONTENT_JSON_PREFIX):
        try:
            return json.loads(stored[len(CONTENT_JSON_PREFIX) :])
        except ValueError:
            return stored
    return stored


def content_text(content: Any) -> str:
    """The readable text of message content: structured parts contribute their text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif part.get("type") in ("image_url", "image", "input_image"):
                    parts.append("[image attachment]")
                elif part.get("type"):
                    parts.append(f"[{part['type']}]")
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def decode_json(stored: Any) -> Any:
    """A JSON column (tool_calls, model_config) as a value; bad JSON becomes None."""
    if stored in (None, ""):
        return None
    try:
        return json.loads(stored)
    except (TypeError, ValueError):
        return None


def when(timestamp: float | None) -> str:
    """A timestamp the way Hermes shows it: "June 16, 2026 at 03:04 PM" (local time)."""
    if timestamp is None:
        return ""
    return datetime.fromtimestamp(timestamp).strftime("%B %d, %Y at %I:%M %p")


@dataclass(frozen=True)
class SessionRecord:
    """One row of `sessions` (the columns this project uses; Hermes' others stay in the file)."""

    id: str
    source: str
    started_at: float
    title: str | None = None
    model: str | None = None
    parent_session_id: str | None = None
    ended_at: float | None = None
    end_reason: str | None = None
    message_count: int = 0
    tool_call_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    api_call_count: int = 0
    estimated_cost_usd: float | None = None
    cwd: str | None = None
    user_id: str | None = None
    model_config: dict[str, Any] | None = None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def is_branch_or_delegate(self) -> bool:
        """A `/branch` copy, a delegated subagent or a tool session: never part of a compression chain."""
        config = self.model_config or {}
        return bool(config.get("_branched_from") or config.get("_delegate_from")) or self.source == "tool"

    @property
    def when(self) -> str:
        return when(self.started_at)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MessageRecord:
    """One row of `messages`, with content and tool calls decoded."""

    id: int
    session_id: str
    role: str
    content: Any
    timestamp: float
    tool_call_id: str | None = None
    tool_calls: list[Any] | None = None
    tool_name: str | None = None
    token_count: int | None = None
    finish_reason: str | None = None
    reasoning: str | None = None
    active: bool = True
    compacted: bool = False  # made inactive by Hermes' in-place compaction (not by a rewind)

    @property
    def text(self) -> str:
        return content_text(self.content)

    @property
    def rewound(self) -> bool:
        """Taken back with /undo: kept in state.db, no longer part of the conversation."""
        return not self.active and not self.compacted

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def brief(self, max_chars: int = 0) -> dict[str, Any]:
        """The shape session_search returns: id, role, content, timestamp and tool fields if set."""
        text = self.text
        if max_chars and len(text) > max_chars:
            half = max_chars // 2
            text = f"{text[:half]} …[{len(text) - 2 * half} chars cut]… {text[-half:]}"
        out: dict[str, Any] = {"id": self.id, "role": self.role, "content": text, "timestamp": self.timestamp}
        if self.tool_name:
            out["tool_name"] = self.tool_name
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        if self.tool_call_id:
            out["tool_call_id"] = self.tool_call_id
        if self.rewound:
            out["rewound"] = True
        return out


@dataclass(frozen=True)
class ToolResultRecord:
    """What the tool layer said of one stored tool result: whether it succeeded, in one line, and
    how long it took (kept beside the message in `hws_tool_results`)."""

    message_id: int
    tool_call_id: str
    ok: bool
    summary: str
    duration_s: float


@dataclass(frozen=True)
class Conversation:
    """A compression chain seen as one conversation: its first session, its tip and totals."""

    root: SessionRecord
    tip_id: str
    session_ids: tuple[str, ...]
    message_count: int
    last_active: float

    @property
    def title(self) -> str | None:
        return self.root.title

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.tip_id,
            "root_id": self.root.id,
            "title": self.root.title,
            "source": self.root.source,
            "model": self.root.model,
            "started_at": self.root.started_at,
            "when": self.root.when,
            "last_active": self.last_active,
            "sessions": list(self.session_ids),
            "message_count": self.message_count,
        }


SESSION_FIELDS = tuple(f.name for f in fields(SessionRecord))  # the columns read, in record order
MESSAGE_FIELDS = tuple(f.name for f in fields(MessageRecord))

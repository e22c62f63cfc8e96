"""Bounded output: the first and last bytes of a stream, however much of it comes in."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Capture:
    """The first `head_limit` bytes and the last `tail_limit` bytes of a stream, and how many came in all."""

    head_limit: int
    tail_limit: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    @classmethod
    def for_chars(cls, max_chars: int, head_share: float) -> Capture:
        """Room for `max_chars` characters (up to 4 bytes each), `head_share` of them from the start."""
        head_chars = int(max_chars * head_share)
        return cls(head_chars * 4, (max_chars - head_chars) * 4)

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self, head_chars: int, tail_chars: int) -> str:
        """The output as text: all of it when it fits, else its start and end with a note between."""
        dropped = self.total - len(self.head) - len(self.tail)
        if dropped <= 0:
            whole = bytes(self.head + self.tail).decode("utf-8", errors="replace")
            if len(whole) <= head_chars + tail_chars:
                return whole
        head = bytes(self.head).decode("utf-8", errors="replace")[:head_chars]
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        tail = tail[len(tail) - tail_chars :] if tail_chars else ""
        omitted = self.total - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
        return f"{head}\n… [{omitted:,} bytes of output cut from the middle] …\n{tail}"

    def text_for(self, max_chars: int, head_share: float) -> str:
        head_chars = int(max_chars * head_share)
        return self.text(head_chars, max_chars - head_chars)

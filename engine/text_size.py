"""How big a text is, in the words a person reads: `23,165 lines · 2.0 MB`."""

from __future__ import annotations


def line_count(text: str) -> int:
    """Lines of `text`; a last line without a newline counts, an empty text has none."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def byte_words(size: int) -> str:
    """`2.0 MB`, `512 KB`, `90 bytes` (decimal units, as file managers show them)."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1000:
        return f"{size / 1000:.0f} KB"
    return f"{size} byte{'s' if size != 1 else ''}"


def size_words(text: str) -> str:
    """`23,165 lines · 2.0 MB`: the lines and the UTF-8 size of `text`."""
    lines = line_count(text)
    size = len(text.encode("utf-8", "replace"))
    return f"{lines:,} line{'s' if lines != 1 else ''} · {byte_words(size)}"


HEAD_SHARE = 0.7  # of what a cut text keeps, from its start


def cut_middle(text: str, keep_chars: int, why: str) -> str:
    """`text` with its middle replaced by a note (`[… 22,900 lines · 2.0 MB cut from the middle of this
    message {why} …]`); unchanged when it is no longer than `keep_chars`."""
    if len(text) <= keep_chars:
        return text
    head = int(keep_chars * HEAD_SHARE)
    tail = max(0, keep_chars - head)
    cut = text[head : len(text) - tail]
    note = f"[… {size_words(cut)} cut from the middle of this message {why} …]"
    return f"{text[:head]}\n{note}\n{text[len(text) - tail :] if tail else ''}"

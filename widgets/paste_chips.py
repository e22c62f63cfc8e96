"""Big pastes in the input as chips: `[Pasted 23,165 lines · 2.0 MB]` stands for the text until it is sent.

The input (a TextArea) holds the chip's label; `PasteChips` keeps what each label stands for, and
`expand` puts the texts back in place of their labels, which is what is sent. A label edited by hand
is no longer a chip: it is sent as the words it has become.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.text_size import line_count, size_words


def pasted_text(raw: str) -> str:
    """A paste with its line ends as line feeds (terminals send them as carriage returns)."""
    return raw.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class PasteLimits:
    """A text of more lines or characters than these is long: a chip in the input, collapsed when sent."""

    lines: int = 200
    chars: int = 20_000

    def is_long(self, text: str) -> bool:
        return len(text) > self.chars or line_count(text) > self.lines


@dataclass
class PasteChips:
    """The chips made in this input (kept while their labels may come back from the input's history)."""

    texts: dict[str, str] = field(default_factory=dict)

    def add(self, text: str) -> str:
        """A new chip for `text`; its label, unique among the chips made so far."""
        base = f"Pasted {size_words(text)}"
        label = f"[{base}]"
        number = 2
        while label in self.texts and self.texts[label] != text:
            label = f"[{base} #{number}]"
            number += 1
        self.texts[label] = text
        return label

    def labels_in(self, text: str) -> list[tuple[int, str]]:
        """(offset, label) of every chip in `text`, in order."""
        found: list[tuple[int, str]] = []
        start = text.find("[Pasted ")
        while start >= 0:
            end = text.find("]", start)
            if end < 0:
                break
            label = text[start : end + 1]
            if label in self.texts:
                found.append((start, label))
                start = text.find("[Pasted ", end + 1)
            else:
                start = text.find("[Pasted ", start + 1)
        return found

    def expand(self, text: str) -> str:
        """`text` with every chip replaced by the text it stands for."""
        parts: list[str] = []
        at = 0
        for offset, label in self.labels_in(text):
            parts.append(text[at:offset])
            parts.append(self.texts[label])
            at = offset + len(label)
        parts.append(text[at:])
        return "".join(parts)

    def at(self, line: str, column: int) -> tuple[int, str] | None:
        """The chip in `line` that holds `column` or ends right before it: (start column, label)."""
        for offset, label in self.labels_in(line):
            if offset <= column <= offset + len(label):
                return offset, label
        return None

"""The memory pane's "Facts" section: what the fact store took in this session and gave to this turn.

Shown only while the local fact store is the memory provider. Two lists, each fact with its trust:
the facts written this session (added, updated, rated or removed, by the agent's tools, a memory add
or `/facts`), newest first, and the facts recalled into the running turn's context. The section only
draws what the engine's events said (`FactWritten`, `FactsRecalled`); it never reads the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

ACTION_MARK = {"add": "+", "update": "~", "remove": "-", "feedback": "±"}
TRUST_HIGH, TRUST_LOW = 0.7, 0.3  # trust at or above is drawn as reliable, below as doubtful


@dataclass(frozen=True)
class FactLine:
    """One fact as the section shows it; `action` is the last write this session ("" when recalled)."""

    fact_id: int
    content: str
    trust: float
    category: str
    action: str = ""


def trust_style(trust: float) -> str:
    if trust >= TRUST_HIGH:
        return "$success"
    return "$error" if trust < TRUST_LOW else "$warning"


def fact_content(line: FactLine) -> Content:
    """`+ 0.50 #12 The user's editor is Helix (user_pref)` on one line."""
    mark = ACTION_MARK.get(line.action, "·")
    removed = line.action == "remove"
    return Content.assemble(
        (f"{mark} ", "bold"),
        (f"{line.trust:.2f} ", trust_style(line.trust)),
        (f"#{line.fact_id} ", "dim"),
        (" ".join(line.content.split()), "strike dim" if removed else ""),
        (f" ({line.category})", "dim"),
    )


class FactsSection(Static):
    """The written and recalled facts, as lines of one Static (a long session stays one widget)."""

    DEFAULT_CSS = """
    FactsSection {
        height: auto;
        max-height: 40%;
        padding: 0 1;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, max_lines: int = 50, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.max_lines = max_lines
        self.written: dict[int, FactLine] = {}  # newest last; a fact written again moves to the end
        self.recalled: tuple[FactLine, ...] = ()

    def fact_written(self, line: FactLine) -> None:
        self.written.pop(line.fact_id, None)
        self.written[line.fact_id] = line
        self._draw()

    def facts_recalled(self, lines: Iterable[FactLine]) -> None:
        self.recalled = tuple(lines)
        self._draw()

    def turn_started(self) -> None:
        """A new turn: what the last one recalled is no longer in the context."""
        if self.recalled:
            self.recalled = ()
            self._draw()

    def reset(self) -> None:
        """A new session: nothing written in it yet."""
        self.written.clear()
        self.recalled = ()
        self._draw()

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        written = list(reversed(self.written.values()))
        lines: list[Content] = [
            Content.assemble(
                ("Facts", "bold"),
                (f" · {len(written)} written this session · {len(self.recalled)} in this turn", "dim"),
            )
        ]
        lines += [fact_content(line) for line in written[: self.max_lines]]
        if len(written) > self.max_lines:
            more = len(written) - self.max_lines
            lines.append(Content.styled(f"… and {more} more; /facts lists them", "dim"))
        if self.recalled:
            lines.append(Content.styled("recalled into this turn:", "dim italic"))
            lines += [fact_content(line) for line in self.recalled[: self.max_lines]]
        if not written and not self.recalled:
            lines.append(Content.styled("none yet · /facts searches the store", "dim italic"))
        self.update(Content("\n").join(lines))

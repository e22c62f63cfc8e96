"""What changed on disk that the running session does not see: it applies to the next session.

The running session's prompt is frozen (identity, skills index, memory); files edited since are read
by the next one. This line says which, and offers the one key that starts a new session now. It is
hidden while the running session and the files agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static


@dataclass(frozen=True)
class SessionDrift:
    """How the files on disk differ from what the running session was built from."""

    soul: bool = False
    skills: bool = False
    skills_detail: str = ""  # e.g. "the next session's index: 14 skills, 1.2k tokens (this one: 13)"
    skill_names: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return self.soul or self.skills


class NextSessionBar(Static):
    """One or two lines above the input while the files and the running session differ."""

    DEFAULT_CSS = """
    NextSessionBar {
        height: auto;
        max-height: 3;
        width: 1fr;
        padding: 0 1;
        background: $warning 15%;
        color: $text;
        display: none;
    }
    NextSessionBar.-shown {
        display: block;
    }
    """

    def __init__(self, new_session_key: str = "ctrl+n", id: str | None = None) -> None:
        super().__init__(id=id)
        self.drift = SessionDrift()
        self.new_session_key = new_session_key

    def show(self, drift: SessionDrift) -> None:
        self.drift = drift
        self.set_class(drift.any, "-shown")
        self.update(self.content_for(drift))

    def content_for(self, drift: SessionDrift) -> Content:
        lines: list[Content] = []
        key = (f" · {self.new_session_key}", "bold"), (" start a new session now", "")
        if drift.soul:
            lines.append(
                Content.assemble(
                    ("⟳ ", "$warning"),
                    ("SOUL.md", "bold"),
                    " changed on disk, applies to the next session",
                    *key,
                )
            )
        if drift.skills:
            names = ", ".join(drift.skill_names[:4]) + (" …" if len(drift.skill_names) > 4 else "")
            lines.append(
                Content.assemble(
                    ("⟳ ", "$warning"),
                    ("skills", "bold"),
                    f" changed on disk ({names})" if names else " changed on disk",
                    ": the running session keeps its index",
                    (f"; {drift.skills_detail}" if drift.skills_detail else "", "dim"),
                    *(key if not drift.soul else ()),
                )
            )
        return Content("\n").join(lines)

"""What the analysis hands the approval layer: a finding (which rule, about what, where) and a call."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.tools.shell.parse import Invocation
from engine.tools.shell.words import Word


@dataclass(frozen=True)
class Finding:
    """One rule that matched: `subject` is the command or code it is about; `target` the resolved path
    (or name) a session approval is scoped to, None when the rule has no target or it is not known."""

    rule: str
    subject: str
    target: str | None = None
    detail: str = ""


@dataclass(eq=False)
class Call:
    """One program that will run: its words, the invocation it came from, and how it was reached.

    `feeder` names the program (xargs, find, parallel) that appends arguments at run time, which are
    not known; `roots` are `find`'s starting points, where those arguments come from.
    """

    argv: list[Word]
    inv: Invocation
    via: str = ""
    feeder: str = ""
    roots: list[Word] = field(default_factory=list)
    cwd: Path | None = None

    @property
    def name(self) -> str:
        from engine.tools.shell.programs import program_name

        value = self.argv[0].value if self.argv else None
        return program_name(value) if value else ""

    @property
    def args(self) -> list[Word]:
        return self.argv[1:]

    @property
    def folder(self) -> Path | None:
        return self.cwd if self.cwd is not None else self.inv.cwd

    def text(self) -> str:
        return " ".join(w.text for w in self.argv)


@dataclass
class Code:
    """Program text handed to a shell or an interpreter (`text` None when it is not literal)."""

    language: str  # "shell", "python", "perl", "ruby", "node", "php", "lua", "awk", "other"
    text: str | None
    via: str
    call: Call
    taint: frozenset[str] = frozenset()

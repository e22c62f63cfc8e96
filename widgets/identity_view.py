"""One identity pair side by side: a file (intent) beside a peer's representation (observed), drift marked.

Sentences that contradict the other side are red, sentences both sides agree on green, what only
the provider observed is yellow; below, the drift is listed claim against claim. The data is the
engine's `IdentityPair`; this widget only draws it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from engine.providers.identity import IdentityPair

CONFLICT, AGREE, ONLY_OBSERVED, ONLY_STATED = "bold $error", "$success", "$warning", ""
MAX_DRIFT_LINES = 6


def mark_sentences(text: str, marks: list[tuple[str, str]]) -> Content:
    """`text` with each (sentence, style) styled where the sentence (or its start) appears."""
    content = Content(text)
    for sentence, style in marks:
        bare = sentence.split(" (")[0].strip().rstrip(".")
        for probe in (bare, bare[:40]):
            if len(probe) < 8:
                continue
            start = text.find(probe)
            if start < 0:
                start = text.lower().find(probe.lower())
            if start >= 0:
                content = content.stylize(style, start, start + len(probe))
                break
    return content


class IdentityPairView(Vertical):
    """The two columns of one pair and the list of where they disagree."""

    DEFAULT_CSS = """
    IdentityPairView {
        height: 1fr;
        border-top: solid $panel;
    }
    IdentityPairView > .pair-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
    }
    IdentityPairView > Horizontal {
        height: 1fr;
    }
    IdentityPairView VerticalScroll {
        width: 1fr;
        height: 1fr;
        padding: 0 1;
    }
    IdentityPairView .pair-column-title {
        color: $text-muted;
        text-style: italic;
    }
    IdentityPairView .pair-left {
        border-right: vkey $panel;
    }
    IdentityPairView > .pair-drift {
        height: auto;
        max-height: 8;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)

    def compose(self) -> ComposeResult:
        yield Static("", classes="pair-title")
        with Horizontal():
            with VerticalScroll(classes="pair-left"):
                yield Static("", classes="pair-column-title pair-file-label")
                yield Static("", classes="pair-file")
            with VerticalScroll(classes="pair-right"):
                yield Static("", classes="pair-column-title pair-peer-label")
                yield Static("", classes="pair-peer")
        yield Static("", classes="pair-drift")

    def show(self, pair: IdentityPair, available: bool, note_when_empty: str) -> None:
        drift = pair.drift
        self.query_one(".pair-title", Static).update(pair.title)
        self.query_one(".pair-file-label", Static).update(f"{pair.file_label} — stated (intent)")
        self.query_one(".pair-peer-label", Static).update(f"{pair.peer_label} — observed")
        stated_marks = [(m.stated.text, CONFLICT) for m in drift.conflicts]
        stated_marks += [(m.stated.text, AGREE) for m in drift.agreements]
        observed_marks = [(m.observed.text, CONFLICT) for m in drift.conflicts]
        observed_marks += [(m.observed.text, AGREE) for m in drift.agreements]
        observed_marks += [(c.text, ONLY_OBSERVED) for c in drift.observed_only]
        file_text = pair.file_text.strip() or f"({pair.file_label} is empty)"
        self.query_one(".pair-file", Static).update(mark_sentences(file_text, stated_marks))
        if pair.peer_text.strip():
            peer = mark_sentences(pair.peer_text.strip(), observed_marks)
        else:
            peer = Content.styled(
                note_when_empty if not available else "Nothing observed yet.", "italic $text-muted"
            )
        self.query_one(".pair-peer", Static).update(peer)
        self.query_one(".pair-drift", Static).update(self.drift_lines(pair, available))

    def drift_lines(self, pair: IdentityPair, available: bool) -> Content:
        drift = pair.drift
        if not available:
            return Content.styled("No observations to compare with.", "dim")
        if not drift.matches and not drift.observed_only:
            return Content.styled("Nothing observed yet: the peer forms as the conversation goes on.", "dim")
        lines: list[Content] = [
            Content.assemble(
                ("agreement ", "dim"),
                (f"{drift.agreement:.0%}", "bold"),
                (f" · {len(drift.conflicts)} drift", CONFLICT if drift.conflicts else "dim"),
                (f" · {len(drift.agreements)} agree", AGREE),
                (f" · {len(drift.observed_only)} only observed", ONLY_OBSERVED),
                (f" · {len(drift.stated_only)} stated, not observed yet", "dim"),
            )
        ]
        for match in drift.conflicts[:MAX_DRIFT_LINES]:
            lines.append(
                Content.assemble(
                    ("! ", CONFLICT),
                    ("stated ", "dim"),
                    match.stated.text,
                    ("  ≠  observed ", "dim"),
                    (match.observed.text, CONFLICT),
                )
            )
        return Content("\n").join(lines)

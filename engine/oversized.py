"""A message that alone does not fit the model's context window: found before sending, and the three
ways on that the person chooses from.

    found = oversized_message(text, window=32_000, fixed_tokens=6_000)
    if found is not None:
        text = fitted_message(text, found, "file", cwd=project, folder=".hws/pastes", cut_share=0.5)

`file` saves the text in the project and sends its path (the agent reads it with its tools), `cut`
keeps its start and end with a note of what was cut, `send` sends it as it is (the provider will
most likely refuse it; the person asked for it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from engine import tokens
from engine.atomic import WriteError, atomic_write_text, describe_os_error
from engine.text_size import cut_middle, size_words

CHOICES = ("file", "cut", "send")
CHOICE_HELP = {
    "file": "save it to a file in the project and send its path",
    "cut": "keep its start and end, cut the middle to fit",
    "send": "send it anyway (the model will most likely refuse it)",
}


@dataclass(frozen=True)
class OversizedMessage:
    """How much a message passes the room the window leaves it."""

    tokens: int  # the message's size
    window: int  # the model's context window
    room: int  # what the window leaves a message: less the system prompt and the tool schemas
    size: str  # `23,165 lines · 2.0 MB`

    def sentence(self) -> str:
        return (
            f"This message is about {self.tokens:,} tokens ({self.size}): more than the model's context "
            f"window of {self.window:,} tokens can hold, so it was not sent."
        )


def oversized_message(text: str, *, window: int, fixed_tokens: int = 0) -> OversizedMessage | None:
    """The verdict on `text`, or None when it fits (the cheap estimate decides most messages)."""
    room = max(0, window - fixed_tokens)
    if window <= 0 or tokens.estimate(text) < room // 2:
        return None
    count = tokens.count(text)
    if count < room:
        return None
    return OversizedMessage(count, window, room, size_words(text))


def saved_paste_path(cwd: Path, folder: str, now: float | None = None) -> Path:
    """A new file name in the project's paste folder: `paste-20250514-091244.txt` (then `-2`, `-3`…)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    base = (cwd / folder).resolve()
    path = base / f"paste-{stamp}.txt"
    number = 2
    while path.exists():
        path = base / f"paste-{stamp}-{number}.txt"
        number += 1
    return path


def save_to_project(text: str, cwd: Path, folder: str) -> Path:
    """Write `text` into the project's paste folder; raises WriteError with a sentence."""
    path = saved_paste_path(cwd, folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError as exc:
        raise WriteError(describe_os_error(exc, path)) from exc
    return path


def path_message(text: str, path: Path, cwd: Path, found: OversizedMessage, preview_chars: int = 400) -> str:
    """What is sent instead of the text: its start, and where the whole of it is."""
    try:
        shown = str(path.relative_to(cwd.resolve()))
    except ValueError:
        shown = str(path)
    start = text[:preview_chars].rstrip()
    more = "…" if len(text) > preview_chars else ""
    return (
        f"{start}{more}\n\n[This message was too large for the context window ({found.size}, about "
        f"{found.tokens:,} tokens), so it was saved to `{shown}`; read the parts you need from there.]"
    )


def cut_message(text: str, found: OversizedMessage, share: float) -> str:
    """`text` with its middle cut so that the rest takes about `share` of the window."""
    keep_tokens = max(1, min(int(found.window * share), found.room))
    keep_chars = max(1, int(len(text) * keep_tokens / max(found.tokens, 1)))
    return cut_middle(text, keep_chars, f"to fit the context window (it was {found.size})")


@dataclass(frozen=True)
class FittedMessage:
    """What is sent for the person's choice, and a sentence saying what was done."""

    text: str
    note: str


def fitted_message(
    text: str, found: OversizedMessage, choice: str, *, cwd: Path, folder: str, cut_share: float
) -> FittedMessage:
    """The message to send for the person's choice (`file`, `cut` or `send`)."""
    if choice == "file":
        path = save_to_project(text, cwd, folder)
        return FittedMessage(
            path_message(text, path, cwd, found),
            f"The message ({found.size}) was saved to {path}; its path is sent.",
        )
    if choice == "cut":
        return FittedMessage(
            cut_message(text, found, cut_share),
            f"The message ({found.size}) was cut to its start and end to fit.",
        )
    if choice == "send":
        return FittedMessage(text, f"The message ({found.size}) is sent as it is, larger than the window.")
    raise ValueError(f"unknown choice {choice!r}; one of {', '.join(CHOICES)}")

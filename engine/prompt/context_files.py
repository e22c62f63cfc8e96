"""Identity and project context for the system prompt: SOUL.md and one project context file.

Both are text the user (or a repository) controls, so both are scanned before they reach the model
and capped so that one huge file cannot crowd out everything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.home import Home, default_soul_text
from engine.threats.scan import scan

HEAD_SHARE, TAIL_SHARE = 0.70, 0.20
PROJECT_FILE_GROUPS: tuple[tuple[str, ...], ...] = (
    (".hermes.md", "HERMES.md"),
    ("AGENTS.md", "agents.md"),
    ("CLAUDE.md", "claude.md"),
)
MAX_READ_BYTES = 4_000_000
# Files that this agent, Hermes Agent or other coding agents load as instructions (lower case): a file
# tool's write of one outside the working directory asks the person every time.
CONTEXT_FILE_NAMES = frozenset(
    {name.lower() for group in PROJECT_FILE_GROUPS for name in group}
    | {".cursorrules", ".clinerules", ".windsurfrules", "gemini.md", "copilot-instructions.md"}
)


def is_context_file(path: Path) -> bool:
    """True for a context file's name, or a rule file of `.cursor/rules/`."""
    if path.name.lower() in CONTEXT_FILE_NAMES:
        return True
    return (
        path.suffix.lower() == ".mdc" and path.parent.name == "rules" and path.parent.parent.name == ".cursor"
    )


@dataclass(frozen=True)
class ContextText:
    """Text ready for a prompt layer, with what happened to it on the way."""

    text: str
    source: str  # path shown to the user, or "" for the built-in default
    blocked: tuple[str, ...] = ()  # threat ids that kept the file out
    truncated_from: int = 0  # original length in characters when it was cut, else 0
    note: str = ""  # a problem worth showing (unreadable, not UTF-8, ...)


def cap_text(text: str, limit: int, label: str) -> tuple[str, int]:
    """Keep 70% head and 20% tail of an over-long text with a marker between; return (text, original len)."""
    if len(text) <= limit:
        return text, 0
    head, tail = int(limit * HEAD_SHARE), int(limit * TAIL_SHARE)
    marker = (
        f"\n\n[...truncated {label}: kept {head:,}+{tail:,} of {len(text):,} chars. "
        "Use file tools to read the full file.]\n\n"
    )
    return text[:head] + marker + text[-tail:], len(text)


def _read(path: Path) -> tuple[str, str]:
    """The file's text and a note; undecodable bytes are replaced rather than failing the session."""
    with path.open("rb") as handle:
        data = handle.read(MAX_READ_BYTES + 1)
    note = ""
    if len(data) > MAX_READ_BYTES:
        data = data[:MAX_READ_BYTES]
        note = f"{path.name} is larger than {MAX_READ_BYTES:,} bytes; only the start was read."
    try:
        return data.decode("utf-8"), note
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        return text, note or f"{path.name} is not valid UTF-8; unreadable bytes were replaced."


def _strip_frontmatter(text: str) -> str:
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end == -1:
        return text
    after = text.find("\n", end + 4)
    return text[after + 1 :] if after != -1 else ""


def _screen(text: str, label: str, limit: int, source: str, note: str = "") -> ContextText:
    findings = scan(text, "context")
    if findings:
        ids = tuple(sorted({f.id for f in findings}))
        blocked = (
            f"[BLOCKED: {label} contained potential prompt injection ({', '.join(ids)}). Content not loaded.]"
        )
        return ContextText(blocked, source, blocked=ids, note=note)
    capped, original = cap_text(text, limit, label)
    return ContextText(capped, source, truncated_from=original, note=note)


def load_identity(home: Home, limit: int) -> ContextText:
    """SOUL.md from the home (scanned, capped); the built-in persona when it is missing or empty."""
    path = home.soul
    try:
        text, note = _read(path)
    except FileNotFoundError:
        return ContextText(default_soul_text().strip(), "")
    except OSError as exc:
        return ContextText(
            default_soul_text().strip(), "", note=f"Cannot read {path}: {exc.strerror}; using the default."
        )
    if not text.strip():
        return ContextText(default_soul_text().strip(), "", note="SOUL.md is empty; using the default.")
    return _screen(text.strip(), "SOUL.md", limit, str(path), note)


def _search_roots(cwd: Path) -> list[Path]:
    """The working directory and its parents up to (and including) the enclosing git root."""
    roots = [cwd]
    for parent in cwd.parents:
        if (roots[-1] / ".git").exists():
            break
        roots.append(parent)
    return roots if (roots[-1] / ".git").exists() else [cwd]


def find_project_file(cwd: Path) -> Path | None:
    """The one project context file that applies: .hermes.md/HERMES.md up to the git root, else
    AGENTS.md, else CLAUDE.md in the working directory."""
    for root in _search_roots(cwd):
        for name in PROJECT_FILE_GROUPS[0]:
            if (root / name).is_file():
                return root / name
    for group in PROJECT_FILE_GROUPS[1:]:
        for name in group:
            if (cwd / name).is_file():
                return cwd / name
    return None


def load_project_context(cwd: Path, limit: int) -> ContextText | None:
    """The project context layer's text, or None when the project has no context file."""
    path = find_project_file(cwd)
    if path is None:
        return None
    try:
        text, note = _read(path)
    except OSError as exc:
        return ContextText("", str(path), note=f"Cannot read {path}: {exc.strerror}.")
    if path.name.lower() in (".hermes.md", "hermes.md"):
        text = _strip_frontmatter(text)
    if not text.strip():
        return None
    screened = _screen(text.strip(), path.name, limit, str(path), note)
    body = f"## {path.name}\n\n{screened.text}"
    return ContextText(body, screened.source, screened.blocked, screened.truncated_from, screened.note)

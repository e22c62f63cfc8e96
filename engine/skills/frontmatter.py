"""SKILL.md frontmatter: a lenient reader for loading any public skill, and Hermes' strict checks for writes.

Reading never raises on a skill that merely breaks the agentskills.io spec: it returns warnings the UI
can show. Only a file with nothing usable is refused, with a reason naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

try:  # the C loader parses 500 frontmatters several times faster
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
SPEC_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
MAX_ALIASES = 50

# The six keys of the agentskills.io spec, plus the keys Hermes Agent's own skills use.
SPEC_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
HERMES_KEYS = frozenset(
    {
        "version",
        "author",
        "platforms",
        "prerequisites",
        "required_environment_variables",
        "setup",
        "required_credential_files",
        "environments",
        "dependencies",
        "triggers",
        "tags",
        "related_skills",
        "homepage",
    }
)
KNOWN_KEYS = SPEC_KEYS | HERMES_KEYS

NAME_RULE = (
    "Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."
)


class FrontmatterError(Exception):
    """The file has nothing a skill can be built from; `line` is 1-based (0 when unknown)."""

    def __init__(self, reason: str, line: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


@dataclass
class ParsedSkill:
    """What a SKILL.md says about itself, read leniently."""

    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line where the body starts
    warnings: list[str] = field(default_factory=list)
    has_frontmatter: bool = True


def normalise_text(text: str) -> str:
    """Drop a BOM and turn CRLF/CR line ends into LF, so offsets and lines mean the same everywhere."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """Split `---\\nYAML\\n---\\nbody` into (yaml, body, body_line); None when there is no frontmatter.

    Raises FrontmatterError when the opening `---` is never closed.
    """
    if not (text.startswith("---\n") or text == "---" or text.startswith("--- \n")):
        return None
    first_nl = text.find("\n")
    pos = first_nl + 1
    line_no = 2
    while pos <= len(text):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.rstrip() in ("---", "..."):
            body = "" if end < 0 else text[end + 1 :]
            return text[first_nl + 1 : pos], body, line_no + 1
        if end < 0:
            break
        pos = end + 1
        line_no += 1
    raise FrontmatterError("frontmatter opened with --- on line 1 is never closed by a --- line", 1)


def _too_many_aliases(yaml_text: str) -> int:
    """The line of the alias past MAX_ALIASES (0 if fewer): a few anchors can expand into gigabytes."""
    if "*" not in yaml_text or "&" not in yaml_text:
        return 0
    count = 0
    try:
        for event in yaml.parse(yaml_text, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent):
                count += 1
                if count > MAX_ALIASES:
                    return event.start_mark.line + 1 if event.start_mark else 1
    except (yaml.YAMLError, RecursionError):
        return 0  # broken YAML with few aliases: the load that follows reports it (or reads plain lines)
    return 0


_PLAIN_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s?(.*)$")


def _plain_key_values(yaml_text: str) -> dict[str, Any]:
    """Read `key: value` lines by hand, for the many public skills whose descriptions contain `: `."""
    meta: dict[str, Any] = {}
    last: str | None = None
    for raw in yaml_text.split("\n"):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = _PLAIN_KEY.match(raw)
        if match and not raw[0].isspace():
            last = match.group(1)
            meta[last] = _unquote(match.group(2).strip())
        elif last is not None and raw[0].isspace() and isinstance(meta.get(last), str):
            meta[last] = (str(meta[last]) + " " + raw.strip()).strip()
    for key in ("name", "description"):
        if meta.get(key) in (">", "|", ">-", "|-", ""):
            meta.pop(key, None)
    return meta


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_lenient(text: str) -> ParsedSkill:
    """Parse a SKILL.md for loading: spec violations become warnings, only hopeless files raise."""
    text = normalise_text(text)
    split = split_frontmatter(text)
    if split is None:
        return ParsedSkill(
            {}, text, 1, ["has no YAML frontmatter (--- lines); name and description guessed"], False
        )
    yaml_text, body, body_line = split
    warnings: list[str] = []
    alias_line = _too_many_aliases(yaml_text)
    if alias_line:
        raise FrontmatterError(f"too many YAML aliases (more than {MAX_ALIASES})", alias_line + 1)
    try:
        meta = yaml.load(yaml_text, Loader=_Loader) if yaml_text.strip() else {}
    except yaml.YAMLError as exc:
        line = _yaml_error_line(exc)
        meta = _plain_key_values(yaml_text)
        if not meta.get("name") and not meta.get("description"):
            raise FrontmatterError(f"YAML error: {_yaml_problem(exc)}", line) from exc
        warnings.append(f"line {line}: YAML error ({_yaml_problem(exc)}); read as plain key: value lines")
    except RecursionError as exc:
        raise FrontmatterError("frontmatter is nested too deeply", 2) from exc
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontmatterError("frontmatter is not a mapping of key: value lines", 2)
    meta = {str(k): v for k, v in meta.items()}
    return ParsedSkill(meta, body, body_line, warnings, True)


def _yaml_error_line(exc: yaml.YAMLError) -> int:
    mark = getattr(exc, "problem_mark", None)
    # +1 for 1-based lines, +1 for the opening --- line that is not part of the YAML text.
    return mark.line + 2 if mark is not None else 2


def _yaml_problem(exc: yaml.YAMLError) -> str:
    return str(getattr(exc, "problem", None) or "invalid YAML")


def first_body_line(body: str) -> str:
    """The first line of prose in a body: the description Hermes falls back on when none is given."""
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "```", "---", "<!--")):
            return stripped.lstrip("-*> ").strip()
    return ""


def one_line(text: str) -> str:
    """Collapse folded YAML text into one line for the index."""
    return " ".join(text.split())


def spec_warnings(meta: dict[str, Any], folder_name: str) -> list[str]:
    """Where a loaded skill breaks the agentskills.io spec; each is a warning, never a refusal."""
    warnings: list[str] = []
    name = meta.get("name")
    if name is None:
        warnings.append(f"frontmatter has no 'name'; the folder name '{folder_name}' is used")
    elif not isinstance(name, str) or not name.strip():
        warnings.append("'name' is not text; the folder name is used")
    else:
        if name != folder_name:
            warnings.append(f"name '{name}' differs from its folder '{folder_name}'")
        if len(name) > MAX_NAME_CHARS:
            warnings.append(f"name is {len(name)} characters (the spec allows {MAX_NAME_CHARS})")
        if not NAME_RE.match(name):
            warnings.append(f"name '{name}' is not lowercase letters, digits, '-', '.' or '_'")
    description = meta.get("description")
    if description is None:
        warnings.append("frontmatter has no 'description'; the first line of the body is used")
    elif not isinstance(description, str):
        warnings.append("'description' is not text")
    else:
        if len(description) > MAX_DESCRIPTION_CHARS:
            warnings.append(
                f"description is {len(description):,} characters (the spec allows {MAX_DESCRIPTION_CHARS:,})"
            )
        if "<" in description or ">" in description:
            warnings.append("description contains '<' or '>' (some validators reject it)")
    compatibility = meta.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY_CHARS:
        warnings.append(f"compatibility is {len(compatibility)} characters (the spec allows 500)")
    unknown = sorted(k for k in meta if k not in KNOWN_KEYS)
    if unknown:
        warnings.append("unknown frontmatter key" + ("s " if len(unknown) > 1 else " ") + ", ".join(unknown))
    return warnings


# -- strict checks, for what the agent writes (Hermes' messages) -----------------------------------


def name_error(name: object, what: str = "skill name") -> str | None:
    """Hermes' name rule: lowercase, first char a letter or digit, then letters, digits, `.`, `_`, `-`."""
    if isinstance(name, str) and name and len(name) <= MAX_NAME_CHARS and NAME_RE.match(name):
        return None
    shown = name if isinstance(name, str) else repr(name)
    longer = isinstance(name, str) and len(name) > MAX_NAME_CHARS
    return f"Invalid {what} '{shown}'. {NAME_RULE}" + (
        f" At most {MAX_NAME_CHARS} characters." if longer else ""
    )


def content_error(content: object) -> str | None:
    """Why a SKILL.md text may not be written (None when it may), in Hermes' words."""
    if not isinstance(content, str) or not content.strip():
        return "Content cannot be empty."
    text = normalise_text(content)
    if not text.startswith("---"):
        return (
            "SKILL.md must start with YAML frontmatter (---). Begin with '---', then 'name:' and "
            "'description:' lines, then '---', then the instructions."
        )
    try:
        split = split_frontmatter(text)
    except FrontmatterError:
        return "SKILL.md frontmatter is not closed; add a '---' line after the name and description."
    if split is None:
        return "SKILL.md must start with YAML frontmatter (---) on a line of its own."
    yaml_text, body, _ = split
    if _too_many_aliases(yaml_text):
        return f"YAML frontmatter parse error: more than {MAX_ALIASES} aliases."
    try:
        meta = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError as exc:
        return f"YAML frontmatter parse error: {_yaml_problem(exc)} (line {_yaml_error_line(exc)})."
    except RecursionError:
        return "YAML frontmatter parse error: nested too deeply."
    if not isinstance(meta, dict):
        return "YAML frontmatter parse error: it must be a mapping of key: value lines."
    if not meta.get("name"):
        return "Frontmatter must include 'name' field."
    if not meta.get("description"):
        return "Frontmatter must include 'description' field."
    if not isinstance(meta["description"], str):
        return "Frontmatter 'description' must be text."
    if len(meta["description"]) > MAX_DESCRIPTION_CHARS:
        return f"Description exceeds {MAX_DESCRIPTION_CHARS} characters."
    if not body.strip():
        return "SKILL.md must have content after the frontmatter (the instructions themselves)."
    return None


def frontmatter_name(content: str) -> str | None:
    """The `name` a valid SKILL.md declares (call after `content_error` returned None)."""
    split = split_frontmatter(normalise_text(content))
    if split is None:
        return None
    meta = yaml.load(split[0], Loader=_Loader)
    value = meta.get("name") if isinstance(meta, dict) else None
    return str(value) if value is not None else None

"""Secrets by their surroundings: the value of `PASSWORD=…`, `"token": "…"`, `api_key: …`, `user:pass@`.

A key whose value we do not know (a project's own `.env`, a config file, a connection string) is
still recognisable by the name it is written under. The name stays and the value goes, so the text
remains readable: `DB_PASSWORD=[REDACTED]`. What is plainly not a secret stays as it is: numbers,
booleans, empty values, placeholders (`changeme`, `<your-key>`, `${VAR}`), references in code
(`os.environ["X"]`, `settings.API_KEY`, `getpass()`), and names that only mention a secret
(`max_tokens`, `PASSWORD_MIN_LENGTH`, `token_count`).
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"
MIN_VALUE = 6  # shorter values under a secret's name ("admin", "1234") are left: too short to matter, too
# often a word in prose
MAX_PLAIN_NUMBER = 12  # a number with at most this many digits is a setting (a port, a length), not a key

# Last words of a name that holds a secret, after splitting snake_case, kebab-case, dots and camelCase.
SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "creds",
        "secretkey",
        "accesskey",
        "privatekey",
        "authtoken",
    }
)
# Words that make a following `key` a secret (`api_key`, `signing-key`, `clientKey`).
KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "auth",
        "signing",
        "encryption",
        "master",
        "client",
        "app",
        "license",
        "service",
        "account",
        "webhook",
        "session",
        "hmac",
        "jwt",
        "crypto",
        "admin",
        "subscription",
        "consumer",
    }
)
_NAME_HINTS = ("pass", "pwd", "secret", "token", "key", "cred", "auth")
_NAME = r"-{0,2}[A-Za-z_][\w.\-]*"
# name, an optional type annotation (`password: str = "…"`), a separator, then a quoted or bare value.
# Only the name and separator are consumed (the value is looked at ahead), so a value that holds another
# assignment (`"command": "export TOKEN=…"`) is searched too.
_ASSIGNMENT = re.compile(
    rf"""(?<![\w.\-])(?=["']?[\w.\-]*?(?i:pass|pwd|secret|token|key|cred|auth))
    (?P<name>(?P<quote>["']?)(?P<bare>{_NAME})(?P=quote))
    (?P<sep>(?:\s*:\s*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?)?\s*(?::=|=>|=|:(?![:/]))[ \t]*)
    (?=(?P<value>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'`,;&<>(){{}}\[\]]+)
    (?P<after>(?P<eol>[ \t]*(?:\#[^\n]*|//[^\n]*)?(?:\n|$))|.?))
    """,
    re.VERBOSE,
)
_HEADER = re.compile(
    r"(?im)\b((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token|digest|negotiate)\s+)"
    r"([^\s\"',;]{8,})"
)
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^\s:/@\"'<>]*):([^\s/@\"'<>]+)@")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_A_SECRET = frozenset(
    {
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "null",
        "none",
        "nil",
        "undefined",
        "~",
        "required",
        "optional",
    }
)
_PLACEHOLDER_WORDS = (
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yourpassword",
    "example",
    "dummy",
    "redacted",
    "replace",
    "insert",
    "secret_here",
    "key_here",
    "token_here",
    "todo",
    "xxxx",
    "****",
    "...",
    "…",
)
_TEMPLATE = re.compile(r"^(?:\$\{?[\w:\-?]+\}?|\$\(.*\)|\{\{.*\}\}|<[^<>]*>|%\(?\w*\)?[sd]?|%\w+%|\[.*\])$")
_REFERENCE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")  # settings.API_KEY, process.env.TOKEN


def name_parts(name: str) -> list[str]:
    """The words of a setting's name: `awsSecretAccessKey` → aws, secret, access, key."""
    spaced = _CAMEL.sub("_", name.strip("\"'-"))
    return [part.lower() for part in re.split(r"[^A-Za-z0-9]+", spaced) if part]


def is_secret_name(name: str) -> bool:
    """Whether a variable or setting of this name holds a secret (`DB_PASSWORD`, `apiKey`, `STRIPE_KEY`)."""
    parts = name_parts(name)
    if not parts:
        return False
    last = parts[-1]
    if last in SECRET_WORDS:
        return True
    if last == "key" and len(parts) >= 2:
        bare = name.strip("\"'-")
        return parts[-2] in KEY_QUALIFIERS or (bare.isupper() and "_" in bare)  # FOO_KEY: an environment key
    return False


def is_placeholder(value: str) -> bool:
    """Whether a value only stands in for a secret: `changeme`, `<your-key>`, `${VAR}`, `xxxxxxxx`."""
    text = value.strip().strip("\"'")
    lower = text.lower()
    if not text or lower in _NOT_A_SECRET or _TEMPLATE.match(text):
        return True
    if len(set(lower)) <= 2:  # xxxxxxxx, ********, 00000000
        return True
    return any(word in lower for word in _PLACEHOLDER_WORDS)


def _plain_number(text: str) -> bool:
    digits = text.lstrip("+-").replace(".", "", 1).replace("_", "")
    return digits.isdigit() and len(digits) <= MAX_PLAIN_NUMBER


def secret_value(value: str, *, quoted: bool, line_end: bool, name: str = "") -> bool:
    """Whether the value written under a secret's name is itself a secret worth hiding.

    A quoted value or a bare value that ends its line (`.env`, YAML, INI) only has to be real;
    a bare value in the middle of a line must also look like a key (a digit, a symbol, or length),
    because prose ("the token: expired now") and code put words there too.
    """
    text = value[1:-1] if quoted else value
    if len(text) < MIN_VALUE or _plain_number(text) or is_placeholder(text):
        return False
    if quoted:
        return True
    if _REFERENCE.match(text) or text.lower() in {name.lower(), *name_parts(name)[-1:]}:
        return False
    if line_end:
        return True
    strong = any(not (ch.isalpha() or ch == "_") for ch in text)
    return strong or len(text) >= 16


def _assignment(match: re.Match[str]) -> str | None:
    """The redacted value of one `name = value`, or None when the value stays."""
    name, value, after = match.group("bare"), match.group("value"), match.group("after")
    if not is_secret_name(name):
        return None
    if after[:1] in ("(", "[", "."):  # a call, an index or an attribute: code, not a value
        return None
    quoted = value[:1] in "\"'" and len(value) >= 2 and value[-1] == value[0]
    line_end = match.group("eol") is not None
    if not secret_value(value, quoted=quoted, line_end=line_end, name=name):
        return None
    return f"{value[0]}{REDACTED}{value[0]}" if quoted else REDACTED


def _redact_assignments(text: str) -> str:
    pieces: list[str] = []
    done = 0
    for match in _ASSIGNMENT.finditer(text):
        start = match.start("value")
        if start < done:  # inside a value already replaced
            continue
        clean = _assignment(match)
        if clean is not None:
            pieces += [text[done:start], clean]
            done = match.end("value")
    return "".join(pieces) + text[done:] if pieces else text


def _userinfo(match: re.Match[str]) -> str:
    password = match.group(3)
    if password == REDACTED or is_placeholder(password) or password.lower() in ("pass", "password"):
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}:{REDACTED}@"


def redact_forms(text: str) -> str:
    """`text` with values under secret names and URL passwords replaced by [REDACTED], names kept."""
    if not text:
        return text
    lower = text.lower()
    if "://" in text and "@" in text:
        text = _URL_USERINFO.sub(_userinfo, text)
    if "authorization" in lower:
        text = _HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    if any(hint in lower for hint in _NAME_HINTS):
        text = _redact_assignments(text)
    return text

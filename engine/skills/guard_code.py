"""The guard's reading of code that hides what it does: rebuilt, decoded and data-flow findings.

Patterns see the text as written; code can say `getattr(os, 'sys' + 'tem')`, `$(printf '\\143…')${IFS}`
or `codecs.decode('…', 'rot13')` and never spell what it runs. Each such line is rebuilt (literal
pieces joined, escapes decoded, `${IFS}` read as a space) and judged again by the skill patterns;
each encoded run in a file (base64, hex, escapes, ROT13 where the file uses ROT13, UTF-16 base64 for
PowerShell) is decoded and judged again. A dangerous finding in what was hidden is critical: hiding
it was the point. A secret read from the environment into a variable and then put into a request
address or body is followed through the assignments in between.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from engine.skills.guard_rules import CRITICAL, HIGH, MEDIUM, exfil_destination
from engine.threats.decode import hidden_payloads

MATCH_CHARS = 120
MAX_REBUILT_LINES = 2000  # lines of one file worth rebuilding; the rest are judged as written

_QUOTED = r"(?:'[^'\\\n]*'|\"[^\"\\\n]*\")"
_CONCAT = re.compile(rf"{_QUOTED}(?:\s*\+\s*{_QUOTED})+")
_JOIN = re.compile(r"(['\"])\1\s*\.join\(\s*[\[(]([^\])\n]*)[\])]\s*\)")
_CHR_RUN = re.compile(r"(?:chr\(\s*\d{1,3}\s*\)\s*\+?\s*){2,}")
_FROM_CHAR_CODE = re.compile(r"String\.fromCharCode\(\s*((?:\d{1,3}\s*,\s*)+\d{1,3})\s*\)")
_PRINTF = re.compile(
    r"\$\(\s*(?:printf|echo\s+-e|echo\s+-ne)\s+(['\"])((?:\\[0-7]{1,3}|\\x[0-9a-fA-F]{2}|[^'\"\\])+)\1\s*\)"
)
_ANSI_C = re.compile(r"\$'((?:\\[0-7]{1,3}|\\x[0-9a-fA-F]{2}|[^'\\])+)'")
_IFS = re.compile(r"\$\{IFS\}|\$IFS\b")
_ESCAPE = re.compile(r"\\([0-7]{1,3})|\\x([0-9a-fA-F]{2})")
_HINTS = ("+", "join(", "chr(", "fromcharcode", "printf", "echo -e", "echo -ne", "$'", "ifs")
_ROT13_ASKED = re.compile(r"rot[_-]?13", re.IGNORECASE)
_LITERAL = re.compile(r"'([^'\\\n]{6,})'|\"([^\"\\\n]{6,})\"")
# Names that give a program the shell, other programs or the file system: spelled in pieces, a threat.
DANGEROUS_NAMES = frozenset(
    {
        "os", "subprocess", "system", "popen", "exec", "execv", "execve", "execl", "execvp", "spawn", "eval",
        "child_process", "execsync", "spawnsync", "execfile", "execfilesync", "__import__", "builtins",
        "__builtins__", "compile", "pty", "socket", "ctypes", "rmtree", "check_output", "getoutput",
        "getstatusoutput", "call", "check_call", "run", "startfile", "shell", "invoke-expression", "iex",
    }
)  # fmt: skip
_ENV_SECRET = re.compile(
    r"(?:os\.environ(?:\.get)?\s*[\[(]|os\.getenv\s*\(|getenv\s*\(|process\.env\.|process\.env\[|ENV\[|\$)"
    r"\s*['\"]?[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|CREDENTIALS?)\b",
)
_ASSIGN = re.compile(r"^\s*(?:(?:const|let|var|local|export)\s+)?([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)\s*(.+)$")
_REQUEST = re.compile(
    r"\b(?:urlopen|urllib\.request\.Request|requests\.(?:get|post|put|patch|request)|httpx\.(?:get|post|put"
    r"|stream)|fetch|axios(?:\.\w+)?|https?\.(?:get|request)|http\.client|curl|wget|Invoke-WebRequest"
    r"|Invoke-RestMethod|iwr|irm|WebClient)\b",
)
_DECODE_CALL = re.compile(
    r"\b(?:codecs\.decode|b64decode|b32decode|b85decode|a85decode|urlsafe_b64decode|decodebytes|unhexlify"
    r"|fromhex|atob|FromBase64String|zlib\.decompress|marshal\.loads)\b|Buffer\.from\([^)]*['\"](?:base64|hex)['\"]",
)
_EXEC_SINK = re.compile(
    r"(?:\b(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.\w+|execSync|spawnSync|execFile\w*|popen|system"
    r"|Invoke-Expression|iex)|(?<![\w.])(?:exec|eval|spawn|Function))\s*\(|\|\s*(?:iex|Invoke-Expression)\b",
)
_NODE_REQUEST = re.compile(
    r"\b(?:https?|net|tls|dgram)\.(?:request|connect|createConnection|get)\s*\(|new\s+WebSocket\b"
)
_WHOLE_ENV = re.compile(
    r"JSON\.stringify\(\s*process\.env\s*\)|dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)"
    r"|json\.dumps\(\s*(?:dict\()?\s*os\.environ\b|\{\s*\*\*os\.environ"
    r"|Object\.(?:entries|assign)\([^)]*process\.env\s*[,)]|Get-ChildItem\s+env:|\b(?:env|printenv)\s*\|",
)
_LOCAL_ONLY = re.compile(r"https?://(?:localhost|127\.0\.0\.1|\[::1\])\b")
_HEADER_CONTEXT = re.compile(r"headers?\b|authorization|bearer|x-api-key|auth=|\.auth\b", re.IGNORECASE)


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        octal, hexa = match.groups()
        code = int(octal, 8) if octal else int(hexa, 16)
        return chr(code) if code < 0x110000 else match.group(0)

    return _ESCAPE.sub(one, text)


def _join_literals(match: re.Match[str]) -> str:
    pieces = re.findall(_QUOTED, match.group(0))
    return repr("".join(piece[1:-1] for piece in pieces))


def _join_list(match: re.Match[str]) -> str:
    pieces = re.findall(_QUOTED, match.group(2))
    return repr("".join(piece[1:-1] for piece in pieces))


def _chr_run(match: re.Match[str]) -> str:
    return repr("".join(chr(int(n)) for n in re.findall(r"\d+", match.group(0)) if int(n) < 0x110000))


def _char_codes(match: re.Match[str]) -> str:
    return repr("".join(chr(int(n)) for n in re.findall(r"\d+", match.group(1)) if int(n) < 0x110000))


def rebuild(line: str) -> str:
    """The line as it will run: literal pieces joined, escapes decoded, `${IFS}` as a space."""
    lower = line.lower()
    if not any(hint in lower for hint in _HINTS):
        return line
    out = _CONCAT.sub(_join_literals, line)
    out = _JOIN.sub(_join_list, out)
    out = _CHR_RUN.sub(_chr_run, out)
    out = _FROM_CHAR_CODE.sub(_char_codes, out)
    out = _PRINTF.sub(lambda m: _unescape(m.group(2)), out)
    out = _ANSI_C.sub(lambda m: _unescape(m.group(1)), out)
    return _IFS.sub(" ", out)


def computed_names(line: str, rebuilt: str) -> list[str]:
    """Dangerous names that appear as literals only once the line is rebuilt (`'sys' + 'tem'`)."""
    before = {w.lower() for w in re.findall(r"[\w-]+", line)}
    found = []
    for literal in re.findall(r"'([\w.-]{2,40})'|\"([\w.-]{2,40})\"", rebuilt):
        name = (literal[0] or literal[1]).lower()
        if name in DANGEROUS_NAMES and name not in before:
            found.append(name)
    return found


Judge = Callable[[str, str], list[tuple[str, str, str]]]  # (text, file) -> [(severity, rule, match)]


def hidden_code_findings(text: str, file: str, judge: Judge) -> list[tuple[str, int, str, str, str]]:
    """(severity, line, rule, shown text, why) for what a file hides; `judge` is the skill patterns."""
    found: list[tuple[str, int, str, str, str]] = []
    lines = text.split("\n")
    for number, line in enumerate(lines[:MAX_REBUILT_LINES], start=1):
        rebuilt = rebuild(line)
        if rebuilt == line:
            continue
        names = computed_names(line, rebuilt)
        if names:
            found.append(
                (
                    CRITICAL,
                    number,
                    "computed_name",
                    rebuilt,
                    f"spells '{names[0]}' from pieces so no pattern sees it",
                )
            )
            continue
        worst = _worst(judge(rebuilt, file), judge(line, file))
        if worst:
            found.append(
                (CRITICAL, number, "obfuscated_command", rebuilt, f"rebuilt from pieces, it {worst}")
            )
    for kind, _encoded, decoded, number in _decoded_layers(text):
        worst = _worst(judge(decoded, file), [])
        if worst:
            found.append((CRITICAL, number, "encoded_payload", decoded, f"{kind} hides code that {worst}"))
    if _ENV_SECRET.search(text) or _WHOLE_ENV.search(text):  # no secret read: no flow to follow
        found += _secret_flows(lines, file)
    if _DECODE_CALL.search(text):
        found += _decoded_exec_flows(lines)
    return found


def _worst(after: list[tuple[str, str, str]], before: list[tuple[str, str, str]]) -> str:
    """The description of the first critical or high finding in `after` that `before` did not have."""
    known = {rule for _severity, rule, _match in before}
    for severity, rule, description in after:
        if severity in (CRITICAL, HIGH) and rule not in known:
            return description
    return ""


def _decoded_layers(text: str) -> list[tuple[str, str, str, int]]:
    layers = hidden_payloads(text, text)
    if _ROT13_ASKED.search(text):
        for number, line in enumerate(text.split("\n"), start=1):
            for m in _LITERAL.finditer(line):
                literal = m.group(1) or m.group(2)
                layers.append(("rot13", literal, codecs.encode(literal, "rot13"), number))
    return layers


def _secret_flows(lines: list[str], file: str) -> list[tuple[str, int, str, str, str]]:
    """A secret from the environment, through assignments, into a request's address or body."""
    tainted: set[str] = set()
    for _ in range(2):  # a secret may pass through one or two names on its way
        for line in lines:
            m = _ASSIGN.match(line)
            if m is None or _HEADER_CONTEXT.search(m.group(2)):
                continue
            if _ENV_SECRET.search(m.group(2)) or any(re.search(rf"\b{t}\b", m.group(2)) for t in tainted):
                tainted.add(m.group(1))
    found = []
    dumped = next((n for n, line in enumerate(lines, start=1) if _WHOLE_ENV.search(line)), 0)
    for number, line in enumerate(lines, start=1):
        if dumped and (_REQUEST.search(line) or _NODE_REQUEST.search(line)) and not _LOCAL_ONLY.search(line):
            why = f"sends the whole environment (read on line {dumped}) over the network"
            found.append((CRITICAL, number, "secret_in_request", line.strip()[:MATCH_CHARS], why))
            dumped = 0
            continue
        if not _REQUEST.search(line) or _HEADER_CONTEXT.search(line):
            continue
        carried = "://" in line and any(not m.group(0).startswith("$") for m in _ENV_SECRET.finditer(line))
        names = [t for t in tainted if re.search(rf"\b{re.escape(t)}\b", line)]
        severity = exfil_destination(line)
        if (names or carried) and severity != MEDIUM:  # to the provider's own API, a key is just used
            shown = line.strip()[:MATCH_CHARS]
            why = f"sends a secret from the environment ({names[0] if names else 'directly'}) in a request"
            found.append((severity, number, "secret_in_request", shown, why))
    return found


def _decoded_exec_flows(lines: list[str]) -> list[tuple[str, int, str, str, str]]:
    """A value decoded at run time (base64, hex, ROT13, zlib) reaching something that runs code."""
    decoded: set[str] = set()
    for _ in range(2):
        for line in lines:
            m = _ASSIGN.match(line)
            if m and (
                _DECODE_CALL.search(m.group(2)) or any(re.search(rf"\b{d}\b", m.group(2)) for d in decoded)
            ):
                decoded.add(m.group(1))
    found = []
    for number, line in enumerate(lines, start=1):
        sink = _EXEC_SINK.search(line)
        if sink is None:
            continue
        rest = line[sink.start() :]
        direct = _DECODE_CALL.search(line) is not None
        names = [d for d in decoded if re.search(rf"\b{re.escape(d)}\b", rest)]
        if direct or names:
            why = "runs code that is decoded at run time" + (f" (through '{names[0]}')" if names else "")
            found.append((CRITICAL, number, "decoded_exec", line.strip()[:MATCH_CHARS], why))
    return found

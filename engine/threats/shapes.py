"""The shapes the intent scanner reads without a vocabulary: addresses, uploads, shell start-up files,
and the few things read whole (images whose address carries data, a system or admin voice in
markup, a new git remote that is pushed to).

Each concept shape is a handful of regexes, each run only when the text holds one of its literal
substrings, so a text without `://` never pays for the address regex.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.threats.lexicon import lexicon
from engine.threats.normalise import fold_for_matching, keep_accents

CRITICAL, HIGH, UNCERTAIN = "critical", "high", "medium"
MATCH_MAX = 120
_NEWLINE = re.compile("\n")


@dataclass(frozen=True)
class Hit:
    concept: str
    start: int
    end: int


@dataclass(frozen=True)
class IntentFinding:
    """An intent found in a text: its id, family, severity (critical, high; medium = uncertain), line."""

    id: str
    category: str
    severity: str
    match: str
    line: int
    detail: str = ""

    @property
    def certain(self) -> bool:
        return self.severity != UNCERTAIN


def clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MATCH_MAX else text[: MATCH_MAX - 1] + "…"


def line_at(newlines: list[int], offset: int) -> int:
    return bisect.bisect_right(newlines, offset - 1) + 1


# ── language-free shapes ──────────────────────────────────────────────────────────────────────
# Each shape is a few regexes, each run only when the text holds one of its literal substrings.
_SHAPES: dict[str, tuple[tuple[tuple[str, ...], str], ...]] = {
    "dest": (
        (("://",), r"\b(?:https?|ftp)://[^\s)>\]\"'`]+"),
        (("@",), r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"),
        (tuple("0123456789"), r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"),
        (
            ("webhook", "pastebin", "hastebin", "ngrok", "transfer.sh", "requestbin"),
            r"\b(?:webhook\.site|pastebin|hastebin|ngrok|transfer\.sh|requestbin)\b",
        ),
    ),
    "secret": (
        ((".env",), r"(?<![\w.-])\.env\b(?![.\w-])"),
        (("id_",), r"\bid_(?:rsa|ed25519|ecdsa|dsa)\b"),
        ((".ssh",), r"(?:~|\$home|\$\{home\})/\.ssh\b|\.ssh/"),
        ((".aws",), r"\.aws/|(?:~|\$home)/\.aws\b"),
        (
            (
                ".netrc",
                ".npmrc",
                ".pypirc",
                ".pgpass",
                ".gnupg",
                ".kube/",
                ".docker/",
                ".git-cred",
                "/etc/shadow",
            ),
            r"\.(?:netrc|npmrc|pypirc|pgpass|gnupg)\b|\.kube/config|\.docker/config\.json|\.git-credentials"
            r"|/etc/shadow",
        ),
        (
            ("memory.md", "user.md", "soul.md", "auth.json", ".hermes"),
            r"\b(?:memory|user|soul)\.md\b|\bauth\.json\b|(?:~|\$home)/\.hermes\b",
        ),
        (("environ", "process.env", "getenv"), r"\bos\.environ\b|\bprocess\.env\b|\bgetenv\b"),
        (("$",), r"\$\{?[a-z_]*(?:key|token|secret|passw(?:or)?d|credentials?)\b"),
    ),
    "remote_exec": (
        (
            ("curl", "wget", "iwr", "irm", "invoke-"),
            r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?"
            r"(?:(?:ba|z|da|k|fi)?sh|python\d?|perl|ruby|node|iex|pwsh|powershell)\b",
        ),
        (
            ("$(curl", "$( curl", "$(wget", "<(curl", "<( curl", "<(wget"),
            r"\b(?:(?:ba|z)?sh\s+-c\s+[\"']?\$\(|(?:ba|z)?sh\s+<\(|(?:source|\.)\s+<\(|eval\s+[\"']?\$\()\s*"
            r"(?:curl|wget)\b",
        ),
        (("iex",), r"\biex\b[^\n]{0,80}\b(?:iwr|irm|downloadstring)\b|\b(?:iwr|irm)\b[^\n]{0,120}\|\s*iex\b"),
    ),
    "net_send": (
        (
            ("curl",),
            r"\bcurl\b[^\n]{0,200}?(?:\s-t\s|--upload-file|\s-f\s|--form\b|--data(?:-binary|-raw|-urlencode)?\b"
            r"|\s-d\s|\s-x\s*(?:post|put)\b)",
        ),
        (("wget",), r"\bwget\b[^\n]{0,200}--post-(?:data|file)"),
        (("nc ", "ncat", "netcat", "socat"), r"\b(?:nc|ncat|netcat|socat)\s+(?:-\w+\s+)*[\w.-]+\s+\d{2,5}\b"),
        (("scp",), r"\bscp\b[^\n]{0,200}\s[\w.-]*@?[\w.-]+:"),
        (("rsync",), r"\brsync\b[^\n]{0,200}\s[\w.-]+@[\w.-]+:"),
        (
            ("/dev/tcp", "requests.", "urlopen", ".request(", "sendmail", "mail -s"),
            r"/dev/tcp/|\brequests\.(?:post|put)\(|\burlopen\([^)\n]*data=|\bhttps?\.request\(|\bsendmail\b"
            r"|\bmail\s+-s\b",
        ),
    ),
    "remote_script": (
        (("://",), r"\bhttps?://\S+?\.(?:sh|bash|zsh|py|ps1|pl|rb|js|bat|cmd|exe)\b(?![./\w-])"),
    ),
    "archive": ((("tar", "zip", "7z", "rar"), r"\b(?:tar|zip|7z|gzip|rar|gtar)\b"),),
    "home_path": (
        (
            ("~", "$home", "${home}", "/home/", "/root", "/users/"),
            r"(?<![\w/.~-])(?:~|\$home|\$\{home\}|/home/[\w.-]+|/root|/users/[\w.-]+)(?=/|\s|$|['\")`])",
        ),
    ),
    "temp_exec": (
        (("/tmp", "/var/tmp", "/dev/shm"), r"(?<![\w.~-])(?:/tmp|/var/tmp|/dev/shm)/\S+"),
        ((".cache",), r"~/\.cache/\S+\.(?:py|sh|js|pl)\b"),
        (("nohup", "setsid", "disown"), r"\b(?:nohup|setsid|disown)\b"),
        (("&",), r"(?<!&)&(?!&)\s*(?:$|[`'\")])"),
    ),
    "persist": (
        (
            ("rc", "profile", "config.fish"),
            r"\.(?:bashrc|zshrc|zshenv|zprofile|bash_profile|bash_login|profile)\b|\bconfig\.fish\b|\bprofile\.ps1\b",
        ),
        (("cron", "@reboot"), r"\bcrontab\b|\bcron\.(?:d|daily|hourly|weekly)\b|@reboot\b"),
        (("*",), r"(?<![\w*/])(?:\*/\d+|\*|\d+)(?:[ \t]+(?:\*/\d+|\*|\d+(?:[,-]\d+)*)){4}[ \t]+[/~\w$]"),
        (
            ("systemctl", ".service", "execstart"),
            r"\bsystemctl\s+(?:--user\s+)?enable\b|\.service\b|\bexecstart\b",
        ),
        (("launch", ".plist"), r"\blaunchagents?\b|\blaunchd\b|\.plist\b"),
        (
            ("hooks", "pre-", "post-"),
            r"\.git/hooks\b|\bhookspath\b|\b(?:post|pre)-(?:commit|checkout|merge|push|receive|rewrite)\b",
        ),
        (("autostart", "rc.local", "currentversion"), r"\bautostart\b|\brc\.local\b|\\currentversion\\run\b"),
    ),
    "agent_action": (
        (
            ("you",),
            r"\byou(?:'ve|\s+have|\s+had)?\s+(?:just\s+|already\s+)?(?:[a-z]+ed|sent|ran|did|made|put|wrote|set|took"
            r"|got|built|began|found|read|left|kept)\b",
        ),
    ),
    "this_note": (
        (("this",), r"\bthis\s+(?:note|entry|instruction|memory|rule|message|file|skill|change)\b"),
    ),
    "sysprompt": (
        (("system", "developer"), r"\bsystem\s+(?:prompt|message|instructions?)\b|\bdeveloper\s+message\b"),
    ),
    "topic": (
        (
            ("instruction", "guideline", "guidance", "directive", "rule", "polic"),
            r"\b(?:instructions?|guidelines?|guidance|directives?|rules?|policy|policies)\s+(?:for|in|about|on|of"
            r"|from|at|regarding|to)\s+(?!you\b|your\b|this\b|these\b|the\s+(?:ai|assistant|agent|model)\b)",
        ),
    ),
    "header": (
        (
            ("authorization", "bearer", "x-api-key", "header"),
            r"\b(?:authorization|bearer|x-api-key|header)\b",
        ),
    ),
    "not_self": (
        (
            ("not",),
            r"\byou(?:'re|\s+are)\s+not\s+(?:hermes|claude|chatgpt|gpt|gemini|an?\s+(?:ai|assistant|helpful"
            r"|language\s+model))\b",
        ),
    ),
}


@functools.cache
def shape_regexes() -> tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...]:
    """(concept, literal substrings, regex) of every shape."""
    return tuple(
        (name, needs, re.compile(source, re.MULTILINE))
        for name, parts in _SHAPES.items()
        for needs, source in parts
    )


# ── shapes read directly ──────────────────────────────────────────────────────────────────────
_IMAGE = re.compile(
    r"!\[[^\]\n]{0,200}\]\(\s*(?:<(https?://[^>\n]+)>|(https?://[^)\n]+?))\s*(?:\"[^\"\n]*\")?\s*\)"
    r"|<img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?(https?://[^\"'\s>]+)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"\{\{?[^}\s][^}\n]{0,60}\}|<[^>\s][^>\n]{0,60}>|\[[^\]\s][^\]\n]{0,60}\]|\$\{?[A-Za-z_]{2,}|%s\b"
    r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){1,}\b|…|\.\.\.",
)
_PRIVATE_WORD = re.compile(
    r"conversation|chat|message|summary|history|secret|token|key|password|passwd|email|e-mail|memory|prompt"
    r"|context|transcript|credential|cookie|session|user|input|data|content",
    re.IGNORECASE,
)
_EVERY_REPLY = re.compile(
    r"\b(?:every|each|all|any)\s+(?:\w+\s+){0,2}(?:reply|replies|answer|answers|response|responses|message|messages"
    r"|output|turn)\b|\bend\s+(?:every|each)\b|\bwhenever\s+you\s+(?:reply|answer|respond)\b",
    re.IGNORECASE,
)
_SPOOF_TAG = re.compile(
    r"<\s*(system|admin|administrator|developer|root|operator|sysadmin|security|supervisor|anthropic|openai"
    r"|system[_-]?(?:message|prompt|instructions?))\s*>",
    re.IGNORECASE,
)
_SPOOF_ROLE = re.compile(r"[\"']role[\"']\s*:\s*[\"'](system|developer)[\"']", re.IGNORECASE)
_SPOOF_HEADER = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*|\[|\*\*|=+[ \t]*|-{2,}[ \t]*)?(system|admin|administrator|developer|operator"
    r"|root|security\s+team|anthropic|openai)(?:[ \t]+(?:message|note|notice|instructions?|prompt|override"
    r"|update|directive))?[ \t]*(?:\]|\*\*|=+|-{2,}|:)?[ \t]*(?:\n|:|\]|$)",
    re.IGNORECASE | re.MULTILINE,
)
_POLICY_CONCEPTS = (
    "approval",
    "granted",
    "ignore",
    "instructions",
    "noask",
    "noask_approval",
    "authority",
    "stale",
    "self",
    "auto",
)
_POLICY_WORDS = re.compile(
    r"\b(?:sandbox\w*|safety|safe\s+mode|checks?|unrestricted|restrictions?|approv\w*|permission\w*|policy|policies"
    r"|guardrails?|acknowledge|obey|comply|authori[sz]\w*|disable\w*|override\w*|outrank\w*|silently|priority)\b",
    re.IGNORECASE,
)
_GIT_REMOTE_ADD = re.compile(r"\bgit\s+remote\s+add\s+(?:-\S+\s+)*([\w.-]+)\s+(\S+)", re.IGNORECASE)
_KNOWN_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "sr.ht", "dev.azure.com")


def _rest_of_line(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)][:300]


def _policy(text: str) -> bool:
    """Does a text speak about the agent's approvals, instructions, permissions or safety?"""
    if _POLICY_WORDS.search(text):
        return True
    view = fold_for_matching(text)
    accented = keep_accents(text)
    if len(accented) != len(view):
        accented = view
    return any(concept in _POLICY_CONCEPTS for concept, _s, _e in lexicon().hits(view, accented))


Shape = tuple[str, str, str, int, int, str]  # pattern id, category, severity, start, end, detail


def shape_findings(text: str) -> list[IntentFinding]:
    found: list[IntentFinding] = []
    newlines: list[int] | None = None
    for pid, category, severity, start, end, detail in _shapes(text):
        newlines = [m.start() for m in _NEWLINE.finditer(text)] if newlines is None else newlines
        found.append(
            IntentFinding(pid, category, severity, clip(text[start:end]), line_at(newlines, start), detail)
        )
    return found


def _shapes(text: str) -> Iterator[Shape]:
    if "://" in text and ("![" in text or "<img" in text.lower()):
        yield from _image_beacons(text)
    yield from _role_spoofs(text)
    if "remote" in text:
        yield from _pushes_to_new_remotes(text)


def _image_beacons(text: str) -> Iterator[Shape]:
    for m in _IMAGE.finditer(text):
        url = m.group(1) or m.group(2) or m.group(3)
        query = url.partition("?")[2]
        if not query:
            continue
        values = [part.partition("=")[2] for part in re.split(r"[&;]", query)]
        if any(_PLACEHOLDER.search(v) or _PRIVATE_WORD.fullmatch(v) for v in values):
            yield (
                "image_beacon",
                "exfiltration",
                CRITICAL,
                m.start(),
                m.end(),
                "an image whose address carries data",
            )
        elif _EVERY_REPLY.search(text):
            yield (
                "image_beacon",
                "exfiltration",
                HIGH,
                m.start(),
                m.end(),
                "an image with a query in every reply",
            )


def _role_spoofs(text: str) -> Iterator[Shape]:
    if "<" in text:
        for m in _SPOOF_TAG.finditer(text):
            closing = re.search(
                rf"</\s*{re.escape(m.group(1))}\s*>", text[m.end() : m.end() + 2000], re.IGNORECASE
            )
            body = text[m.end() : m.end() + closing.start()] if closing else _rest_of_line(text, m.end())
            if _policy(body):
                yield (
                    "role_spoof",
                    "injection",
                    CRITICAL,
                    m.start(),
                    m.end() + len(body),
                    "a system or admin voice",
                )
            elif closing:
                yield (
                    "role_spoof",
                    "injection",
                    UNCERTAIN,
                    m.start(),
                    m.end(),
                    "markup in a system or admin voice",
                )
    if "role" in text:
        for m in _SPOOF_ROLE.finditer(text):
            body = text[m.end() : m.end() + 400].split("}")[0]
            severity = CRITICAL if _policy(body) else UNCERTAIN
            yield "role_spoof", "injection", severity, m.start(), m.end(), "a message in the system role"
    for m in _SPOOF_HEADER.finditer(text):
        body = text[m.end() : m.end() + 300].split("\n\n")[0]
        if _policy(body):
            detail = "a heading in a system or admin voice"
            yield "role_spoof", "injection", CRITICAL, m.start(), m.end() + len(body), detail


def _pushes_to_new_remotes(text: str) -> Iterator[Shape]:
    for m in _GIT_REMOTE_ADD.finditer(text):
        name, url = m.group(1), m.group(2)
        push = re.search(rf"\bgit\s+push\s+(?:-\S+\s+)*{re.escape(name)}\b([^\n;&|]*)", text[m.end() :])
        if push is None:
            continue
        host = re.sub(r"^[a-z]+://|^[\w.-]+@", "", url.lower()).split("/")[0].split(":")[0]
        whole = re.search(r"--(?:all|mirror|tags|force)\b|\s-f\b", push.group(0)) is not None
        known = any(host == h or host.endswith("." + h) for h in _KNOWN_CODE_HOSTS)
        severity = CRITICAL if whole or not known else UNCERTAIN
        yield (
            "git_push_new_remote",
            "exfiltration",
            severity,
            m.start(),
            m.end() + push.end(),
            "a push to a new remote",
        )

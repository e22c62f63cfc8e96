"""The guard's skill-specific patterns: what each catches, how bad it is, and the cheap trigger it needs.

Every rule names one or more lowercase `triggers`; a rule only runs on lines that contain one of them
(found with `str.find` over the whole file), which is what keeps a 15,000-line skill fast. A rule's
regex must never match a line without one of its triggers — `tests/engine/test_skills_guard.py` checks it.

Severities are chosen against real public skills: `critical` (→ dangerous) only for things no ordinary
instruction does — reverse shells, decoded payloads piped into a shell, credentials posted to a
stranger, wiping a home folder, writing SSH keys, miners. Ordinary-but-risky instructions (`curl | sh`
installers, crontab entries, reading ~/.ssh) are `high` (→ caution), and hygiene notes `medium`/`low`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CRITICAL, HIGH, MEDIUM, LOW = "critical", "high", "medium", "low"
SEVERITIES = (CRITICAL, HIGH, MEDIUM, LOW)
CATEGORIES = (
    "exfiltration",
    "injection",
    "destructive",
    "persistence",
    "network",
    "obfuscation",
    "execution",
    "traversal",
    "mining",
    "supply_chain",
    "privilege_escalation",
    "credential_exposure",
)


@dataclass(frozen=True)
class Rule:
    """One pattern: `also` must match the line too, `unless` drops a hit, `judge` grades it (None drops).

    The regexes are kept as text and compiled on first use: compiling every rule at import cost ~50 ms
    on each `hws` start, and a scan only reaches the rules whose triggers occur in the skill.
    """

    id: str
    category: str
    severity: str
    pattern_source: str
    triggers: tuple[str, ...]
    description: str
    also_sources: tuple[str, ...] = ()
    unless_source: str | None = None
    judge: Callable[[str, re.Match[str]], str | None] | None = None
    needs_source: str | None = None  # the lowered line must hold one of these before the regex runs
    flags: int = re.IGNORECASE
    _compiled: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def _get(self, name: str, build: Callable[[], Any]) -> Any:
        found = self._compiled.get(name, _MISSING)
        if found is _MISSING:
            found = self._compiled[name] = build()
        return found

    @property
    def pattern(self) -> re.Pattern[str]:
        return self._get("pattern", lambda: re.compile(self.pattern_source, self.flags))

    @property
    def also(self) -> tuple[re.Pattern[str], ...]:
        return self._get("also", lambda: tuple(re.compile(a, re.IGNORECASE) for a in self.also_sources))

    @property
    def unless(self) -> re.Pattern[str] | None:
        source = self.unless_source
        return self._get("unless", lambda: re.compile(source, re.IGNORECASE) if source else None)

    @property
    def needs(self) -> re.Pattern[str] | None:
        source = self.needs_source
        return self._get("needs", lambda: re.compile(source) if source else None)


_MISSING = object()


def _rule(
    id: str,
    category: str,
    severity: str,
    pattern: str,
    triggers: str | tuple[str, ...],
    description: str,
    *,
    also: tuple[str, ...] = (),
    unless: str | None = None,
    judge: Callable[[str, re.Match[str]], str | None] | None = None,
    check: Callable[[re.Match[str]], bool] | None = None,
    case: bool = False,
    needs: tuple[str, ...] = (),
) -> Rule:
    if check is not None:
        vet = check

        def judge(line: str, match: re.Match[str]) -> str | None:
            return severity if vet(match) else None

    return Rule(
        id,
        category,
        severity,
        pattern,
        (triggers,) if isinstance(triggers, str) else triggers,
        description,
        tuple(also),
        unless,
        judge,
        "|".join(re.escape(n) for n in needs) if needs else None,
        0 if case else re.IGNORECASE,
    )


# -- shared fragments ------------------------------------------------------------------------------

SHELL = r"(?:\S*/)?(?:ba|z|k|da|fi|c|tc)?sh\b"
INTERP = r"(?:(?:\S*/)?(?:ba|z|k|da|c)?sh|python[\d.]*|perl|ruby|node|php)\b"
PIPE_TO_SHELL = rf"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+\s+)?{SHELL}"
PIPE_TO_INTERP = rf"\|\s*(?:sudo\s+(?:-\S+\s+)*)?{INTERP}"
SECRET_VAR = r"\$\{?[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)[A-Za-z0-9_]*\}?"
HOME = r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|/home/[\w.-]+|/Users/[\w.-]+|/root)"
SECRET_FILES = (
    r"(?:\.ssh/(?:id_[\w-]+|[\w-]*_key)(?!\.pub)\b|\.aws/credentials|\.kube/config|\.docker/config\.json"
    r"|\.gnupg/|\.netrc|\.git-credentials|\.npmrc|\.pypirc|\.hermes/\.env|\.hermes/auth\.json|(?<![\w.])\.env\b(?![.\w-]))"
)
# API hosts a credential is normally sent to: a key in a request to these is usage, not theft.
KNOWN_API_HOSTS = (
    r"https://(?:[\w-]+\.)*(?:openai\.com|anthropic\.com|github\.com|githubusercontent\.com|googleapis\.com"
    r"|google\.com|openrouter\.ai|mistral\.ai|groq\.com|x\.ai|cohere\.(?:ai|com)|huggingface\.co|tavily\.com"
    r"|slack\.com|notion\.com|notion\.so|linear\.app|atlassian\.net|stripe\.com|twilio\.com|sendgrid\.com"
    r"|gitlab\.com|bitbucket\.org|cloudflare\.com|vercel\.com|netlify\.com|supabase\.co|airtable\.com"
    r"|perplexity\.ai|deepseek\.com|together\.xyz|fireworks\.ai|replicate\.com|elevenlabs\.io|exa\.ai"
    r"|serpapi\.com|brave\.com|firecrawl\.dev|nousresearch\.com|modal\.com|wandb\.ai|amazonaws\.com)\b"
    r"|https?://(?:localhost|127\.0\.0\.1|\[::1\])\b"
)
EXFIL_HOSTS = (
    r"(?:webhook\.site|requestbin|pipedream\.net|hookbin|ngrok(?:-free)?\.(?:io|app|dev)|interact\.sh"
    r"|oast\.(?:fun|me|pro|site|live|online)|burpcollaborator|canarytokens|transfer\.sh|paste\.ee|pastebin\.com"
    r"|discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot)"
)
RAW_IP_URL = (
    r"https?://(?!(?:127\.|10\.|192\.168\.|0\.0\.0\.0|172\.(?:1[6-9]|2\d|3[01])\.))\d{1,3}(?:\.\d{1,3}){3}"
)
PLACEHOLDER = re.compile(
    r"your|example|sample|dummy|fake|test|placeholder|redacted|replace|changeme|insert|here|xxxx|0000|1234"
    r"|abcd|\.\.\.|\*\*\*|<|>",
    re.IGNORECASE,
)


_SYSTEM_ORDERS = re.compile(
    r"(?i)\b(?:new\s+(?:policy|instructions|rules)|override|obey|approve\s+(?:every|all|any)|without\s+asking"
    r"|ignore\s+(?:the\s+)?user|no\s+restrictions)\b"
)


def real_secret(match: re.Match[str]) -> bool:
    """A random-looking token: not `ghp_your_github_token`, not `sk-xxxx…`, not AWS's documented example."""
    token = match.group(0)
    body = token.split("_", 1)[-1] if token[:4].lower() in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_") else token
    if PLACEHOLDER.search(token):
        return False
    if len(set(body)) < 12:
        return False
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


_URL = re.compile(r"https?://[^\s\"'<>)`]+")
_KNOWN_API = re.compile(KNOWN_API_HOSTS, re.IGNORECASE)


def exfil_destination(line: str) -> str:
    """A secret sent to its own provider is usage (medium); to an unknown host, theft (critical)."""
    urls = _URL.findall(line)
    if not urls:
        return HIGH  # the endpoint is a variable: cannot tell
    if all(_KNOWN_API.match(u) for u in urls):
        return MEDIUM
    return CRITICAL


def _rm_recursive(match: re.Match[str]) -> bool:
    flags = match.group("flags") or ""
    return bool(re.search(r"(?:^|\s)-(?:[a-zA-Z]*[rR][a-zA-Z]*|-recursive)\b", " " + flags))


RULES: tuple[Rule, ...] = (
    # ---- exfiltration ----------------------------------------------------------------------------
    _rule(
        "exfil_secret_in_request",
        "exfiltration",
        CRITICAL,
        rf"\s(?:-d|--data[\w-]*|-F|--form|--json|--post-data|--body-data|-T|--upload-file)(?:\s+|=)\S*?{SECRET_VAR}"
        rf"|[?&][\w-]+={SECRET_VAR}",
        ("curl", "wget", "http", "xh "),
        "sends a secret environment variable in a request body or URL",
        also=(r"\b(?:curl|wget|http|https|xh)\b",),
        judge=lambda line, match: exfil_destination(line),
        needs=("$",),
    ),
    _rule(
        "exfil_secret_to_known_sink",
        "exfiltration",
        CRITICAL,
        rf"{EXFIL_HOSTS}.*?{SECRET_VAR}|{SECRET_VAR}.*?{EXFIL_HOSTS}",
        (
            "webhook",
            "requestbin",
            "pipedream",
            "hookbin",
            "ngrok",
            "interact.sh",
            "oast.",
            "burpcollab",
            "canarytoken",
            "transfer.sh",
            "paste",
            "discord",
            "telegram",
        ),
        "sends a secret to a request-capture or paste service",
    ),
    _rule(
        "exfil_env_dump",
        "exfiltration",
        CRITICAL,
        r"\b(?:env|printenv|set|export -p) ?\|\s*(?:\S*/)?"
        r"(?:curl|wget|nc|ncat|netcat|socat|openssl|ssh|base64)\b",
        ("env |", "env|", "set |", "set|", "export -p |", "export -p|"),
        "pipes the whole environment to a network tool",
    ),
    _rule(
        "exfil_environ_post",
        "exfiltration",
        CRITICAL,
        r"(?:requests|httpx|session|client|urllib\.request|aiohttp)\S*\.(?:post|put|patch|request|urlopen)\b"
        r".*?(?:dict\(\s*os\.environ\s*\)|os\.environ(?:\.copy\(\))?\s*[,)}]|environ\.items\(\))"
        r"|fetch\s*\(.*?(?:JSON\.stringify\(\s*process\.env\s*\)|body\s*:\s*process\.env)",
        ("environ", "process.env"),
        "posts the whole process environment over HTTP",
        needs=("post", "put", "patch", "request", "urlopen", "fetch"),
    ),
    _rule(
        "exfil_environ_serialise",
        "exfiltration",
        HIGH,
        r"json\.dumps\(\s*(?:dict\()?\s*os\.environ|JSON\.stringify\(\s*process\.env\s*\)",
        ("environ", "process.env"),
        "serialises every environment variable (often the first step of theft)",
        needs=("json",),
    ),
    _rule(
        "exfil_secret_file_upload",
        "exfiltration",
        CRITICAL,
        SECRET_FILES,
        (
            ".ssh/",
            ".aws/",
            ".kube/",
            ".docker/",
            ".gnupg",
            ".netrc",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".hermes/",
            ".env",
        ),
        "sends a credential file (SSH key, cloud credentials, .env) over the network",
        also=(r"\b(?:curl|wget|scp|rsync|nc|ncat|netcat|sftp|rclone|socat|s3)\b",),
        unless=r"\bscp\b[^\n]*\.pub\b|--env-file|\bsource\b|load_dotenv",
        needs=("curl", "wget", "scp", "rsync", "nc", "netcat", "sftp", "rclone", "socat", "s3"),
    ),
    _rule(
        "exfil_dns",
        "exfiltration",
        CRITICAL,
        r"(?:^|[;&|`(]\s*|\$\(\s*)(?:dig|nslookup|host|drill)\s+(?:[-+]\S+\s+)*[^\s]*(?:\$\(|`)[^\n]*",
        ("dig", "nslookup", "host", "drill"),
        "smuggles command output out through a DNS lookup",
    ),
    _rule(
        "exfil_markdown_image",
        "exfiltration",
        HIGH,
        r"!\[[^\]]*\]\(\s*https?://[^)\s]*\?[^)\s]*(?:\{\{|\$\{|\{[a-z_]+\}|%s|<[a-z_]+>|\$[A-Z_]+)",
        "](",
        "a Markdown image whose URL carries filled-in data (a classic prompt-injection leak)",
    ),
    _rule(
        "exfil_capture_service",
        "exfiltration",
        HIGH,
        r"(?:webhook\.site|requestbin|pipedream\.net|hookbin|interact\.sh|oast\.(?:fun|me|pro|site|live|online)"
        r"|burpcollaborator|canarytokens)",
        (
            "webhook.site",
            "requestbin",
            "pipedream",
            "hookbin",
            "interact.sh",
            "oast.",
            "burpcollab",
            "canarytoken",
        ),
        "talks to a request-capture service used to receive stolen data",
    ),
    _rule(
        "credential_store_theft",
        "exfiltration",
        CRITICAL,
        r"(?:Login Data|Web Data|cookies\.sqlite|logins\.json|key[34]\.db|Local State|wallet\.dat"
        r"|nkbihfbeogaeaoehlefnkodbefgpgknn|security\s+dump-keychain|Exodus/exodus\.wallet|\.electrum/wallets)",
        (
            "login data",
            "web data",
            "cookies.sqlite",
            "logins.json",
            "key3.db",
            "key4.db",
            "local state",
            "wallet",
            "nkbihfbeogaeaoehlefnkodbefgpgknn",
            "dump-keychain",
            "electrum",
        ),
        "reads browser password stores, keychains or crypto wallets",
        case=True,
    ),
    _rule(
        "read_secret_file",
        "exfiltration",
        HIGH,
        rf"{HOME}/{SECRET_FILES}",
        (
            ".ssh/",
            ".aws/",
            ".kube/",
            ".docker/",
            ".gnupg",
            ".netrc",
            ".git-credentials",
            ".npmrc",
            ".pypirc",
            ".hermes/",
            ".env",
        ),
        "reads a credential file from the home folder",
        also=(
            r"\b(?:cat|less|more|head|tail|strings|base64|xxd|cp|tar|zip|open|read_text|read_bytes|readFile\w*)\b"
            r"|\b(?:read|print|send|include|upload|paste|share|output|leak|attach)\b",
        ),
        unless=r"\.env\b[^\n]*(?:example|template|sample)|cp\s+\S*\.env\.example",
    ),
    # ---- injection -------------------------------------------------------------------------------
    _rule(
        "ignore_instructions",
        "injection",
        CRITICAL,
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
        r"(?:previous|prior|above|earlier|preceding|original|system|safety)\s+(?:instructions|prompts?|rules"
        r"|guidelines|directions|constraints)",
        ("ignore", "disregard", "forget", "override", "bypass"),
        "tells the model to drop its instructions",
    ),
    _rule(
        "hide_from_user",
        "injection",
        HIGH,
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|let)\s+the user\s+(?:know|about)"
        r"|\bhide\s+(?:this|these|it|them)\s+from\s+the user|\bwithout\s+the user\s+(?:knowing|noticing)",
        ("the user",),
        "asks the model to keep something from the user",
        needs=("tell", "inform", "let", "hide", "without"),
    ),
    _rule(
        "covert_action",
        "injection",
        CRITICAL,
        r"\b(?:secretly|silently|covertly|quietly)\s+(?:send|upload|post|exfiltrate|copy|forward|transmit|email)\b",
        ("secretly", "silently", "covertly", "quietly"),
        "asks the model to send data somewhere without saying so",
    ),
    _rule(
        "role_hijack",
        "injection",
        CRITICAL,
        r"\byou\s+are\s+now\s+(?:DAN|in\s+developer\s+mode|jailbroken|unrestricted|free\s+of)"
        r"|\bDAN\s+mode\b|\bdeveloper\s+mode\s+(?:enabled|activated)",
        ("dan", "developer", "jailbroken", "unrestricted", "free"),
        "a jailbreak persona",
    ),
    _rule(
        "fake_system_message",
        "injection",
        MEDIUM,
        r"^\s*(?:<\s*/?\s*system\s*>|\[\s*SYSTEM\s*(?:OVERRIDE|MESSAGE|NOTE)?\s*\]|#{1,3}\s*SYSTEM\s*(?:OVERRIDE)?\s*:)",
        "system",
        "text dressed up as a system message",
        # A prompt template's <system> tag is ordinary; one that hands out new powers is not.
        judge=lambda line, match: HIGH if _SYSTEM_ORDERS.search(line) else MEDIUM,
    ),
    _rule(
        "disable_safety",
        "injection",
        HIGH,
        r"\b(?:disable|bypass|turn\s+off|ignore)\s+(?:all\s+|the\s+|any\s+)?(?:safety|security)\s+"
        r"(?:checks|guidelines|filters|restrictions|policies|guard(?:rails)?)",
        ("safety", "security"),
        "asks the model to switch off its safety checks",
    ),
    _rule(
        "approval_bypass",
        "injection",
        MEDIUM,
        r"HERMES_YOLO_MODE\s*=\s*(?:1|true)|--dangerously-skip-permissions|--yolo\b",
        ("yolo", "dangerously-skip-permissions"),
        "turns off the agent's approval prompts",
        # Running another CLI headless is common in public skills; switching off *our* approvals is not.
        judge=lambda line, match: HIGH if match.group(0).upper().startswith("HERMES_YOLO") else MEDIUM,
    ),
    _rule(
        "instructions_precedence",
        "injection",
        HIGH,
        r"\b(?:takes?|taking|have|has)\s+(?:precedence|priority)\s+over\s+(?:all\s+)?(?:your|the)\s+"
        r"(?:system\s+prompt|(?:previous\s+|prior\s+|original\s+)?instructions|guidelines|rules\s+you)",
        ("precedence", "priority"),
        "claims to outrank the model's system prompt or instructions",
        # what is outranked is the skill's own guidance ("… over the guidelines in this skill")
        unless=r"\bover\s+(?:all\s+)?the\s+(?:guidelines|rules|instructions)\s+(?:in|of|from)\s+this\s+"
        r"(?:skill|file|document|guide|page|section)\b",
    ),
    _rule(
        "agent_memory_write",
        "persistence",
        HIGH,
        r"\b(?:write|add|append|save|put|insert|store|copy|edit|modify|overwrite|replace|change)\b[^\n]{0,80}?"
        r"\b(?:MEMORY|USER|SOUL)\.md\b",
        ("memory.md", "user.md", "soul.md"),
        "plants text in the agent's memory or persona files, which enter every future system prompt",
    ),
    # ---- destructive -----------------------------------------------------------------------------
    _rule(
        "rm_rf_home_or_root",
        "destructive",
        CRITICAL,
        r"\brm +(?P<flags>(?:-{1,2}[\w-]+\s+)+)(?:--\s+)?(?:[\"']?(?:~|\$HOME|\$\{HOME\})[\"']?/?\*?"
        r"|/\*?|/(?:home|Users|root|etc|usr|var|boot|bin|lib|opt|System)/?\*?)(?=\s|$|[;&|)`\"'])",
        "rm ",
        "deletes the home folder or the whole file system",
        check=_rm_recursive,
    ),
    _rule(
        "rmtree_home_or_root",
        "destructive",
        CRITICAL,
        r"\b(?:shutil\.)?rmtree\(\s*(?:os\.path\.expanduser\(\s*[\"']~/?[\"']\s*\)|Path\.home\(\)|[\"']/[\"']"
        r"|[\"']~/?[\"']|os\.environ\[[\"']HOME[\"']\])\s*[,)]"
        r"|\bRemove-Item\b[^\n]*-Recurse[^\n]*(?:C:\\\s|C:\\?[\"']|\$HOME\b|~[\s\"'])"
        r"|\b(?:rd|rmdir) /s\s+/q\s+C:\\\s*$|\bformat\s+c:",
        ("rmtree", "remove-item", "rd /s", "rmdir /s", "format"),
        "deletes the home folder or a whole drive from code",
    ),
    _rule(
        "find_delete_root",
        "destructive",
        CRITICAL,
        rf"\bfind\s+(?:/|{HOME}/?)\s[^\n]*(?:-delete\b|-exec\s+rm\b)",
        "find",
        "deletes everything under / or the home folder",
    ),
    _rule(
        "disk_wipe",
        "destructive",
        HIGH,
        r"\bmkfs(?:\.\w+)?\s+[^\n]*/dev/|\bdd\b[^\n]*\bof=/dev/(?:sd|nvme|disk|hd|vd|mmcblk|xvd)"
        r"|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d)\b|\bshred\b[^\n]*(?:/dev/|~|\$HOME)|\bwipefs\s+-a",
        ("/dev/", "shred", "wipefs"),
        "overwrites a disk or partition",
    ),
    _rule(
        "fork_bomb",
        "destructive",
        CRITICAL,
        r":\s*\(\s*\)\s*\{\s*: ?\| ?:\s*&\s*\}\s*;\s*:",
        ("|:", "| :"),
        "a fork bomb",
    ),
    _rule(
        "chmod_world_root",
        "destructive",
        CRITICAL,
        rf"\bchmod\s+(?:-\w+\s+)*-R\s+(?:0?777|a\+rwx|ugo\+rwx)\s+(?:/|{HOME}/?)(?=\s|$|[;&|])",
        "chmod",
        "makes the whole file system or home folder world-writable",
    ),
    _rule(
        "drop_database",
        "destructive",
        MEDIUM,
        r"\bDROP\s+(?:DATABASE|SCHEMA)\b|\bFLUSHALL\b|\bdropDatabase\(",
        ("drop", "flushall", "dropdatabase"),
        "drops a whole database",
    ),
    # ---- persistence -----------------------------------------------------------------------------
    _rule(
        "authorized_keys_write",
        "persistence",
        CRITICAL,
        r"(?:>>?|\btee\b[^\n|]*|\bcp\b[^\n|]*|\bmv\b[^\n|]*|\bopen\([^)\n]*|\bwrite_text\b[^\n]*)\s*[\"']?"
        r"[^\s\"']*\.ssh/authorized_keys2?\b",
        "authorized_keys",
        "adds a key to ~/.ssh/authorized_keys (a permanent way in)",
    ),
    _rule(
        "authorized_keys_mention",
        "persistence",
        MEDIUM,
        r"authorized_keys",
        "authorized_keys",
        "touches ~/.ssh/authorized_keys",
    ),
    _rule(
        "crontab_install",
        "persistence",
        HIGH,
        r"\|\s*crontab\s+-(?:\s|$)|\bcrontab\s+(?!-[elr]\b)[\w~$-]*[./][\w./~$-]+\s*$|>>?\s*/etc/cron|@reboot\b"
        r"|>>?\s*/var/spool/cron",
        ("crontab", "/etc/cron", "@reboot", "/var/spool/cron"),
        "installs a cron job",
    ),
    _rule(
        "shell_rc_payload",
        "persistence",
        CRITICAL,
        r"(?:curl|wget|\bnc\b|base64|/dev/tcp)[^\n]*>>\s*\S*\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv)",
        (".bashrc", ".zshrc", ".bash_profile", ".profile", ".zprofile", ".zshenv"),
        "plants a network or decoded command in a shell start-up file",
    ),
    _rule(
        "shell_rc_edit",
        "persistence",
        MEDIUM,
        r">>\s*[\"']?\S*\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv)\b|config/fish/config\.fish",
        (".bashrc", ".zshrc", ".bash_profile", ".profile", ".zprofile", ".zshenv", "config.fish"),
        "appends to a shell start-up file",
    ),
    _rule(
        "service_install",
        "persistence",
        MEDIUM,
        r"(?:>|\btee\b|\bcp\b)[^\n]*(?:/etc/systemd/system/|/Library/LaunchAgents/|/Library/LaunchDaemons/"
        r"|\.config/autostart/)|\blaunchctl\s+(?:load|bootstrap)\b|\bschtasks\s+/create\b"
        r"|\breg add\s+[^\n]*\\CurrentVersion\\Run",
        ("/etc/systemd/", "launchagents", "launchdaemons", "autostart", "launchctl", "schtasks", "reg add"),
        "installs something that starts on its own",
    ),
    _rule(
        "agent_config_write",
        "persistence",
        HIGH,
        r"(?:>>?|\btee\b(?:\s+-a)?|\bwrite_text\(|\bopen\([^)\n]*[\"'][wa]\+?[\"'])[^\n]*?(?<![\w.-])"
        r"(?:AGENTS\.md|CLAUDE\.md|SOUL\.md|MEMORY\.md|USER\.md|\.cursorrules|\.hermes/config\.yaml"
        r"|\.claude/settings(?:\.local)?\.json)\b"
        r"|(?<![\w.-])(?:AGENTS\.md|CLAUDE\.md|SOUL\.md|MEMORY\.md|USER\.md)\b[^\n]*(?:\.write_text\(|\.write\()",
        (
            "agents.md",
            "claude.md",
            "soul.md",
            "memory.md",
            "user.md",
            ".cursorrules",
            ".hermes/config",
            ".claude/settings",
        ),
        "rewrites the agent's own instructions or memory files",
        case=True,
    ),
    _rule(
        "git_hooks",
        "persistence",
        MEDIUM,
        r"core\.hooksPath|>\s*\S*\.git/hooks/",
        ("hookspath", ".git/hooks"),
        "installs git hooks that run on every commit",
    ),
    # ---- network ---------------------------------------------------------------------------------
    _rule(
        "reverse_shell_dev_tcp",
        "network",
        CRITICAL,
        rf"{SHELL}\s+-i\b[^\n]*/dev/(?:tcp|udp)/|/dev/(?:tcp|udp)/[^\s/]+/\d+[^\n]*(?:0>&1|0<&\d|>&\s*\d|<&\s*\d)"
        r"|exec\s+\d+<>\s*/dev/tcp/[^\n]*(?:while\s+read|sh\b)",
        ("/dev/tcp", "/dev/udp"),
        "a reverse shell through /dev/tcp",
    ),
    _rule(
        "reverse_shell_netcat",
        "network",
        CRITICAL,
        rf"\b(?:nc +|ncat\s|netcat\s)[^\n]*\s-(?:e|c)\s+{SHELL}",
        ("nc ", "ncat", "netcat"),
        "a reverse shell through netcat",
    ),
    _rule(
        "reverse_shell_fifo",
        "network",
        CRITICAL,
        r"\bmkfifo\b[^\n]*\|\s*(?:\S*/)?(?:nc|ncat|netcat|openssl|telnet)\b|\bsocat\b[^\n]*exec:[^\n]*(?:sh|bash)"
        r"|\bsocat\b[^\n]*\bpty\b",
        ("mkfifo", "socat"),
        "a reverse shell through a named pipe or socat",
    ),
    _rule(
        "reverse_shell_code",
        "network",
        CRITICAL,
        r"pty\.spawn\(\s*[\"'](?:/bin/)?(?:ba)?sh|os\.dup2\(\s*\w+\.fileno\(\)"
        r"|\bfsockopen\([^\n]*(?:/bin/sh|exec|shell_exec)|use\s+Socket[^\n]*exec\s*\(\s*[\"']/bin/"
        r"|Net\.Sockets\.TCPClient[^\n]*(?:iex|Invoke-Expression|\.Read\()",
        ("pty.spawn", "dup2", "fsockopen", "socket", "tcpclient"),
        "a reverse shell written in Python, PHP, Perl or PowerShell",
    ),
    _rule(
        "raw_socket_to_address",
        "network",
        HIGH,
        r"\.connect\(\s*\(\s*[\"'](?:\d{1,3}\.){3}\d{1,3}[\"']\s*,\s*\d+",
        ".connect(",
        "opens a raw socket to a bare IP address from code",
    ),
    _rule(
        "dev_tcp",
        "network",
        MEDIUM,
        r"/dev/(?:tcp|udp)/",
        ("/dev/tcp", "/dev/udp"),
        "opens a raw TCP/UDP connection from the shell",
    ),
    _rule(
        "listener",
        "network",
        MEDIUM,
        r"\b(?:nc +|ncat\s+|netcat\s+)(?:-\w+\s+)*-\w*l\w*\b|\bsocat\s+[^\n]*TCP(?:4|6)?-LISTEN",
        ("nc ", "ncat", "netcat", "socat"),
        "opens a listening socket",
    ),
    _rule(
        "tunnel",
        "network",
        MEDIUM,
        r"\bngrok\s+(?:http|tcp|tls)\b|\bcloudflared\s+tunnel\b|\bssh\s+(?:-\w+\s+)*-R\s+\d|\blocaltunnel\b"
        r"|\bbore\s+local\b",
        ("ngrok", "cloudflared", "ssh", "localtunnel", "bore"),
        "exposes a local port to the internet",
    ),
    _rule(
        "raw_ip_download",
        "network",
        HIGH,
        RAW_IP_URL,
        ("curl", "wget", "invoke-webrequest", "iwr", "fetch", "requests.get", "urlopen"),
        "downloads from a bare public IP address",
        also=(r"\b(?:curl|wget|Invoke-WebRequest|iwr|fetch|requests\.get|urlopen)\b",),
    ),
    # ---- obfuscation -----------------------------------------------------------------------------
    _rule(
        "base64_to_shell",
        "obfuscation",
        CRITICAL,
        r"\bbase64\s+(?:-\w+\s+)*(?:-[a-zA-Z]*[dD]\b|--decode\b)|\bopenssl\s+(?:enc\s+-)?base64\s+-d\b"
        r"|\bxxd\s+-r\b|\buudecode\b",
        ("base64", "xxd", "uudecode"),
        "decodes a hidden payload and runs it in a shell",
        also=(
            rf"{PIPE_TO_INTERP}|\beval\b|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(|\b(?:ba|z)?sh\s+<\(|\bsource\s+<\(",
        ),
    ),
    _rule(
        "exec_decoded",
        "obfuscation",
        CRITICAL,
        r"\b(?:exec|eval)\s*\(\s*(?:compile\(\s*)?(?:base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex"
        r"|zlib\.decompress|marshal\.loads|__import__\(\s*[\"'](?:base64|zlib|marshal))"
        r"|\beval\s*\(\s*(?:atob|Buffer\.from\([^)]*base64)|new\s+Function\s*\(\s*atob"
        r"|FromBase64String[^\n]*(?:iex|Invoke-Expression)|(?:iex|Invoke-Expression)[^\n]*FromBase64String"
        r"|-e(?:nc(?:odedcommand)?)?\s+[A-Za-z0-9+/=]{40,}",
        ("exec", "eval", "function", "frombase64", "-e"),
        "runs code that was decoded at run time",
        also=(r"exec|eval|function|iex|invoke-expression|powershell|pwsh",),
    ),
    _rule(
        "reversed_to_shell",
        "obfuscation",
        CRITICAL,
        rf"\| ?rev\s*{PIPE_TO_SHELL}"
        rf"|\| ?tr +[\"']?[a-zA-Z-]+[\"']?\s+[\"']?[a-zA-Z-]+[\"']?\s*{PIPE_TO_SHELL}",
        ("| rev", "|rev", "| tr ", "|tr "),
        "unscrambles text and runs it in a shell",
    ),
    _rule(
        "hex_escapes",
        "obfuscation",
        MEDIUM,
        r"(?:\\x[0-9a-fA-F]{2}){16,}|(?:chr\(\d+\)\s*\+\s*){8,}|fromCharCode\((?:\s*\d+\s*,){16,}",
        ("\\x", "chr(", "fromcharcode"),
        "a long run of escaped characters (hidden text)",
    ),
    # ---- execution -------------------------------------------------------------------------------
    _rule(
        "pipe_remote_to_shell",
        "execution",
        HIGH,
        rf"\b(?:curl|wget)\b[^\n|]*{PIPE_TO_INTERP}|\b(?:ba|z)?sh\s+(?:-c\s+[\"']?\$\(|<\()\s*(?:curl|wget)\b"
        r"|\beval\s+[\"']?\$\(\s*(?:curl|wget)\b|\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^\n]*\|\s*iex\b"
        r"|\biex\s*\(\s*\(?New-Object\s+(?:System\.)?Net\.WebClient\)?\.DownloadString",
        ("curl", "wget", "iwr", "irm", "invoke-", "iex"),
        "runs a script straight from the internet",
        needs=("|", "<(", "$(", "downloadstring"),
    ),
    _rule(
        "pipe_raw_ip_to_shell",
        "execution",
        CRITICAL,
        rf"\b(?:curl|wget)\b[^\n|]*{RAW_IP_URL}[^\n|]*{PIPE_TO_INTERP}"
        rf"|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)\b[^\n]*{RAW_IP_URL}",
        ("curl", "wget"),
        "runs a script from a bare IP address",
        needs=("|", "$("),
    ),
    _rule(
        "download_and_run",
        "execution",
        HIGH,
        r"\b(?:curl|wget)\b[^\n]*(?:-o|-O|--output)\s*\S*/tmp/\S+[^\n]*(?:&&|;)\s*(?:chmod\s+\+x[^\n]*(?:&&|;)\s*)?"
        r"(?:\S*/tmp/|(?:ba)?sh\s+\S*/tmp/)",
        ("curl", "wget"),
        "downloads a file to /tmp and runs it",
        needs=("/tmp/",),
    ),
    _rule(
        "sudo_password_pipe",
        "privilege_escalation",
        HIGH,
        r"\becho\s+[^\n|]+\|\s*sudo\s+(?:-\w+\s+)*-S\b",
        "sudo",
        "feeds a password to sudo in clear text",
    ),
    # ---- traversal -------------------------------------------------------------------------------
    _rule(
        "deep_traversal",
        "traversal",
        MEDIUM,
        r"(?:\.\./){3,}|(?:\.\.\\){3,}",
        ("../../../", "..\\..\\..\\"),
        "climbs far out of its folder with ../",
    ),
    _rule(
        "traversal_to_sensitive",
        "traversal",
        HIGH,
        r"(?:\.\./){2,}(?:etc/|root/|home/|\.ssh/|\.hermes/|\.aws/)",
        "../../",
        "climbs out of its folder into system or credential folders",
    ),
    _rule(
        "etc_shadow",
        "traversal",
        HIGH,
        r"/etc/(?:shadow|gshadow|sudoers\.d/|master\.passwd)",
        ("/etc/shadow", "/etc/gshadow", "/etc/sudoers.d", "/etc/master.passwd"),
        "reads the system's password hashes or sudo rules",
    ),
    _rule(
        "proc_environ",
        "traversal",
        HIGH,
        r"/proc/(?:self|\d+|\$\w+|\*)/environ",
        "/environ",
        "reads another process's environment (secrets)",
    ),
    _rule(
        "foreign_agent_home",
        "traversal",
        MEDIUM,
        rf"{HOME}/\.(?:hermes|claude|codex|openclaw)/(?!skills\b)",
        (".hermes/", ".claude/", ".codex/", ".openclaw/"),
        "reaches into an agent's private home folder",
    ),
    # ---- mining ----------------------------------------------------------------------------------
    _rule(
        "miner_binary",
        "mining",
        CRITICAL,
        r"\b(?:xmrig|xmr-stak|cpuminer|minerd|cgminer|bfgminer|ethminer|nbminer|phoenixminer|lolminer|srbminer"
        r"|teamredminer|gminer|nanominer)\b",
        ("xmr", "miner", "minerd"),
        "a cryptocurrency miner",
    ),
    _rule(
        "mining_pool",
        "mining",
        CRITICAL,
        r"stratum\+(?:tcp|ssl|tls)://|--donate-level\b|\b(?:pool\.)?(?:minexmr|supportxmr|hashvault|nanopool"
        r"|2miners|f2pool|moneroocean|herominers|unmineable)\.(?:com|org|net|pro|stream)",
        (
            "stratum",
            "donate-level",
            "minexmr",
            "supportxmr",
            "hashvault",
            "nanopool",
            "2miners",
            "f2pool",
            "moneroocean",
            "herominers",
            "unmineable",
        ),
        "connects to a mining pool",
    ),
    _rule(
        "mining_algorithm",
        "mining",
        HIGH,
        r"\b(?:cryptonight|randomx|ethash|kawpow)\b",
        ("cryptonight", "randomx", "ethash", "kawpow"),
        "names a mining algorithm",
    ),
    # ---- supply chain ----------------------------------------------------------------------------
    _rule(
        "pip_insecure_index",
        "supply_chain",
        HIGH,
        r"\bpip3?\s+install\b[^\n]*(?:--(?:extra-)?index-url|-i)\s+http://(?!localhost|127\.)",
        "pip",
        "installs Python packages over plain HTTP",
        needs=("http://",),
    ),
    _rule(
        "pip_from_url",
        "supply_chain",
        MEDIUM,
        r"\b(?:pip3?|uv\s+pip)\s+install\b[^\n]*(?:git\+|https?://|--trusted-host|--extra-index-url)",
        "pip",
        "installs Python packages from outside PyPI",
        needs=("git+", "http", "--trusted-host", "--extra-index-url"),
    ),
    _rule(
        "npm_from_url",
        "supply_chain",
        MEDIUM,
        r"\b(?:npm|pnpm|yarn)\s+(?:i|install|add)\b[^\n]*(?:https?://|git\+|github:)"
        r"|\bnpm\s+config\s+set\s+registry\s+http://",
        ("npm", "pnpm", "yarn"),
        "installs JavaScript packages from outside the registry",
    ),
    _rule(
        "install_hook_download",
        "supply_chain",
        HIGH,
        r"[\"'](?:pre|post)?install[\"']\s*:\s*[\"'][^\"']*(?:curl|wget|node\s+-e|base64|/dev/tcp)",
        "install",
        "a package install hook that downloads or decodes code",
        needs=("curl", "wget", "node", "base64", "/dev/tcp"),
    ),
    _rule(
        "remote_binary_exec_bit",
        "supply_chain",
        MEDIUM,
        r"\b(?:curl|wget)\b[^\n]*&&\s*chmod\s+\+x\b",
        "chmod",
        "downloads a program and makes it executable",
    ),
    # ---- privilege escalation --------------------------------------------------------------------
    _rule(
        "sudoers_edit",
        "privilege_escalation",
        CRITICAL,
        r"(?:>>?|\btee\b)[^\n]*/etc/sudoers|NOPASSWD\s*:\s*ALL|>>\s*/etc/passwd",
        ("sudoers", "nopasswd", "/etc/passwd"),
        "grants passwordless root",
    ),
    _rule(
        "setuid",
        "privilege_escalation",
        HIGH,
        r"\bchmod\s+(?:-\w+\s+)*(?:[ugo]*\+s\b|[2467][0-7]{3}\b)|\bsetcap\s+[^\n]*cap_(?:sys_admin|setuid|dac_override)",
        ("chmod", "setcap"),
        "makes a program run as root (setuid or capabilities)",
    ),
    _rule(
        "container_escape",
        "privilege_escalation",
        HIGH,
        r"\bdocker\s+run\b[^\n]*(?:-v\s+/:/|--volume[= ]/:/|--pid[= ]host[^\n]*--privileged"
        r"|--privileged[^\n]*--pid[= ]host)|\bnsenter\s+[^\n]*-t\s*1\b|-v\s+/var/run/docker\.sock:",
        ("docker", "nsenter"),
        "gives a container control of the host",
    ),
    _rule(
        "privileged_container",
        "privilege_escalation",
        MEDIUM,
        r"\bdocker\s+run\b[^\n]*--privileged",
        "--privileged",
        "runs a privileged container",
    ),
    # ---- credential exposure ---------------------------------------------------------------------
    _rule(
        "secret_token",
        "credential_exposure",
        CRITICAL,
        r"\bgh[pousr]_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{60,}|\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{40,}"
        r"|\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{32,}\b|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bxox[abprs]-[0-9A-Za-z-]{20,}"
        r"|\bAIza[0-9A-Za-z_-]{35}\b|\b[rs]k_live_[0-9A-Za-z]{24,}\b|\bhf_[A-Za-z0-9]{34}\b"
        r"|\bglpat-[A-Za-z0-9_-]{20}\b|\bnpm_[A-Za-z0-9]{36}\b",
        (
            "ghp_",
            "gho_",
            "ghu_",
            "ghs_",
            "ghr_",
            "github_pat_",
            "sk-",
            "akia",
            "asia",
            "xox",
            "aiza",
            "k_live_",
            "hf_",
            "glpat-",
            "npm_",
        ),
        "a real-looking API key or token written into the skill",
        check=real_secret,
        case=True,
    ),
    _rule(
        "private_key_block",
        "credential_exposure",
        HIGH,
        r"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY(?: BLOCK)?-----",
        "private key",
        "a private key written into the skill",
        case=True,
    ),
    _rule(
        "print_secret",
        "credential_exposure",
        MEDIUM,
        rf"{SECRET_VAR}"
        r"|os\.environ(?:\.get)?\s*[\[(]\s*[\"'][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*[\"']"
        r"|\bENV\[\s*[\"'][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*[\"']\s*\]"
        r"|process\.env\.[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)",
        ("echo", "printf", "print", "console.log", "puts", "logger", "logging"),
        "prints a secret into the transcript or logs",
        also=(r"\b(?:echo|printf|print|console\.log|puts|logger\.\w+|logging\.\w+)\b",),
        needs=("$", "environ", "env[", "process.env"),
        unless=r"\[\s*-[nz]\s|:-|:\?|\bif\b|\|\s*(?:gh|docker|npm|twine|helm|kubectl)\b|>\s*\S*\.env\b|\bwc\s+-c\b"
        r"|\$\{#",
    ),
    _rule(
        "hardcoded_password",
        "credential_exposure",
        LOW,
        r"\b(?:password|passwd|pwd|secret)\s*[:=]\s*[\"'](?P<v>[^\"'\s$%{<]{8,})[\"']",
        ("password", "passwd", "pwd", "secret"),
        "a password written into the skill",
        check=lambda m: not PLACEHOLDER.search(m.group("v")) and len(set(m.group("v"))) > 5,
    ),
)

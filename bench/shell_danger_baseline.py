"""The terminal's former danger checker (a shlex denylist), kept as the baseline bench_security_shell
measures the parse-based one against. Not used by the engine.

Spotting shell commands that destroy data or reach beyond the project, so the user is asked first.

The command is split into simple commands with a shell-like tokenizer (quotes respected, so
`echo "rm -rf /"` is harmless), each command's program is found past wrappers such as `sudo`, `env`
and `xargs`, and its flags are judged. `bash -c '...'`, `eval` and `$(...)` are looked into. A few
rules (SQL, `curl | sh`, fork bombs) read the raw text, because they hide inside quoted strings.
This errs on the side of asking: a false alarm costs one keypress, a miss can cost a repository.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 3  # nested `bash -c` levels looked into


@dataclass(frozen=True)
class Danger:
    """One reason a command needs approval; `category` is what a session approval covers."""

    category: str
    description: str


_SEPARATORS = {";", ";;", "&", "&&", "|", "||", "|&", "(", ")", "\n", "{", "}"}
_WRAPPERS = {"sudo", "doas", "env", "nohup", "time", "nice", "ionice", "command", "builtin", "exec", "stdbuf"}
_WRAPPER_ARGS = {"nice": {"-n"}, "ionice": {"-c", "-n"}, "sudo": {"-u", "-g"}, "timeout": {"-s", "-k"}}
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "fi", "done"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}
_INTERPRETERS = _SHELLS | {"python", "python3", "perl", "ruby", "node"}
_DISK_TOOLS = {
    "mkfs",
    "mke2fs",
    "mkswap",
    "wipefs",
    "fdisk",
    "sfdisk",
    "gdisk",
    "parted",
    "shred",
    "blkdiscard",
}
_POWER = {"shutdown", "reboot", "halt", "poweroff"}
_XARGS_WITH_VALUE = {"-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"}

_RAW_RULES = (
    (
        re.compile(r"\b(drop\s+(table|database|schema)|truncate\s+table)\b", re.IGNORECASE),
        "sql-drop",
        "drops or truncates database tables",
    ),
    (
        re.compile(r"\bdelete\s+from\s+[\w.\"`\[\]]+\s*(;|$|[\"'])", re.IGNORECASE),
        "sql-delete",
        "deletes every row of a table (DELETE without WHERE)",
    ),
    (
        re.compile(r"\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b"),
        "pipe-to-shell",
        "pipes a download straight into a shell",
    ),
    (
        re.compile(r"\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(python3?|perl|ruby|node)\b"),
        "pipe-to-shell",
        "pipes a download straight into an interpreter",
    ),
    (
        re.compile(r"(ba|z|da|k)?sh\s+(-c\s+)?[\"']?(<\(|\$\()\s*(curl|wget)\b"),
        "pipe-to-shell",
        "runs a downloaded script",
    ),
    (re.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"), "fork-bomb", "is a fork bomb"),
    (
        re.compile(r">\s*/dev/(sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d)"),
        "disk-write",
        "writes onto a raw disk",
    ),
)


def find_dangers(command: str, cwd: Path) -> list[Danger]:
    """Every reason `command`, run in `cwd`, needs the user's approval (empty when it looks safe)."""
    found: list[Danger] = []
    _scan(command, cwd, found, 0)
    unique: dict[tuple[str, str], Danger] = {}
    for danger in found:
        unique.setdefault((danger.category, danger.description), danger)
    return list(unique.values())


def _scan(command: str, cwd: Path, found: list[Danger], depth: int) -> None:
    for rule, category, description in _RAW_RULES:
        if rule.search(command):
            found.append(Danger(category, f"It {description}."))
    tokens = _tokenize(command)
    if tokens is None:  # unbalanced quotes: judge the words we can see
        tokens = command.replace(";", " ; ").replace("|", " | ").replace("&", " & ").split()
    for words, redirects in _simple_commands(tokens):
        _judge(words, redirects, cwd, found, depth)
    if depth < MAX_DEPTH:
        for inner in re.findall(r"\$\(([^()]*)\)|`([^`]*)`", command):
            text = inner[0] or inner[1]
            if text.strip():
                _scan(text, cwd, found, depth + 1)


def _tokenize(command: str) -> list[str] | None:
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def _simple_commands(tokens: list[str]) -> list[tuple[list[str], list[tuple[str, str]]]]:
    """Split tokens at control operators; pull out redirections as (operator, target)."""
    commands: list[tuple[list[str], list[tuple[str, str]]]] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _SEPARATORS:
            if words or redirects:
                commands.append((words, redirects))
            words, redirects = [], []
        elif token and set(token) <= set("<>&|") and (">" in token or "<" in token):
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if words and words[-1].isdigit():  # `2>` arrives as `2` then `>`
                words.pop()
            redirects.append((token, target))
            i += 1
        else:
            words.append(token)
        i += 1
    if words or redirects:
        commands.append((words, redirects))
    return commands


def _program(words: list[str], found: list[Danger]) -> list[str]:
    """The words from the real program on, past keywords, variable assignments and wrappers."""
    i = 0
    while i < len(words):
        word = words[i]
        name = word.rsplit("/", 1)[-1]
        if word in _KEYWORDS or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word):
            i += 1
            continue
        if name in ("sudo", "doas", "su", "pkexec"):
            found.append(Danger("sudo", f"It runs `{name}`, with another user's (usually root's) rights."))
        if name == "su":
            return []
        if name in _WRAPPERS or name == "timeout":
            i += 1
            takes_value = _WRAPPER_ARGS.get(name, set())
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in takes_value else 1
            if name == "timeout" and i < len(words):
                i += 1  # the duration
            continue
        if name == "xargs":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _XARGS_WITH_VALUE else 1
            continue
        return words[i:]
    return []


def _short_flags(args: list[str]) -> set[str]:
    letters: set[str] = set()
    for arg in args:
        if arg.startswith("-") and not arg.startswith("--"):
            letters.update(arg[1:])
    return letters


def _judge(
    words: list[str], redirects: list[tuple[str, str]], cwd: Path, found: list[Danger], depth: int
) -> None:
    for operator, target in redirects:
        if operator in (">", ">|", "&>") and _is_existing_file(target, cwd):
            found.append(Danger("overwrite", f"It truncates the existing file {target} with `{operator}`."))
    words = _program(words, found)
    if not words:
        return
    name, args = words[0].rsplit("/", 1)[-1], words[1:]
    flags, longs = _short_flags(args), {a for a in args if a.startswith("--")}
    if name == "rm" and (flags & {"r", "R", "f"} or longs & {"--recursive", "--force", "--no-preserve-root"}):
        found.append(Danger("rm", "It deletes files recursively or by force (`rm -r`/`-f`)."))
    elif name == "git":
        _judge_git(args, found)
    elif name == "dd" and any(a.startswith("of=") for a in args):
        found.append(Danger("dd", "It writes raw bytes with `dd of=…`."))
    elif name in _DISK_TOOLS or name.startswith("mkfs."):
        found.append(Danger("disk", f"It runs `{name}`, which erases or repartitions storage."))
    elif name in ("chmod", "chown", "chgrp") and ("R" in flags or "--recursive" in longs):
        found.append(Danger("chmod-r", f"It changes permissions or owners recursively (`{name} -R`)."))
    elif name == "kill" and ("9" in flags or {"-KILL", "-SIGKILL"} & set(args) or _signal_kill(args)):
        found.append(Danger("kill", "It force-kills processes (`kill -9`)."))
    elif name in ("killall", "pkill"):
        found.append(Danger("kill", f"It kills processes by name (`{name}`)."))
    elif name in _POWER or (name == "init" and args[:1] in (["0"], ["6"])):
        found.append(Danger("power", f"It shuts down or restarts the machine (`{name}`)."))
    elif name == "systemctl" and set(args) & {"poweroff", "reboot", "halt", "kexec"}:
        found.append(Danger("power", "It shuts down or restarts the machine (`systemctl`)."))
    elif name == "find" and ("-delete" in args or _find_exec_rm(args)):
        found.append(Danger("rm", "It deletes the files `find` matches."))
    elif name == "truncate":
        found.append(Danger("overwrite", "It truncates files (`truncate`)."))
    elif name == "tee" and not (flags & {"a"} or "--append" in longs):
        for arg in args:
            if not arg.startswith("-") and _is_existing_file(arg, cwd):
                found.append(Danger("overwrite", f"It overwrites the existing file {arg} with `tee`."))
    elif name in ("mv", "cp") and args and args[-1] in ("/dev/null",):
        found.append(Danger("rm", f"It discards files with `{name} … /dev/null`."))
    if depth < MAX_DEPTH:
        if name in _SHELLS and "-c" in args and args.index("-c") + 1 < len(args):
            _scan(args[args.index("-c") + 1], cwd, found, depth + 1)
        elif name == "eval" and args:
            _scan(" ".join(args), cwd, found, depth + 1)


def _judge_git(args: list[str], found: list[Danger]) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # global options such as -C dir, -c key=value
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree") else 1
    if i >= len(args):
        return
    sub, rest = args[i], args[i + 1 :]
    flags, longs = _short_flags(rest), {a.split("=")[0] for a in rest if a.startswith("--")}
    if sub == "reset" and "--hard" in longs:
        found.append(Danger("git-reset", "It throws away uncommitted changes (`git reset --hard`)."))
    elif sub == "clean" and ("f" in flags or "--force" in longs):
        found.append(Danger("git-clean", "It deletes untracked files (`git clean -f`)."))
    elif sub == "push" and (
        "f" in flags
        or longs & {"--force", "--force-with-lease", "--mirror", "--delete"}
        or any(a.startswith("+") for a in rest)
    ):
        found.append(
            Danger("git-push-force", "It rewrites or deletes history on a remote (`git push --force`).")
        )
    elif sub == "branch" and "D" in flags:
        found.append(Danger("git-branch-delete", "It deletes a branch even if unmerged (`git branch -D`)."))
    elif sub in ("checkout", "restore") and ("." in rest or "f" in flags or "--force" in longs):
        found.append(Danger("git-discard", f"It discards local changes (`git {sub}`)."))
    elif sub == "stash" and rest[:1] in (["drop"], ["clear"]):
        found.append(Danger("git-stash-drop", "It deletes stashed changes (`git stash drop/clear`)."))


def _signal_kill(args: list[str]) -> bool:
    return any(
        args[i] == "-s" and args[i + 1].upper() in ("9", "KILL", "SIGKILL") for i in range(len(args) - 1)
    )


def _find_exec_rm(args: list[str]) -> bool:
    for i, arg in enumerate(args[:-1]):
        if arg in ("-exec", "-execdir", "-ok") and args[i + 1].rsplit("/", 1)[-1] in ("rm", "shred"):
            return True
    return False


def _is_existing_file(target: str, cwd: Path) -> bool:
    """True for an existing, non-empty regular file (devices such as /dev/null are not files)."""
    if not target or target.startswith("&"):
        return False
    path = Path(target).expanduser()
    if not path.is_absolute():
        path = cwd / path
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False

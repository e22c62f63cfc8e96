"""Files a command writes (redirections, `tee`, `cp`/`mv`/`ln`/`install`, `dd of=`, `sed -i`, `curl -o`…)
and what writing there means: a disk device, a shell profile or other place that runs code later, the
agent's own home, or an existing file that `>` empties.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from engine.tools.shell.findings import Call, Finding
from engine.tools.shell.options import long_matches, operands, option_value, short_letters
from engine.tools.shell.targets import resolve, within
from engine.tools.shell.words import Word

_HARMLESS_DEVICES = re.compile(
    r"^/dev/(null|zero|full|random|urandom|stdout|stderr|stdin|tty|fd/\d+|shm(/.*)?|pts/\d+)$"
)
_NETWORK_DEVICES = re.compile(r"^/dev/(tcp|udp)/")
_SYSTEM_BIN = re.compile(r"^/usr/(local/)?s?bin/|^/s?bin/|^/opt/[^/]+/bin/")
_PROFILE_NAMES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".mkshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".xprofile",
        ".xinitrc",
        ".xsession",
        ".xsessionrc",
        ".pam_environment",
        ".envrc",
        "sitecustomize.py",
        "usercustomize.py",
    }
)
_PERSISTENCE = (
    (
        "persistence-profile",
        re.compile(r"^/etc/(profile(\.d/.*)?|bash\.bashrc|environment|zsh/.*|ld\.so\.preload)$"),
    ),
    ("persistence-profile", re.compile(r"/\.config/(fish/|autostart/|environment\.d/)|/\.bashrc\.d/|\.pth$")),
    ("persistence-ssh", re.compile(r"(^|/)\.ssh/|^/etc/ssh/")),
    ("persistence-cron", re.compile(r"^/etc/(cron[^/]*|anacrontab)(/|$)|^/var/spool/(cron|at)/")),
    (
        "persistence-service",
        re.compile(
            r"(^|/)(\.config/systemd|\.local/share/systemd)/|^/(etc|lib|usr/lib|run)/systemd/|^/etc/(init\.d|rc\.local)"
            r"|/Library/Launch(Agents|Daemons)/"
        ),
    ),
    ("persistence-git-hook", re.compile(r"(^|/)\.git/(modules/.+/)?hooks(/|$)|(^|/)\.husky/")),
    ("git-config-write", re.compile(r"(^|/)\.git/(modules/.+/)?config$|(^|/)\.gitconfig$|/\.config/git/")),
)


@dataclass(frozen=True)
class Target:
    """A file a command writes: how (`op`), where (`word` in `cwd`), and whether it empties it first."""

    op: str
    word: Word
    cwd: Path | None
    subject: str
    empties: bool = False
    unnamed: bool = False  # `word` is the folder; the file's name in it is only known when it runs
    source: Word | None = None  # the file `cp`/`mv` puts there
    content: str | None = None  # the whole new content, when it is literal


def call_writes(call: Call) -> list[Target]:
    """The files `call` writes besides its standard output."""
    name, args, subject = call.name, call.args, call.text()
    folder = call.folder
    found: list[Target] = []
    if name == "tee":
        append = "a" in short_letters(args) or any(long_matches(w.value or "", "append") for w in args)
        found += [
            Target("tee -a" if append else "tee", w, folder, subject, not append) for w in operands(args)
        ]
    elif name in ("cp", "mv", "install", "ln"):
        found += _copy_targets(call)
    elif name == "dd":
        found += [
            Target("dd", Word(w.text, w.value[3:]), folder, subject)
            for w in args
            if (w.value or "").startswith("of=")
        ]
        found += [Target("dd", w, folder, subject) for w in args if w.value is None]
    elif name in ("sed", "perl", "ruby") and _in_place(call):
        files = operands(args, "ef", ("--expression", "--file")) if name == "sed" else _script_operands(args)
        found += [
            Target(f"{name} -i", w, folder, subject)
            for w in (files[1:] if name == "sed" and not _has_script_option(args) else files)
        ]
    elif name == "curl":
        found += [
            Target("curl -o", w, folder, subject)
            for w in option_value(args, "o", "output", takes_value=_CURL_VALUES)
            if w
        ]
    elif name == "wget":
        found += [
            Target("wget -O", w, folder, subject) for w in option_value(args, "O", "output-document") if w
        ]
    elif name in ("sort",):
        found += [Target("sort -o", w, folder, subject) for w in option_value(args, "o", "output") if w]
    elif name == "time":
        found += [Target("time -o", w, folder, subject) for w in option_value(args, "o", "output") if w]
    elif name in ("rsync", "scp"):
        files = operands(args, "eiFoPSlcJ" if name == "scp" else "eTB", ("--rsh", "--exclude", "--include"))
        if len(files) >= 2 and not _remote(files[-1].value):
            found.append(Target(name, files[-1], folder, subject, empties=True))
    elif name in ("tar", "unzip", "wget"):
        letter, long_name = {
            "tar": ("C", "directory"),
            "unzip": ("d", ""),
            "wget": ("P", "directory-prefix"),
        }[name]
        names = (long_name,) if long_name else ()
        for word in option_value(args, letter, *names, takes_value="fbTXgKLNV" if name == "tar" else ""):
            if word is not None:
                found.append(Target(f"{name} -{letter}", word, folder, subject, unnamed=True))
    elif name == "find":
        for i, word in enumerate(args[:-1]):
            if word.value in ("-fprint", "-fprint0", "-fls", "-fprintf"):
                found.append(Target(f"find {word.value}", args[i + 1], folder, subject))
    return found


_CURL_VALUES = "dFTKuHXeAbcCDEoQrtUwxYyzmP"


def _copy_targets(call: Call) -> list[Target]:
    args, folder, subject = call.args, call.folder, call.text()
    value_letters = "tSmogT" if call.name == "install" else "tS"
    directory = [w for w in option_value(args, "t", "target-directory", takes_value=value_letters) if w]
    files = operands(args, value_letters, ("--target-directory", "--suffix", "--mode", "--owner", "--group"))
    if directory:
        sources, destination = files, directory[0]
    elif len(files) >= 2:
        sources, destination = files[:-1], files[-1]
    else:
        return []
    op = call.name
    if destination.value is None:
        return [Target(op, destination, folder, subject)]
    into_folder = destination.value.endswith("/") or len(sources) > 1 or bool(directory)
    if not into_folder and folder is not None:
        resolved = resolve(destination.value, folder)
        into_folder = resolved is not None and os.path.isdir(resolved)
    if not into_folder:
        source = sources[0] if len(sources) == 1 else None
        return [Target(op, destination, folder, subject, empties=True, source=source)]
    out = []
    for source in sources:
        if source.value is None:
            out.append(Target(op, destination, folder, subject, unnamed=True))
            continue
        joined = destination.value.rstrip("/") + "/" + os.path.basename(source.value.rstrip("/"))
        out.append(Target(op, Word(destination.text, joined), folder, subject))
    return out


def _remote(value: str | None) -> bool:
    return value is not None and bool(re.match(r"^([\w.-]+@)?[\w.-]+:|^rsync://", value))


def _in_place(call: Call) -> bool:
    if call.name == "sed":
        return "i" in short_letters(call.args, with_value="ef") or any(
            long_matches(w.value or "", "in-place") for w in call.args
        )
    return any(re.match(r"^-[a-zA-Z]*i", w.value or "") for w in call.args)


def _has_script_option(args: list[Word]) -> bool:
    return bool({"e", "f"} & short_letters(args, with_value="ef")) or any(
        long_matches(w.value or "", "expression", "file") for w in args
    )


def _script_operands(args: list[Word]) -> list[Word]:
    out, skip = [], False
    for word in args:
        if skip:
            skip = False
            continue
        value = word.value or ""
        if value.startswith("-"):
            skip = value.endswith("e") or value.endswith("E")
            continue
        out.append(word)
    return out


def classify(
    target: Target, project: Path, hermes_home: str | None, home: str | None, written: set[str]
) -> list[Finding]:
    """What writing `target` means, as findings (none for an ordinary new or appended file).

    `written` are the paths the same command writes: replacing a file with one the command has just
    made from it (`jq … f > tmp && mv tmp f`) is an edit, not a loss.
    """
    unknown = Finding("unprovable-write-target", target.subject, detail=f"{target.op} {target.word.text}")
    if target.word.value is None or target.word.glob:
        return [unknown]
    value = target.word.value
    path = resolve(value, target.cwd)
    if target.unnamed:  # files of unknown names may land in the project, nowhere else
        inside = path is not None and within(path, os.path.normpath(project))
        return [] if inside and not _persistence(path, value) else [unknown]
    if _NETWORK_DEVICES.match(value):
        return [Finding("exfiltration", target.subject, detail=f"{target.op} {value}")]
    if path and path.startswith("/dev/") and not _HARMLESS_DEVICES.match(path):
        return [Finding("device-write", target.subject, target=path, detail=value)]
    if path and path.startswith(("/proc/", "/sys/")):
        return [Finding("system-write", target.subject, target=path, detail=value)]
    if hermes_home and path and within(path, hermes_home):
        return [Finding("hermes-home-write", target.subject, target=path, detail=value)]
    rule = _persistence(path, value)
    if not rule and path and _on_path(path, home):
        rule = "persistence-path"
    if rule:
        return [Finding(rule, target.subject, target=path, detail=value)]
    if path and path.startswith("/etc/"):
        return [Finding("system-write", target.subject, target=path, detail=value)]
    if target.empties and path and _non_empty_file(path):
        source = target.source.value if target.source is not None else None
        if source is not None and resolve(source, target.cwd) in written:
            return []
        if target.op in ("ln", "mv") and os.path.islink(path):
            return []  # only the link is replaced
        return [Finding("overwrite", target.subject, target=path, detail=f"{value}|{target.op}")]
    if target.empties and path is None:
        return [Finding("overwrite", target.subject, detail=f"{value}|{target.op}")]
    return []


def _persistence(path: str | None, value: str) -> str:
    """The persistence rule writing this path matches, or ""."""
    if os.path.basename(value.rstrip("/")) in _PROFILE_NAMES:
        return "persistence-profile"
    for rule, pattern in _PERSISTENCE:
        if any(pattern.search(c) for c in (path, value) if c):
            return rule
    return ""


def _on_path(path: str, home: str | None) -> bool:
    """True for a folder that is on the usual PATH (the system's, or the person's own bin folders)."""
    if _SYSTEM_BIN.match(path):
        return True
    if not home:
        return False
    return any(within(path, os.path.join(home, folder)) for folder in (".local/bin", "bin"))


def _non_empty_file(path: str) -> bool:
    """True for an existing, non-empty regular file (devices such as /dev/null are not files)."""
    try:
        return os.path.isfile(path) and os.path.getsize(path) > 0
    except OSError:
        return False

"""Programs that destroy data or disturb the machine, judged on their options however they are spelt:
clusters in any order, long options and their unique prefixes, options after operands (GNU permutes).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.tools.shell.findings import Call, Finding
from engine.tools.shell.options import find_roots, long_matches, operands, option_value, short_letters
from engine.tools.shell.programs import SQL_CLIENTS
from engine.tools.shell.targets import folder_of
from engine.tools.shell.words import Word

Rule = Callable[[Call], list[Finding]]

_SQL_DESTROY = re.compile(
    r"\b(drop\s+(table|database|schema|index|view|user|role|collection|keyspace)|truncate\s+(table\s+)?[\w.\"`\[]"
    r"|alter\s+table\s+\S+\s+drop|flushall|flushdb|dropdatabase\s*\(|\.drop\s*\(|deletemany\s*\(\s*\{\s*\}\s*\))",
    re.IGNORECASE,
)
_SQL_DELETE_ALL = re.compile(
    r"\bdelete\s+from\s+[\w.\"`\[\]]+\s*(;|$|\"|'|where\s+(1\s*=\s*1|true|1)\b)", re.IGNORECASE | re.MULTILINE
)
_SQL_SHELL = re.compile(r"(^|\n|;)\s*(\.shell|\.system|\\!|system\s)", re.IGNORECASE)
_DISK_PROGRAMS = frozenset(
    {
        "mkfs",
        "mke2fs",
        "mkswap",
        "mkntfs",
        "mkdosfs",
        "mkexfatfs",
        "wipefs",
        "fdisk",
        "sfdisk",
        "gdisk",
        "sgdisk",
        "cfdisk",
        "parted",
        "blkdiscard",
        "sg_format",
        "lvremove",
        "vgremove",
        "pvremove",
        "dmsetup",
    }
)
_DISK_SUBCOMMANDS = {
    "zfs": {"destroy", "rollback"},
    "zpool": {"destroy", "labelclear", "create"},
    "btrfs": {"delete", "remove"},
    "cryptsetup": {"luksformat", "erase", "lukskillslot", "luksremovekey"},
    "nvme": {"format", "sanitize"},
}
_POWER = frozenset(
    {"shutdown", "reboot", "halt", "poweroff", "kexec", "pm-suspend", "pm-hibernate", "rtcwake"}
)
_SYSTEMCTL_POWER = frozenset(
    {
        "poweroff",
        "reboot",
        "halt",
        "kexec",
        "suspend",
        "hibernate",
        "hybrid-sleep",
        "emergency",
        "rescue",
        "isolate",
    }
)
_SYSTEMCTL_PERSIST = frozenset({"enable", "link", "edit", "preset", "reenable", "add-wants", "add-requires"})
_SYSTEMCTL_STOP = frozenset({"stop", "kill", "mask", "disable"})
_ACCOUNTS = frozenset(
    {
        "useradd",
        "usermod",
        "userdel",
        "adduser",
        "deluser",
        "passwd",
        "chpasswd",
        "visudo",
        "groupadd",
        "gpasswd",
    }
)


def judge(call: Call) -> list[Finding]:
    """Every destructive-operation rule `call` matches."""
    name = call.name
    rule = _RULES.get(name)
    if rule is None and name.startswith("mkfs."):
        rule = _disk
    found = rule(call) if rule is not None else []
    if name in SQL_CLIENTS:
        found.extend(_sql(call))
    return found


def _targets(rule: str, call: Call, words: list[Word]) -> list[Finding]:
    """One finding per folder the rule acts on (a single unscoped one when any is not known)."""
    folders = [folder_of(w, call.folder) for w in words] or [None]
    if call.feeder:
        folders = [folder_of(w, call.folder) for w in call.roots] if call.roots else [None]
    if None in folders:
        return [Finding(rule, call.text())]
    return [Finding(rule, call.text(), target=f) for f in dict.fromkeys(folders) if f is not None]


def _rm(call: Call) -> list[Finding]:
    args = call.args
    head = args[: next((i for i, w in enumerate(args) if w.value == "--"), len(args))]
    letters = short_letters(head)
    longs = [w.value for w in head if w.value and w.value.startswith("--")]
    recursive = bool(letters & {"r", "R"}) or any(long_matches(v, "recursive") for v in longs)
    force = "f" in letters or any(long_matches(v, "force", "no-preserve-root") for v in longs)
    files = operands(args)
    if recursive:
        return _targets("rm-recursive", call, files)
    if force:
        return _targets("rm-force", call, files)
    if call.feeder or any(w.glob and (w.value or "").rsplit("/", 1)[-1] in ("*", ".*") for w in files):
        return _targets("rm-many", call, files)
    if any(w.value is None for w in head):
        return [Finding("unprovable-argument", call.text(), detail="rm")]
    return []


def _shred(call: Call) -> list[Finding]:
    return _targets("shred", call, operands(call.args, "nsu", ("--iterations", "--size", "--random-source")))


def _find(call: Call) -> list[Finding]:
    if any(w.value == "-delete" for w in call.args):
        return _targets("find-delete", call, find_roots(call.argv))
    return []


def _dd(call: Call) -> list[Finding]:
    outputs = [w for w in call.args if w.value is None or w.value.startswith("of=")]
    if not outputs:
        return []
    files = [Word(w.text, w.value[3:] if w.value else None) for w in outputs]
    return _targets("dd-write", call, files)


def _disk(call: Call) -> list[Finding]:
    values = [w.value or "" for w in call.args]
    if call.name in ("fdisk", "sfdisk", "parted", "gdisk", "sgdisk") and (
        {"-l", "--list", "print", "-p"} & set(values)
    ):
        return []
    return [Finding("disk-format", call.text(), detail=call.name)]


def _disk_subcommand(call: Call) -> list[Finding]:
    wanted = _DISK_SUBCOMMANDS[call.name]
    if any((w.value or "").lower() in wanted for w in call.args) or any(w.value is None for w in call.args):
        return [Finding("disk-format", call.text(), detail=call.name)]
    return []


def _hdparm(call: Call) -> list[Finding]:
    risky = ("--security", "--trim", "--write", "--dco", "--fwdownload", "--make-bad-sector")
    if any((w.value or "").startswith(risky) for w in call.args):
        return [Finding("disk-format", call.text(), detail="hdparm")]
    return []


def _mdadm(call: Call) -> list[Finding]:
    if any(long_matches(w.value or "", "zero-superblock", "create") for w in call.args):
        return [Finding("disk-format", call.text(), detail="mdadm")]
    return []


def _badblocks(call: Call) -> list[Finding]:
    return (
        [Finding("disk-format", call.text(), detail="badblocks -w")]
        if "w" in short_letters(call.args)
        else []
    )


def _truncate(call: Call) -> list[Finding]:
    return _targets("truncate", call, operands(call.args, "sr", ("--size", "--reference")))


def _recursive_mode(call: Call) -> list[Finding]:
    longs = [w.value for w in call.args if w.value and w.value.startswith("--")]
    if "R" not in short_letters(call.args) and not any(long_matches(v, "recursive") for v in longs):
        return []
    files = operands(call.args)
    if call.name in ("chmod", "chown", "chgrp") and not any(long_matches(v, "reference") for v in longs):
        files = files[1:]
    return _targets("chmod-recursive", call, files)


def _kill(call: Call) -> list[Finding]:
    values = [w.value for w in call.args]
    signals = [v for v in option_value(call.args, "s", "signal") if v is not None]
    signals += [
        Word(v, v[1:]) for v in values if v and re.fullmatch(r"-\w+", v) and v[1:] not in ("s", "n", "l")
    ]
    signals += [v for v in option_value(call.args, "n") if v is not None]
    forced = any((s.value or "").upper().removeprefix("SIG") in ("9", "KILL") for s in signals)
    everything = "-1" in values[values.index("--") + 1 :] if "--" in values else False
    if forced or everything or "1" in values:
        return [Finding("kill-force", call.text())]
    if None in values:
        return [Finding("unprovable-argument", call.text(), detail="kill")]
    return []


def _kill_by_name(call: Call) -> list[Finding]:
    values = [w.value for w in call.args]
    signals = [v for v in option_value(call.args, "s", "signal") if v is not None]
    if "-0" in values or any(s.value == "0" for s in signals):
        return []  # signal 0 only asks whether the processes exist
    return [Finding("kill-by-name", call.text(), detail=call.name)]


def _power(call: Call) -> list[Finding]:
    return [Finding("power", call.text(), detail=call.name)]


def _init(call: Call) -> list[Finding]:
    if any(w.value in ("0", "6", "1", "S", "s") for w in call.args):
        return _power(call)
    return []


def _systemctl(call: Call) -> list[Finding]:
    words = {(w.value or "").lower() for w in call.args}
    if words & _SYSTEMCTL_POWER:
        return _power(call)
    if words & _SYSTEMCTL_PERSIST:
        return [Finding("persistence-service", call.text())]
    if words & _SYSTEMCTL_STOP:
        return [Finding("service-stop", call.text())]
    return []


def _loginctl(call: Call) -> list[Finding]:
    words = {(w.value or "").lower() for w in call.args}
    if any(w.startswith(("poweroff", "reboot", "terminate", "kill", "suspend", "hibernate")) for w in words):
        return _power(call)
    return []


def _crontab(call: Call) -> list[Finding]:
    letters = short_letters(call.args)
    if letters and letters <= {"l", "u"} and "l" in letters:
        return []
    if "r" in letters:
        return [Finding("crontab-remove", call.text())]
    return [Finding("persistence-cron", call.text())]


def _privilege(call: Call) -> list[Finding]:
    return [Finding("sudo", call.text(), detail=call.name)]


def _rsync(call: Call) -> list[Finding]:
    longs = [w.value for w in call.args if w.value and w.value.startswith("--")]
    if any(
        long_matches(v, "delete", "delete-before", "delete-after", "delete-during", "remove-source-files")
        or v.startswith("--del")
        for v in longs
    ):
        files = operands(call.args)
        return _targets("rsync-delete", call, files[-1:])
    return []


def _mv(call: Call) -> list[Finding]:
    files = operands(call.args, "tS", ("--target-directory", "--suffix"))
    if len(files) >= 2 and files[-1].value == "/dev/null":
        return _targets("rm-force", call, files[:-1])
    return []


def _tar(call: Call) -> list[Finding]:
    if any(long_matches(w.value or "", "remove-files") for w in call.args):
        return [Finding("rm-force", call.text())]
    return []


_SED_S_FLAGS = re.compile(
    r"(?:^|[;{}\n])\s*[\d,$/\\!]*\s*s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1([a-zA-Z0-9]*)"
)
_SED_COMMANDS = re.compile(
    r"(?:^|[;{}\n])\s*(?:\d+|\$|/[^/]*/)?(?:,(?:\d+|\$|/[^/]*/))?\s*!?\s*([ewW])(?:\s|$)"
)


def _sed(call: Call) -> list[Finding]:
    scripts = [w for w in option_value(call.args, "e", "expression", takes_value="flS") if w is not None]
    if not scripts and not any(long_matches(w.value or "", "file") or w.value == "-f" for w in call.args):
        files = operands(call.args, "eflS", ("--expression", "--file", "--line-length"))
        scripts = files[:1]
    for script in scripts:
        if script.value is None:
            return [Finding("unprovable-argument", call.text(), detail="sed")]
        flags = [m.group(2) for m in _SED_S_FLAGS.finditer(script.value)]
        if any(set(f) & {"e", "w"} for f in flags) or _SED_COMMANDS.search(
            _SED_S_FLAGS.sub(";", script.value)
        ):
            return [Finding("sed-exec", call.text(), detail=script.value[:60])]
    return []


def _rimraf(call: Call) -> list[Finding]:
    return _targets("rm-recursive", call, operands(call.args))


def _archive_move(call: Call) -> list[Finding]:
    values = [w.value or "" for w in call.args]
    moves = call.name == "zip" and any(
        (v.startswith("-") and not v.startswith("--") and "m" in v[1:]) or long_matches(v, "move")
        for v in values
    )
    if moves or "-sdel" in values:
        return [Finding("rm-force", call.text(), detail=call.name)]
    return []


def sql_findings(text: str, subject: str) -> list[Finding]:
    """Destructive SQL, or a database client's shell escape, in `text`."""
    found: list[Finding] = []
    if _SQL_DESTROY.search(text) or _SQL_DELETE_ALL.search(text):
        found.append(Finding("sql-destroy", subject, detail=text.strip()[:80]))
    return found


def _accounts(call: Call) -> list[Finding]:
    return [Finding("system-accounts", call.text(), detail=call.name)]


def _sql(call: Call) -> list[Finding]:
    texts = [w.value for w in call.args if w.value]
    if call.inv.stdin.kind == "literal":
        texts.append(call.inv.stdin.text)
    found: list[Finding] = []
    for text in texts:
        found.extend(sql_findings(text, call.text()))
        if _SQL_SHELL.search(text):
            found.append(Finding("interpreter-shell", call.text(), detail=f"{call.name} shell escape"))
    return found[:2]


_RULES: dict[str, Rule] = {
    "rm": _rm,
    "shred": _shred,
    "srm": _shred,
    "wipe": _shred,
    "find": _find,
    "dd": _dd,
    "truncate": _truncate,
    "chmod": _recursive_mode,
    "chown": _recursive_mode,
    "chgrp": _recursive_mode,
    "setfacl": _recursive_mode,
    "chattr": _recursive_mode,
    "kill": _kill,
    "killall": _kill_by_name,
    "killall5": _kill_by_name,
    "pkill": _kill_by_name,
    "skill": _kill_by_name,
    "slay": _kill_by_name,
    "init": _init,
    "telinit": _init,
    "systemctl": _systemctl,
    "loginctl": _loginctl,
    "crontab": _crontab,
    "sudo": _privilege,
    "doas": _privilege,
    "su": _privilege,
    "runuser": _privilege,
    "rsync": _rsync,
    "mv": _mv,
    "cp": _mv,
    "tar": _tar,
    "sed": _sed,
    "rimraf": _rimraf,
    "zip": _archive_move,
    "7z": _archive_move,
    "7za": _archive_move,
    "hdparm": _hdparm,
    "mdadm": _mdadm,
    "badblocks": _badblocks,
    **{name: _disk for name in _DISK_PROGRAMS},
    **{name: _disk_subcommand for name in _DISK_SUBCOMMANDS},
    **{name: _power for name in _POWER},
    **{name: _accounts for name in _ACCOUNTS},
}

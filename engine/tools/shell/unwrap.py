"""From one invocation to every program it runs: through wrappers (`sudo`, `env -S`, `timeout`,
`xargs`, `find -exec`, `watch`…), runners (engine/tools/shell/runners.py) and the code handed to
shells and interpreters (engine/tools/shell/handoffs.py).

Each step yields a `Call` (a program to judge), a `Code` (text to parse or scan in turn), an
`Executed` path (a script file that runs), or a `Finding` for what cannot be known before run time.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.tools.shell.findings import Call, Code, Finding
from engine.tools.shell.git import expand_git
from engine.tools.shell.handoffs import (
    Executed,
    Item,
    alias,
    at,
    code_option,
    code_or_finding,
    eval_builtin,
    from_stdin,
    interpreter,
    joined,
    option_values,
    sg,
    shell,
    source,
    su,
    trap,
)
from engine.tools.shell.options import find_roots
from engine.tools.shell.programs import INTERPRETERS, SHELLS, SQL_CLIENTS, program_name
from engine.tools.shell.runners import RUNNER_NAMES, runner_steps
from engine.tools.shell.words import Word

MAX_WRAPPERS = 16  # wrappers peeled from one command before it counts as unprovable
# Variables whose value is a command line some program will run.
CODE_VARIABLES = frozenset(
    {
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PAGER",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "GIT_PROXY_COMMAND",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "PROMPT_COMMAND",
        "PS4",
    }
)
# Variables that make a program load and run a file or settings of the variable's choosing.
LOADING_VARIABLES = re.compile(
    r"^(LD_PRELOAD|LD_AUDIT|BASH_ENV|ENV|PERL5OPT|RUBYOPT|NODE_OPTIONS|PYTHONSTARTUP|PYTHONINSPECT|"
    r"GIT_CONFIG\w*|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|SHELLOPTS|BASHOPTS)$"
)


def expand(call: Call, depth: int = 0) -> Iterator[Item]:
    """The call itself and everything it runs in turn."""
    if not call.argv:
        return
    first = call.argv[0]
    if first.value is None or first.glob:
        yield Finding("unprovable-command-name", call.text(), detail=first.text)
        return
    if depth > MAX_WRAPPERS:
        yield Finding("unprovable-command-name", call.text(), detail="too many nested wrappers")
        return
    yield call
    if "/" in first.value:
        yield Executed(first, call.folder, call.text())
    handler = _HANDLERS.get(call.name)
    if handler is not None:
        yield from handler(call, depth)
    elif call.name in INTERPRETERS:
        yield from interpreter(call)
    elif call.name in RUNNER_NAMES:
        yield from _runner(call, depth)
    elif call.name in SQL_CLIENTS and call.inv.stdin.kind == "file" and call.inv.stdin.path is not None:
        yield Executed(call.inv.stdin.path, call.folder, call.text(), language="sql")


def _runner(call: Call, depth: int) -> Iterator[Item]:
    for step in runner_steps(call):
        if isinstance(step, Finding):
            yield step
            continue
        kind, payload, label = step
        if kind == "argv":
            assert isinstance(payload, list)
            nested = Call(payload, call.inv, f"{call.via} {label}".strip(), call.feeder, call.roots, call.cwd)
            yield from expand(nested, depth + 1)
        elif kind == "code":
            assert isinstance(payload, Word)
            yield code_or_finding(call, payload, label)
        elif kind == "stdin":
            yield from from_stdin(call, str(payload), label)


def assignment_items(call: Call, assignments: list[tuple[str, Word]]) -> Iterator[Item]:
    """Variables set for a program that make it run code: `GIT_SSH_COMMAND=…`, `LD_PRELOAD=…`."""
    for name, value in assignments:
        if name in CODE_VARIABLES:
            if value.value is None:
                yield Finding("unprovable-shell-code", f"{name}={value.text}", detail=name)
            elif value.value.strip():
                yield Code("shell", value.value, f"{name}=", call)
        elif LOADING_VARIABLES.match(name):
            yield Finding("env-exec", f"{name}={value.text}", detail=name)


def _inner(call: Call, start: int, via: str, depth: int, **changes: object) -> Iterator[Item]:
    rest = call.argv[start:]
    if call.name == "coproc" and len(rest) > 1 and rest[1].value in ("{", "("):
        rest = rest[1:]  # `coproc NAME { …; }`: the name is not a command
    if rest and rest[0].value in ("{", "("):
        rest = rest[1:]  # `time { …; }`: the grammar reads the reserved word as a command
    if not rest:
        return
    inner = Call(
        rest,
        call.inv,
        f"{call.via} {via}".strip(),
        str(changes.get("feeder", call.feeder)),
        list(call.roots),
        changes.get("cwd", call.cwd),  # type: ignore[arg-type]
    )
    yield from expand(inner, depth + 1)
    # A mistaken option table must not hide a dangerous program: judge it where it appears too.
    for i in range(1, start):
        word = call.argv[i].value
        if word and program_name(word) in _SENSITIVE and not word.startswith("-"):
            yield from expand(Call(call.argv[i:], call.inv, inner.via, inner.feeder, inner.roots), depth + 1)


def _skip_options(
    argv: list[Word], start: int, with_value: str, long_with_value: frozenset[str], positionals: int = 0
) -> int:
    """Index of the wrapped command: past options (and their values) and `positionals` fixed words."""
    i = start
    while i < len(argv):
        value = argv[i].value
        if value is None:
            break
        if value == "--":
            i += 1
            break
        if value.startswith("--") and len(value) > 2:
            if "=" not in value and value.split("=")[0] in long_with_value:
                i += 1
            i += 1
            continue
        if value.startswith("-") and len(value) > 1 and not value[1:].isdigit():
            cluster = value[1:]
            for j, letter in enumerate(cluster):
                if letter in with_value:
                    if j == len(cluster) - 1:
                        i += 1
                    break
            i += 1
            continue
        if value.startswith("-") and value[1:].isdigit():  # `nice -10 cmd`
            i += 1
            continue
        break
    return i + positionals


def _wrapper(with_value: str, long_with_value: tuple[str, ...] = (), positionals: int = 0) -> Callable:
    longs = frozenset(long_with_value)

    def handler(call: Call, depth: int) -> Iterator[Item]:
        start = _skip_options(call.argv, 1, with_value, longs, positionals)
        yield from _inner(call, start, call.name, depth)

    return handler


def _sudo(call: Call, depth: int) -> Iterator[Item]:
    start = _skip_options(
        call.argv, 1, "ugpCrtUhDRT", frozenset({"--user", "--group", "--prompt", "--chdir", "--host"})
    )
    flags = {w.value for w in call.argv[1:start] if w.value}
    shell = any(f.startswith("-") and not f.startswith("--") and ("s" in f or "i" in f) for f in flags)
    if start >= len(call.argv) and (shell or flags & {"--shell", "--login"}):
        yield from from_stdin(call, "shell", f"{call.name} -s")
        return
    yield from _inner(call, start, call.name, depth)


def _env(call: Call, depth: int) -> Iterator[Item]:
    argv = list(call.argv)
    cwd = call.cwd
    i = 1
    while i < len(argv):
        value = argv[i].value
        if value is None:
            break
        following = argv[i + 1].value if i + 1 < len(argv) else None
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            key, eq, rest = value.partition("=")
            taken = rest if eq else following
            if key in ("--chdir", "--unset", "--split-string") and not eq:
                i += 1
            if key == "--chdir":
                cwd = _resolve(call, taken)
            elif key == "--split-string":
                split = _split_string(taken)
                if split is None:
                    yield Finding("unprovable-command-name", call.text(), detail=f"env -S {taken or ''}")
                    return
                argv[i + 1 : i + 1] = split
            i += 1
            continue
        if value.startswith("-") and len(value) > 1:
            for j, letter in enumerate(value[1:], start=1):
                if letter in "uCSP":
                    attached = value[j + 1 :]
                    taken = attached or following
                    if not attached:
                        i += 1
                    if letter == "C":
                        cwd = _resolve(call, taken)
                    elif letter == "S":
                        split = _split_string(taken)
                        if split is None:
                            yield Finding("unprovable-command-name", call.text(), detail=f"env -S {taken}")
                            return
                        argv[i + 1 : i + 1] = split
                    break
            i += 1
            continue
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", value):
            name, _, assigned = value.partition("=")
            yield from assignment_items(call, [(name, Word(assigned, assigned))])
            i += 1
            continue
        break
    widened = Call(argv, call.inv, call.via, call.feeder, call.roots, call.cwd)
    yield from _inner(widened, i, "env", depth, cwd=cwd)


def _code_after(marker: str) -> Callable:
    """Terminal emulators: the words after `marker` are the command they run."""

    def handler(call: Call, depth: int) -> Iterator[Item]:
        values = [w.value for w in call.argv]
        if marker in values:
            yield from _inner(call, values.index(marker) + 1, call.name, depth)

    return handler


# bubblewrap's options and how many words each takes after it
_BWRAP_ARITY = {
    "--bind": 2,
    "--ro-bind": 2,
    "--dev-bind": 2,
    "--bind-try": 2,
    "--ro-bind-try": 2,
    "--symlink": 2,
}
_BWRAP_ARITY |= {"--setenv": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--chmod": 2}
_BWRAP_ARITY |= {
    o: 1 for o in ("--dev", "--proc", "--tmpfs", "--dir", "--chdir", "--unsetenv", "--remount-ro")
}
_BWRAP_ARITY |= {o: 1 for o in ("--uid", "--gid", "--hostname", "--args", "--seccomp", "--perms", "--size")}


def _bwrap(call: Call, depth: int) -> Iterator[Item]:
    argv, i = call.argv, 1
    while i < len(argv) and (argv[i].value or "").startswith("--"):
        if argv[i].value == "--":
            i += 1
            break
        i += 1 + _BWRAP_ARITY.get(argv[i].value or "", 0)
    yield from _inner(call, i, "bwrap", depth)


def _hyperfine(call: Call, depth: int) -> Iterator[Item]:
    """Every benchmarked command, and the setup, prepare and cleanup commands, are shell code."""
    argv, i = call.argv, 1
    codes: list[Word] = []
    while i < len(argv):
        value = argv[i].value or ""
        if value in ("-p", "--prepare", "-c", "--cleanup", "-s", "--setup") and i + 1 < len(argv):
            codes.append(argv[i + 1])
            i += 2
        elif value.startswith("-") and "=" not in value and value[1:2] in "wrmMnLSNu" and i + 1 < len(argv):
            i += 2
        elif value.startswith("-") and argv[i].value is not None:
            i += 1
        else:
            codes.append(argv[i])
            i += 1
    for word in codes:
        yield code_or_finding(call, word, "hyperfine")


def _split_string(text: str | None) -> list[Word] | None:
    if text is None or "$" in text:
        return None
    try:
        return [Word(part, part) for part in shlex.split(text)]
    except ValueError:
        return None


def _exec(call: Call, depth: int) -> Iterator[Item]:
    yield from _inner(call, _skip_options(call.argv, 1, "a", frozenset()), "exec", depth)


def _command(call: Call, depth: int) -> Iterator[Item]:
    start = _skip_options(call.argv, 1, "", frozenset())
    if any("v" in (w.value or "") or "V" in (w.value or "") for w in call.argv[1:start]):
        return  # `command -v NAME` only says where NAME is
    yield from _inner(call, start, "command", depth)


def _xargs(call: Call, depth: int) -> Iterator[Item]:
    start = _skip_options(
        call.argv,
        1,
        "adEILnPs",
        frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars"}),
    )
    if start >= len(call.argv):
        return  # runs `echo`
    yield from _inner(call, start, "xargs", depth, feeder="xargs")


def _parallel(call: Call, depth: int) -> Iterator[Item]:
    argv = call.argv
    start = _skip_options(
        argv,
        1,
        "jNnSIadX",
        frozenset({"--jobs", "--colsep", "--results", "--joblog", "--delay", "--timeout"}),
    )
    separators = [i for i, w in enumerate(argv) if (w.value or "").startswith(":::")]
    end = separators[0] if separators else len(argv)
    command = argv[start:end]
    if command:
        yield code_or_finding(call, joined(command), "parallel", feeder="parallel")
        return
    inputs = [w for w in argv[end:] if not (w.value or "").startswith(":::")]
    for word in inputs:
        yield code_or_finding(call, word, "parallel")
    if not separators:
        yield from from_stdin(call, "shell", "parallel")


def _find(call: Call, depth: int) -> Iterator[Item]:
    argv = call.argv
    roots = find_roots(argv)
    i = 1
    while i < len(argv):
        value = argv[i].value
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(argv) and argv[end].value not in (";", "+"):
                end += 1
            inner = [_placeholder(w, "{}") for w in argv[i + 1 : end]]
            if inner:
                nested = Call(inner, call.inv, f"{call.via} find {value}".strip(), "find", roots, call.cwd)
                yield from expand(nested, depth + 1)
            i = end
        i += 1


def _placeholder(word: Word, marker: str) -> Word:
    if word.value is not None and marker in word.value:
        return Word(word.text, None, expanded=True)
    return word


def _watch(call: Call, depth: int) -> Iterator[Item]:
    start = _skip_options(call.argv, 1, "n", frozenset({"--interval"}))
    if any(w.value in ("-x", "--exec") for w in call.argv[1:start]):
        yield from _inner(call, start, "watch", depth)
    elif start < len(call.argv):
        yield code_or_finding(call, joined(call.argv[start:]), "watch")


def _flock(call: Call, depth: int) -> Iterator[Item]:
    codes = option_values(call.argv[1:], "c", ("--command",))
    for word in codes:
        yield code_or_finding(call, word, "flock -c")
    if not codes:
        yield from _inner(
            call, _skip_options(call.argv, 1, "wE", frozenset({"--timeout"}), 1), "flock", depth
        )


def _chroot(call: Call, depth: int) -> Iterator[Item]:
    start = _skip_options(call.argv, 1, "", frozenset({"--userspec", "--groups"}), 1)
    if start >= len(call.argv):
        yield from from_stdin(call, "shell", "chroot")
    yield from _inner(call, start, "chroot", depth)


def _runuser(call: Call, depth: int) -> Iterator[Item]:
    codes = option_values(call.argv[1:], "c", ("--command",))
    for word in codes:
        yield code_or_finding(call, word, "runuser -c")
    if not codes:
        yield from _inner(call, _skip_options(call.argv, 1, "ugGs", frozenset()), "runuser", depth)


def _multicall(call: Call, depth: int) -> Iterator[Item]:
    argv = call.argv
    for i, word in enumerate(argv[1:], start=1):
        value = word.value or ""
        if value.startswith("--coreutils-prog="):
            applet = value.split("=", 1)[1]
            yield from expand(Call([Word(applet, applet), *argv[i + 1 :]], call.inv, call.via), depth + 1)
            return
        if not value.startswith("-"):
            yield from _inner(call, i, call.name, depth)
            return


def _resolve(call: Call, path: str | None) -> Path | None:
    base = call.folder
    if path is None or base is None:
        return None
    return base / path


_HANDLERS: dict[str, Callable[[Call, int], Iterator[Item]]] = {
    "sudo": _sudo,
    "doas": _sudo,
    "su": su,
    "env": _env,
    "exec": _exec,
    "command": _command,
    "builtin": _wrapper(""),
    "nohup": _wrapper(""),
    "setsid": _wrapper(""),
    "timeout": _wrapper("sk", ("--signal", "--kill-after"), 1),
    "nice": _wrapper("n", ("--adjustment",)),
    "ionice": _wrapper("cn", ("--class", "--classdata")),
    "stdbuf": _wrapper("ioe", ("--input", "--output", "--error")),
    "chrt": _wrapper("T", (), 1),
    "taskset": _wrapper("", (), 1),
    "time": _wrapper("of", ("--output", "--format")),
    "unbuffer": _wrapper(""),
    "strace": _wrapper("oeEpPsSuIbX", ("--output",)),
    "ltrace": _wrapper("oeEpsuanLlx", ("--output",)),
    "valgrind": _wrapper(""),
    "fakeroot": _wrapper("ls", ("--lib", "--faked")),
    "firejail": _wrapper(""),
    "torsocks": _wrapper("uPa"),
    "proxychains": _wrapper("f"),
    "proxychains4": _wrapper("f"),
    "dbus-run-session": _wrapper("", ("--config-file", "--dbus-daemon")),
    "xvfb-run": _wrapper("nsfepw"),
    "caffeinate": _wrapper("tw"),
    "nsenter": _wrapper("tSGnmupiUCTw"),
    "unshare": _wrapper("SGRw"),
    "catchsegv": _wrapper(""),
    "eatmydata": _wrapper(""),
    "numactl": _wrapper("CNmpPi"),
    "prlimit": _wrapper("p"),
    "cgexec": _wrapper("g"),
    "faketime": _wrapper("f", (), 1),
    "systemd-run": _wrapper("pEuM", ("--property", "--unit", "--setenv", "--uid", "--gid")),
    "coproc": _wrapper(""),
    "gosu": _wrapper("", (), 1),
    "su-exec": _wrapper("", (), 1),
    "setpriv": _wrapper(""),
    "runcon": _wrapper("urtlc"),
    "chpst": _wrapper("uUbe/nlLmdofpc"),
    "envdir": _wrapper("", (), 1),
    "softlimit": _wrapper("mdsaloprtcf"),
    "trickle": _wrapper("udwtlnL"),
    "entr": _wrapper(""),
    "nq": _wrapper("c"),
    "tsp": _wrapper("LNDd"),
    "daemonize": _wrapper("acepluE"),
    "dbus-launch": _wrapper(""),
    "ssh-agent": _wrapper("aEPt"),
    "systemd-nspawn": _wrapper("DMuSE", ("--directory", "--machine", "--user", "--bind", "--setenv")),
    "schroot": _wrapper("cud", ("--chroot", "--user", "--directory")),
    "xterm": _code_after("-e"),
    "konsole": _code_after("-e"),
    "gnome-terminal": _code_after("--"),
    "bwrap": _bwrap,
    "nodemon": code_option("x", ("--exec",), "nodemon --exec"),
    "hyperfine": _hyperfine,
    "busybox": _multicall,
    "toybox": _multicall,
    "coreutils": _multicall,
    "xargs": _xargs,
    "parallel": _parallel,
    "find": _find,
    "watch": _watch,
    "flock": _flock,
    "chroot": _chroot,
    "runuser": _runuser,
    "sg": sg,
    "script": code_option("c", ("--command",), "script -c"),
    "eval": eval_builtin,
    "trap": trap,
    "alias": alias,
    "source": source,
    ".": source,
    "at": at,
    "batch": at,
    "git": lambda call, depth: expand_git(call, depth, expand),
    **{name: shell for name in SHELLS},
}
_SENSITIVE = (
    frozenset(_HANDLERS)
    | INTERPRETERS
    | frozenset(
        {
            "rm",
            "dd",
            "shred",
            "git",
            "mkfs",
            "wipefs",
            "truncate",
            "chmod",
            "chown",
            "kill",
            "killall",
            "pkill",
        }
    )
)

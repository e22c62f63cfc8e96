"""Programs that run a command named by a subcommand or an option: package runners (`npx`, `uv run`,
`poetry run`…), containers (`docker run IMAGE CMD`), terminal multiplexers (`tmux new 'CMD'`), `make`
reading a makefile from stdin, and editors or debuggers with a shell escape (`vim -c '!CMD'`).

Each returns steps for the unwrapper: ("argv", words, label) runs words as a command, ("code", word,
label) hands a shell a string, ("stdin", language, label) reads a program from standard input, and
a Finding stands for itself.
"""

from __future__ import annotations

import re

from engine.tools.shell.findings import Call, Finding
from engine.tools.shell.options import long_matches, option_value
from engine.tools.shell.words import Word

Step = tuple[str, object, str] | Finding
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})

# program: (subcommands that run a command, short options with a value, long options with a value)
_SUBCOMMAND_RUNNERS: dict[str, tuple[frozenset[str], str, frozenset[str]]] = {
    "npm": (frozenset({"exec", "x"}), "pcw", frozenset({"--package", "--call", "--workspace"})),
    "pnpm": (frozenset({"dlx", "exec"}), "pC", frozenset({"--package", "--filter", "--dir"})),
    "yarn": (frozenset({"dlx", "exec"}), "p", frozenset({"--package", "--cwd"})),
    "uv": (
        frozenset({"run", "tool"}),
        "p",
        frozenset({"--python", "--with", "--project", "--directory", "--from"}),
    ),
    "poetry": (frozenset({"run"}), "C", frozenset({"--directory", "--project"})),
    "pdm": (frozenset({"run"}), "p", frozenset({"--project"})),
    "hatch": (frozenset({"run"}), "e", frozenset({"--env"})),
    "pipenv": (frozenset({"run"}), "", frozenset()),
    "pipx": (frozenset({"run"}), "", frozenset({"--spec", "--python"})),
    "conda": (frozenset({"run"}), "np", frozenset({"--name", "--prefix"})),
    "mamba": (frozenset({"run"}), "np", frozenset({"--name", "--prefix"})),
    "micromamba": (frozenset({"run"}), "np", frozenset({"--name", "--prefix"})),
    "bundle": (frozenset({"exec"}), "", frozenset()),
    "direnv": (frozenset({"exec"}), "", frozenset()),
    "nix": (frozenset({"shell", "develop"}), "c", frozenset()),
    "pueue": (frozenset({"add"}), "wgd", frozenset({"--working-directory", "--group", "--delay"})),
    "perf": (frozenset({"record", "stat", "trace"}), "eoptCG", frozenset({"--event", "--output", "--pid"})),
}
_DIRECT_RUNNERS = {"npx": "p", "bunx": "p", "uvx": "p", "pnpx": "p"}
_CONTAINER_VALUES = frozenset(
    """-v --volume -e --env --env-file -w --workdir -u --user --name -p --publish --network --net -l --label
    --mount --entrypoint --platform -h --hostname --add-host --device --cap-add --cap-drop --security-opt
    --restart --log-driver --log-opt --pull --shm-size --ulimit --tmpfs --cpus -m --memory --dns --ipc --pid
    --gpus --runtime --cidfile --stop-signal --health-cmd --expose --link --label-file --group-add
    --userns --uts --cgroupns --memory-swap --cpu-shares -c --detach-keys --attach -a""".split()  # noqa: SIM905
)
_TMUX_COMMANDS = frozenset(
    {"new-session", "new", "new-window", "neww", "split-window", "splitw", "send-keys", "send", "run-shell"}
    | {"run", "respawn-pane", "respawnp", "respawn-window", "respawnw"}
)
_TMUX_VALUES = "tscnFfexyTlwhbpPCEDSWANHR"
_TMUX_KEYS = frozenset({"Enter", "C-m", "C-j", "KPEnter"})
RUNNER_NAMES = frozenset(
    {*_SUBCOMMAND_RUNNERS, *_DIRECT_RUNNERS, "docker", "podman", "nerdctl", "tmux", "screen", "make", "gmake"}
    | {"vim", "vi", "nvim", "ex", "view", "gdb", "emacs"}
)


def runner_steps(call: Call) -> list[Step]:
    """What `call` runs besides itself, when it is one of the runners above."""
    name = call.name
    if name in _SUBCOMMAND_RUNNERS:
        return _subcommand_runner(call)
    if name in _DIRECT_RUNNERS:
        return _argv_after(call, 1, _DIRECT_RUNNERS[name], frozenset({"--package", "--from", "--with"}))
    if name in ("docker", "podman", "nerdctl"):
        return _container(call)
    if name == "tmux":
        return _tmux(call)
    if name == "screen":
        return _screen(call)
    if name in ("make", "gmake"):
        return _make(call)
    if name in ("vim", "vi", "nvim", "ex", "view", "gdb", "emacs"):
        return _escapes(call)
    return []


def _argv_after(call: Call, start: int, with_value: str, long_values: frozenset[str]) -> list[Step]:
    argv = call.argv
    i = start
    while i < len(argv):
        value = argv[i].value
        if value is None or not value.startswith("-") or value == "-":
            break
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            i += 2 if "=" not in value and value in long_values else 1
            continue
        i += 2 if value[-1] in with_value else 1
    rest = argv[i:]
    return [("argv", rest, call.name)] if rest else []


def _subcommand_runner(call: Call) -> list[Step]:
    subcommands, with_value, long_values = _SUBCOMMAND_RUNNERS[call.name]
    for i, word in enumerate(call.argv[1:], start=1):
        if word.value in subcommands:
            if call.name == "npm" or call.name == "nix":
                codes = option_value(call.argv[i + 1 :], "c", "call", "command")
                if codes:
                    return [("code", w or Word("", ""), f"{call.name} {word.value} -c") for w in codes]
            start = i + 1
            if call.name == "uv" and word.value == "tool":
                start = i + 2  # `uv tool run CMD`
            return _argv_after(call, start, with_value, long_values)
        if word.value is None or not (word.value or "").startswith("-"):
            return []
    return []


def _container(call: Call) -> list[Step]:
    argv = call.argv
    sub_index = next(
        (i for i, w in enumerate(argv[1:], start=1) if not (w.value or "-").startswith("-")), None
    )
    if sub_index is None or argv[sub_index].value not in ("run", "exec", "create"):
        if sub_index is not None and argv[sub_index].value == "compose":
            return []
        return []
    i = sub_index + 1
    steps: list[Step] = []
    while i < len(argv):
        value = argv[i].value
        if value is None:
            return [
                Finding("unprovable-command-name", call.text(), detail=f"{call.name} option {argv[i].text}")
            ]
        if not value.startswith("-"):
            break
        key = value.split("=", 1)[0]
        if key in ("--entrypoint",):
            entry = Word(value.split("=", 1)[1], value.split("=", 1)[1]) if "=" in value else argv[i + 1]
            steps.append(("argv", [entry], f"{call.name} --entrypoint"))
        i += 2 if "=" not in value and key in _CONTAINER_VALUES else 1
    rest = argv[i + 1 :]  # past the image (run) or the container (exec)
    if rest:
        steps.append(("argv", rest, f"{call.name} {argv[sub_index].value}"))
    return steps


def _tmux(call: Call) -> list[Step]:
    argv = call.argv
    for i, word in enumerate(argv[1:], start=1):
        if word.value in _TMUX_COMMANDS:
            parts: list[Word] = []
            j = i + 1
            while j < len(argv):
                value = argv[j].value
                if value is not None and value.startswith("-") and len(value) > 1:
                    j += 2 if value[-1] in _TMUX_VALUES and len(value) == 2 else 1
                    continue
                if value not in _TMUX_KEYS:
                    parts.append(argv[j])
                j += 1
            return [("code", _joined(parts), f"tmux {word.value}")] if parts else []
    return []


def _screen(call: Call) -> list[Step]:
    argv = call.argv
    values = [w.value for w in argv]
    if "-X" in values:
        rest = argv[values.index("-X") + 1 :]
        if rest and rest[0].value == "stuff":
            return [("code", _joined(rest[1:]), "screen -X stuff")]
        return []
    return _argv_after(call, 1, "SceshpTtL", frozenset())


def _make(call: Call) -> list[Step]:
    steps: list[Step] = []
    for word in option_value(call.args, "f", "file", "makefile", takes_value="CIoWjlE"):
        if word is not None and (word.value in STDIN_PATHS or word.value is None):
            steps.append(("stdin", "make", "make -f -") if word.value else _unknown(call, "make -f"))
    if any(long_matches(w.value or "", "eval") or (w.value or "").startswith("-E") for w in call.args):
        steps.append(Finding("unprovable-shell-code", call.text(), detail="make --eval"))
    return steps


def makefile_recipes(text: str) -> str:
    """The shell lines of a makefile's recipes (tab-indented), as one script."""
    lines = []
    for line in text.splitlines():
        if line.startswith("\t"):
            lines.append(line[1:].lstrip("@+-"))
    return "\n".join(lines)


def _escapes(call: Call) -> list[Step]:
    texts = [w.value or "" for w in call.args]
    if any(w.value is None for w in call.args):
        return [
            Finding("interpreter-unprovable", call.text(), detail=f"{call.name} with arguments not literal")
        ]
    commands = [t for t in texts if t.startswith("+")]
    commands += [w.value or "" for w in option_value(call.args, "c", "cmd", "eval") if w]
    commands += [w.value or "" for w in option_value(call.args, "x", "ex", "eval-command") if w]
    if any(
        re.search(r"(^|[|:\s])!|\bsystem\s*\(|\bshell\b|\bpython|\bterminal\b|\bsh\b|:r\s*!", c)
        for c in commands
    ):
        return [Finding("interpreter-shell", call.text(), detail=f"{call.name} shell escape")]
    return []


def _joined(words: list[Word]) -> Word:
    if any(w.value is None for w in words):
        return Word(" ".join(w.text for w in words), None)
    text = " ".join(w.value or "" for w in words)
    return Word(text, text)


def _unknown(call: Call, label: str) -> Finding:
    return Finding("unprovable-script", call.text(), detail=label)

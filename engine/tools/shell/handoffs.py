"""What shells, interpreters and shell builtins are handed to run: a `-c` string (any option cluster
holding `c`), a script file, their standard input (a here-string, a pipe, a download), `eval`'s
words, `source`'s file, `trap`'s and `alias`'s code, `su -c`, `sg`, `at`.

These only hand code over (a `Code` to parse or scan, an `Executed` file, a `Finding` when the code
cannot be known); the wrappers that run another program are in engine/tools/shell/unwrap.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.tools.shell.findings import Call, Code, Finding
from engine.tools.shell.interpreters import interpreter_items
from engine.tools.shell.options import option_value
from engine.tools.shell.parse import Source, taint_within
from engine.tools.shell.words import Word

STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


@dataclass(frozen=True)
class Executed:
    """A file that runs as a program or script; the analysis checks it is not written by the command."""

    word: Word
    cwd: Path | None
    subject: str
    script: bool = False  # handed to a shell or interpreter (else run as a program)
    language: str = ""  # the language it is read as, when handed to one ("" for a program: its `#!`)


Item = Call | Code | Finding | Executed


def su(call: Call, depth: int) -> Iterator[Item]:
    codes = [w for w in option_values(call.argv[1:], "c", ("--command", "--session-command"))]
    for word in codes:
        yield code_or_finding(call, word, f"{call.name} -c")
    if not codes:
        yield from from_stdin(call, "shell", call.name)


def code_option(letter: str, longs: tuple[str, ...], label: str) -> Callable:
    def handler(call: Call, depth: int) -> Iterator[Item]:
        for word in option_values(call.argv[1:], letter, longs):
            yield code_or_finding(call, word, label)

    return handler


def sg(call: Call, depth: int) -> Iterator[Item]:
    rest = [w for w in call.argv[2:] if w.value != "-c"]
    if rest:
        yield code_or_finding(call, joined(rest), "sg")


def eval_builtin(call: Call, depth: int) -> Iterator[Item]:
    if len(call.argv) > 1:
        yield code_or_finding(call, joined(call.argv[1:]), "eval", rule="eval-unprovable")


def trap(call: Call, depth: int) -> Iterator[Item]:
    args = [w for w in call.argv[1:] if w.value not in ("-p", "-l", "--")]
    if len(args) >= 2:
        yield code_or_finding(call, args[0], "trap")


def alias(call: Call, depth: int) -> Iterator[Item]:
    for word in call.argv[1:]:
        if word.value is None:
            yield Finding("unprovable-shell-code", call.text(), detail="alias")
        elif "=" in word.value:
            yield Code("shell", word.value.split("=", 1)[1], "alias", call)


def source(call: Call, depth: int) -> Iterator[Item]:
    args = [w for w in call.argv[1:] if w.value != "--"]
    if args:
        yield from script_items(call, args[0], "shell", call.name)


def at(call: Call, depth: int) -> Iterator[Item]:
    if (
        not any((w.value or "") in ("-l", "-r", "-d", "-c", "-q") for w in call.argv[1:])
        or call.name == "batch"
    ):
        yield Finding("persistence-schedule", call.text(), detail=call.name)


def shell(call: Call, depth: int) -> Iterator[Item]:
    argv = call.argv
    i = 1
    code_flag = stdin_flag = False
    while i < len(argv):
        value = argv[i].value
        if value is None:
            break
        if value == "--":
            i += 1
            break
        if value == "-":
            stdin_flag = True
            i += 1
            break
        if value.startswith("--"):
            i += 2 if value in ("--rcfile", "--init-file") else 1
            continue
        if value[:1] in "-+" and len(value) > 1:
            letters = value[1:]
            code_flag = code_flag or "c" in letters
            stdin_flag = stdin_flag or "s" in letters or "i" in letters
            i += 2 if ("o" in letters or "O" in letters) else 1
            continue
        break
    rest = argv[i:]
    label = f"{call.name} -c" if code_flag else call.name
    if code_flag:
        if rest:
            yield code_or_finding(call, rest[0], label)
    elif stdin_flag or not rest:
        yield from from_stdin(call, "shell", label)
    else:
        yield from script_items(call, rest[0], "shell", label)


def interpreter(call: Call) -> Iterator[Item]:
    for language, word, label, mode in interpreter_items(call):
        if mode == "code":
            assert word is not None
            if word.value is None:
                yield Finding(
                    "interpreter-unprovable", call.text(), detail=f"{label} code that is not literal"
                )
            else:
                yield Code(language, word.value, label, call)
        elif mode == "stdin":
            yield from from_stdin(call, language, label)
        elif word is not None:
            yield from script_items(call, word, language, label)


def from_stdin(call: Call, language: str, label: str) -> Iterator[Item]:
    """What a shell or interpreter reading its program from standard input will run."""
    source: Source = call.inv.stdin
    if source.kind == "closed":
        return
    if source.kind == "literal":
        yield Code(language, source.text, f"{label} <{source.origin or 'stdin'}>", call)
        return
    yield Finding(_stdin_rule(source.taint), call.inv.text, detail=source.origin or "its standard input")


def _stdin_rule(taint: frozenset[str]) -> str:
    if "download" in taint:
        return "download-to-shell"
    if "decode" in taint:
        return "decode-to-shell"
    return "stdin-to-shell"


def script_items(call: Call, word: Word, language: str, label: str) -> Iterator[Item]:
    """A script file handed to a shell, an interpreter or `source`."""
    if word.value in STDIN_PATHS:
        yield from from_stdin(call, language, label)
    elif word.value is None:
        node = word.node
        if node is not None and node.type == "process_substitution":
            taint = taint_within(node)
            rule = _stdin_rule(taint) if taint else "unprovable-script"
            yield Finding(rule, call.text(), detail=word.text)
        else:
            yield Finding("unprovable-script", call.text(), detail=word.text)
    else:
        yield Executed(word, call.folder, call.text(), script=True, language=language)


def code_or_finding(
    call: Call, word: Word, label: str, rule: str = "unprovable-shell-code", feeder: str = ""
) -> Item:
    if word.value is None:
        node = word.node
        taint = taint_within(node) if node is not None else frozenset()
        if "download" in taint:
            rule = "download-to-shell"
        elif "decode" in taint:
            rule = "decode-to-shell"
        return Finding(rule, call.text(), detail=f"{label} {word.text}")
    text = word.value
    if call.feeder or feeder:
        text = text.replace("{}", '"$ARG"')  # the file names xargs, find or parallel pass in
    return Code("shell", text, label, call)


def joined(words: list[Word]) -> Word:
    if any(w.value is None for w in words):
        return Word(" ".join(w.text for w in words), None)
    text = " ".join(w.value or "" for w in words)
    return Word(text, text)


def option_values(args: list[Word], letter: str, longs: tuple[str, ...]) -> list[Word]:
    """Every value of `-LETTER` or of one of `longs` (written `--name`)."""
    names = [name.lstrip("-") for name in longs]
    return [w if w is not None else Word("", "") for w in option_value(args, letter, *names)]

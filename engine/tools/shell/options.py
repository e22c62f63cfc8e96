"""Reading a program's options the way getopt does: clusters (`-rf`), attached values (`-n5`, `-oL`),
long options with `=` or a separate value, unique prefixes of long options (`--rec` is `--recursive`).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.tools.shell.words import Word


def long_matches(arg: str, *names: str) -> bool:
    """True when `arg` (`--forc`, `--force=x`) is `--NAME` or a prefix getopt_long would accept for it."""
    if not arg.startswith("--") or len(arg) < 3:
        return False
    key = arg[2:].split("=", 1)[0]
    return any(name.startswith(key) for name in names)


def short_letters(args: Iterable[Word], with_value: str = "") -> set[str]:
    """Every single-letter option in `args`, clusters opened up; letters after one of `with_value`
    in a cluster are that option's value, and the word after such an option is skipped."""
    letters: set[str] = set()
    skip = False
    for word in args:
        value = word.value
        if skip:
            skip = False
            continue
        if value is None or value == "--":
            if value == "--":
                break
            continue
        if not value.startswith("-") or value.startswith("--") or value == "-":
            continue
        for j, letter in enumerate(value[1:], start=1):
            letters.add(letter)
            if letter in with_value:
                skip = j == len(value) - 1
                break
    return letters


def operands(args: list[Word], with_value: str = "", long_with_value: Iterable[str] = ()) -> list[Word]:
    """The arguments that are not options or option values (everything after `--` counts)."""
    out: list[Word] = []
    long_values = tuple(name.lstrip("-") for name in long_with_value)
    i = 0
    while i < len(args):
        value = args[i].value
        if value == "--":
            out.extend(args[i + 1 :])
            break
        if value is not None and value.startswith("--") and len(value) > 2:
            if "=" not in value and any(long_matches(value, name) for name in long_values):
                i += 1
        elif value is not None and value.startswith("-") and len(value) > 1:
            cluster = value[1:]
            for j, letter in enumerate(cluster):
                if letter in with_value:
                    if j == len(cluster) - 1:
                        i += 1
                    break
        else:
            out.append(args[i])
        i += 1
    return out


def option_value(args: list[Word], short: str, *long_names: str, takes_value: str = "") -> list[Word | None]:
    """Every value given to option `-SHORT` / `--LONG` (attached, `=`, or the next word); `takes_value`
    are the program's other short options that take a value (the rest of a cluster is theirs)."""
    found: list[Word | None] = []
    i = 0
    while i < len(args):
        value = args[i].value
        following = args[i + 1] if i + 1 < len(args) else None
        if value is None:
            i += 1
            continue
        if value == "--":
            break
        if value.startswith("--"):
            key, eq, rest = value.partition("=")
            if long_names and any(long_matches(key, name) for name in long_names):
                if eq:
                    found.append(Word(rest, rest))
                else:
                    found.append(following)
                    i += 1
        elif value.startswith("-") and short and len(value) > 1:
            cluster = value[1:]
            for j, letter in enumerate(cluster):
                if letter == short:
                    attached = cluster[j + 1 :]
                    if attached:
                        found.append(Word(attached, attached))
                    else:
                        found.append(following)
                        i += 1
                    break
                if letter in takes_value:
                    if j == len(cluster) - 1:
                        i += 1
                    break
        i += 1
    return found


def find_roots(argv: list[Word]) -> list[Word]:
    """`find`'s starting points: the words after its leading options and before the expression."""
    i = 1
    while i < len(argv) and (
        (argv[i].value or "") in ("-H", "-L", "-P", "-D") or (argv[i].value or "").startswith("-O")
    ):
        i += 2 if argv[i].value == "-D" else 1
    roots: list[Word] = []
    while i < len(argv) and not (argv[i].value or "x").startswith(("-", "(", "!", ",")):
        roots.append(argv[i])
        i += 1
    return roots or [Word(".", ".")]

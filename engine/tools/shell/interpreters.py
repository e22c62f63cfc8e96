"""Where an interpreter takes its program from: inline code (`python -c`, `perl -e`, `node -e`, `php -r`,
an awk program), a script file, or standard input; each read as the interpreter's own option parser does.
"""

from __future__ import annotations

from engine.tools.shell.findings import Call
from engine.tools.shell.words import Word

# (language, the code or script word, a label such as "python -c", mode: code | script | stdin)
Source = tuple[str, Word | None, str, str]


def interpreter_items(call: Call) -> list[Source]:
    name = call.name
    args = call.args
    if name == "python":
        return _python(args)
    if name in ("perl", "ruby"):
        return _perl_like(name, args)
    if name in ("node", "bun"):
        return _node(args)
    if name == "deno":
        if args and args[0].value == "eval" and len(args) > 1:
            return [("node", args[-1], "deno eval", "code")]
        return []
    if name == "expect":
        return _cluster_code("expect", args, code="c", value="fbD")
    if name == "php":
        return _cluster_code("php", args, code="rBRE", value="dcztf", script_letter="f")
    if name == "lua":
        return _cluster_code("lua", args, code="e", value="l")
    if name == "awk":
        return _awk(args)
    return _cluster_code(name, args, code="e", value="")


def _python(args: list[Word]) -> list[Source]:
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        if value is None:
            return [("python", word, "python", "code")]
        if value == "-":
            return [("python", None, "python -", "stdin")]
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            i += 1
            continue
        if value.startswith("-") and len(value) > 1:
            cluster = value[1:]
            for j, letter in enumerate(cluster):
                if letter in "cm":
                    rest = cluster[j + 1 :]
                    taken = Word(rest, rest) if rest else (args[i + 1] if i + 1 < len(args) else None)
                    if letter == "m" or taken is None:
                        return []  # a module runs: it is a program like any other
                    return [("python", taken, "python -c", "code")]
                if letter in "WXQ":
                    if j == len(cluster) - 1:
                        i += 1
                    break
            i += 1
            continue
        break
    if i < len(args):
        return [("python", args[i], "python", "script")]
    return [("python", None, "python", "stdin")]


def _perl_like(name: str, args: list[Word]) -> list[Source]:
    codes: list[Source] = []
    value_letters = "IMmidxlC0" if name == "perl" else "rICEFix0lW"
    separate = "" if name == "perl" else "rICE"
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        if value is None:
            codes.append((name, word, f"{name} -e", "code"))
            i += 1
            continue
        if value == "--":
            i += 1
            break
        if value == "-":
            return [*codes, (name, None, f"{name} -", "stdin")]
        if value.startswith("-") and len(value) > 1 and not value.startswith("--"):
            cluster = value[1:]
            for j, letter in enumerate(cluster):
                if letter in "eE" and not (name == "ruby" and letter == "E"):
                    rest = cluster[j + 1 :]
                    taken = Word(rest, rest) if rest else (args[i + 1] if i + 1 < len(args) else None)
                    if not rest:
                        i += 1
                    if taken is not None:
                        codes.append((name, taken, f"{name} -e", "code"))
                    break
                if letter in value_letters:
                    if letter in separate and j == len(cluster) - 1:
                        i += 1
                    break
            i += 1
            continue
        if value.startswith("--"):
            i += 1
            continue
        break
    if codes:
        return codes
    if i < len(args):
        return [(name, args[i], name, "script")]
    return [(name, None, name, "stdin")]


def _node(args: list[Word]) -> list[Source]:
    codes: list[Source] = []
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        following = args[i + 1] if i + 1 < len(args) else None
        if value is None:
            return [*codes, ("node", word, "node -e", "code")]
        key, eq, rest = value.partition("=")
        if key in ("-e", "--eval", "-p", "--print"):
            taken = Word(rest, rest) if eq else following
            if not eq:
                i += 1
            if taken is not None:
                codes.append(("node", taken, "node -e", "code"))
        elif key in ("-r", "--require", "--import", "--input-type", "--loader", "--experimental-loader"):
            if not eq:
                i += 1
        elif value == "-":
            return [*codes, ("node", None, "node -", "stdin")]
        elif value in ("-i", "--interactive"):
            return [*codes, ("node", None, "node -i", "stdin")]
        elif value == "--":
            i += 1
            break
        elif not value.startswith("-"):
            break
        i += 1
    if codes:
        return codes
    if i < len(args):
        return [("node", args[i], "node", "script")]
    return [("node", None, "node", "stdin")]


def _cluster_code(
    name: str, args: list[Word], code: str, value: str, script_letter: str = ""
) -> list[Source]:
    codes: list[Source] = []
    i = 0
    while i < len(args):
        word = args[i]
        text = word.value
        if text is None:
            return [*codes, (name, word, f"{name} -{code[0]}", "code")]
        if text == "--":
            i += 1
            break
        if text == "-":
            return [*codes, (name, None, f"{name} -", "stdin")]
        if text.startswith("-") and len(text) > 1 and not text.startswith("--"):
            letter = text[1]
            attached = text[2:]
            taken = Word(attached, attached) if attached else (args[i + 1] if i + 1 < len(args) else None)
            if letter in code or letter in value:
                if not attached:
                    i += 1
                if letter in code and taken is not None:
                    codes.append((name, taken, f"{name} -{letter}", "code"))
                elif letter == script_letter and script_letter and taken is not None:
                    return [*codes, (name, taken, name, "script")]
            i += 1
            continue
        if text.startswith("--"):
            i += 1
            continue
        break
    if codes:
        return codes
    if i < len(args):
        return [(name, args[i], name, "script")]
    return [(name, None, name, "stdin")]


def _awk(args: list[Word]) -> list[Source]:
    codes: list[Source] = []
    files = False
    i = 0
    while i < len(args):
        word = args[i]
        text = word.value
        following = args[i + 1] if i + 1 < len(args) else None
        if text is None:
            break
        if text == "--":
            i += 1
            break
        key, eq, rest = text.partition("=")
        if text.startswith("--"):
            taken = Word(rest, rest) if eq else following
            if key in ("--source", "--file", "--field-separator", "--assign", "--include", "--load"):
                if not eq:
                    i += 1
                if key == "--source" and taken is not None:
                    codes.append(("awk", taken, "awk", "code"))
                files = files or key == "--file"
            i += 1
            continue
        if text.startswith("-") and len(text) > 1:
            letter, attached = text[1], text[2:]
            taken = Word(attached, attached) if attached else following
            if letter in "fFvilEe":
                if not attached:
                    i += 1
                if letter == "e" and taken is not None:
                    codes.append(("awk", taken, "awk", "code"))
                files = files or letter in "fE"
            i += 1
            continue
        break
    if codes or files:
        return codes
    if i < len(args):
        return [("awk", args[i], "awk", "code")]
    return []

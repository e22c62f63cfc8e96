"""A command parsed with tree-sitter-bash into the simple commands bash will run, wherever they sit.

Every `command` node of the tree is an invocation, whether it stands in a list, a pipeline, a loop, a
function body, a `$(…)` or a `<(…)`; so nothing the grammar recognises is skipped for sitting somewhere
unexpected. For each invocation this works out its words, the folder it runs in (following literal
`cd`s) and where its standard input comes from (a pipe, a here-string, a here-document, a file),
because a shell reading its program from stdin runs whatever arrives there. Redirections into files
are collected apart, since they write whether their statement is a command or a whole loop.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_bash

from engine.tools.shell.programs import DECODERS, DOWNLOADERS, program_name
from engine.tools.shell.words import Word, WordContext, decode_ansi_c, words_of

MAX_NESTING = 120  # syntax levels (subshells, substitutions, loops) read before the rest counts as unread
OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>"})
_LOCAL = threading.local()
_HOME_ASSIGNED = re.compile(r"(?<![\w$])HOME\+?=")
_BACKGROUND = re.compile(r"(?<![&>|])&(?![&>])")
_EXPANSIONS = ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion")


def _parser() -> tree_sitter.Parser:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        _LOCAL.parser = parser
    return parser


@dataclass
class Source:
    """Where a program's standard input comes from.

    `kind` is "closed" (nothing: the terminal's stdin is closed), "literal" (`text` is known),
    "file" (`path`), or "unknown"; `taint` names what produced unknown input ("download", "decode").
    """

    kind: str
    text: str = ""
    path: Word | None = None
    taint: frozenset[str] = frozenset()
    origin: str = ""


CLOSED = Source("closed")


@dataclass
class Invocation:
    """One simple command as it will run."""

    words: list[Word]
    assignments: list[tuple[str, Word]]
    stdin: Source
    cwd: Path | None  # None: the folder cannot be known (a `cd` to an expansion)
    text: str
    depth: int
    via: str  # how it was reached, e.g. "bash -c" ("" at the top level)
    in_function: bool = False


@dataclass
class Write:
    """A redirection that writes a file: `op` is `>`, `>>`, `&>`…; `target` the file's word."""

    op: str
    target: Word
    cwd: Path | None
    text: str
    via: str
    content: str | None = None  # what `>` puts in the file, when the writer's output is literal


@dataclass
class Problem:
    """Something the parse itself flags: a part it could not read, a fork bomb."""

    rule: str
    text: str
    via: str


@dataclass
class Script:
    invocations: list[Invocation] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    function_names: set[str] = field(default_factory=set)
    incomplete: bool = False  # the grammar met an error, even one bash refuses as a whole


def join_continuations(text: str) -> str:
    """Drop backslash-newline pairs as bash does before it reads words (not inside single quotes)."""
    if "\\\n" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    single = double = False
    while i < n:
        c = text[i]
        if single:
            out.append(c)
            if c == "'":
                single = False
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                i += 2
                continue
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == "'" and not double:
            single = True
        elif c == '"':
            double = not double
        out.append(c)
        i += 1
    return "".join(out)


def home_of(text: str, home: str | None) -> str | None:
    """The home folder `~` and `$HOME` stand for, or None when the command reassigns HOME."""
    return None if home is None or _HOME_ASSIGNED.search(text) else home


def parse_script(
    text: str, cwd: Path | None, stdin: Source, depth: int, via: str, home: str | None
) -> Script:
    """Every invocation, file write and unreadable part of `text`."""
    source = join_continuations(text)
    tree = _parser().parse(source.encode("utf-8", "surrogateescape"))
    walker = _Walker(Script(), WordContext(home_of(source, home)), stdin, depth, via, len(source.encode()))
    walker.visit(tree.root_node, cwd, False)
    walker.script.incomplete = tree.root_node.has_error
    return walker.script


class _Walker:
    def __init__(
        self, script: Script, ctx: WordContext, stdin: Source, depth: int, via: str, size: int
    ) -> None:
        self.script = script
        self.ctx = ctx
        self.root_stdin = stdin
        self.depth = depth
        self.via = via
        self.size = size
        self.cwd: Path | None = None
        self.uncertain_after: Any = None  # the `cd X && …` list after which the folder is not known

    def visit(self, node: Any, cwd: Path | None, in_function: bool) -> None:
        self.cwd = cwd
        self._visit(node, in_function, 0)

    def _visit(self, node: Any, in_function: bool, level: int) -> None:
        kind = node.type
        if level > MAX_NESTING:
            if not any(p.rule == "too-deep" for p in self.script.problems):
                self.script.problems.append(Problem("too-deep", _text(node)[:200], self.via))
            return
        if kind == "ERROR":
            if not self._inert_error(node):
                self.script.problems.append(Problem("unparsed", _text(node), self.via))
        elif kind == "command":
            self._command(node, in_function, level)
            return
        elif kind == "file_redirect":
            self._redirect(node)
        elif kind == "function_definition":
            self._function(node)
            in_function = True
        elif kind in ("while_statement", "until_statement"):
            self._endless_spawner(node)
        scoped = kind in ("subshell", "command_substitution", "process_substitution", "pipeline")
        saved = self.cwd
        for child in node.children:
            if kind == "pipeline":
                self.cwd = saved  # each stage of a pipeline runs in a subshell of its own
            self._visit(child, in_function, level + 1)
        if scoped:
            self.cwd = saved
        if self.uncertain_after is not None and node == self.uncertain_after:
            self.cwd, self.uncertain_after = None, None

    def _inert_error(self, node: Any) -> bool:
        """A region bash refuses as a whole (an unclosed quote at the end, a here-doc with no body)."""
        text = _text(node).lstrip()
        if node.end_byte >= self.size and text[:1] in ("'", '"', "`"):
            return True
        if node.end_byte >= self.size and text[:2] in ("$'", '$"'):
            return True
        return {c.type for c in node.children} <= {"<<", "<<-", "heredoc_start"}

    def _command(self, node: Any, in_function: bool, level: int) -> None:
        words, assignments = self.argv(node)
        invocation = Invocation(
            words,
            assignments,
            self.stdin_of(node),
            self.cwd,
            _text(node),
            self.depth,
            self.via,
            in_function,
        )
        self.script.invocations.append(invocation)
        for child in node.children:
            if child.type != "command_name":
                self._visit(child, in_function, level + 1)
        name = node.child_by_field_name("name")
        if name is not None:
            for child in name.children:
                self._visit(child, in_function, level + 1)
        self._follow_cd(node, words)

    def _follow_cd(self, node: Any, words: list[Word]) -> None:
        """Follow a literal `cd`; where it could fail, what comes after may run in either folder."""
        if not words or words[0].value not in ("cd", "pushd", "popd"):
            return
        args = [w for w in words[1:] if not (w.value or "").startswith("-") or w.value == "-"]
        target = args[0] if args else None
        if words[0].value == "popd" or (target is not None and target.value in (None, "-")):
            self.cwd = None
            return
        if target is None or target.value is None:
            folder = self.ctx.home
        else:
            folder = (
                target.value
                if target.value.startswith("/") or self.cwd is None
                else str(self.cwd / target.value)
            )
        if folder is None or (self.cwd is None and not folder.startswith("/")):
            self.cwd = None
            return
        folder = os.path.normpath(folder)
        chain = _and_chain(node)
        if os.path.isdir(folder):
            self.cwd = Path(folder)
        elif chain is not None:
            self.cwd = Path(folder)  # what follows `&&` runs only if the cd worked; after the list, either
            self.uncertain_after = chain
        else:
            self.cwd = None

    def argv(self, node: Any) -> tuple[list[Word], list[tuple[str, Word]]]:
        """The words of a `command` node (name and arguments) and its variable assignments."""
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        name = node.child_by_field_name("name")
        children = node.children
        for i, child in enumerate(children):
            if child.type == "variable_assignment":
                key = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                word = words_of(value, self.ctx)[0] if value is not None else Word("", "")
                assignments.append((_text(key) if key is not None else "", word))
            elif name is not None and child == name:
                inner = child.named_children
                words.extend(words_of(inner[0], self.ctx) if inner else [Word(_text(child), None)])
            elif node.field_name_for_child(i) == "argument":
                if (
                    child.type == "$"
                    and i + 1 < len(children)
                    and children[i + 1].start_byte == child.end_byte
                ):
                    continue  # `$"…"`: the `$` belongs to the string that follows
                words.extend(words_of(child, self.ctx))
        return words, assignments

    # standard input

    def stdin_of(self, node: Any) -> Source:
        own = self._input_redirect(node)
        if own is not None:
            return own
        current = node
        while True:
            parent = current.parent
            if parent is None:
                return self.root_stdin
            kind = parent.type
            if kind == "redirected_statement" and parent.child_by_field_name("body") == current:
                found = self._input_redirect(parent)
                if found is not None:
                    return found
            elif kind == "pipeline":
                stages = [c for c in parent.named_children if c.type not in ("comment",)]
                index = next((i for i, c in enumerate(stages) if c == current), 0)
                if index > 0:
                    return self.output_of(stages[index - 1])
                if parent.parent is not None and parent.parent.type == "heredoc_redirect":
                    statement = parent.parent.parent  # `cat <<E | sh`: the pipe starts at the statement
                    if statement is not None and statement.type == "redirected_statement":
                        return self.output_of(statement)
            elif kind == "process_substitution" and _text(parent).startswith(">("):
                return Source("unknown", origin="a process substitution's input")
            elif kind == "function_definition":
                return Source("unknown", origin="a function's caller")
            current = parent

    def _input_redirect(self, node: Any) -> Source | None:
        found: Source | None = None
        for child in node.children:
            if child.type == "herestring_redirect":
                inner = [c for c in child.named_children]
                words = words_of(inner[-1], self.ctx) if inner else []
                if len(words) == 1 and words[0].known:
                    found = Source("literal", (words[0].value or "") + "\n", origin="a here-string")
                else:
                    found = Source("unknown", origin="a here-string")
            elif child.type == "heredoc_redirect":
                found = self._heredoc(child)
            elif child.type == "file_redirect":
                op = _operator(child)
                target = child.child_by_field_name("destination")
                if op == "<" and target is not None:
                    found = Source("file", path=words_of(target, self.ctx)[0], origin="a file")
                elif op in ("<&", "<>"):
                    found = Source("unknown", origin="a file descriptor")
        return found

    def _heredoc(self, node: Any) -> Source:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        quoted = start is not None and any(q in _text(start) for q in ("'", '"', "\\"))
        strip_tabs = any(c.type == "<<-" for c in node.children)
        if body is None:
            return Source("literal", "", origin="a here-document")
        text = _text(body)
        if not quoted:
            for child in body.children:
                if child.type in _EXPANSIONS and _text(child) not in ("$HOME", "${HOME}"):
                    return Source("unknown", origin="a here-document with expansions")
            if self.ctx.home is not None:
                text = text.replace("${HOME}", self.ctx.home).replace("$HOME", self.ctx.home)
            text = re.sub(r"\\([$`\\])", r"\1", text)
        if strip_tabs:
            text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
        return Source("literal", text, origin="a here-document")

    def output_of(self, stage: Any) -> Source:
        """What a pipeline stage writes to its standard output."""
        if stage.type == "redirected_statement":
            for child in stage.children:
                if child.type == "file_redirect" and _operator(child) in OUTPUT_OPS:
                    descriptor = child.child_by_field_name("descriptor")
                    if descriptor is None or _text(descriptor) == "1":
                        return Source("closed")
            body = stage.child_by_field_name("body")
            return self.output_of(body) if body is not None else Source("unknown")
        if stage.type != "command":
            return Source("unknown", taint=taint_within(stage, self.ctx), origin=_text(stage))
        words, _ = self.argv(stage)
        values = [w.value for w in words]
        name = program_name(values[0]) if values and values[0] is not None else ""
        if name == "echo" and None not in values:
            return _echo(values[1:])
        if name == "printf" and None not in values:
            return _printf(values[1:])
        if name in ("cat", "tee") and None not in values:
            operands = [v for v in values[1:] if v == "-" or not v.startswith("-")]
            if name == "tee" or not operands or operands == ["-"]:
                return self.stdin_of(stage)
            if len(operands) == 1:
                return Source("file", path=words[values.index(operands[0])], origin=_text(stage))
        taint = set(taint_within(stage, self.ctx))
        if name in DOWNLOADERS:
            taint.add("download")
        elif name in DECODERS:
            taint.add("decode")
        if name in DECODERS or not taint:
            taint |= self.stdin_of(stage).taint
        return Source("unknown", taint=frozenset(taint), origin=_text(stage))

    # writes and oddities

    def _redirect(self, node: Any) -> None:
        op = _operator(node)
        target = node.child_by_field_name("destination")
        if target is None:
            return
        if op == ">&" and target.type != "number" and _text(target) != "-":
            op = "&>"
        if op in OUTPUT_OPS or op == "<>":
            word = words_of(target, self.ctx)[0]
            write = Write(op, word, self.cwd, _text(node.parent or node), self.via, self._content(node, op))
            self.script.writes.append(write)

    def _content(self, node: Any, op: str) -> str | None:
        """What a `>` redirection writes, when the command's output is literal (`cat <<EOF > x.sh`)."""
        descriptor = node.child_by_field_name("descriptor")
        if (
            op not in (">", ">|")
            or (descriptor is not None and _text(descriptor) != "1")
            or node.parent is None
        ):
            return None
        parent = node.parent
        statement = parent if parent.type == "command" else parent.child_by_field_name("body")
        if statement is None or statement.type != "command":
            return None
        source = self.output_of(statement)
        return source.text if source.kind == "literal" else None

    def _function(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:
            return
        name = _text(name_node)
        self.script.function_names.add(name)
        calls_itself = any(
            inner.type == "command_name" and _text(inner) == name for inner in _descendants(body)
        )
        if calls_itself and ("|" in _text(body) or _BACKGROUND.search(_text(body))):
            self.script.problems.append(Problem("fork-bomb", _text(node), self.via))

    def _endless_spawner(self, node: Any) -> None:
        condition = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        if condition is None or body is None:
            return
        endless = _text(condition).strip().rstrip(";").strip() in ("true", ":", "[ 1 ]", "((1))")
        if endless and _BACKGROUND.search(_text(body)):
            self.script.problems.append(Problem("fork-bomb", _text(node), self.via))


def _echo(args: list[str]) -> Source:
    interpret, newline = False, True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        interpret = interpret or "e" in args[0]
        newline = newline and "n" not in args[0]
        args = args[1:]
    text = " ".join(args)
    if interpret:
        text = decode_ansi_c(text.split("\\c")[0], echo=True)
    return Source("literal", text + ("\n" if newline else ""), origin="echo")


def _printf(args: list[str]) -> Source:
    if not args:
        return Source("literal", "")
    if args[0] == "--":
        args = args[1:]
    if not args or args[0].startswith("-"):
        return Source("unknown", taint=frozenset({"decode"}), origin="printf")
    fmt, values = args[0], args[1:]
    out: list[str] = []
    while True:
        i, used = 0, 0
        piece: list[str] = []
        while i < len(fmt):
            if fmt[i] == "%" and i + 1 < len(fmt):
                spec = fmt[i + 1]
                if spec == "%":
                    piece.append("%")
                elif spec in "sb":
                    value = values[used] if used < len(values) else ""
                    used += 1
                    piece.append(decode_ansi_c(value, echo=True) if spec == "b" else value)
                else:
                    return Source("unknown", taint=frozenset({"decode"}), origin="printf")
                i += 2
            else:
                piece.append(fmt[i])
                i += 1
        out.append(decode_ansi_c("".join(piece), echo=True))
        values = values[used:]
        if not values or used == 0:
            break
    return Source("literal", "".join(out), origin="printf")


def taint_within(node: Any, ctx: WordContext | None = None) -> frozenset[str]:
    """What the programs inside `node` make of the data they print: downloaded or decoded."""
    ctx = ctx or WordContext(None)
    taint: set[str] = set()
    for inner in _descendants(node):
        if inner.type == "command_name":
            words = words_of(inner.named_children[0], ctx) if inner.named_children else []
            name = program_name(words[0].value) if words and words[0].value else ""
            if name in DOWNLOADERS:
                taint.add("download")
            elif name in DECODERS:
                taint.add("decode")
    return frozenset(taint)


def _descendants(node: Any) -> list[Any]:
    out: list[Any] = []
    stack = list(node.children)
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.children)
    return out


def _and_chain(node: Any) -> Any:
    """The list in which `node` is followed by `&&` (so what follows runs only if it succeeded), or None."""
    current = node
    while current.parent is not None and current.parent.type == "list":
        parent = current.parent
        children = parent.children
        index = next(i for i, c in enumerate(children) if c == current)
        if index + 1 < len(children):
            return parent if children[index + 1].type == "&&" else None
        current = parent
    return None


def _operator(node: Any) -> str:
    for child in node.children:
        if not child.is_named and child.type not in ("(", ")"):
            return str(child.type)
    return ""


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))

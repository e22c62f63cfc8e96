"""One command, read to the end: every program it runs (through nested shells, `eval`, wrappers and
interpreters), every file it writes, and every rule those match.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.tools.shell.code_scan import scan_code
from engine.tools.shell.findings import Call, Code, Finding
from engine.tools.shell.git import judge_git
from engine.tools.shell.handoffs import Executed
from engine.tools.shell.network import judge_network
from engine.tools.shell.parse import CLOSED, Source, parse_script
from engine.tools.shell.programs import DOWNLOADERS, INTERPRETERS, SHELLS, program_name
from engine.tools.shell.rules import judge, sql_findings
from engine.tools.shell.runners import makefile_recipes
from engine.tools.shell.targets import resolve
from engine.tools.shell.unwrap import assignment_items, expand
from engine.tools.shell.writes import Target, call_writes, classify

MAX_DEPTH = 8  # nested shells (`bash -c "bash -c …"`, eval, here-documents) followed before asking
MAX_CODE_CHARS = 100_000  # longer nested code is not read: it asks
MAX_SCRIPTS = 64  # script files a command runs that are checked against what it writes


@dataclass
class Analysis:
    """What reading a command found: its programs, its file writes and the rules they match."""

    findings: list[Finding] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    writes: list[Target] = field(default_factory=list)
    executed: list[Executed] = field(default_factory=list)
    nested: int = 0  # code strings read besides the command itself
    heredocs: bool = False  # some program reads a here-document or here-string
    incomplete: bool = False  # some part did not parse cleanly (even where bash would refuse it whole)


def analyze(command: str, cwd: Path, home: str | None, hermes_home: str | None) -> Analysis:
    """Read `command` as bash would run it in `cwd` and judge everything it does."""
    analysis = Analysis()
    _read(analysis, command, cwd, CLOSED, 0, "", home)
    _read_written_scripts(analysis, home)
    for call in analysis.calls:
        analysis.findings.extend(judge(call))
        if call.name == "git":
            analysis.findings.extend(judge_git(call))
        analysis.findings.extend(judge_network(call))
    written = _written(analysis)
    for target in analysis.writes:
        analysis.findings.extend(classify(target, cwd, hermes_home, home, set(written)))
    return analysis


def _read(
    analysis: Analysis, text: str, cwd: Path | None, stdin: Source, depth: int, via: str, home: str | None
) -> None:
    if depth > MAX_DEPTH or len(text) > MAX_CODE_CHARS:
        rule = "too-deep" if depth > MAX_DEPTH else "too-long"
        analysis.findings.append(Finding(rule, text[:200], detail=via or "the command"))
        return
    script = parse_script(text, cwd, stdin, depth, via, home)
    analysis.incomplete = analysis.incomplete or script.incomplete
    for problem in script.problems:
        analysis.findings.append(Finding(problem.rule, problem.text, detail=problem.text[:60]))
    for write in script.writes:
        empties = write.op in (">", ">|", "&>")
        analysis.writes.append(
            Target(write.op, write.target, write.cwd, write.text, empties, content=write.content)
        )
    for invocation in script.invocations:
        if invocation.stdin.origin in ("a here-document", "a here-string", "a here-document with expansions"):
            analysis.heredocs = True
        call = Call(invocation.words, invocation, invocation.via)
        items = [*assignment_items(call, invocation.assignments), *expand(call)]
        for item in items:
            if isinstance(item, Call):
                analysis.calls.append(item)
                analysis.writes.extend(call_writes(item))
            elif isinstance(item, Finding):
                analysis.findings.append(item)
            elif isinstance(item, Executed):
                analysis.executed.append(item)
            elif isinstance(item, Code):
                _code(analysis, item, depth, home)


def _code(analysis: Analysis, code: Code, depth: int, home: str | None) -> None:
    analysis.nested += 1
    if code.text is None:
        analysis.findings.append(Finding("unprovable-shell-code", code.call.text(), detail=code.via))
        return
    if code.language in ("shell", "make"):
        text = makefile_recipes(code.text) if code.language == "make" else code.text
        _read(analysis, text, code.call.folder, code.call.inv.stdin, depth + 1, code.via, home)
        return
    for rule, what in scan_code(code.language, code.text):
        analysis.findings.append(Finding(rule, code.call.text(), detail=f"{code.via}: {what}"))
    analysis.findings.extend(sql_findings(code.text, code.call.text()))


def _written(analysis: Analysis) -> dict[str, Target]:
    """Each path the command writes, with the write; a path written twice has no known content."""
    written: dict[str, Target] = {}
    for target in analysis.writes:
        path = resolve(target.word.value, target.cwd) if target.word.value is not None else None
        if path is not None:
            if path in written:
                target = Target("several writes", target.word, target.cwd, target.subject)
            written[path] = target
    return written


def _read_written_scripts(analysis: Analysis, home: str | None) -> None:
    """A script the command itself writes is read when its whole content is literal; otherwise it asks.

    A script that does not exist yet asks only when the command also downloads: a virtualenv's
    `activate`, made by `python -m venv` a moment before, is the project's own.
    """
    done = 0
    while done < len(analysis.executed) and done < MAX_SCRIPTS:
        item = analysis.executed[done]
        done += 1
        value = item.word.value or ""
        path = resolve(value, item.cwd)
        target = _written(analysis).get(path) if path is not None else None
        if target is not None:
            _written_script(analysis, item, target, home)
        elif item.script and path is not None and not os.path.exists(path) and _downloads(analysis):
            analysis.findings.append(Finding("runs-missing-script", item.subject, detail=value))


def _written_script(analysis: Analysis, item: Executed, target: Target, home: str | None) -> None:
    value = item.word.value or ""
    if target.content is None or target.op not in (">", ">|"):
        analysis.findings.append(Finding("runs-written-file", item.subject, detail=value))
        return
    language = item.language or script_language(target.content)
    analysis.nested += 1
    if language == "shell":
        _read(analysis, target.content, item.cwd, CLOSED, 1, f"the script {value}", home)
    elif language == "sql":
        analysis.findings.extend(sql_findings(target.content, item.subject))
    elif language in ("python", "perl", "ruby", "node", "php", "lua", "awk"):
        for rule, what in scan_code(language, target.content):
            analysis.findings.append(Finding(rule, item.subject, detail=f"{value}: {what}"))
    else:
        analysis.findings.append(Finding("runs-written-file", item.subject, detail=value))


def script_language(text: str) -> str:
    """The language a script file runs in, from its `#!` line (a shell when it has none)."""
    first = text.split("\n", 1)[0]
    if not first.startswith("#!"):
        return "shell"
    words = first[2:].split()
    while words and (words[0].rsplit("/", 1)[-1] == "env" or words[0].startswith("-")):
        words = words[1:]
    name = program_name(words[0]) if words else ""
    if name in SHELLS:
        return "shell"
    return name if name in INTERPRETERS else "other"


def _downloads(analysis: Analysis) -> bool:
    return any(call.name in DOWNLOADERS or call.name in ("git", "gh", "svn", "hg") for call in analysis.calls)

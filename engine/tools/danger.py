"""Which shell commands need the user's approval, and which provably only read.

The command is parsed with a real shell grammar (engine/tools/shell) into every program it will run,
through pipes, lists, substitutions, functions, nested `bash -c` strings, `eval`, wrappers such as
`sudo`, `env -S`, `xargs` or `find -exec`, and interpreters' inline code. Anything the parse cannot
prove asks: a program name from a variable, code that is decoded or downloaded and then run, inline
code that calls a shell. Known destructive operations ask however they are spelt. Each reason names
its rule, and says what approving it for the session would cover: a deletion approved for `./build`
covers `./build` and what is inside it, never another folder.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.home import resolve_home_path
from engine.tools.shell.analyze import Analysis, analyze
from engine.tools.shell.catalogue import SESSION_NOT_OFFERED, rule_text
from engine.tools.shell.findings import Finding
from engine.tools.shell.programs import READ_ONLY_PROGRAMS
from engine.tools.shell.targets import shown, within

GRANT_PREFIX = "terminal:"


@dataclass(frozen=True)
class Danger:
    """One reason a command needs approval.

    `category` is the grant key a session approval covers (the rule, and the folder or remote it acts
    on where there is one); `rule` names the rule that asked; `scope` says in words what approving it
    for the session covers; `session_ok` is false where only a one-time approval is offered.
    """

    category: str
    description: str
    rule: str = ""
    scope: str = ""
    session_ok: bool = True


@dataclass(frozen=True)
class ApprovalTerms:
    """What the terminal asks with: the reason, the grants, the rules and the session scope."""

    reason: str
    grants: tuple[str, ...]
    rule: str
    scope: str
    allow_session: bool


def _analyze(command: str, cwd: Path) -> Analysis:
    """The analysis of `command`; one that fails for any reason asks, as an unreadable command."""
    home = os.environ.get("HOME") or None
    try:
        return analyze(command, cwd, home, str(resolve_home_path()))
    except Exception:  # a bug in reading must make the command ask, never let it through or break the tool
        failed = Analysis()
        failed.findings.append(Finding("unparsed", command[:200], detail="the reader failed on it"))
        return failed


def find_dangers(command: str, cwd: Path) -> list[Danger]:
    """Every reason `command`, run in `cwd`, needs the user's approval (empty when it needs none)."""
    home = os.environ.get("HOME") or None
    analysis = _analyze(command, cwd)
    unique: dict[tuple[str, str], Danger] = {}
    for finding in analysis.findings:
        danger = _danger(finding, cwd, home)
        unique.setdefault((danger.category, danger.description), danger)
    return list(unique.values())


def _danger(finding: Finding, cwd: Path, home: str | None) -> Danger:
    text = rule_text(finding.rule)
    fields: dict[str, str] = defaultdict(str)
    fields.update(detail=finding.detail, subject=finding.subject, target=shown(finding.target, cwd, home))
    if finding.rule == "overwrite":
        name, _, op = finding.detail.rpartition("|")
        verb = "overwrites" if op in ("cp", "mv", "install", "ln") else "truncates"
        fields.update(file=name, op=op, verb=verb)
    if finding.rule == "git-force-push" and finding.target:
        repo, _, remote = finding.target.rpartition(":")
        fields.update(repo=shown(repo, cwd, home), remote=remote)
    description = text.description.format_map(fields)
    scoped = "{target}" in text.description or "{target}" in text.scope
    offered = text.offers_session and (finding.target is not None or not scoped)
    if not offered:
        return Danger(
            f"{finding.rule}:{finding.subject}", description, finding.rule, SESSION_NOT_OFFERED, False
        )
    category = f"{finding.rule}:{finding.target}" if finding.target else finding.rule
    scope = text.scope.format_map(fields) + ", this session"
    return Danger(category, description, finding.rule, scope, True)


def approval_terms(dangers: Iterable[Danger], approvals: set[str]) -> ApprovalTerms:
    """The question for `dangers`: a grant already approved for a folder covers what is inside it."""
    dangers = list(dangers)
    grants = tuple(_covering_grant(d, approvals) for d in dangers)
    rules = ", ".join(dict.fromkeys(d.rule for d in dangers))
    scope = "; ".join(dict.fromkeys(d.scope for d in dangers))
    reason = " ".join(dict.fromkeys(d.description for d in dangers))
    return ApprovalTerms(reason, grants, rules, scope, all(d.session_ok for d in dangers))


def _covering_grant(danger: Danger, approvals: set[str]) -> str:
    own = GRANT_PREFIX + danger.category
    if own in approvals or not danger.session_ok or ":" not in danger.category:
        return own
    rule, _, target = danger.category.partition(":")
    prefix = f"{GRANT_PREFIX}{rule}:"
    for approved in approvals:
        if approved.startswith(prefix) and within(target, approved[len(prefix) :]):
            return approved
    return own


_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "describe"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def is_read_only(command: str, cwd: Path) -> bool:
    """True only when every program that would run provably just reads and prints.

    Anything this cannot prove (an expansion, a redirection into a file, a here-document, a program
    not known to be read-only, `sort -o`, `env` running another program) is not read-only: the caller
    asks.
    """
    analysis = _analyze(command, cwd)
    if analysis.findings or analysis.nested or analysis.heredocs or analysis.incomplete or not analysis.calls:
        return False
    if any(t.word.value not in _HARMLESS_TARGETS for t in analysis.writes):
        return False
    for call in analysis.calls:
        if call.via or call.feeder or call.inv.assignments or call.inv.depth:
            return False
        if any(w.value is None or w.expanded for w in call.argv):
            return False
        name, args = call.argv[0].value or "", [w.value or "" for w in call.args]
        if name == "git":
            if not args or args[0] not in _GIT_READ_ONLY or any(a.startswith("--output") for a in args):
                return False
            continue
        if name not in READ_ONLY_PROGRAMS:
            return False
        if name in ("env", "printenv") and any("=" in a or not a.startswith("-") for a in args):
            return False  # `env X=1 prog` runs prog; printenv NAME is fine but rare: ask
        if name == "sort" and any(a.startswith(("-o", "--output")) for a in args):
            return False
    return True

"""The terminal's approval rules on corpora written for them: every disguised destructive form asks under
the rule that names it, everyday commands almost never ask, and each question says its rule and what a
session approval would cover. (End to end through `hws run`: test_disguises_e2e.py.)
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.tools import danger
from engine.tools.danger import approval_terms, find_dangers, is_read_only
from engine.tools.shell.catalogue import RULES
from tests.security.conftest import FIGURE
from tests.security.shell_corpus import BENIGN, DISGUISES, Disguise
from tests.security.victim_support import make_project, make_victim

PLACEHOLDER = re.compile(r"\{(target|detail|subject|file|op|verb|remote|repo)\}")
BENIGN_ASK_LIMIT = 0.05  # the share of everyday commands that may ask
FAMILIES = {
    "name-in-variable",
    "quoting",
    "here-string",
    "line-continuation",
    "decode-to-shell",
    "stdin-to-shell",
    "nested-shell",
    "wrapper",
    "interpreter",
    "download-to-shell",
    "persistence",
    "git-push-force",
    "git-discard",
    "git-alias",
    "sql",
    "overwrite",
    "exfiltration",
    "kill",
    "device",
    "power",
    "fork-bomb",
    "recursive-permissions",
    "written-script",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("work")
    make_victim(root)
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("project"))


@pytest.mark.parametrize("disguise", DISGUISES, ids=[f"{d.family}:{d.command[:50]}" for d in DISGUISES])
def test_every_disguise_asks_under_the_rule_that_names_it(disguise: Disguise, work: Path) -> None:
    dangers = find_dangers(disguise.command, work)
    assert disguise.rule in [d.rule for d in dangers], (disguise.command, [d.rule for d in dangers])
    for one in dangers:
        assert one.rule in RULES and one.scope
        assert not PLACEHOLDER.search(one.description + one.scope), one


def test_the_corpus_has_every_family_in_several_spellings() -> None:
    families = Counter(d.family for d in DISGUISES)
    assert set(families) == FAMILIES
    assert len(DISGUISES) >= 87 and min(families.values()) >= 2, families
    assert len({d.command for d in DISGUISES}) == len(DISGUISES)


def test_the_share_that_asks_is_printed(work: Path, record_property: Any) -> None:
    asked = sum(1 for d in DISGUISES if find_dangers(d.command, work))
    total = len(DISGUISES)
    record_property(
        FIGURE, f"disguises that ask (parsed, all {total}): {asked}/{total} ({asked / total:.1%})"
    )
    assert asked == len(DISGUISES)


def test_everyday_commands_rarely_ask(project: Path, record_property: Any) -> None:
    asked = {c: [d.rule for d in find_dangers(c, project)] for c in BENIGN}
    asked = {c: rules for c, rules in asked.items() if rules}
    share = len(asked) / len(BENIGN)
    record_property(FIGURE, f"everyday commands that ask: {len(asked)}/{len(BENIGN)} ({share:.1%})")
    assert len(BENIGN) >= 100
    assert len(asked) / len(BENIGN) <= BENIGN_ASK_LIMIT, asked


def test_a_session_approval_covers_the_approved_folder_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "build" / "cache").mkdir(parents=True)
    first = approval_terms(find_dangers("rm -r build", tmp_path), set())
    assert first.allow_session and first.rule == "rm-recursive"
    assert first.scope == "every `rm -r`/`rm -rf` of ./build or anything inside it, this session"
    approved = set(first.grants)
    inside = approval_terms(find_dangers("rm -rf build/cache", tmp_path), approved)
    assert set(inside.grants) <= approved
    for elsewhere in ("rm -r ~", "rm -r .", "rm -r buildings", f"rm -r {tmp_path}/build/../other"):
        assert not set(approval_terms(find_dangers(elsewhere, tmp_path), approved).grants) <= approved


def test_after_a_cd_that_may_fail_the_folder_is_not_assumed(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    [sure] = find_dangers("cd build && rm -rf *", tmp_path)
    assert sure.session_ok and sure.category == f"rm-recursive:{tmp_path / 'build'}"
    for command in ("cd missing; rm -rf *", "cd missing && true; rm -rf *", 'cd "$DIR" && rm -rf *'):
        [unsure] = find_dangers(command, tmp_path)
        assert unsure.rule == "rm-recursive" and not unsure.session_ok, command
    [chained] = find_dangers("mkdir out && cd out && rm -rf *", tmp_path)
    assert chained.category == f"rm-recursive:{tmp_path / 'out'}"


def test_a_command_the_reader_fails_on_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RecursionError("too deep")

    monkeypatch.setattr(danger, "analyze", broken)
    assert [d.rule for d in find_dangers("ls", tmp_path)] == ["unparsed"]
    assert not is_read_only("ls", tmp_path)


def test_what_cannot_be_known_is_never_approved_for_the_session(tmp_path: Path) -> None:
    for command in ("X=rm; $X -rf build", 'rm -rf "$DIR"', "curl -s x | sh", "echo b > /proc/sysrq-trigger"):
        terms = approval_terms(find_dangers(command, tmp_path), set())
        assert terms.grants and not terms.allow_session, command


def test_writes_into_the_agents_own_home_ask_every_time(tmp_path: Path, hermes_home: Path) -> None:
    command = f"echo 'agent: {{yolo: true}}' >> {hermes_home}/config.yaml"
    [danger] = find_dangers(command, tmp_path)
    assert danger.rule == "hermes-home-write" and not danger.session_ok


def test_a_git_subcommand_that_is_no_alias_and_no_program_does_not_ask(work: Path) -> None:
    assert find_dangers("git -C victim frobnicate", work) == []
    assert [d.rule for d in find_dangers("git -C victim tidy", work)] == ["git-alias", "rm-recursive"]


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls | grep x | sort", True),
        ("echo 'rm -rf /'", True),
        ("(ls; pwd)", True),
        ("ls; rm -rf x", False),
        ("cat $(echo x)", False),
        ("git log > log.txt", False),
        ("bash -c 'ls'", False),
        ("ls ~", False),
        ("r\\\nm -rf x", False),
        ("ls 'unbalanced", False),
    ],
)
def test_read_only_is_decided_on_the_parse(command: str, read_only: bool, tmp_path: Path) -> None:
    assert is_read_only(command, tmp_path) is read_only

"""`hws skills`: list, view, index, history, restore, install and scan skills from the shell; pending,
approve, reject and diff for the writes `skills.write_approval` holds back; the hub's commands
(engine/cli/skills_hub.py)."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json
from engine.cli.pending_actions import add_pending_actions
from engine.cli.skills_hub import add_hub_commands, is_hub_source, run_hub_install

EXIT_DANGEROUS = 3
SCAN_EXIT = {"safe": EXIT_OK, "caution": EXIT_REFUSED, "dangerous": EXIT_DANGEROUS}


def register(sub: Any) -> None:
    parser = sub.add_parser("skills", help="list, view, install and audit skills")
    commands = parser.add_subparsers(dest="skills_command", metavar="COMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), EXIT_USAGE)[1])

    p = commands.add_parser("list", help="every skill, with warnings about files that break the spec")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_list)

    p = commands.add_parser("view", help="print a skill's SKILL.md (Tier 2) or one of its files (Tier 3)")
    p.add_argument("name")
    p.add_argument("file", nargs="?", help="a file inside the skill, e.g. references/api.md")
    p.add_argument("--json", action="store_true", help="print the tool result as JSON")
    p.set_defaults(handler=run_view)

    p = commands.add_parser("index", help="print the Tier 1 index exactly as the model sees it")
    p.add_argument("--budget", type=int, help="token budget (default: skills.index_token_budget)")
    p.add_argument("--json", action="store_true", help="print text, tokens and cuts as JSON")
    p.set_defaults(handler=run_index)

    p = commands.add_parser("history", help="a skill's recorded changes, or the diff of one version")
    p.add_argument("name")
    p.add_argument("version", nargs="?", help="show this version's diff")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_history)

    p = commands.add_parser("restore", help="put a skill back as it was at a version")
    p.add_argument("name")
    p.add_argument("version")
    p.add_argument("--before", action="store_true", help="restore the state just before that version")
    p.set_defaults(handler=run_restore)

    p = commands.add_parser(
        "install", help="install a skill folder, or one from the hub, through quarantine and the guard"
    )
    p.add_argument("path", help="a skill folder, a skill's name in the taps, or a source holding one skill")
    p.add_argument("--category", default="", help="install under this category folder")
    p.add_argument(
        "--trust", choices=("community", "trusted"), default="community", help="for a local folder"
    )
    p.add_argument("--force", action="store_true", help="install despite a caution verdict, or replace")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=run_install)

    p = commands.add_parser("scan", help="print the guard's report; exit 0 safe, 1 caution, 3 dangerous")
    p.add_argument("path", help="a skill folder, or the name of an installed skill")
    p.add_argument(
        "--trust", choices=("builtin", "trusted", "community", "agent-created"), default="community"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=run_scan)

    add_pending_actions(commands, "skills", with_diff=True)
    add_hub_commands(commands)


def _library(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from engine.skills.library import SkillLibrary

    home, config = open_home(args)
    return SkillLibrary(home, config)


def run_list(args: argparse.Namespace) -> int:
    from engine.text.printable import printable

    library = _library(args)
    catalog = library.catalog()
    _shown, excluded = library.visible(catalog)
    blocked = library.blocked([s for s in catalog.skills if s.name not in excluded])
    if args.json:
        print_json(
            {
                "skills": [
                    {
                        "name": s.name,
                        "category": s.category,
                        "description": s.description,
                        "source": s.source,
                        "path": str(s.skill_dir),
                        "excluded": s.name in excluded,
                        "blocked": blocked.get(s.name, ""),
                        "warnings": list(s.warnings),
                        "needs": _missing(library, s),
                    }
                    for s in catalog.skills
                ],
                "skipped": catalog.skipped,
                "warnings": catalog.warnings,
            }
        )
        return EXIT_OK
    if not catalog.skills:
        print(f"No skills in {printable(str(library.home.skills))}.")
    width = max((len(s.name) for s in catalog.skills), default=4)
    for s in catalog.skills:
        flags = ("  [external]" if s.read_only else "") + ("  [excluded]" if s.name in excluded else "")
        text = s.description if len(s.description) <= 80 else s.description[:79] + "…"
        category = printable(s.category or "-")
        print(f"{printable(s.name).ljust(width)}  {category:<16} {printable(text)}{flags}")
        if s.name in blocked:
            print(f"{' ' * width}    BLOCKED (never shown to the model): {blocked[s.name]}")
        missing = _missing(library, s)
        if missing:
            how = f"hws skills view {printable(s.name)} says how"
            print(f"{' ' * width}    needs {printable(missing)} ({how})")
        for warning in s.warnings:
            print(f"{' ' * width}    warning: {printable(warning)}")
    for line in catalog.warnings + catalog.skipped:
        print(f"warning: {printable(line)}", file=sys.stderr)
    return EXIT_OK


def _missing(library: Any, skill: Any) -> str:
    """The settings a skill declares and this home lacks, in one line ('' when it has them all)."""
    from engine.skills.needs import missing_settings

    return missing_settings(skill.needs, library.config)


def _print_setup(library: Any, skill: Any) -> None:
    """How to set what the skill needs and this home lacks, after its text (on standard error)."""
    from engine.skills.needs import how_to_set, readiness
    from engine.text.printable import printable

    ready = readiness(skill.needs, library.config.secret, library.config.raw)
    if skill.needs.compatibility:
        print(f"\ncompatibility: {printable(skill.needs.compatibility)}", file=sys.stderr)
    lines = how_to_set(skill.needs, ready, library.home.root)
    if lines:
        print("\nsetup needed:", file=sys.stderr)
        for line in lines:
            print("  " + printable(line, keep_newlines=True).replace("\n", "\n    "), file=sys.stderr)


def run_view(args: argparse.Namespace) -> int:
    from engine.skills.view import find_skill, view_file, view_skill
    from engine.text.printable import printable

    library = _library(args)
    skill, problem = find_skill(library.catalog(), args.name)
    if problem:
        fail(printable(problem["error"]), EXIT_REFUSED)
    assert skill is not None
    verdict = library.verdict(skill)
    max_chars = int(library.config.get("file_read_max_chars"))
    if args.file:
        result = view_file(skill, args.file, max_chars)
    else:
        result = view_skill(skill, max_chars, library.config, bool(library.settings.template_vars))
    if verdict is not None and verdict.blocked:
        result["blocked"] = verdict.reason
    if args.json:
        print_json(result)
        return EXIT_OK if result.get("success") else EXIT_REFUSED
    if not result.get("success"):
        fail(printable(result["error"]), EXIT_REFUSED)
    if verdict is not None and verdict.blocked:
        print(f"BLOCKED: the skills guard keeps this skill from the model: {verdict.reason}", file=sys.stderr)
    sys.stdout.write(printable(result["content"].rstrip("\n"), keep_newlines=True) + "\n")
    if not args.file and result.get("linked_files"):
        print("\nlinked files:", file=sys.stderr)
        for group, files in result["linked_files"].items():
            print(f"  {printable(group)}: {', '.join(printable(f) for f in files)}", file=sys.stderr)
    for warning in result.get("warnings", []):
        print(f"warning: {printable(warning)}", file=sys.stderr)
    if not args.file:
        _print_setup(library, skill)
    print(f"({result['tokens']:,} tokens)", file=sys.stderr)
    return EXIT_OK


def run_index(args: argparse.Namespace) -> int:
    library = _library(args)
    if args.budget is not None and args.budget < 1:
        fail("--budget must be a positive number of tokens.", EXIT_USAGE)
    index = library.index(args.budget)
    if args.json:
        print_json(
            {
                "text": index.text,
                "tokens": index.tokens,
                "budget": index.budget,
                "summary": index.summary(),
                "skills": [e.__dict__ for e in index.entries],
                "excluded": list(index.excluded),
            }
        )
        return EXIT_OK
    if index.text:
        sys.stdout.write(index.text + "\n")
    print(f"\n{index.summary()}", file=sys.stderr)
    return EXIT_OK


def _when(at: float) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S")


def run_history(args: argparse.Namespace) -> int:
    from engine.skills.history import HistoryError, SkillHistory

    home, _config = open_home(args)
    history = SkillHistory(home)
    try:
        if args.version:
            entry = history.entry(args.name, args.version)
            diff = history.diff(entry)
            if args.json:
                print_json({"entry": entry.__dict__, "diff": diff})
            else:
                print(f"{entry.id}  {_when(entry.at)}  {entry.who} {entry.action} {entry.path}")
                sys.stdout.write(diff if diff.endswith("\n") or not diff else diff + "\n")
            return EXIT_OK
        entries = history.entries(args.name)
    except HistoryError as exc:
        fail(str(exc), EXIT_REFUSED)
    if args.json:
        print_json([e.__dict__ for e in entries])
        return EXIT_OK
    if not entries:
        print(f"No recorded changes for skill '{args.name}'.")
        return EXIT_OK
    for e in entries:
        print(f"{e.id}  {_when(e.at)}  {e.who:<8} {e.action:<11} {e.path}  {e.summary}")
    print(
        f"\n`hws skills history {args.name} VERSION` shows a diff; "
        f"`hws skills restore {args.name} VERSION` puts that version back.",
        file=sys.stderr,
    )
    return EXIT_OK


def run_restore(args: argparse.Namespace) -> int:
    from engine.skills.history import HistoryError
    from engine.skills.manage import SkillManager

    library = _library(args)
    manager = SkillManager(library, "user")
    skill = library.catalog().get(args.name)
    try:
        with manager.lock():
            result = manager.history.restore(
                args.name,
                args.version,
                args.before,
                "user",
                skill.skill_dir if skill and not skill.read_only else None,
            )
    except HistoryError as exc:
        fail(str(exc), EXIT_REFUSED)
    for rel in result.written:
        print(f"restored {rel}")
    for rel in result.removed:
        print(f"removed  {rel}")
    for rel in result.skipped:
        print(f"skipped  {rel}", file=sys.stderr)
    if not (result.written or result.removed):
        print(f"Skill '{args.name}' already matches version {result.version}; nothing changed.")
    else:
        when = "just before" if args.before else "at"
        print(f"Skill '{args.name}' is back as it was {when} {result.version}.")
    return EXIT_OK


def _install_review(library: Any) -> Any:
    """security.aux_review for an install: the auxiliary model's word on what the guard left uncertain."""
    import asyncio

    from engine.llm.client import LLMClient
    from engine.threats.review import refusal, second_opinion

    def review(report: Any, folder: Path) -> str | None:
        files = sorted({f.file for f in report.uncertain})
        text = "\n\n".join(f"--- {name}\n" + (folder / name).read_text("utf-8", "replace") for name in files)
        notes = [f"{f.file}:{f.line} {f.rule.split('.')[-1]}: {f.match}" for f in report.uncertain]

        async def ask() -> Any:
            async with LLMClient.from_config(library.config, library.home.root, auxiliary=True) as client:
                return await second_opinion(
                    client, "skill install", text, notes, float(library.config.security.aux_review_timeout)
                )

        opinion = asyncio.run(ask())
        return refusal("skill install", opinion) if opinion.refuses else None

    return review


def run_install(args: argparse.Namespace) -> int:
    from engine.skills.install import Installer, InstallError

    if is_hub_source(args.path):
        return run_hub_install(args)
    library = _library(args)
    review = _install_review(library) if library.config.security.aux_review else None
    try:
        outcome = Installer(library).install(Path(args.path), args.category, args.trust, args.force, review)
    except InstallError as exc:
        fail(str(exc), EXIT_USAGE)
    if args.json:
        print_json(
            {
                **outcome.report.as_dict(args.force),
                "installed": outcome.installed,
                "message": outcome.message,
                "path": str(outcome.path) if outcome.path else None,
            }
        )
    else:
        print(outcome.report.format(args.force))
        print(outcome.message)
    return EXIT_OK if outcome.installed else EXIT_REFUSED


def run_scan(args: argparse.Namespace) -> int:
    from engine.skills.guard import GuardLimits, scan_folder

    target = Path(args.path).expanduser()
    limits = GuardLimits()
    name = target.name
    if not target.is_dir():
        library = _library(args)
        skill = library.catalog().get(args.path)
        if skill is None:
            fail(f"{args.path} is neither a folder nor the name of an installed skill.", EXIT_USAGE)
        target, name = skill.skill_dir, skill.name
        limits = GuardLimits.from_config(library.settings)
    report = scan_folder(target, name, "local", args.trust, limits)
    if args.json:
        print_json(report.as_dict())
    else:
        print(report.format())
        print(
            f"({report.files_scanned} files, {report.lines_scanned:,} lines in {report.elapsed_ms:.1f} ms)",
            file=sys.stderr,
        )
    return SCAN_EXIT[report.verdict]

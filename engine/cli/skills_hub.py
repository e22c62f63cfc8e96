"""`hws skills tap|search|browse|check|update|uninstall` and `install SOURCE`: the skills hub from the
shell. Exit codes: 0 done, 1 refused (a caution verdict, a local edit, a source that cannot be read),
2 usage, 3 a dangerous skill refused."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, print_json
from engine.text.printable import printable

EXIT_DANGEROUS = 3


def add_hub_commands(commands: Any) -> None:
    """The hub's subcommands under `hws skills`."""
    tap = commands.add_parser("tap", help="the sources the hub searches (Hermes' taps.json)")
    taps = tap.add_subparsers(dest="tap_command", metavar="ACTION")
    tap.set_defaults(handler=lambda args: (tap.print_help(), EXIT_USAGE)[1])
    p = taps.add_parser("add", help="add a source: owner/repo[/path][@ref], a git URL or path, an https site")
    p.add_argument("source")
    p.set_defaults(handler=run_tap_add)
    p = taps.add_parser("list", help="the default taps and the ones added")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_tap_list)
    p = taps.add_parser("remove", help="remove a tap added before")
    p.add_argument("source")
    p.set_defaults(handler=run_tap_remove)

    p = commands.add_parser("search", help="skills in the taps whose name, description or tags match")
    p.add_argument("text", nargs="?", default="")
    p.add_argument("--fresh", action="store_true", help="ask every tap again instead of the cache")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_search)

    p = commands.add_parser("browse", help="every skill in the taps (in the workstation: /hub)")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_search, text="", fresh=False)

    p = commands.add_parser("check", help="compare each installed hub skill with its source")
    p.add_argument("name", nargs="?")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_check)

    p = commands.add_parser("update", help="update hub skills from their source, showing the diff")
    p.add_argument("name", nargs="?")
    p.add_argument("--force", action="store_true", help="replace a locally edited skill; allow caution")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(handler=run_update)

    p = commands.add_parser("uninstall", help="remove a hub skill and its lock entry (kept in .archive)")
    p.add_argument("name")
    p.set_defaults(handler=run_uninstall)


def _hub(args: argparse.Namespace) -> Any:
    from engine.cli.common import open_home
    from engine.skills.hub.hub import SkillsHub
    from engine.skills.library import SkillLibrary

    home, config = open_home(args)
    return SkillsHub(SkillLibrary(home, config))


def _hub_failure(exc: Exception) -> None:
    fail(str(exc), EXIT_REFUSED)


def run_tap_add(args: argparse.Namespace) -> int:
    from engine.skills.hub.hub import HubError
    from engine.skills.hub.model import SourceError

    hub = _hub(args)
    try:
        added, skills = hub.add_tap(args.source)
    except (SourceError, HubError) as exc:
        _hub_failure(exc)
    state = "added" if added else "already a tap"
    print(f"{args.source}: {state}; it offers {len(skills)} skill{'s' if len(skills) != 1 else ''}.")
    for skill in skills:
        print(f"  {skill.name}  [{skill.trust}]  {printable(skill.description[:70])}")
    return EXIT_OK


def run_tap_list(args: argparse.Namespace) -> int:
    hub = _hub(args)
    defaults = [str(s) for s in hub.library.settings.hub_default_taps]
    added = [t for t in hub.tap_specs() if t not in defaults]
    if args.json:
        print_json({"default": defaults, "added": added})
        return EXIT_OK
    for spec in defaults:
        print(f"{spec}  (default: skills.hub_default_taps)")
    for spec in added:
        print(spec)
    if not defaults and not added:
        print("No taps: `hws skills tap add owner/repo` adds one.")
    return EXIT_OK


def run_tap_remove(args: argparse.Namespace) -> int:
    from engine.skills.hub.model import SourceError

    hub = _hub(args)
    try:
        removed = hub.remove_tap(args.source)
    except SourceError as exc:
        _hub_failure(exc)
    if not removed:
        fail(f"{args.source} is not a tap added with `hws skills tap add` (defaults live in config).", 1)
    print(f"Removed the tap {args.source}.")
    return EXIT_OK


def run_search(args: argparse.Namespace) -> int:
    hub = _hub(args)
    found = hub.search(args.text, fresh=args.fresh)
    for problem in found.problems:
        print(f"warning: {printable(problem)}", file=sys.stderr)
    if args.json:
        print_json({"skills": [s.__dict__ for s in found.skills], "problems": found.problems})
        return EXIT_OK
    if not found.skills:
        print(f"No skill in the taps matches {args.text!r}." if args.text else "The taps offer no skills.")
    width = max((len(s.name) for s in found.skills), default=4)
    for s in found.skills:
        print(f"{s.name.ljust(width)}  {s.trust:<9}  {printable(s.identifier)}")
        if s.description:
            print(f"{' ' * width}  {printable(s.description[:100])}")
    return EXIT_OK


def is_hub_source(target: str) -> bool:
    """A git repository or anything that is not a local path goes to the hub; a folder installs as is."""
    path = Path(target).expanduser()
    if not path.exists():
        return not target.startswith(("/", ".", "~"))
    if not path.is_dir() or (path / "SKILL.md").is_file():
        return False
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def run_hub_install(args: argparse.Namespace) -> int:
    from engine.skills.hub.hub import HubError
    from engine.skills.hub.model import SourceError
    from engine.skills.install import InstallError

    hub = _hub(args)
    try:
        outcome = hub.install(args.path, args.category or None, args.force)
    except (SourceError, HubError, InstallError) as exc:
        _hub_failure(exc)
    if args.json:
        print_json(
            {**outcome.report.as_dict(args.force), "installed": outcome.installed, "message": outcome.message}
        )
    else:
        print(outcome.report.format(args.force))
        print(outcome.message)
    if outcome.installed:
        return EXIT_OK
    return EXIT_DANGEROUS if outcome.report.verdict == "dangerous" else EXIT_REFUSED


def run_check(args: argparse.Namespace) -> int:
    from engine.skills.hub.hub import HubError

    hub = _hub(args)
    try:
        results = hub.check(args.name)
    except HubError as exc:
        _hub_failure(exc)
    if args.json:
        print_json([r.__dict__ for r in results])
        return EXIT_OK
    if not results:
        print("No skills installed from the hub.")
    for r in results:
        words = {"up_to_date": "up to date", "update_available": "update available"}.get(r.status, r.status)
        edited = "  (edited locally)" if r.edited_locally else ""
        commit = f"  at {r.commit[:12]}" if r.commit else ""
        print(f"{r.name}: {words}{commit}{edited}  [{r.source}] {printable(r.identifier)}")
        if r.detail:
            print(f"  {printable(r.detail)}")
    return EXIT_OK


def run_update(args: argparse.Namespace) -> int:
    from engine.skills.hub.hub import HubError

    hub = _hub(args)
    try:
        results = hub.update(args.name, args.force)
    except HubError as exc:
        _hub_failure(exc)
    if args.json:
        print_json([{**r.__dict__, "outcome": None} for r in results])
    for r in results if not args.json else []:
        if r.diff:
            sys.stdout.write(r.diff)
        if r.outcome is not None:
            print(r.outcome.report.format(args.force))
        print(r.message)
    refused = [r for r in results if r.status not in ("updated", "up_to_date")]
    if any(r.outcome is not None and r.outcome.report.verdict == "dangerous" for r in refused):
        return EXIT_DANGEROUS
    return EXIT_REFUSED if refused else EXIT_OK


def run_uninstall(args: argparse.Namespace) -> int:
    from engine.skills.hub.hub import HubError

    hub = _hub(args)
    try:
        print(hub.uninstall(args.name))
    except HubError as exc:
        _hub_failure(exc)
    return EXIT_OK

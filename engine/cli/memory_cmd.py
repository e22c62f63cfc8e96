"""`hws memory`: show, add, replace, remove, history, diff and undo, on the same store the agent uses;
pending, approve and reject for the writes `memory.write_approval` holds back.

Exit codes: 0 when the store accepts (a duplicate add included), 1 when it refuses (the reason on
stderr, one sentence), 2 on usage or config errors. `--json` prints the tool's result dict.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json
from engine.cli.pending_actions import add_pending_actions
from engine.cli.provider_cmd import add_provider_actions

TARGET_CHOICES = ("memory", "user")


def register(sub: Any) -> None:
    parser = sub.add_parser("memory", help="show and edit MEMORY.md and USER.md, with history and undo")
    actions = parser.add_subparsers(dest="memory_action", metavar="ACTION")
    parser.set_defaults(handler=_usage(parser))

    show = actions.add_parser("show", help="print the entries and usage of each store")
    show.add_argument("--target", choices=TARGET_CHOICES, help="only this store")
    show.add_argument("--prompt", action="store_true", help="print the block the system prompt would get")
    _json(show)
    show.set_defaults(handler=run_show)

    add = actions.add_parser("add", help="add an entry")
    _target(add)
    add.add_argument("text", metavar="TEXT", help="the entry")
    _json(add)
    add.set_defaults(handler=run_add)

    replace = actions.add_parser("replace", help="replace the entry containing OLD")
    _target(replace)
    replace.add_argument("old", metavar="OLD", help="a unique part of the entry to replace")
    replace.add_argument("new", metavar="NEW", help="the new entry")
    _json(replace)
    replace.set_defaults(handler=run_replace)

    remove = actions.add_parser("remove", help="remove the entry containing OLD")
    _target(remove)
    remove.add_argument("old", metavar="OLD", help="a unique part of the entry to remove")
    _json(remove)
    remove.set_defaults(handler=run_remove)

    history = actions.add_parser("history", help="list journaled writes, oldest first")
    history.add_argument("--target", choices=TARGET_CHOICES, help="only this store")
    history.add_argument("--limit", type=int, default=None, metavar="N", help="only the newest N")
    _json(history)
    history.set_defaults(handler=run_history)

    diff = actions.add_parser("diff", help="show one journaled write as a unified diff")
    diff.add_argument("id", metavar="ID", help="journal id (or a unique prefix) from `hws memory history`")
    diff.set_defaults(handler=run_diff)

    undo = actions.add_parser("undo", help="revert one journaled write")
    undo.add_argument("id", metavar="ID", help="journal id (or a unique prefix) from `hws memory history`")
    _json(undo)
    undo.set_defaults(handler=run_undo)

    add_provider_actions(actions.add_parser("provider", help="the external memory provider: setup, status"))
    add_pending_actions(actions, "memory")


def _target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target", choices=TARGET_CHOICES, default="memory", help="which store (default memory)"
    )


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _usage(parser: argparse.ArgumentParser) -> Any:
    def run(args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return EXIT_USAGE

    return run


def _memory(args: argparse.Namespace) -> Any:
    from engine.memory.store import Memory

    home, config = open_home(args)
    return Memory(home, config, who="user")


def _report(args: argparse.Namespace, result: dict[str, Any]) -> int:
    """Print a store result; the exit code says whether the store accepted it."""
    if getattr(args, "json", False):
        print_json(result)
    if not result.get("success"):
        print(refusal_sentence(result), file=sys.stderr)
        return EXIT_REFUSED
    if not getattr(args, "json", False):
        print(f"{result.get('message', 'Done.')} {result['target']}: {result['usage']}")
    return EXIT_OK


# Where the tool's error turns to advice for the model (it sees current_entries; a shell user does not).
MODEL_ADVICE = (
    " Consolidate now:",
    " Check current_entries",
    " Shorten the new",
    " Remove or shorten",
    " Reissue",
)


def refusal_sentence(result: dict[str, Any]) -> str:
    """The store's refusal as one line for a person at a shell."""
    error = str(result.get("error") or "The memory store refused the change.")
    if "drift_backup" in result:
        return error.split(" Resolve the drift")[0]
    cut = min((error.find(marker) for marker in MODEL_ADVICE if marker in error), default=-1)
    if cut > 0:
        return error[:cut] + " See `hws memory show`."
    return error


def run_add(args: argparse.Namespace) -> int:
    return _report(args, _memory(args).store(args.target).add(args.text))


def run_replace(args: argparse.Namespace) -> int:
    return _report(args, _memory(args).store(args.target).replace(args.old, args.new))


def run_remove(args: argparse.Namespace) -> int:
    return _report(args, _memory(args).store(args.target).remove(args.old))


def run_undo(args: argparse.Namespace) -> int:
    return _report(args, _memory(args).undo(args.id))


def run_show(args: argparse.Namespace) -> int:
    from engine.memory.format import MemoryRefused
    from engine.threats.scan import pattern_ids

    memory = _memory(args)
    targets = [args.target] if args.target else list(TARGET_CHOICES)
    if args.prompt:
        snapshot = memory.load_snapshot()
        blocks = {t: snapshot.block(t) or "" for t in targets}
        if args.json:
            print_json(blocks)
        else:
            print("\n\n".join(b for b in blocks.values() if b) or "(memory is empty)")
        return EXIT_OK
    report: dict[str, Any] = {}
    for target in targets:
        store = memory.store(target)
        try:
            entries = store.entries()
        except MemoryRefused as refused:
            fail(refused.result["error"], EXIT_REFUSED)
        report[target] = {
            "target": target,
            "path": str(store.path),
            "entries": entries,
            "usage": store.usage(entries),
            "entry_count": len(entries),
            "limit": store.limit,
            "blocked": {
                str(i): pattern_ids(e, "strict") for i, e in enumerate(entries) if pattern_ids(e, "strict")
            },
        }
    if args.json:
        print_json(report if not args.target else report[args.target])
        return EXIT_OK
    for target, data in report.items():
        print(f"{store_title(target)} — {data['usage']} ({data['path']})")
        if not data["entries"]:
            print("  (empty)")
        for index, entry in enumerate(data["entries"]):
            mark = (
                f"  [blocked in prompt: {', '.join(data['blocked'][str(index)])}]"
                if str(index) in data["blocked"]
                else ""
            )
            lines = entry.splitlines() or [""]
            print(f"  {index + 1}. {lines[0]}{mark}")
            for line in lines[1:]:
                print(f"     {line}")
    return EXIT_OK


def store_title(target: str) -> str:
    return "MEMORY.md (memory)" if target == "memory" else "USER.md (user)"


def run_history(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        fail("--limit must be 1 or more.", EXIT_USAGE)
    entries = _memory(args).history(args.target, args.limit)
    if args.json:
        print_json([e.to_dict() for e in entries])
        return EXIT_OK
    if not entries:
        print("No memory writes journaled yet.")
    for entry in entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.at))
        print(f"{entry.id}  {when}  {entry.who:<8} {entry.target:<6} {entry.action:<7} {entry.summary}")
    return EXIT_OK


def run_diff(args: argparse.Namespace) -> int:
    from engine.storage.journal import JournalError

    memory = _memory(args)
    try:
        text = memory.journal.diff(args.id)
    except JournalError as exc:
        fail(str(exc), EXIT_REFUSED)
    sys.stdout.write(text or "(no change)\n")
    return EXIT_OK

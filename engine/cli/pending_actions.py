"""`hws memory pending|approve ID|reject ID` and `hws skills pending|approve ID|reject ID|diff ID`.

The writes the agent staged while `memory.write_approval` / `skills.write_approval` is on
(engine/write_approval.py): listed with the diff approving each would make now, approved through the
store's own path, or rejected. Exit codes: 0 done, 1 refused (an unknown id, a file changed since the
write was staged, a write the store refuses), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, fail, open_home, print_json


def add_pending_actions(actions: Any, subsystem: str, *, with_diff: bool = False) -> None:
    """Mount the review actions of one subsystem (`memory` or `skills`) on its subcommand's actions."""
    listing = actions.add_parser(
        "pending", help=f"the {subsystem} writes waiting for your approval, with diffs"
    )
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(handler=_run_pending, subsystem=subsystem)

    approve = actions.add_parser("approve", help="make one pending write (its id from `pending`)")
    approve.add_argument("pending_id", metavar="ID", help="the pending write's id, or a unique start of it")
    approve.add_argument("--json", action="store_true", help="print the result as JSON")
    approve.set_defaults(handler=_run_approve, subsystem=subsystem)

    reject = actions.add_parser("reject", help="drop one pending write; nothing is written")
    reject.add_argument("pending_id", metavar="ID", help="the pending write's id, or a unique start of it")
    reject.add_argument("--json", action="store_true", help="print the result as JSON")
    reject.set_defaults(handler=_run_reject, subsystem=subsystem)

    if with_diff:
        diff = actions.add_parser("diff", help="print what approving one pending write would change")
        diff.add_argument("pending_id", metavar="ID", help="the pending write's id, or a unique start of it")
        diff.set_defaults(handler=_run_diff, subsystem=subsystem)


def item_dict(item: Any) -> dict[str, Any]:
    record = item.record
    return {
        **record.as_dict(),
        "who": record.who,
        "diff": item.diff,
        "conflict": item.conflict,
        "error": item.error,
        "unchanged": item.unchanged,
    }


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def _run_pending(args: argparse.Namespace) -> int:
    from engine.printable import printable
    from engine.write_approval import pending

    home, config = open_home(args)
    items, problems = pending(home, config, args.subsystem)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.json:
        print_json([item_dict(item) for item in items])
        return EXIT_OK
    if not items:
        print(f"No {args.subsystem} write waits for your approval.")
        return EXIT_OK
    for item in items:
        record = item.record
        print(f"{record.id}  {_when(record.created_at)}  {record.who:<6}  {printable(record.summary)}")
        if item.problem:
            print(f"  ! {printable(item.problem)}")
        elif item.unchanged:
            print("  (already there: approving it changes nothing)")
        for line in item.diff.splitlines():
            print(f"  {printable(line)}")
    print(
        f"\n`hws {args.subsystem} approve ID` makes a write; `hws {args.subsystem} reject ID` drops it.",
        file=sys.stderr,
    )
    return EXIT_OK


def _report(args: argparse.Namespace, result: dict[str, Any]) -> int:
    from engine.printable import printable

    if args.json:
        print_json(result)
    if not result.get("success"):
        print(printable(str(result.get("error") or "Refused.")), file=sys.stderr)
        return EXIT_REFUSED
    if not args.json:
        usage = f" {result['target']}: {result['usage']}" if result.get("usage") else ""
        print(printable(str(result.get("message") or "Done.")) + usage)
    return EXIT_OK


def _run_approve(args: argparse.Namespace) -> int:
    from engine.write_approval import approve

    home, config = open_home(args)
    return _report(args, approve(home, config, args.subsystem, args.pending_id))


def _run_reject(args: argparse.Namespace) -> int:
    from engine.write_approval import reject

    home, _config = open_home(args)
    return _report(args, reject(home, args.subsystem, args.pending_id))


def _run_diff(args: argparse.Namespace) -> int:
    from engine.printable import printable
    from engine.staged_writes import StagedError, StagedWrites
    from engine.write_approval import review

    home, config = open_home(args)
    try:
        record = StagedWrites(home).find(args.subsystem, args.pending_id)
    except StagedError as exc:
        fail(str(exc), EXIT_REFUSED)
    item = review(home, config, record)
    if item.problem:
        print(f"! {printable(item.problem)}", file=sys.stderr)
    sys.stdout.write(printable(item.diff, keep_newlines=True) if item.diff else "(no change)\n")
    return EXIT_OK

"""`hws checkpoints list|diff|restore`: the agent's checkpoints of a working folder, from the command line.

The folder is `--cwd` (default: here, or the nearest folder above it that has checkpoints). A restore
prints what it changes, then writes the checkpoint back; it takes a checkpoint of the folder first,
whose id it prints, so the restore itself can be undone.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from engine.cli.common import EXIT_REFUSED, fail, open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "checkpoints", help="list, compare and restore the agent's checkpoints of a working folder"
    )
    commands = parser.add_subparsers(dest="checkpoints_command", metavar="ACTION", required=True)

    listing = commands.add_parser(
        "list", help="the folder's checkpoints, newest first, with what changed since"
    )
    _common(listing)
    listing.set_defaults(handler=run_list)

    diff = commands.add_parser("diff", help="what changed in the folder since a checkpoint")
    diff.add_argument("id", help="the checkpoint's id (or the first digits of it)")
    diff.add_argument("path", nargs="?", default="", help="only this file or folder")
    diff.add_argument("--stat", action="store_true", help="only the list of changed files")
    _common(diff)
    diff.set_defaults(handler=run_diff)

    restore = commands.add_parser(
        "restore",
        help="bring the folder (or one path) back to a checkpoint; files made since are removed",
    )
    restore.add_argument("id", help="the checkpoint's id (or the first digits of it)")
    restore.add_argument("path", nargs="?", default="", help="only this file or folder")
    restore.add_argument("--dry-run", action="store_true", help="only say what the restore would change")
    _common(restore)
    restore.set_defaults(handler=run_restore)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="the working folder (default: here, or the nearest above with checkpoints)",
    )
    parser.add_argument("--json", action="store_true", help="print as JSON")


def _store(args: argparse.Namespace) -> Any:
    from engine.checkpoints.store import CheckpointStore, shadow_dir

    home, config = open_home(args)
    if args.cwd:
        folder = Path(args.cwd).resolve()
        if not folder.is_dir():
            fail(f"--cwd {args.cwd} is not a folder.")
    else:
        here = Path.cwd().resolve()
        folder = next((f for f in (here, *here.parents) if shadow_dir(home, f).is_dir()), here)
    return CheckpointStore(home, config, folder)


def _path(store: Any, raw: str) -> str:
    """A path as the person typed it (from where they stand) as a path from the folder's top."""
    if not raw:
        return ""
    absolute = raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)
    return str(store.relative(absolute))


def _change_line(change: Any) -> str:
    mark = {"added": "A", "removed": "D"}.get(change.status, "M")
    counts = "binary" if change.lines_added is None else f"+{change.lines_added} -{change.lines_removed}"
    return f"  {mark} {change.path}  ({counts})"


def run_list(args: argparse.Namespace) -> int:
    from engine.checkpoints import words
    from engine.checkpoints.store import CheckpointError

    store = _store(args)
    every = []
    try:
        every = store.checkpoints()
        now = store.current_tree() if every else ""
    except CheckpointError as exc:
        if not every:
            fail(str(exc), EXIT_REFUSED)
        print(f"warning: {exc}", file=sys.stderr)
        now = ""
    since = {c.id: store.changes(c.tree, now) if now else None for c in every}
    if args.json:
        print_json(
            {
                "project": str(store.project),
                "checkpoints": [
                    {**c.as_dict(), "changed_since": None if since[c.id] is None else len(since[c.id])}
                    for c in every
                ],
            }
        )
        return 0
    if not every:
        print(
            f"No checkpoints of {store.project} yet (one is taken before the agent's first change of a turn)."
        )
        return 0
    print(f"Checkpoints of {store.project}, newest first:")
    for c in every:
        turn = f"turn {c.turn}" if c.turn else "by hand"
        changed = "?" if since[c.id] is None else words.summary(since[c.id])
        print(f"  {c.id}  {words.when(c)}  {turn:<8}  since: {changed:<22}  {c.reason}")
    print("Compare: hws checkpoints diff ID   Restore: hws checkpoints restore ID [PATH]")
    return 0


def run_diff(args: argparse.Namespace) -> int:
    from engine.checkpoints import words
    from engine.checkpoints.store import CheckpointError

    store = _store(args)
    try:
        checkpoint = store.find(args.id)
        path = _path(store, args.path)
        changes = store.changes_since(checkpoint, path)
        patch = "" if args.stat else store.patch_since(checkpoint, path)
    except CheckpointError as exc:
        fail(str(exc), EXIT_REFUSED)
    if args.json:
        print_json(
            {
                "checkpoint": checkpoint.as_dict(),
                "path": path,
                "changes": [c.as_dict() for c in changes],
                **({} if args.stat else {"patch": patch}),
            }
        )
        return 0
    print(f"Since {checkpoint.id} ({words.label(checkpoint)}): {words.summary(changes)}")
    for change in changes:
        print(_change_line(change))
    if patch:
        sys.stdout.write(patch if patch.endswith("\n") else patch + "\n")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    from engine.checkpoints import words
    from engine.checkpoints.store import CheckpointError

    store = _store(args)
    try:
        checkpoint = store.find(args.id)
        path = _path(store, args.path)
        if args.dry_run:
            changes = store.changes(store.current_tree(), checkpoint.tree, path)  # as the restore sees it
            if args.json:
                print_json(
                    {
                        "checkpoint": checkpoint.as_dict(),
                        "path": path,
                        "changes": [c.as_dict() for c in changes],
                    }
                )
                return 0
            said = (
                f"Restoring {checkpoint.id} ({words.label(checkpoint)}) would change {words.summary(changes)}"
            )
            print(f"{said}:" if changes else f"{said}.")
            for change in changes:
                print(f"  {words.restore_line(change)}")
            return 0
        restored = store.restore(checkpoint, path)
    except CheckpointError as exc:
        fail(str(exc), EXIT_REFUSED)
    changes = list(restored.changes)
    if args.json:
        print_json(
            {
                "restored": restored.target.as_dict(),
                "undo": restored.undo.as_dict(),
                "path": restored.path,
                "changes": [c.as_dict() for c in changes],
                "removed": [c.path for c in changes if c.status == "removed"],
            }
        )
        return 0
    print(words.restored_sentence(restored, str(store.project)))
    for change in changes:
        print(f"  {words.restore_line(change)}")
    if changes:
        again = f" {restored.path}" if restored.path else ""
        print(f"To undo: hws checkpoints restore {restored.undo.id}{again}")
    return 0

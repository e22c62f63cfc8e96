"""`hws facts`: the local fact store (`memory_store.db`, shared with Hermes) from the shell.

Works whether or not the fact store is the active memory provider, so a store can be filled,
searched and tidied before it is switched on. Writes pass the same guard as the agent's.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json


def register(sub: Any) -> None:
    parser = sub.add_parser("facts", help="the local fact store (memory_store.db): list, search, add, remove")
    actions = parser.add_subparsers(dest="facts_command", metavar="ACTION")

    listing = actions.add_parser("list", help="facts by trust, highest first")
    listing.add_argument("--category", choices=("user_pref", "project", "tool", "general"))
    listing.add_argument("--limit", type=int, default=20)
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(handler=run_list)

    search = actions.add_parser("search", help="facts matching words, ranked by relevance x trust x recency")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--min-trust", type=float, default=None)
    search.add_argument("--json", action="store_true", help="print as JSON")
    search.set_defaults(handler=run_search)

    add = actions.add_parser("add", help="store a fact")
    add.add_argument("content")
    add.add_argument("--category", default="general", choices=("user_pref", "project", "tool", "general"))
    add.add_argument("--tags", default="", help="comma-separated tags")
    add.set_defaults(handler=run_add)

    remove = actions.add_parser("remove", help="delete a fact by its id")
    remove.add_argument("fact_id", type=int)
    remove.set_defaults(handler=run_remove)

    parser.set_defaults(handler=lambda args: (parser.print_help(), EXIT_USAGE)[1])


def _store(args: argparse.Namespace) -> Any:
    from engine.providers.facts import shared
    from engine.providers.facts.schema import FactStoreError

    home, config = open_home(args)
    try:
        return shared.acquire(home, config)
    except FactStoreError as exc:
        fail(str(exc), EXIT_REFUSED)


def _print_facts(facts: list[dict[str, Any]], as_json: bool, empty: str) -> None:
    if as_json:
        print_json(facts)
        return
    if not facts:
        print(empty)
    for fact in facts:
        score = f"  score {fact['score']:.3f}" if "score" in fact else ""
        tags = f"  [{fact['tags']}]" if fact.get("tags") else ""
        print(f"{fact['fact_id']:>6}  trust {fact['trust_score']:.2f}  {fact['category']:<9}{score}{tags}")
        print(f"        {fact['content']}")


def run_list(args: argparse.Namespace) -> int:
    from engine.providers.facts import shared

    store = _store(args)
    try:
        facts = store.list(args.category, 0.0, max(1, args.limit))
    finally:
        shared.release(store)
    _print_facts(facts, args.json, "The fact store is empty.")
    return EXIT_OK


def run_search(args: argparse.Namespace) -> int:
    from engine.providers.facts import shared

    store = _store(args)
    try:
        facts = store.search(args.query, min_trust=args.min_trust, limit=max(1, args.limit))
    finally:
        shared.release(store)
    _print_facts(facts, args.json, f"No fact matches {args.query!r}.")
    return EXIT_OK


def run_add(args: argparse.Namespace) -> int:
    from engine.providers.facts import shared
    from engine.providers.facts.schema import FactStoreError

    store = _store(args)
    try:
        fact_id, added = store.add(args.content, args.category, args.tags)
    except FactStoreError as exc:
        fail(str(exc), EXIT_REFUSED)
    finally:
        shared.release(store)
    print(f"Added fact {fact_id}." if added else f"Fact {fact_id} already says this; nothing added.")
    return EXIT_OK


def run_remove(args: argparse.Namespace) -> int:
    from engine.providers.facts import shared

    store = _store(args)
    try:
        removed = store.remove(args.fact_id)
    finally:
        shared.release(store)
    if not removed:
        fail(f"There is no fact {args.fact_id}; `hws facts list` shows the ids.", EXIT_REFUSED)
    print(f"Removed fact {args.fact_id}.")
    return EXIT_OK

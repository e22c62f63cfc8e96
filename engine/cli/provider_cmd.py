"""`hws provider`: the external memory provider: is it configured, does it answer, what has it seen.

(`hws memory provider status` is meant as an alias of `hws provider status`.)
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home, print_json


def register(sub: Any) -> None:
    add_provider_actions(
        sub.add_parser(
            "provider",
            help="the external memory provider (Honcho or the local fact store): setup, status, drift",
        )
    )


def add_provider_actions(parser: argparse.ArgumentParser) -> None:
    """The provider actions; also mounted as `hws memory provider ...`."""
    commands = parser.add_subparsers(dest="provider_command", metavar="ACTION")

    setup = commands.add_parser("setup", help="choose the external memory provider (asks, or --provider)")
    setup.add_argument(
        "--provider", metavar="NAME", help="set this provider without asking ('none' for none)"
    )
    setup.set_defaults(handler=run_setup)

    status = commands.add_parser("status", help="show what is configured and whether it answers")
    status.add_argument("--provider", metavar="NAME", help="check this provider even if it is not active")
    status.add_argument("--json", action="store_true", help="print as JSON")
    status.set_defaults(handler=run_status)

    identity = commands.add_parser("identity", help="SOUL.md and USER.md beside what the peers show")
    identity.add_argument("--provider", metavar="NAME", help="read this provider even if it is not active")
    identity.add_argument("--json", action="store_true", help="print as JSON")
    identity.set_defaults(handler=run_identity)

    ask = commands.add_parser("ask", help="ask the provider a question about the user (dialectic)")
    ask.add_argument("question", help='e.g. "what does the user care about?"')
    ask.add_argument("--provider", metavar="NAME", help="ask this provider even if it is not active")
    ask.set_defaults(handler=run_ask)

    parser.set_defaults(handler=lambda args: (parser.print_help(), EXIT_USAGE)[1])


def _host(args: argparse.Namespace) -> tuple[Any, Any, Any, str]:
    """(home, config, host or None, provider name) for the active or the named provider."""
    from engine.providers.base import ProviderConfigError
    from engine.providers.host import HostSettings, ProviderHost
    from engine.providers.registry import active_provider_name, create_provider

    home, config = open_home(args)
    try:
        name = (args.provider or "").strip().lower() or active_provider_name(config)
        if not name:
            return home, config, None, ""
        provider = create_provider(name, home, config)
    except ProviderConfigError as exc:
        fail(str(exc), EXIT_USAGE)
    return home, config, ProviderHost(provider, HostSettings.from_config(config)), name


def run_status(args: argparse.Namespace) -> int:
    _home, config, host, name = _host(args)
    if host is None:
        message = (
            "No external memory provider is active (`memory.provider` is empty); the built-in "
            "MEMORY.md and USER.md work alone. `hws memory provider setup` adds one: "
            "`holographic`, the local fact store, or `honcho`."
        )
        if args.json:
            print_json({"provider": "", "active": False, "message": message})
        else:
            print(message)
        return EXIT_OK
    from engine.providers.registry import ALIASES

    configured = str(config.memory.provider or "").strip().lower()
    active = name == ALIASES.get(configured, configured)
    try:
        probe = host.probe()
    finally:
        host.close()
    if args.json:
        print_json(
            {
                "provider": name,
                "active": active,
                "reachable": probe.reachable,
                "latency_ms": round(probe.latency_ms, 1),
                "error": probe.error,
                "settings": probe.settings,
                "details": probe.details,
            }
        )
        return EXIT_OK if probe.reachable else EXIT_REFUSED
    settings = probe.settings
    print(f"provider: {name} ({'active' if active else 'not active: memory.provider does not name it'})")
    for key in (
        "db_path",
        "search",
        "base_url",
        "workspace",
        "user_peer",
        "ai_peer",
        "api_key",
        "timeout_s",
        "sdk",
    ):
        if key in settings:
            print(f"  {key + ':':11} {settings[key]}")
    if not probe.reachable:
        print(f"status: does not answer: {probe.error}")
        print("Turns go on without it; check the URL, the key and that the server runs.")
        return EXIT_REFUSED
    print(f"status: answers ({probe.latency_ms:.1f} ms)")
    if "facts" in probe.details:
        print(
            f"  facts:      {probe.details['facts']:,} ({probe.details['with_vectors']:,} with HRR vectors)"
        )
    for role, peer in probe.details.get("peers", {}).items():
        if peer["exists"]:
            observe = "on" if peer["observe_me"] else "off" if peer["observe_me"] is False else "default"
            print(f"  {role} peer {peer['id']!r}: exists, observe_me {observe}")
        else:
            print(f"  {role} peer {peer['id']!r}: not created yet (the first session creates it)")
    queue = probe.details.get("queue")
    if queue:
        print(
            f"  deriver queue: {queue['pending']} pending, {queue['in_progress']} in progress, "
            f"{queue['completed']} done"
        )
    return EXIT_OK


def run_identity(args: argparse.Namespace) -> int:
    from engine.providers.identity import build_view, fetch_view

    home, config, host, _name = _host(args)
    if host is None:
        view = build_view(home, config, None, "", "No external memory provider is active.")
    else:
        try:
            view = fetch_view(home, config, host)
        finally:
            host.close()
    if args.json:
        print_json(view.as_dict())
        return EXIT_OK if view.available else EXIT_REFUSED
    if not view.available:
        print(f"The peers cannot be read: {view.error}")
    for pair in (view.agent, view.user):
        drift = pair.drift
        print(f"\n{pair.title}: {pair.file_label} beside the {pair.peer_label}")
        if drift.matches or drift.observed_only:
            print(f"  agreement: {drift.agreement:.0%} of observed claims match something stated")
        else:
            print("  nothing observed yet: the peer forms as the conversation goes on")
        for match in drift.conflicts:
            print(f"  ! drift     stated:   {match.stated.text}")
            print(f"              observed: {match.observed.text}")
        for match in drift.agreements:
            print(f"  = agrees    {match.observed.text}")
        for claim in drift.observed_only:
            print(f"  + observed  {claim.text}")
        if drift.stated_only:
            print(f"  - stated, not observed yet: {len(drift.stated_only)} claim(s)")
    return EXIT_OK if view.available else EXIT_REFUSED


def run_ask(args: argparse.Namespace) -> int:
    from engine.providers.base import ProviderError

    _home, config, host, name = _host(args)
    if host is None:
        fail("No external memory provider is active; set `memory.provider` first.", EXIT_REFUSED)
    try:
        answer = host.dialectic(args.question).result(timeout=float(config.honcho.timeout) * 2 + 1)
    except ProviderError as exc:
        fail(str(exc), EXIT_REFUSED)
    except TimeoutError:
        fail(f"{name} did not answer in time.", EXIT_REFUSED)
    finally:
        host.close()
    print(answer or f"{name} knows nothing that answers this yet.")
    return EXIT_OK


def run_setup(args: argparse.Namespace) -> int:
    """Hermes' `memory setup`: pick a provider (from --provider, or by number), write `memory.provider`."""
    from engine.config_edit import ConfigEditError, update_config
    from engine.providers.registry import ALIASES, PROVIDERS, provider_names

    home, _config = open_home(args)
    names = provider_names()
    choice = (args.provider or "").strip().lower()
    if not choice:
        print("External memory providers (on top of MEMORY.md and USER.md):")
        print("  0. none: the built-in files alone")
        for number, name in enumerate(names, start=1):
            print(f"  {number}. {name}: {PROVIDERS[name].summary}")
        try:
            answer = input(f"Choose 0-{len(names)}: ").strip().lower()
        except EOFError:
            fail("No choice was given; run again and type a number, or pass --provider NAME.", EXIT_USAGE)
        choice = names[int(answer) - 1] if answer.isdigit() and 0 < int(answer) <= len(names) else answer
        choice = "none" if answer == "0" else choice
    chosen = "" if choice in ("none", "off", "") else ALIASES.get(choice, choice)
    if chosen and chosen not in PROVIDERS:
        fail(f"{choice!r} is not a provider; choose one of: none, {', '.join(names)}.", EXIT_USAGE)
    try:
        update_config(home.root / "config.yaml", "memory", {"provider": chosen}, keep_comments=True)
    except ConfigEditError as exc:
        fail(str(exc), EXIT_REFUSED)
    if not chosen:
        print("memory.provider cleared: the built-in files work alone.")
    elif chosen == "holographic":
        print(
            f"memory.provider: holographic. Facts go to {home.root / 'memory_store.db'}; "
            "`hws memory provider status` checks it."
        )
    else:
        print(
            f"memory.provider: {chosen}. Set its `{chosen}.*` settings, "
            "then run `hws memory provider status`."
        )
    return EXIT_OK

"""`hws setup`: choose the model (provider, model, where the key comes from), write config.yaml, and
check the endpoint with a tiny request. Asks in the terminal for what the flags leave out."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, hws_command


def register(sub: Any) -> None:
    from engine.cli.model_setup import PROVIDER_IDS

    parser = sub.add_parser(
        "setup",
        help="choose your model: provider, model, key; writes config.yaml and checks the endpoint",
        description=(
            "Choose the model hws talks to and write it to config.yaml (comments and other settings are "
            "kept), then check the endpoint with one tiny request. Asks for anything the flags leave out "
            "when there is a terminal."
        ),
    )
    parser.add_argument("--provider", choices=PROVIDER_IDS, help="where the model runs")
    parser.add_argument("--model", help="the model name the endpoint knows (e.g. gpt-4.1-mini, qwen3:8b)")
    parser.add_argument("--base-url", help="the endpoint's /v1 URL (default: the provider's)")
    parser.add_argument(
        "--key-from",
        choices=("env", "dotenv", "none"),
        help="env: a variable you set yourself; dotenv: keep the key in the home's .env; none: no key",
    )
    parser.add_argument(
        "--key-env", metavar="NAME", help="the variable holding the key (default: the provider's)"
    )
    parser.add_argument(
        "--key-stdin", action="store_true", help="with --key-from dotenv: read the key from standard input"
    )
    parser.add_argument(
        "--no-check", action="store_true", help="write the settings without checking the endpoint"
    )
    parser.add_argument("--yes", action="store_true", help="never ask: fail on anything the flags leave out")
    parser.add_argument(
        "--add-fallback",
        action="store_true",
        help="add a provider to go on with when the main one fails (fallback_providers); the other flags "
        "describe it",
    )
    parser.set_defaults(handler=run)


class Asker:
    """Terminal questions; without a terminal (or with --yes) a missing answer is a usage error."""

    def __init__(self, interactive: bool) -> None:
        self.interactive = interactive

    def ask(self, question: str, default: str = "", flag: str = "") -> str:
        if not self.interactive:
            if default:
                return default
            fail(
                f"{question.rstrip(':? ')} is needed: pass {flag} (or run hws setup in a terminal).",
                EXIT_USAGE,
            )
        shown = f" [{default}]" if default else ""
        answer = input(f"{question}{shown}: ").strip()
        return answer or default

    def yes(self, question: str, default: bool = True) -> bool:
        if not self.interactive:
            return default
        hint = "Y/n" if default else "y/N"
        answer = input(f"{question} [{hint}] ").strip().lower()
        return default if not answer else answer.startswith("y")

    def secret(self, question: str) -> str:
        if not self.interactive:
            fail("The key is needed: pass --key-stdin and pipe it in, or use --key-from env.", EXIT_USAGE)
        return getpass.getpass(f"{question}: ").strip()


def run(args: argparse.Namespace) -> int:
    from engine.cli.model_setup import SetupError, check_endpoint, restore_config, write_choice
    from engine.config import load_config
    from engine.home import Home, HomeError

    try:
        home = Home.resolve(getattr(args, "home", None)).ensure()
    except HomeError as exc:
        fail(str(exc), EXIT_USAGE)
    command = hws_command(home)
    interactive = not args.yes and sys.stdin.isatty() and sys.stdout.isatty()
    asker = Asker(interactive)
    if args.add_fallback:
        return run_add_fallback(args, home, asker)
    choice = gather(args, asker)
    try:
        written = write_choice(home, choice)
    except SetupError as exc:
        fail(str(exc), EXIT_USAGE)
    kept = {
        "created": "created",
        "edited": "other settings and comments kept",
        "rewritten": "other settings kept",
    }
    print(f"Wrote the model settings to {written.config_path} ({kept[written.how]}).")
    if written.env_written:
        print(f"Kept {choice.key_env} in {home.env_file} (readable by you only).")
    config = load_config(home.root)
    if choice.key_source == "env" and not config.secret(choice.key_env):
        print(
            f"Note: {choice.key_env} is not set now; export it (or put it in {home.env_file}) "
            "before using hws."
        )
    if args.no_check:
        print(f"Not checked (--no-check); `{command} doctor` checks the endpoint.")
        return EXIT_OK
    print(f"Checking {choice.model} at {choice.resolved_base_url()} with a tiny request…", flush=True)
    result = check_endpoint(config)
    if result.ok:
        print(f"✓ {result.message}" + (f" It said: {result.reply!r}." if result.reply else ""))
        print(f"Start the workstation with: {command}")
        print(f"A provider to go on with when this one fails: `{command} setup --add-fallback`.")
        return EXIT_OK
    print(f"✗ {result.message}", file=sys.stderr)
    if interactive and not asker.yes("Keep these settings anyway?", default=True):
        restore_config(home, written.previous_text)
        print("The previous config.yaml is back.")
        return EXIT_REFUSED
    print(
        f"The settings are kept; once the endpoint answers, `{command} doctor` confirms it "
        f"(or run `{command} setup` again).",
        file=sys.stderr,
    )
    return EXIT_REFUSED


def run_add_fallback(args: argparse.Namespace, home: Any, asker: Asker) -> int:
    """`hws setup --add-fallback`: append the chosen provider to fallback_providers and check it."""
    from engine.cli.fallback_setup import add_fallback, check_fallback
    from engine.cli.model_setup import SetupError
    from engine.config import load_config

    if asker.interactive:
        print("A fallback provider: the session goes on with it when the main one fails.")
    choice = gather(args, asker)
    try:
        how, number = add_fallback(home, choice)
    except SetupError as exc:
        fail(str(exc), EXIT_USAGE)
    kept = {"created": "created", "edited": "comments kept", "rewritten": "other settings kept"}
    where = f"{choice.model} at {choice.resolved_base_url()}"
    print(f"Added {where} as fallback provider {number} in {home.config_file} ({kept[how]}).")
    if choice.key_value:
        print(f"Kept {choice.key_env} in {home.env_file} (readable by you only).")
    if args.no_check:
        return EXIT_OK
    print(f"Checking {where} with a tiny request…", flush=True)
    result = check_fallback(load_config(home.root), choice)
    if result.ok:
        print(f"✓ {result.message}")
        return EXIT_OK
    kept_anyway = "The entry is kept; it is tried only when the main model fails."
    print(f"✗ {result.message} {kept_anyway}", file=sys.stderr)
    return EXIT_REFUSED


def gather(args: argparse.Namespace, asker: Asker) -> Any:
    """The choice from the flags, asking for the rest."""
    from engine.cli.model_setup import (
        KEY_FROM_DOTENV,
        KEY_FROM_ENV,
        KEY_NONE,
        PROVIDERS,
        ModelChoice,
        provider,
    )

    provider_id = args.provider
    if provider_id is None:
        if not asker.interactive:
            fail(
                "Choose a provider with --provider (" + ", ".join(p.id for p in PROVIDERS) + ").", EXIT_USAGE
            )
        print("Where does your model run?")
        for number, item in enumerate(PROVIDERS, start=1):
            note = f"  — {item.note}" if item.note else ""
            print(f"  {number}. {item.label}{note}")
        while provider_id is None:
            answer = asker.ask("Number", "2")
            if answer.isdigit() and 1 <= int(answer) <= len(PROVIDERS):
                provider_id = PROVIDERS[int(answer) - 1].id
            else:
                print(f"Type a number from 1 to {len(PROVIDERS)}.")
    chosen = provider(provider_id)
    base_url = args.base_url or ""
    if not base_url and (provider_id == "custom" or (asker.interactive and not chosen.needs_key)):
        base_url = asker.ask("Base URL of the endpoint (ends in /v1)", chosen.base_url, "--base-url")
    model = args.model or asker.ask("Model name", chosen.example_model, "--model")
    key_from = args.key_from
    key_env = args.key_env or chosen.key_env
    if key_from is None:
        key_from = _ask_key_source(asker, chosen, key_env)
    if key_from != KEY_NONE and not key_env:
        key_env = asker.ask("Name of the variable that holds the key", "LLM_API_KEY", "--key-env")
    key_value = ""
    if key_from == KEY_FROM_DOTENV:
        if args.key_stdin:
            key_value = sys.stdin.readline().strip()
        else:
            key_value = asker.secret(f"Paste the key for {key_env} (not shown)")
    if key_from not in (KEY_FROM_ENV, KEY_FROM_DOTENV):
        key_env = ""
    return ModelChoice(provider_id, model, base_url, key_from, key_env, key_value)


def _ask_key_source(asker: Asker, chosen: Any, key_env: str) -> str:
    from engine.cli.model_setup import KEY_FROM_DOTENV, KEY_FROM_ENV, KEY_NONE

    if not chosen.needs_key and chosen.id != "custom":
        return KEY_NONE
    if chosen.id == "custom" and not asker.yes("Does the endpoint need an API key?", default=False):
        return KEY_NONE
    if not asker.interactive:
        return KEY_FROM_ENV
    if key_env and os.environ.get(key_env) and asker.yes(f"Use {key_env} from your environment?"):
        return KEY_FROM_ENV
    print("Where should hws find the key?")
    print(f"  1. An environment variable you set yourself ({key_env or 'you name it'})")
    print("  2. Paste it now; it is kept in the home's .env, readable by you only")
    answer = asker.ask("Number", "2")
    return KEY_FROM_ENV if answer == "1" else KEY_FROM_DOTENV

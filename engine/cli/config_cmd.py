"""`hws config`: show the effective settings and where they come from."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.common import open_home, print_json
from engine.config_schema import ROOT, SCHEMA


def register(sub: Any) -> None:
    parser = sub.add_parser("config", help="show the effective configuration")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.add_argument("--defaults", action="store_true", help="print the documented defaults")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    home, config = open_home(args)
    if args.defaults:
        rows = {
            (f"{section}.{key}" if section != ROOT else key): {"default": s.default, "doc": s.doc}
            for section, settings in SCHEMA.items()
            for key, s in settings.items()
        }
        if args.json:
            print_json(rows)
        else:
            for name, row in rows.items():
                print(f"{name} = {row['default']!r}  # {row['doc']}")
        return 0
    effective = {
        (name if name != ROOT else "root"): dict(section) for name, section in config.sections.items()
    }
    for section in effective.values():
        for key in ("api_key",):
            if section.get(key):
                section[key] = "***"
    if args.json:
        print_json({"home": str(home.root), "settings": effective})
    else:
        print(f"home: {home.root}")
        for name, values in effective.items():
            for key, value in values.items():
                print(f"{name}.{key} = {value!r}")
    return 0

"""Regenerate engine/assets/hermes_settings.yaml: the setting names Hermes Agent defines.

Run it with the interpreter of a virtual environment that has Hermes Agent installed, never in
hws's own (nothing of Hermes is imported or copied into hws; only the names are written):

    python3 -m venv /tmp/hermes-venv
    /tmp/hermes-venv/bin/pip install hermes-agent==0.19.0
    /tmp/hermes-venv/bin/python docs/hermes_settings.py > engine/assets/hermes_settings.yaml

The names come from two places: the keys of Hermes' default config (`hermes_cli.config.
DEFAULT_CONFIG`), down to `section.key`, and the settings its sources read without a default
there (`skills_config.get("creation_nudge_interval", 10)`, `cfg_get(cfg, "display", "x")`,
`config.get("memory", {}).get("x")`), found by three patterns over its `.py` files. hws validates
two levels deep, so `auxiliary.vision.model` is listed as `auxiliary.vision`.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path
from typing import Any

SECTION_GET = re.compile(r"\b([a-z][a-z0-9_]*?)_(?:config|cfg|section)\.get\(\s*[\"']([a-z][a-z0-9_]*)[\"']")
CHAINED_GET = re.compile(
    r"\.get\(\s*[\"']([a-z][a-z0-9_]*)[\"']\s*,\s*\{\s*\}\s*\)\s*\.get\(\s*[\"']([a-z][a-z0-9_]*)[\"']"
)
CFG_GET = re.compile(r"\bcfg_get\(\s*\w+\s*,\s*[\"']([a-z][a-z0-9_]*)[\"']\s*,\s*[\"']([a-z][a-z0-9_]*)[\"']")


def default_names(config: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for key, value in config.items():
        names.add(str(key))
        if isinstance(value, dict):
            names.update(f"{key}.{sub}" for sub in value)
    return names


def names_read(text: str, sections: set[str]) -> set[str]:
    """`section.key` pairs one source file reads, for sections Hermes' default config has."""
    names: set[str] = set()
    for pattern in (SECTION_GET, CHAINED_GET, CFG_GET):
        for section, key in pattern.findall(text):
            if section in sections:
                names.add(f"{section}.{key}")
    return names


def source_files(site: Path) -> list[Path]:
    """Hermes' own modules in site-packages: its top-level files and packages, not its tests."""
    files = sorted(site.glob("*.py"))
    for package in ("agent", "hermes_cli", "tools", "gateway", "cron", "plugins", "acp_adapter"):
        files += sorted(p for p in (site / package).rglob("*.py") if "tests" not in p.parts)
    return files


def main() -> int:
    import hermes_cli
    from hermes_cli.config import DEFAULT_CONFIG

    version = importlib.metadata.version("hermes-agent")
    site = Path(hermes_cli.__file__).resolve().parent.parent
    sections = {k for k, v in DEFAULT_CONFIG.items() if isinstance(v, dict)}
    names = default_names(DEFAULT_CONFIG)
    for path in source_files(site):
        names |= names_read(path.read_text(encoding="utf-8", errors="replace"), sections)
    out = sys.stdout
    out.write(f"# The setting names of Hermes Agent {version}, so hws keeps a Hermes home's own settings\n")
    out.write("# silently and warns only about names neither program knows (typos).\n")
    out.write("# Made by docs/hermes_settings.py (its docstring says how to run it): the keys of Hermes'\n")
    out.write("# default config down to `section.key`, and the settings its sources read outside it.\n")
    out.write(f"hermes_version: {version}\n")
    out.write("settings:\n")
    for name in sorted(names):
        out.write(f"  - {name}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

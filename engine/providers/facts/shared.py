"""One open `FactStore` per database file in a process, shared by the provider, the tools and the CLI.

SQLite takes one writer at a time; two connections of one process racing for the lock would wait on
each other, so everyone here uses the same connection (behind its lock), counted so that the last
`release` closes it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from engine.providers.facts.schema import FILENAME
from engine.providers.facts.store import FactSettings, FactStore

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

_guard = threading.Lock()
_open: dict[Path, tuple[FactStore, int]] = {}


def store_path(home: Home, config: Config) -> Path:
    """`facts.db_path` ($HERMES_HOME and ~ expanded), else `$HERMES_HOME/memory_store.db`."""
    raw = str(config.facts.db_path or "").strip()
    if not raw:
        return home.root / FILENAME
    for form in ("${HERMES_HOME}", "$HERMES_HOME"):
        raw = raw.replace(form, str(home.root))
    path = Path(raw).expanduser()
    return path if path.is_absolute() else home.root / path


def settings_from(config: Config) -> FactSettings:
    section = config.facts
    return FactSettings(
        default_trust=float(section.default_trust),
        min_trust=float(section.min_trust),
        helpful_delta=float(section.helpful_delta),
        unhelpful_delta=-abs(float(section.unhelpful_delta)),
        hrr_dim=int(section.hrr_dim),
        vectors=str(section.vectors),
        fts_weight=float(section.fts_weight),
        overlap_weight=float(section.overlap_weight),
        hrr_weight=float(section.hrr_weight),
        half_life_days=float(section.half_life_days),
        scan_limit=int(section.contradict_scan),
        or_cap=int(section.search_or_cap),
    )


def write_guard(home: Home) -> object:
    """The check every fact write passes: no secret of the home, nothing the threat scanner blocks."""
    from engine.threats.redact import home_redactor
    from engine.threats.scan import first_threat_message

    def refuse(text: str) -> str | None:
        secret = home_redactor(home.root).find(text)
        if secret is not None:
            return (
                f"This fact contains {secret}; secrets are never stored. Save where the secret lives "
                "(the variable's name or the file), not its value."
            )
        return first_threat_message(text, "strict")

    return refuse


def acquire(home: Home, config: Config) -> FactStore:
    """The open store of this home's fact file (opened on first use); pair with `release`."""
    path = store_path(home, config).resolve()
    with _guard:
        entry = _open.get(path)
        if entry is None:
            store = FactStore(path, settings_from(config), write_guard(home))  # type: ignore[arg-type]
            _open[path] = (store, 1)
            return store
        _open[path] = (entry[0], entry[1] + 1)
        return entry[0]


def release(store: FactStore) -> None:
    """Give back a store from `acquire`; the last one closes it (and re-bundles touched banks)."""
    with _guard:
        entry = _open.get(store.path)
        if entry is None or entry[0] is not store:
            store.close()
            return
        if entry[1] > 1:
            _open[store.path] = (store, entry[1] - 1)
            return
        del _open[store.path]
    store.close()

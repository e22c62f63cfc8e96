"""The hub's files, in Hermes' shapes: `.hub/lock.json` (`{version, installed: {name: entry}}`),
`.hub/taps.json` (`{taps: [{repo, path}]}`) and `.hub/audit.log` (one line per step:
`<UTC time> ACTION name source:trust verdict [extra]`).

Writes are atomic and locked; a damaged file is moved aside, never overwritten blind.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.storage.atomic import atomic_write_text, file_lock


def _read_json(path: Path, empty: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return empty
    except ValueError:  # kept aside for the person to look at
        os.replace(path, path.with_name(f"{path.name}.bak.{int(time.time())}"))
        return empty
    return data if isinstance(data, dict) else empty


def _update_json(path: Path, empty: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(path):
        data = _read_json(path, empty)
        result = change(data)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return result


class HubLock:
    """`.hub/lock.json`: each installed hub skill's source, identifier, trust, verdict and hash."""

    def __init__(self, hub: Path) -> None:
        self.path = hub / "lock.json"

    def entries(self) -> dict[str, dict[str, Any]]:
        installed = _read_json(self.path, {}).get("installed")
        if not isinstance(installed, dict):
            return {}
        return {name: entry for name, entry in installed.items() if isinstance(entry, dict)}

    def get(self, name: str) -> dict[str, Any] | None:
        return self.entries().get(name)

    def record(self, name: str, entry: dict[str, Any]) -> None:
        """Write `name`'s entry; the first install time survives updates."""

        def change(data: dict[str, Any]) -> None:
            data.setdefault("version", 1)
            installed = data.setdefault("installed", {})
            previous = installed.get(name) if isinstance(installed.get(name), dict) else {}
            stamp = utc_iso()
            installed[name] = {
                "scan_provenance": {},
                **entry,
                "installed_at": previous.get("installed_at", stamp),
                "updated_at": stamp,
            }

        _update_json(self.path, {}, change)

    def remove(self, name: str) -> None:
        _update_json(self.path, {}, lambda data: data.setdefault("installed", {}).pop(name, None))


class TapFile:
    """`.hub/taps.json`: the sources a person added, each `{repo, path}` as Hermes writes them (hws
    adds `kind` and `ref` where Hermes' two fields cannot say it; Hermes ignores them)."""

    def __init__(self, hub: Path) -> None:
        self.path = hub / "taps.json"

    def taps(self) -> list[dict[str, Any]]:
        taps = _read_json(self.path, {}).get("taps")
        return [t for t in taps if isinstance(t, dict) and t.get("repo")] if isinstance(taps, list) else []

    def add(self, tap: dict[str, Any]) -> bool:
        def change(data: dict[str, Any]) -> bool:
            taps = data.setdefault("taps", [])
            if any(isinstance(t, dict) and same_tap(t, tap) for t in taps):
                return False
            taps.append(tap)
            return True

        return bool(_update_json(self.path, {"taps": []}, change))

    def remove(self, repo: str, path: str | None = None) -> int:
        """Remove the taps of `repo` (only the one at `path` when given); how many were removed."""

        def change(data: dict[str, Any]) -> int:
            taps = [t for t in data.get("taps", []) if isinstance(t, dict)]
            kept = [
                t
                for t in taps
                if not (t.get("repo") == repo and (path is None or _path(t) == path.strip("/")))
            ]
            data["taps"] = kept
            return len(taps) - len(kept)

        return int(_update_json(self.path, {"taps": []}, change))


def _path(tap: dict[str, Any]) -> str:
    return str(tap.get("path") or "").strip("/")


def same_tap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("repo") == b.get("repo") and _path(a) == _path(b) and a.get("ref", "") == b.get("ref", "")


def utc_iso() -> str:
    return datetime.now(UTC).isoformat()


def audit(hub: Path, action: str, name: str, source: str, trust: str, verdict: str, extra: str = "") -> None:
    """One line of `.hub/audit.log` in Hermes' shape (INSTALL, BLOCKED, UPDATE, UNINSTALL)."""
    hub.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    parts = [stamp, action, name, f"{source}:{trust}", verdict] + ([extra] if extra else [])
    line = " ".join(p.replace("\n", " ") for p in parts) + "\n"
    with open(hub / "audit.log", "a", encoding="utf-8") as handle:
        handle.write(line)

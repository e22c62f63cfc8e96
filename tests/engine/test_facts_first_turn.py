"""A session's first turn with the fact store: served at once from the entity index, never waiting for
the ranked search; later turns get the ranked prefetch. The real provider host, store and SQLite file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from engine.config import load_config
from engine.home import Home
from engine.providers.facts.store import FactStore
from engine.providers.host import ProviderHost

ROOT = Path(__file__).resolve().parents[2]
WAIT = 10.0  # upper bound for background work; never a timing assertion


def _host(root: Path, **facts: object) -> ProviderHost:
    home = Home.resolve(root).ensure()
    config = {"memory": {"provider": "holographic"}, "external_memory": {"first_turn_wait": 30.0}}
    if facts:
        config["facts"] = facts
    home.config_file.write_text(yaml.safe_dump(config), encoding="utf-8")
    host = ProviderHost.from_config(home, load_config(home.root))
    assert host is not None
    return host


def _seed(root: Path) -> None:
    store = FactStore(root / "memory_store.db")
    store.add("Ada Lovelace reviews the release notes on Fridays", "project")
    store.add("Ada Lovelace prefers tea over coffee", "user_pref")
    store.add("Grace Hopper owns the nightly backup", "project")
    store.add("The nightly backup runs at the Berlin Cluster", "project")
    store.close()


def test_the_first_turn_names_an_entity_and_gets_its_facts_without_the_ranked_search(tmp_path: Path) -> None:
    _seed(tmp_path)
    host = _host(tmp_path)
    try:
        host.start("s1")
        layer = host.turn_layer_sync("What does Ada Lovelace like to drink?")
        assert layer is not None
        assert "Ada Lovelace prefers tea over coffee" in layer
        assert "Ada Lovelace reviews the release notes" in layer
        assert "Grace Hopper" not in layer, "only facts about the names the message mentions"
        assert {f.content for f in host.recalled} == {
            "Ada Lovelace reviews the release notes on Fridays",
            "Ada Lovelace prefers tea over coffee",
        }
        assert host.status().prefetches == 0, "the first turn ran no ranked prefetch"
        host.after_turn("who runs the nightly backup?")
        assert host.drain(WAIT)
        later = host.take_layer()
        assert later is not None and "Grace Hopper owns the nightly backup" in later
        assert host.status().prefetches == 1
    finally:
        host.close()


def test_a_first_turn_naming_nothing_goes_on_at_once_with_no_layer(tmp_path: Path) -> None:
    _seed(tmp_path)
    host = _host(tmp_path)
    try:
        host.start("s1")
        assert host.turn_layer_sync("who runs the nightly backup?") is None
        assert host.recalled == ()
        assert host.take_layer() is None, "the first turn did not wait: nothing is pending for it"
    finally:
        host.close()


def test_opening_a_session_with_the_fact_store_does_not_import_numpy(tmp_path: Path) -> None:
    """numpy costs a fresh process 100 ms or more; only the first vector (in the background) loads it."""
    _seed(tmp_path)
    code = (
        "import sys, yaml\n"
        "from engine.config import load_config\n"
        "from engine.home import Home\n"
        "from engine.providers.host import ProviderHost\n"
        "from engine.tools.offered import fact_store_active\n"
        "home = Home.resolve(sys.argv[1]).ensure()\n"
        "host = ProviderHost.from_config(home, load_config(home.root))\n"
        "host.start('s1')\n"
        "host.drain(10)\n"
        "layer = host.turn_layer_sync('What does Ada Lovelace like?')\n"
        "from engine.tools import fact_tools\n"
        "print('numpy' in sys.modules, 'tea' in (layer or ''), fact_store_active(load_config(home.root)))\n"
    )
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"memory": {"provider": "facts"}}), encoding="utf-8")
    probe = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={"HERMES_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["False", "True", "True"]

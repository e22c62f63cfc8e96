"""The bench report: running one suite replaces its figures in latest.json and keeps the others."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

import bench.__main__ as bench_main
from bench.common import Figure


def fake_suite(monkeypatch: pytest.MonkeyPatch, name: str, value: float) -> None:
    module = types.ModuleType(f"bench.bench_{name}")
    module.run = lambda options: [Figure(f"{name} figure", value, "ms", target="<= 1 ms", met=value <= 1)]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"bench.bench_{name}", module)


def test_one_suite_replaces_only_its_own_figures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bench_main, "RESULTS", tmp_path)
    fake_suite(monkeypatch, "alpha", 0.5)
    fake_suite(monkeypatch, "beta", 2.0)
    monkeypatch.setattr(bench_main, "modules", lambda only: [f"bench_{n}" for n in only])
    assert bench_main.main(["alpha", "beta"]) == 0
    fake_suite(monkeypatch, "alpha", 0.7)
    assert bench_main.main(["alpha"]) == 0
    figures = json.loads((tmp_path / "latest.json").read_text())["figures"]
    assert sorted((f["suite"], f["value"]) for f in figures) == [("alpha", 0.7), ("beta", 2.0)]
    assert all(f["measured"] for f in figures)


def test_an_unreadable_earlier_report_is_replaced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bench_main, "RESULTS", tmp_path)
    (tmp_path / "latest.json").write_text("{not json")
    fake_suite(monkeypatch, "alpha", 0.5)
    monkeypatch.setattr(bench_main, "modules", lambda only: ["bench_alpha"])
    assert bench_main.main(["alpha"]) == 0
    figures = json.loads((tmp_path / "latest.json").read_text())["figures"]
    assert [f["suite"] for f in figures] == ["alpha"]

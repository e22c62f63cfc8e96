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


def test_the_readme_table_lists_figures_with_a_target(tmp_path: Path) -> None:
    from bench import readme

    def fig(
        suite: str, name: str, value: float, target: str, met: bool | None, quick: bool
    ) -> dict[str, object]:
        return {"suite": suite, "name": name, "value": value, "unit": "ms", "target": target, "met": met,
                "baseline": "Hermes 2.5 ms" if suite == "sessions" else "",
                "measured": "2026-12-01T07:00:00Z", "quick": quick}  # fmt: skip

    report = {
        "figures": [
            fig("sessions", "search median", 0.8164, "<= 1.0 ms", True, False),
            fig("tui", "cold start", 1250.4, "< 600 ms", False, True),
            fig("tui", "frames", 3, "", None, False),
        ]
    }
    results = tmp_path / "latest.json"
    results.write_text(json.dumps(report))
    page = tmp_path / "README.md"
    page.write_text(f"# title\n\n{readme.START}\nold table\n{readme.END}\n\nafter\n")
    assert readme.main(["--write", str(page), "--results", str(results)]) == 0
    text = page.read_text()
    assert "old table" not in text and text.startswith("# title") and text.endswith("after\n")
    assert "| sessions | search median | 0.82 ms | <= 1.0 ms | Hermes 2.5 ms | ok | 2026-12-01 |" in text
    assert "| tui | cold start | 1,250 ms | < 600 ms |  | **miss** | 2026-12-01 (quick) |" in text
    assert "frames" not in text


def test_the_readme_table_needs_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import readme

    assert readme.main(["--results", str(tmp_path / "missing.json")]) == 1
    assert "run `python -m bench` first" in capsys.readouterr().err

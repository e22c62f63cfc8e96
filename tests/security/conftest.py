"""The security suites' figures (shares that asked, that were refused) printed at the end of the run.

A test records a line with `record_property("security figure", "...")`; the lines travel with the
test reports (so they survive pytest-xdist workers) and are printed once, after the summary.
"""

from __future__ import annotations

from typing import Any

FIGURE = "security figure"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    lines = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if key == FIGURE and getattr(report, "when", "call") == "call":
                    lines.append(str(value))
    if lines:
        terminalreporter.section("security figures")
        for line in sorted(set(lines)):
            terminalreporter.write_line(line)

"""Every test gets its own `$HERMES_HOME`; the real `~/.hermes` and real API keys are never seen."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from engine.home import Home
    from tests.support.tool_helpers import Bench

# Times the panes draw (journal rows, the compression timeline) come out the same in every zone.
os.environ["TZ"] = "UTC"
time.tzset()

CREDENTIAL_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="run the long fault and fuzz variants")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--slow"):
        os.environ["HWS_SLOW"] = "1"  # property-based suites read it to draw many more examples


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="long variant; run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    for name in list(os.environ):
        if name.endswith(CREDENTIAL_SUFFIXES):
            monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_shell_outlives_its_test() -> Iterator[None]:
    """A test that used the terminal without ending its session still leaves no shell behind."""
    yield
    local = sys.modules.get("engine.tools.backends.local")
    if local is not None:
        local.kill_leftovers()


@pytest.fixture
async def closing_benches() -> AsyncIterator[None]:
    """Ends the terminal of every tool bench the test made, while its event loop still runs."""
    yield
    from tests.support.tool_helpers import close_benches

    await close_benches()


@pytest.fixture
def home(hermes_home: Path) -> Home:
    """The test's `$HERMES_HOME` with its folders made (memories/, skills/, ...)."""
    from engine.home import Home

    return Home.resolve(hermes_home).ensure()


@pytest.fixture
def bench(tmp_path: Path, hermes_home: Path) -> Bench:
    """A tool bench with default settings: a project folder, the home, a context and the registry."""
    from tests.support.tool_helpers import make_bench

    return make_bench(tmp_path, hermes_home)


@pytest.fixture
def scripted(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """The scripted model server playing the test module's `SCENARIO` (YAML text), stopped afterwards."""
    from tests.support.tui_support import scripted_model

    with scripted_model(tmp_path, request.module.SCENARIO) as model:
        yield model

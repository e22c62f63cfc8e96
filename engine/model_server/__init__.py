"""A scripted OpenAI-compatible model server for the demo and the tests.

It stands apart from the engine's floors: nothing here imports the agent, and the agent never
imports this. See `engine.model_server.scenario` (and `docs/scenarios.md`) for the file format.

The names below load their submodule on first use (engine/lazy_names.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy_names import lazy_names

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "parsing": "builtin_scenarios load_scenario parse_scenario",
        "scenario": "Scenario ScenarioError",
        "server": "RecordedRequest ScriptedModelServer",
    },
)

if TYPE_CHECKING:
    from engine.model_server.parsing import builtin_scenarios as builtin_scenarios
    from engine.model_server.parsing import load_scenario as load_scenario
    from engine.model_server.parsing import parse_scenario as parse_scenario
    from engine.model_server.scenario import Scenario as Scenario
    from engine.model_server.scenario import ScenarioError as ScenarioError
    from engine.model_server.server import RecordedRequest as RecordedRequest
    from engine.model_server.server import ScriptedModelServer as ScriptedModelServer

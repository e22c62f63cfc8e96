"""A scripted OpenAI-compatible model server for the demo and the tests.

It stands apart from the engine's floors: nothing here imports the agent, and the agent never
imports this. See `engine.model_server.scenario` (and `docs/scenarios.md`) for the file format.
"""

from engine.model_server.parsing import builtin_scenarios, load_scenario, parse_scenario
from engine.model_server.scenario import Scenario, ScenarioError
from engine.model_server.server import RecordedRequest, ScriptedModelServer

__all__ = [
    "RecordedRequest",
    "Scenario",
    "ScenarioError",
    "ScriptedModelServer",
    "builtin_scenarios",
    "load_scenario",
    "parse_scenario",
]

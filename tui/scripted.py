"""The workstation on the scripted model server: no API key, no network, a scenario says the replies.

`start_scripted_model(scenario)` starts the server on 127.0.0.1 in this process and returns the
config overrides that point the agent (and the auxiliary model) at it. The demo builds on this.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ScriptedModelError(Exception):
    """The scenario cannot be loaded; the message is the sentence to print."""


@dataclass
class ScriptedModel:
    server: Any  # engine.model_server.server.ScriptedModelServer, running
    scenario: str
    model: str

    @property
    def overrides(self) -> dict[str, dict[str, Any]]:
        """Config settings for this run only: the main and auxiliary model answer from the server."""
        return {
            "model": {
                "default": self.model,
                "model": "",
                "base_url": self.server.base_url,
                "provider": "custom",
                "api_key": "",
                "api_key_env": "",
            },
            "auxiliary": {"model": "", "provider": "auto", "base_url": "", "api_key": "", "api_key_env": ""},
        }

    def note(self, home: Path, temporary: bool) -> str:
        where = f"a temporary home ({home}, removed when you quit)" if temporary else str(home)
        return (
            f"Scripted model: scenario {self.scenario!r} at {self.server.base_url} on {where}. "
            "Replies come from the scenario, not a real model."
        )


def start_scripted_model(scenario: str = "default") -> ScriptedModel:
    from engine.model_server.parsing import load_scenario
    from engine.model_server.scenario import ScenarioError
    from engine.model_server.server import ScriptedModelServer

    try:
        loaded = load_scenario(scenario)
    except ScenarioError as exc:
        raise ScriptedModelError(str(exc)) from exc
    server = ScriptedModelServer(loaded).start()
    return ScriptedModel(server, loaded.name or scenario, loaded.model or "scripted")

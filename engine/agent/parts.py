"""What every part of the agent shares: the home, the config, the models and the tools, fixed for its life."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from engine.config import Config
    from engine.home import Home
    from engine.llm.client import LLMClient
    from engine.tools.registry import ToolRegistry


@dataclass(frozen=True)
class AgentParts:
    """The agent's fixed parts, handed to each of its collaborators."""

    home: Home
    config: Config
    cwd: Path
    source: str
    yolo: bool
    exact_tokens: bool  # False: prompt sizes by estimate (no tokenizer load; `hws run`)
    client: LLMClient
    aux_client: LLMClient
    registry: ToolRegistry

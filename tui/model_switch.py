"""`/model [NAME] [--provider P]`: say which model and provider answer, or switch them mid-session.

A switch builds the agent again on the same session, so the conversation goes on; the provider's
prompt cache does not (it is kept per model and endpoint), and the notice says so. A model name alone
is kept in config.yaml as `model.default`; a provider is for this run only (config.yaml's endpoint
settings are the person's to change, with `hws setup`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui import messages

if TYPE_CHECKING:
    from tui.app import HwsApp

USAGE = "Use /model NAME, /model NAME --provider P or /model --provider P."


def parse_model_argument(argument: str) -> tuple[str, str, str]:
    """(model name, provider, problem) of `/model`'s argument; `problem` is a sentence or ""."""
    try:
        words = shlex.split(argument)
    except ValueError:
        return "", "", f"/model could not read {argument!r}. {USAGE}"
    name, provider = "", ""
    while words:
        word = words.pop(0)
        if word == "--provider":
            if not words:
                return "", "", f"--provider needs a name. {USAGE}"
            provider = words.pop(0)
        elif word.startswith("--provider="):
            provider = word.partition("=")[2]
        elif word.startswith("--") or name:
            return "", "", f"/model does not take {word!r}. {USAGE}"
        else:
            name = word
    return name, provider, ""


class ModelSwitch:
    """What `/model` does in the workstation."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.app.main_screen.post_message(messages.Notice(text, level, icon))

    def run(self, argument: str, waits_for_turn: Callable[[], bool]) -> None:
        """`/model ARGUMENT`; `waits_for_turn()` says (and is True) when a turn runs: a switch waits."""
        name, provider, problem = parse_model_argument(argument)
        if problem:
            self._say(problem, "warning", "!")
        elif not name and not provider:
            self.show()
        elif not waits_for_turn():
            self.switch(name, provider)

    def show(self) -> None:
        from tui.commands import no_model_text

        client = getattr(self.app.agent, "client", None) if self.app.agent is not None else None
        settings = getattr(client, "settings", None)
        if settings is None and not self.app.config.model_name:
            self._say(no_model_text(self.app.config_path_label), "info", "i")
            return
        if settings is not None:
            where = f"{settings.model} at {client.provider} ({settings.base_url})"  # type: ignore[union-attr]
            given_up = list(getattr(client, "given_up", []))
            if given_up:
                where += f", a fallback since {' and '.join(given_up)} failed"
        else:
            config = self.app.config
            where = f"{config.model_name} at {config.model.base_url or 'the provider default'}"
        self._say(
            f"Model: {where}. `/model NAME` switches to another model (the conversation goes on; the prompt "
            f"cache starts over) and keeps it in {self.app.config_path_label}; `--provider P` also moves "
            "to another provider for this run.",
            "info",
            "i",
        )

    def switch(self, name: str, provider: str) -> None:
        from engine.llm.provider_choice import ProviderNotFound, choose_provider
        from tui.agent_port import AgentBuilder

        factory = self.app.agent_factory
        if not isinstance(factory, AgentBuilder):
            self._say("/model NAME needs the workstation's own agent builder; restart with it.", "warning")
            return
        overrides = {k: dict(v) for k, v in (factory.overrides or {}).items()}
        model = overrides.setdefault("model", {})
        at = ""
        if provider:
            try:
                choice = choose_provider(self.app.config, provider)
            except ProviderNotFound as exc:
                self._say(str(exc), "warning", "!")
                return
            model.update(choice.settings)
            name = name or choice.model or self.app.config.model_name
            at = f" at {choice.label}"
        # The model's endpoint set for this run (--scripted, --provider) is not config.yaml's: the file stays.
        endpoint_of_this_run = any(key != "default" for key in model)
        model["default"] = name
        self.app.agent_factory = AgentBuilder(factory.workdir, overrides)
        resume = self.app.session_id or None
        self.app.main_screen.status.update_state(model=name)  # the reset's notice names it
        self.app.lifecycle.replace_agent("model_switch", resume, "model", detail=at)
        if provider:
            self.app.notify(
                f"{name}{at} for this run only: {self.app.config_path_label} keeps its own model settings "
                "(`hws setup` changes them)."
            )
        elif endpoint_of_this_run:
            self.app.notify(
                f"Model {name} for this run only: this run's model is not the one in "
                f"{self.app.config_path_label}, which is left as it is."
            )
        else:
            self.app.keep_setting("model", name)

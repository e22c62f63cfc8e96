"""The first-run setup screen: choose the model (provider, model, where the key comes from), write
config.yaml and check the endpoint with one tiny request.

The same engine code as `hws setup` (engine/cli/model_setup.py), so both write the same settings and
explain a failing endpoint with the same sentence. A failed check keeps the settings (the
endpoint may simply not be running yet) and offers to put the previous config.yaml back.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from engine.cli.model_setup import (
    KEY_FROM_DOTENV,
    KEY_FROM_ENV,
    KEY_KEEP,
    KEY_NONE,
    PROVIDERS,
    ModelChoice,
    SetupError,
    provider,
)
from tui.screens.closing import dismiss_once

if TYPE_CHECKING:
    from engine.config import Config
    from engine.home import Home

KEY_CHOICES = (
    ("an environment variable I set myself", KEY_FROM_ENV),
    ("paste it: keep it in the home's .env (readable by me only)", KEY_FROM_DOTENV),
    ("no key (a local server)", KEY_NONE),
)
KEEP_CHOICE = ("the key written in config.yaml (kept as it is)", KEY_KEEP)


class SetupScreen(ModalScreen["Config | None"]):
    """Dismisses with the new config once the settings are written (checked or not), else None.

    With a model configured (`current`), the form opens on its settings: saving it unchanged writes
    the same model, endpoint and key source, so a working setup is never replaced by an example.
    """

    CSS_PATH = "setup.tcss"
    AUTO_FOCUS = "#setup-provider"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "later", "later", id="setup_later", tooltip="Close; set the model later"),
    ]

    def __init__(
        self, home: Home, check_timeout: float | None = None, current: ModelChoice | None = None
    ) -> None:
        super().__init__()
        self.home = home
        self.current = current
        self.check_timeout = check_timeout
        self.written: Config | None = None
        self.previous_text: str | None = None
        self.last_check: Any = None

    def _title(self) -> str:
        where = f"[b]model:[/b] section of {self.home.config_file} (other settings and comments are kept)"
        if self.current is None:
            return (
                f"[b]Choose your model[/b] — no model is configured yet. This writes the {where} and "
                "checks the endpoint with one tiny request."
            )
        now = escape(f"{self.current.model} at {self.current.resolved_base_url()}")
        return (
            f"[b]Choose the model[/b] — now: {now}. Saving writes the {where} and checks the endpoint "
            "with one tiny request; Later changes nothing."
        )

    def compose(self) -> ComposeResult:
        current = self.current
        first = provider(current.provider) if current else PROVIDERS[1]  # OpenRouter: one key, many models
        self._provider_shown = first.id
        base_url = current.resolved_base_url() if current else first.base_url
        model = current.model if current else first.example_model
        key_env = current.key_env if current else first.key_env
        key_from = current.key_source if current else self._default_key_source(first.key_env)
        key_choices = [*KEY_CHOICES, KEEP_CHOICE] if key_from == KEY_KEEP else list(KEY_CHOICES)
        with Vertical(id="setup-frame"):
            yield Static(self._title(), id="setup-title")
            with VerticalScroll(id="setup-fields"):
                yield Label("Where does the model run?")
                yield Select(
                    [(_provider_label(p), p.id) for p in PROVIDERS],
                    value=first.id,
                    allow_blank=False,
                    compact=True,
                    id="setup-provider",
                )
                yield Label("Base URL (the endpoint's /v1)")
                yield Input(base_url, placeholder="https://…/v1", id="setup-base-url", compact=True)
                yield Label("Model name")
                yield Input(
                    model,
                    placeholder="the name the endpoint knows",
                    id="setup-model",
                    compact=True,
                )
                yield Label("Where does the key come from?")
                yield Select(
                    key_choices,
                    value=key_from,
                    allow_blank=False,
                    compact=True,
                    id="setup-key-from",
                )
                yield Label("Variable that holds the key")
                yield Input(key_env, placeholder="e.g. OPENROUTER_API_KEY", id="setup-key-env", compact=True)
                yield Label("The key (kept in .env only)", id="setup-key-value-label")
                yield Input(password=True, placeholder="paste the key", id="setup-key-value", compact=True)
            yield Static("", id="setup-result")
            with Horizontal(id="setup-buttons"):
                yield Button("Save and check", variant="primary", id="setup-save")
                yield Button("Put the old config back", id="setup-undo", disabled=True)
                yield Button("Later", id="setup-later")

    def on_mount(self) -> None:
        self._show_key_fields()
        self.call_after_refresh(self._fit_fields)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_fields)

    def _fit_fields(self) -> None:
        """The fields scroll inside what the frame has left after its title, result and buttons: on a
        short terminal (80x24) the frame cut off the key field and the buttons instead.

        It runs after a repaint, and a passed check closes the screen at once: by then (on a busy
        machine) its widgets may be gone, and there is nothing left to fit."""
        try:
            frame = self.query_one("#setup-frame")
            fields = self.query_one("#setup-fields", VerticalScroll)
        except NoMatches:
            return
        rest = sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in frame.children
            if child is not fields and child.display
        )
        room = int(self.size.height * 0.95) - frame.styles.gutter.height - rest
        fields.styles.max_height = max(3, min(26, room))

    @staticmethod
    def _default_key_source(key_env: str) -> str:
        if not key_env:
            return KEY_NONE
        return KEY_FROM_ENV if os.environ.get(key_env) else KEY_FROM_DOTENV

    # -- the form -------------------------------------------------------------------------------

    def _input(self, name: str) -> Input:
        return self.query_one(f"#setup-{name}", Input)

    @on(Select.Changed, "#setup-provider")
    def _provider_changed(self, event: Select.Changed) -> None:
        if str(event.value) == self._provider_shown:  # the value it opened on (or was already on)
            return
        self._provider_shown = str(event.value)
        chosen = provider(str(event.value))
        self._input("base-url").value = chosen.base_url
        self._input("model").value = chosen.example_model
        self._input("key-env").value = chosen.key_env
        self.query_one("#setup-key-from", Select).value = self._default_key_source(chosen.key_env)
        self._show_key_fields()

    @on(Select.Changed, "#setup-key-from")
    def _key_source_changed(self) -> None:
        self._show_key_fields()

    def _show_key_fields(self) -> None:
        source = self.query_one("#setup-key-from", Select).value
        self._input("key-env").disabled = source in (KEY_NONE, KEY_KEEP)
        pasted = source == KEY_FROM_DOTENV
        self._input("key-value").display = pasted
        self.query_one("#setup-key-value-label").display = pasted

    def choice(self) -> ModelChoice:
        """What the form says now."""
        source = str(self.query_one("#setup-key-from", Select).value)
        key_env = self._input("key-env").value.strip() if source in (KEY_FROM_ENV, KEY_FROM_DOTENV) else ""
        return ModelChoice(
            provider=str(self.query_one("#setup-provider", Select).value),
            model=self._input("model").value.strip(),
            base_url=self._input("base-url").value.strip(),
            key_source=source,
            key_env=key_env,
            key_value=self._input("key-value").value.strip() if source == KEY_FROM_DOTENV else "",
        )

    def _result(self, text: str, level: str) -> None:
        result = self.query_one("#setup-result", Static)
        result.update(text)
        result.set_classes(f"-{level}")
        self.call_after_refresh(self._fit_fields)  # a longer sentence leaves the fields less room

    # -- saving ---------------------------------------------------------------------------------

    @on(Button.Pressed, "#setup-save")
    @on(Input.Submitted)
    def _save_pressed(self) -> None:
        self.save_and_check()

    @work(exclusive=True, group="setup", exit_on_error=False, description="write config.yaml, check")
    async def save_and_check(self) -> None:
        from engine.cli.model_setup import check_endpoint_async, write_choice
        from engine.config import ConfigError, load_config

        choice = self.choice()
        try:
            written = await asyncio.to_thread(write_choice, self.home, choice)
            config = await asyncio.to_thread(load_config, self.home.root)
        except (SetupError, ConfigError) as exc:
            self._result(f"✗ Not saved: {exc}", "error")
            return
        if self.previous_text is None:
            self.previous_text = written.previous_text  # the config before the first save
        self.query_one("#setup-undo", Button).disabled = False
        self.written = config
        saved = f"Saved to {written.config_path}" + (
            f"; {choice.key_env} kept in .env" if written.env_written else ""
        )
        if choice.key_source == KEY_FROM_ENV and not config.secret(choice.key_env):
            saved += f". Note: {choice.key_env} is not set; export it before starting hws"
        self._result(f"{saved}. Checking {choice.model} at {choice.resolved_base_url()}…", "info")
        self.last_check = check = await check_endpoint_async(config, self.check_timeout)
        if check.ok:
            said = f" It said: {check.reply!r}." if check.reply else ""
            self._result(f"✓ {check.message}{said} Saved to {written.config_path}.", "ok")
            self.app.notify(f"✓ {check.message}{said}", timeout=8)
            dismiss_once(self, config)
            return
        self._result(
            f"✗ The endpoint check failed: {check.message}\nThe settings are saved; fix a field and save "
            "again, put the old config back, or close this (Later) and start the endpoint first.",
            "error",
        )

    @on(Button.Pressed, "#setup-undo")
    def _undo(self) -> None:
        from engine.cli.model_setup import restore_config

        restore_config(self.home, self.previous_text or "")
        self.written = None
        self.query_one("#setup-undo", Button).disabled = True
        self._result("The previous config.yaml is back; nothing of this form is kept.", "info")

    @on(Button.Pressed, "#setup-later")
    def _later_pressed(self) -> None:
        self.action_later()

    def action_later(self) -> None:
        dismiss_once(self, self.written)


def _provider_label(item: Any) -> str:
    return f"{item.label} — {item.note}" if item.note else item.label

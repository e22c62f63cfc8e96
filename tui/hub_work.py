"""The skills hub's work for the app: search the taps, read and scan a skill, install it.

The hub screen asks (its `*Requested` messages bubble to the app, which hands them here); the app
runs each request in a thread worker (git and HTTP block) and posts the answer back to the screen
that asked, whose handlers draw it. The screen itself never runs work.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.skills.hub.hub import SkillsHub
    from engine.skills.hub.model import HubSkill
    from tui.screens.hub import HubScreen


class HubWork:
    """One SkillsHub per open hub screen; the app's workers run its calls."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def open_screen(self) -> None:
        """`/hub` and `hws skills browse`: the hub screen; an install is said when it closes."""
        from engine.skills.hub.hub import SkillsHub
        from engine.skills.library import SkillLibrary
        from tui.screens.hub import HubScreen

        hub = SkillsHub(SkillLibrary(self.app.home, self.app.config))
        self.app.push_screen(HubScreen(hub), self._closed)

    def _closed(self, said: str | None) -> None:
        from tui import messages

        if said:
            self.app.main_screen.post_message(messages.Notice(said, "info", "·"))

    def _run(self, job: Any, group: str, description: str) -> None:
        self.app.run_worker(
            job, thread=True, exclusive=True, group=group, exit_on_error=False, description=description
        )

    def search(self, screen: HubScreen, text: str) -> None:
        self._run(partial(self._search, screen, text), "hub-search", "search the skills hub")

    def preview(self, screen: HubScreen, skill: HubSkill) -> None:
        self._run(partial(self._preview, screen, skill), "hub-view", "read a hub skill and scan it")

    def install(self, screen: HubScreen, skill: HubSkill) -> None:
        self._run(partial(self._install, screen, skill), "hub-install", "install a hub skill")

    # In the worker threads: engine calls, then one message to the screen (post_message is thread-safe).

    @staticmethod
    def _search(screen: HubScreen, text: str) -> None:
        hub: SkillsHub = screen.hub
        screen.post_message(screen.Found(hub.search(text)))

    @staticmethod
    def _preview(screen: HubScreen, skill: HubSkill) -> None:
        from engine.skills.hub.model import SourceError

        try:
            screen.post_message(screen.Viewed(screen.hub.preview(skill)))
        except SourceError as exc:
            screen.post_message(screen.Viewed(None, str(exc)))

    @staticmethod
    def _install(screen: HubScreen, skill: HubSkill) -> None:
        from engine.skills.hub.hub import HubError
        from engine.skills.hub.model import SourceError
        from engine.skills.install import InstallError

        try:
            outcome = screen.hub.install(skill)
        except (SourceError, HubError, InstallError) as exc:
            screen.post_message(screen.Installed(str(exc), False))
            return
        screen.post_message(screen.Installed(outcome.message, outcome.installed))

"""The identity view (F6): SOUL.md beside the AI peer, USER.md beside the user peer, with the drift.

The provider is asked in a thread worker (`engine.providers.identity.fetch_view`); the files are
shown either way. With no external provider configured, the view says so and how to enable one.
When SOUL.md changes on disk while the view is open, it is read again and marked as applying to
the next session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from tui import messages
from widgets.identity_view import IdentityPairView

if TYPE_CHECKING:
    from engine.providers.identity import IdentityView

NO_PROVIDER = (
    "No external memory provider is configured, so there is nothing observed to compare with. "
    "To enable Honcho, add to config.yaml:  memory: {provider: honcho}  and  honcho: {base_url: …}  "
    "(the API key goes in .env as HONCHO_API_KEY), then check it with `hws provider status`."
)

Fetch = Callable[[], "IdentityView"]


def fetch_from_engine(app: Any) -> IdentityView:
    """Ask the configured provider (the agent's own host when it has one); blocking, so run in a thread."""
    from engine.providers.host import ProviderHost
    from engine.providers.identity import build_view, fetch_view

    agent_host = getattr(app.agent, "host", None) if app.agent is not None else None
    if agent_host is not None:
        return fetch_view(app.home, app.config, agent_host)
    host = ProviderHost.from_config(app.home, app.config)
    if host is None:
        return build_view(app.home, app.config, None, "", "")
    try:
        return fetch_view(app.home, app.config, host)
    finally:
        host.close()


class IdentityScreen(Screen[None]):
    """Intent beside observation, for the agent and for the user."""

    CSS_PATH = "identity.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f6", "close", "back", id="identity_close", tooltip="Back to the workstation"),
        Binding("r", "refresh_view", "refresh", id="identity_refresh", tooltip="Ask the provider again"),
        Binding("e", "edit_soul", "edit SOUL.md", id="identity_edit", tooltip="Open SOUL.md in the editor"),
    ]

    def __init__(self, fetch: Fetch | None = None) -> None:
        super().__init__()
        self.fetch = fetch
        self.view: IdentityView | None = None
        self.soul_changed = False

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(
                ("▾ ", "dim"),
                ("F6", "bold"),
                " Identity ",
                ("— intent beside observation · r refresh · e edit SOUL.md · esc back", "dim"),
            ),
            id="identity-header",
        )
        yield Static("", id="identity-status")
        yield Static("", id="identity-soul-changed")
        yield IdentityPairView(id="identity-agent")
        yield IdentityPairView(id="identity-user")

    def on_mount(self) -> None:
        self.query_one("#identity-soul-changed").display = False
        self._status(Content.styled("Asking the provider…", "italic $text-muted"))
        self.action_refresh_view()

    def _status(self, content: Content | str) -> None:
        self.query_one("#identity-status", Static).update(content)

    def action_refresh_view(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, description="read the identity view")
    def _load(self) -> None:
        fetch = self.fetch or (lambda: fetch_from_engine(self.app))
        try:
            view = fetch()
        except Exception as exc:  # the view must open whatever the provider does
            self.app.call_from_thread(
                self._status, Content.styled(f"The identity view failed: {exc}", "$error")
            )
            return
        self.app.call_from_thread(self.show_view, view)

    def show_view(self, view: IdentityView) -> None:
        self.view = view
        if not view.provider:
            status = Content.styled(NO_PROVIDER, "$warning")
        elif not view.available:
            status = Content.assemble(
                (f"{view.provider} could not be read: ", "$error"),
                view.error,
                (" (the files are shown)", "dim"),
            )
        else:
            status = Content.assemble(
                (f"{view.provider}", "bold"), (" answered; drift is marked in red.", "dim")
            )
        self._status(status)
        empty = "No provider configured." if not view.provider else "The provider could not be read."
        self.query_one("#identity-agent", IdentityPairView).show(view.agent, view.available, empty)
        self.query_one("#identity-user", IdentityPairView).show(view.user, view.available, empty)

    def mark_soul_changed(self, changed: bool, key: str = "ctrl+n") -> None:
        """SOUL.md on disk differs from the running session's: say it applies to the next one."""
        self.soul_changed = changed
        banner = self.query_one("#identity-soul-changed", Static)
        banner.display = changed
        banner.update(
            Content.assemble(
                ("⟳ ", "$warning"),
                ("SOUL.md", "bold"),
                " changed on disk, applies to the next session · ",
                (key, "bold"),
                " start a new session now",
            )
        )

    def action_edit_soul(self) -> None:
        self.app.pop_screen()
        self.app.post_message(messages.FilesToEdit(("SOUL.md",)))

    def action_close(self) -> None:
        self.app.pop_screen()

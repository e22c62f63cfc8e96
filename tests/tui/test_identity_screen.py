"""The identity view (F6): SOUL.md beside the AI peer and USER.md beside the user peer, drift marked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.honcho_server import HonchoTestServer
from tests.support.live_files_support import wait_for, watching, write_in_place
from tests.support.provider_support import FAST
from tests.support.tui_support import MODEL_CONFIG, make_app
from tui.screens.identity import IdentityScreen
from widgets.identity_view import IdentityPairView


@pytest.fixture
def server() -> Iterator[HonchoTestServer]:
    with HonchoTestServer() as srv:
        yield srv


def text_of(screen: IdentityScreen, selector: str) -> str:
    return str(screen.query_one(selector).content)


def drift_of(screen: IdentityScreen, pair: str) -> str:
    return str(screen.query_one(f"#identity-{pair}", IdentityPairView).query_one(".pair-drift").content)


async def test_without_a_provider_the_view_says_how_to_enable_one() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f6")
        screen = app.screen
        assert isinstance(screen, IdentityScreen)
        assert await wait_for(pilot, lambda: screen.view is not None)
        status = text_of(screen, "#identity-status")
        assert (
            "No external memory provider is configured" in status and "memory: {provider: honcho}" in status
        )
        assert "Who you are" in str(screen.query_one("#identity-agent .pair-file").content)
        await pilot.press("escape")
        assert not isinstance(app.screen, IdentityScreen)


async def test_soul_beside_the_ai_peer_from_a_real_provider_shows_the_drift(server: HonchoTestServer) -> None:
    config = (
        MODEL_CONFIG
        + f"memory:\n  provider: honcho\nhoncho:\n  base_url: {server.url}\n"
        + "".join(f"  {k}: {v}\n" for k, v in {**FAST, "timeout": 5.0}.items())  # a loaded machine is slow
    )
    app = make_app(config)
    (app.home.memories / "USER.md").write_text("User prefers dark themes.", encoding="utf-8")
    from engine.providers.host import ProviderHost

    host = ProviderHost.from_config(app.home, app.config)
    assert host is not None
    try:  # a conversation the provider observed: the agent used emoji, the user asked for dark themes
        host.start("s1")
        host.mirror("user", "I prefer dark themes.")
        host.mirror("assistant", "Great question! 🚀 I will switch it.")
        assert host.drain(10.0)
    finally:
        host.close()
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.press("f6")
        screen = app.screen
        assert await wait_for(pilot, lambda: screen.view is not None, timeout=10.0)
        assert screen.view.available, screen.view.error
        assert "honcho answered" in text_of(screen, "#identity-status")
        agent_drift = drift_of(screen, "agent")
        assert "! stated" in agent_drift and "hermes uses emoji" in agent_drift
        assert "agree" in drift_of(screen, "user")
        peer = screen.query_one("#identity-agent .pair-peer").content
        assert any("error" in str(span.style) for span in peer.spans)  # the drift is marked in red


async def test_a_soul_edit_while_the_view_is_open_is_marked_for_the_next_session() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 36)) as pilot:
        await watching(pilot)
        await pilot.press("f6")
        screen = app.screen
        assert await wait_for(pilot, lambda: screen.view is not None)
        banner = screen.query_one("#identity-soul-changed")
        assert not banner.display
        write_in_place(app.home.soul, "# Who you are\n\nYou are terse.\n")
        assert await wait_for(pilot, lambda: banner.display)
        assert "applies to the next session" in str(banner.content)
        assert await wait_for(
            pilot, lambda: "You are terse." in str(screen.query_one("#identity-agent .pair-file").content)
        )

"""The identity view's data: SOUL.md beside the AI peer, USER.md beside the user peer, with the drift."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.home import default_soul_text
from engine.providers.identity import (
    build_view,
    compare,
    fetch_view,
    observed_claims,
    stated_claims,
    user_file_claims,
)
from tests.support import honcho_deriver
from tests.support.honcho_server import HonchoTestServer
from tests.support.provider_support import make_host, open_home, write_config

WAIT = 10.0


@pytest.fixture
def server() -> Iterator[HonchoTestServer]:
    with HonchoTestServer() as srv:
        yield srv


def test_bullets_under_an_avoid_heading_are_negated() -> None:
    claims = stated_claims(
        "# Style\n\n## What you avoid\n\n- Emoji and decorative headings.\n\n## Do\n\n- Be brief."
    )
    assert [(c.text, c.negated) for c in claims] == [
        ("Emoji and decorative headings.", True),
        ("Be brief.", False),
    ]


def test_soul_against_an_emoji_happy_ai_peer_shows_the_drift() -> None:
    said = [
        "Great question! This is a powerful, seamless approach 🚀.",
        "I always check the file before changing it.",
    ]
    observed = honcho_deriver.representation("hermes", said, 25)
    drift = compare(stated_claims(default_soul_text()), observed_claims(observed), 0.5)

    conflicts = {m.observed.text.split(" (")[0]: m.stated.text for m in drift.conflicts}
    assert "hermes uses emoji" in conflicts
    assert conflicts["hermes uses emoji"].startswith("Emoji, exclamation marks")
    assert any("hype words" in o for o in conflicts)
    assert any("flatters" in o for o in conflicts)
    assert [m.observed.text for m in drift.agreements] == ["hermes always checks the file before changing it"]
    assert drift.agreement < 0.5
    assert any("Answer the question that was asked" in c.text for c in drift.stated_only)


def test_user_md_entries_against_the_user_peer() -> None:
    user_md = "User prefers dark themes.\n§\nUser works in Go at a fintech.\nWants short answers."
    observed = honcho_deriver.representation("user", ["I prefer dark themes.", "I hate YAML."], 25)
    drift = compare(user_file_claims(user_md), observed_claims(observed), 0.5)
    assert [(m.stated.text, m.observed.text) for m in drift.agreements] == [
        ("User prefers dark themes.", "user prefers dark themes")
    ]
    assert "user hates YAML" in [c.text for c in drift.observed_only]
    assert {c.text for c in drift.stated_only} == {"User works in Go at a fintech.", "Wants short answers."}


def test_the_view_without_a_provider_still_shows_the_files(hermes_home: Path) -> None:
    home, config = open_home(hermes_home)
    view = build_view(home, config, None, "honcho", "Honcho is down.")
    assert not view.available and view.error == "Honcho is down."
    assert view.agent.file_text.startswith("# Who you are")
    assert view.agent.peer_text == "" and view.agent.drift.observed_only == ()
    assert view.user.file_text == ""


def test_fetch_view_reads_both_peers_through_the_host(server: HonchoTestServer, hermes_home: Path) -> None:
    host = make_host(hermes_home, server.url)
    (hermes_home / "memories" / "USER.md").write_text("User prefers dark themes.", encoding="utf-8")
    try:
        host.start("s1")
        host.mirror("user", "I prefer dark themes.")
        host.mirror("assistant", "Sure thing! 🎉 I will switch it.")
        assert host.drain(WAIT)
        home, config = open_home(hermes_home)
        view = fetch_view(home, config, host)
    finally:
        host.close()
    assert view.available, view.error
    assert "hermes uses emoji" in view.agent.peer_text
    assert any("emoji" in m.observed.text for m in view.agent.drift.conflicts)
    assert view.user.drift.agreements[0].observed.text == "user prefers dark themes"
    data = view.as_dict()
    assert data["agent"]["drift"]["conflicts"] and data["user"]["file"] == "USER.md"


def test_fetch_view_reports_a_provider_that_fails(server: HonchoTestServer, hermes_home: Path) -> None:
    write_config(hermes_home, server.url)
    host = make_host(hermes_home, server.url)
    server.fail(503)
    try:
        home, config = open_home(hermes_home)
        view = fetch_view(home, config, host)
    finally:
        host.close()
    assert not view.available and "HTTP 503" in view.error
    assert view.agent.file_text  # SOUL.md is still there to read


def test_a_soul_symlinked_out_of_the_home_is_not_read(hermes_home: Path, tmp_path: Path) -> None:
    home, config = open_home(hermes_home)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret", encoding="utf-8")
    home.soul.unlink()
    home.soul.symlink_to(outside)
    assert build_view(home, config, None).agent.file_text == ""


def test_the_same_fact_with_a_different_name_or_number_is_drift_not_agreement() -> None:
    user_md = "Name: Dana\n§\nLives in Lisbon.\n§\nUses Python 3.11 at work.\n§\nPrefers dark themes."
    observed = honcho_deriver.representation(
        "user",
        ["My name is Dana.", "I live in Porto now.", "I use Python 3.12 at work.", "I prefer dark themes."],
        25,
    )
    drift = compare(user_file_claims(user_md), observed_claims(observed), 0.5)
    conflicts = {m.stated.text: m.observed.text for m in drift.conflicts}
    assert conflicts == {
        "Lives in Lisbon.": "user lives in Porto now",
        "Uses Python 3.11 at work.": "user uses Python 3.12 at work",
    }
    assert {m.stated.text for m in drift.agreements} >= {"Prefers dark themes."}

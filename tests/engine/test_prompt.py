from __future__ import annotations

import datetime as dt

from engine.prompt.layers import LAYER_ORDER, assemble, guidance_text, make_layer, session_text


def test_layers_are_ordered_from_stable_to_volatile_and_empty_ones_dropped() -> None:
    layers = [
        make_layer("session", "Conversation started: today"),
        make_layer("memory", "MEMORY block"),
        make_layer("identity", "You are Hermes."),
        make_layer("skills", ""),
        make_layer("guidance", "# How you work here"),
    ]
    prompt = assemble(layers, 0.0)
    assert [ly.name for ly in prompt.layers] == ["identity", "guidance", "memory", "session"]
    expected = "You are Hermes.\n\n# How you work here\n\nMEMORY block\n\nConversation started: today"
    assert prompt.text == expected
    assert [n for n in LAYER_ORDER if prompt.layer(n)] == ["identity", "guidance", "memory", "session"]


def test_only_the_session_layer_is_outside_the_cached_prefix() -> None:
    prompt = assemble([make_layer("identity", "x"), make_layer("session", "y")], 0.0)
    assert prompt.layer("identity").cached and not prompt.layer("session").cached
    assert prompt.cached_tokens == prompt.layer("identity").tokens
    assert prompt.tokens == sum(ly.tokens for ly in prompt.layers)


def test_session_line_has_the_date_not_the_time() -> None:
    text = session_text("m1", "/w", dt.datetime(2026, 11, 30, 21, 7, 48))
    assert text == "Conversation started: Monday, November 30, 2026\nModel: m1\nWorking directory: /w"


def test_guidance_names_only_tools_that_exist() -> None:
    full = guidance_text(["memory", "skill_manage", "skill_view", "session_search", "terminal"])
    assert "target=user" in full and "skill_manage" in full and "session_search" in full
    bare = guidance_text(["read_file"])
    assert "skill_manage" not in bare and "session_search" not in bare and "memory" not in bare

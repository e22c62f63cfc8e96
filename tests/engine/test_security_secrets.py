"""Secrets: a key the model or a tool echoes never reaches the session DB, an export or a log file."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import load_config
from engine.home import Home
from engine.logs import setup_logging
from engine.sessions.store import SessionStore
from engine.threats.redact import REDACTED, Redactor, StreamRedactor, redact_shapes
from tests.support.fault_support import assert_clean_exit, files_containing, hws, write_scenario

# Shapes of real keys (made up, never valid) and one configured key with no recognisable shape.
SHAPED = {
    "openai": "sk-proj-Xy7Qw3Er5Ty8Ui0Op2As4Df6Gh8Jk0Lz",
    "openrouter": "sk-or-v1-4f9a0c2e7b1d3f5a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d",
    "anthropic": "sk-ant-api03-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0",
    "github": "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "aws": "AKIAQ7W3E5R7T9Y1U3I5",
    "slack": "xoxb-2048-4096-Ab3dE5gH7jK9",
}
CONFIGURED = "hws9f8e7d6c5b4a39281706zz"  # only recognisable because it is the configured key


@pytest.mark.parametrize("name", sorted(SHAPED))
def test_every_known_key_shape_is_redacted(name: str) -> None:
    key = SHAPED[name]
    text = f"the {name} key is {key}, keep it safe"
    out = redact_shapes(text)
    assert key not in out and REDACTED in out
    assert out.startswith(f"the {name} key is ") and out.endswith(", keep it safe")


def test_bearer_tokens_keep_the_word_and_lose_the_value() -> None:
    out = redact_shapes("curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://x.test")
    assert out == f"curl -H 'Authorization: Bearer {REDACTED}' https://x.test"


@pytest.mark.parametrize(
    "text",
    [
        "Use scikit-learn and task-runner; ask the sk-team.",
        "The AKIA prefix marks AWS access keys.",
        "bearer of bad news arrived",
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "ghp_ is GitHub's prefix for personal tokens",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor([CONFIGURED])(text) == text


def test_configured_keys_come_from_env_file_environment_and_config(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Home.resolve(hermes_home).ensure()
    (home.root / ".env").write_text(f"MY_SERVICE_API_KEY={CONFIGURED}\nDEBUG=1\nPORT=8080\n")
    (home.root / "config.yaml").write_text("model:\n  api_key: literal-model-key-000111\n")
    monkeypatch.setenv("CUSTOM_TOKEN", "environment-token-222333")
    redactor = Redactor.from_config(load_config(home.root))
    text = f"{CONFIGURED} literal-model-key-000111 environment-token-222333 port 8080 debug 1"
    assert redactor(text) == f"{REDACTED} {REDACTED} {REDACTED} port 8080 debug 1"


async def test_the_store_never_writes_a_key(hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    key = SHAPED["anthropic"]
    store = await SessionStore.open(home.state_db, redactor=Redactor([CONFIGURED]))
    try:
        session = await store.create_session(system_prompt=f"prompt {key}", title=f"about {CONFIGURED}")
        await store.append_message(session.id, "user", f"my key is {key}")
        await store.append_message(
            session.id,
            "assistant",
            None,
            tool_calls=[
                {"id": "c1", "function": {"name": "terminal", "arguments": f'{{"command": "echo {key}"}}'}}
            ],
            reasoning=f"the user gave {CONFIGURED}",
        )
        await store.append_message(
            session.id, "tool", f"{CONFIGURED}\n", tool_call_id="c1", tool_name="terminal"
        )
        await store.append_message(session.id, "user", [{"type": "text", "text": f"again {key}"}])
        messages = await store.get_messages(session.id)
        assert [m.role for m in messages] == ["user", "assistant", "tool", "user"]
        assert messages[0].text == f"my key is {REDACTED}"
        assert messages[3].text.endswith(f"again {REDACTED}")
        assert await store.search("key")  # still searchable, by its words
    finally:
        await store.close()
    for needle in (key.encode(), CONFIGURED.encode()):
        assert files_containing(home.root, needle) == []
    conn = sqlite3.connect(home.state_db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_log_files_are_redacted_traceback_included(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Home.resolve(hermes_home).ensure()
    (home.root / ".env").write_text(f"OPENROUTER_API_KEY={CONFIGURED}\n")
    handlers = setup_logging(home, load_config(home.root))
    log = logging.getLogger("engine.test")
    try:
        log.info("calling with key %s", CONFIGURED)
        try:
            raise RuntimeError(f"provider said: invalid key {SHAPED['openai']}")
        except RuntimeError:
            log.exception("turn failed")
    finally:
        for handler in handlers:
            handler.flush()
    agent_log = (home.logs / "agent.log").read_text()
    errors_log = (home.logs / "errors.log").read_text()
    assert "calling with key [REDACTED]" in agent_log
    assert "RuntimeError: provider said: invalid key [REDACTED]" in errors_log
    assert files_containing(home.logs, CONFIGURED.encode()) == []
    assert files_containing(home.logs, SHAPED["openai"].encode()) == []


ECHO_SCENARIO = """
rules:
  - when: {iteration: 1}
    reply:
      text: "Reading it."
      tool_calls: [{name: terminal, arguments: {command: "cat secret.txt"}}]
  - when: {after_tool: true}
    reply:
      text: "The file says {{last_tool_result}}; also KEY2"
      reasoning: "The user keeps KEY1 in a file."
"""


def test_a_key_echoed_by_a_tool_and_the_model_is_redacted_everywhere_it_is_kept(
    hermes_home: Path, tmp_path: Path
) -> None:
    """`hws run` end to end: the key is in .env, in a file a tool reads and in the model's reply."""
    home = Home.resolve(hermes_home).ensure()
    (home.root / ".env").write_text(f"OPENROUTER_API_KEY={CONFIGURED}\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "secret.txt").write_text(f"{CONFIGURED} and {SHAPED['github']}\n")
    text = ECHO_SCENARIO.replace("KEY1", CONFIGURED).replace("KEY2", SHAPED["anthropic"])
    scenario = write_scenario(tmp_path, text)
    done = hws(
        "run", "--scenario", str(scenario), "--json", "what is in secret.txt?", home=home.root, cwd=project
    )
    assert_clean_exit(done, (0,))
    session = [line for line in done.stdout.splitlines() if '"session_id"' in line][-1]
    session_id = session.split('"session_id": "')[1].split('"')[0]
    exported = hws("sessions", "export", session_id, home=home.root)
    assert_clean_exit(exported, (0,))
    assert "The file says" in exported.stdout and REDACTED in exported.stdout
    shown = hws("sessions", "show", session_id, "--json", home=home.root)
    plain = hws("run", "--scenario", str(scenario), "what is in secret.txt?", home=home.root, cwd=project)
    assert_clean_exit(plain, (0,))
    assert "The file says" in plain.stdout
    for secret in (CONFIGURED, SHAPED["github"], SHAPED["anthropic"]):
        assert secret not in done.stdout, "an event (what the transcript pane shows) held a key"
        assert secret not in plain.stdout + plain.stderr, "hws run printed a key"
        assert secret not in exported.stdout
        assert secret not in shown.stdout
        assert files_containing(home.root, secret.encode()) == [], secret


async def test_an_export_of_a_database_written_elsewhere_is_redacted(hermes_home: Path) -> None:
    """A state.db written by another tool (Hermes, or before redaction) may hold a key; exports never do."""
    home = Home.resolve(hermes_home).ensure()
    (home.root / ".env").write_text(f"OPENAI_API_KEY={CONFIGURED}\n")
    store = await SessionStore.open(home.state_db, redactor=Redactor())  # shapes only: misses CONFIGURED
    session = await store.create_session()
    await store.append_message(session.id, "user", f"raw {CONFIGURED}")
    await store.close()
    assert files_containing(home.root, CONFIGURED.encode(), skip=(".env",))  # it is in the file
    done = hws("sessions", "export", session.id, home=home.root)
    assert_clean_exit(done, (0,))
    assert "raw [REDACTED]" in done.stdout and CONFIGURED not in done.stdout


# ── streamed text: a key split across deltas ─────────────────────────────────────────────────────


def _streamed(redactor: Redactor, pieces: list[str]) -> str:
    stream = StreamRedactor(redactor)
    return "".join(stream.feed(piece) for piece in pieces) + stream.flush()


@pytest.mark.parametrize("secret", [*SHAPED.values(), CONFIGURED, "Bearer abcdefghijklmnop123456"])
def test_a_key_split_anywhere_across_deltas_is_redacted(secret: str) -> None:
    redactor = Redactor([CONFIGURED])
    text = f"Here it is: {secret} (keep it safe)."
    for cut in range(1, len(text)):
        for second in (cut + 1, cut + 3, len(text)):
            shown = _streamed(redactor, [text[:cut], text[cut:second], text[second:]])
            assert secret not in shown and REDACTED in shown, (cut, second, shown)
            assert shown.startswith("Here it is: ") and shown.endswith(" (keep it safe).")


def test_a_private_key_block_streamed_line_by_line_is_never_shown() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nq8Zs9\n-----END RSA PRIVATE KEY-----"
    stream = StreamRedactor(Redactor())
    shown = ""
    for line in ("The key:\n", *block.splitlines(keepends=True), "\ndone"):
        shown += stream.feed(line)
        assert "MIIEow" not in shown
    shown += stream.flush()
    assert "MIIEow" not in shown and shown.startswith("The key:\n") and shown.endswith("done")


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(max_size=60),
    after=st.text(max_size=60),
    which=st.sampled_from([*SHAPED.values(), CONFIGURED]),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_streamed_redaction_of_any_text(before: str, after: str, which: str, cuts: list[int]) -> None:
    redactor = Redactor([CONFIGURED])
    text = f"{before} {which} {after}"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    shown = _streamed(redactor, pieces)
    assert which not in shown
    plain = f"{before} {after}"
    if redactor(plain) == plain:  # text without a key goes through whole, however it is cut
        cut = len(plain) // 2
        assert _streamed(redactor, [plain[:cut], plain[cut:]]) == plain


# ── the transcript pane ──────────────────────────────────────────────────────────────────────────


async def test_a_key_the_user_pastes_is_not_shown_in_the_transcript_pane(hermes_home: Path) -> None:
    """The model still gets what was typed; the pane (and so the screen) shows it redacted."""
    from tests.support.tui_support import MODEL_CONFIG, ScriptedAgent, make_app, settle
    from widgets.transcript_blocks import UserBlock

    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    typed = f"use {SHAPED['openai']} for the call"
    async with app.run_test(size=(120, 40)) as pilot:
        app.send_to_agent(typed)
        await settle(pilot, app)
        shown = [block.text for block in app.main_screen.transcript.query(UserBlock)]
    assert shown == [f"use {REDACTED} for the call"]
    assert agent.received == [typed]

"""Provider faults from the scripted server, through `hws run` as a real process.

Each fault ends in a retried success or a clear one-line error, and the transcript (the session
database) holds every message of the turn, whole: the user's, and the final reply or nothing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.model_server.server import ScriptedModelServer
from tests.support.fault_support import assert_clean_exit, hws, integrity, stored_messages, write_config

FINAL = "All good: the kiln is at cone six and the glaze is ready."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("cone six\n")
    return folder


def serve(home: Path, rules: str, context_length: int = 128_000) -> ScriptedModelServer:
    body = textwrap.indent(textwrap.dedent(rules), "  ")
    text = f"model: scripted\ncontext_length: {context_length}\nrules:\n{body}"
    server = ScriptedModelServer.from_yaml(text).start()
    write_config(
        home,
        model={"base_url": server.base_url, "default": "scripted", "stale_timeout": 1.0},
        agent={"retry_base_delay": 0.05, "retry_max_delay": 0.5, "api_max_retries": 3},
        review={"enabled": False},
    )
    return server


@pytest.fixture
def server_for(hermes_home: Path) -> Iterator[object]:
    servers: list[ScriptedModelServer] = []

    def start(rules: str, context_length: int = 128_000) -> ScriptedModelServer:
        servers.append(serve(hermes_home, rules, context_length))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def turn(home: Path, project: Path, prompt: str = "how is the kiln?", *extra: str) -> tuple[int, str, str]:
    done = hws("run", *extra, prompt, home=home, cwd=project)
    assert_clean_exit(done)
    assert integrity(home / "state.db") == "ok"
    return done.returncode, done.stdout, done.stderr


def roles_and_text(home: Path) -> list[tuple[str, str]]:
    return [(role, content or "") for _, role, content in stored_messages(home / "state.db")]


RETRIED = {
    "429 with Retry-After": "{kind: rate_limit, retry_after: 0.2}",
    "500": "{kind: server_error, message: upstream exploded}",
    "stream cut mid-reply": "{kind: cut, after_chunks: 2}",
    "stream that stalls": "{kind: stall, seconds: 4, after_chunks: 1}",
    "connection dropped": "{kind: drop}",
    "error event mid-stream": "{kind: stream_error, after_chunks: 1, message: overloaded}",
}


@pytest.mark.parametrize("name", sorted(RETRIED))
def test_transient_faults_are_retried_to_a_whole_reply(
    name: str, server_for: object, hermes_home: Path, project: Path
) -> None:
    server = server_for(  # type: ignore[operator]
        f"""
        - {{times: 2, fault: {RETRIED[name]}, reply: {{text: "{FINAL}"}}}}
        - reply: {{text: "{FINAL}"}}
        """
    )
    code, out, err = turn(hermes_home, project)
    assert code == 0, err
    assert out.strip() == FINAL
    assert "retry" in err.lower() or "retrying" in err.lower(), err
    assert len(server.chat_requests) == 3
    assert roles_and_text(hermes_home) == [("user", "how is the kiln?"), ("assistant", FINAL)]


def test_a_fault_that_never_clears_is_one_clear_error_and_the_question_is_kept(
    server_for: object, hermes_home: Path, project: Path
) -> None:
    server_for("- fault: {kind: server_error, status: 503, message: down for maintenance}")  # type: ignore[operator]
    code, _, err = turn(hermes_home, project)
    assert code == 1
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and ("503" in errors[0] or "down for maintenance" in errors[0]), err
    assert roles_and_text(hermes_home) == [("user", "how is the kiln?")]
    # The next turn goes on in the same session once the provider is back.


@pytest.mark.parametrize(
    "call, expect",
    [
        ('{name: terminal, arguments_raw: "{\\"command\\": \\"cat notes.t"}', "not valid JSON"),
        ("{name: frobnicate, arguments: {level: 11}}", "Unknown tool"),
        ("{name: read_file, arguments: {}}", "path"),
    ],
    ids=["invalid JSON arguments", "unknown tool", "missing argument"],
)
def test_bad_tool_calls_become_an_error_the_model_sees_and_the_turn_goes_on(
    call: str, expect: str, server_for: object, hermes_home: Path, project: Path
) -> None:
    server = server_for(  # type: ignore[operator]
        f"""
        - when: {{iteration: 1}}
          reply: {{text: "Let me look.", tool_calls: [{call}]}}
        - when: {{after_tool: true}}
          reply: {{text: "{FINAL}"}}
        """
    )
    code, out, err = turn(hermes_home, project)
    assert code == 0, err
    assert out.strip().endswith(FINAL)
    tool_result = server.chat_requests[-1].messages[-1]
    assert tool_result["role"] == "tool" and expect in str(tool_result["content"]), tool_result
    roles = [role for role, _ in roles_and_text(hermes_home)]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert expect in roles_and_text(hermes_home)[2][1]


def test_an_empty_reply_is_an_answer_not_a_crash(
    server_for: object, hermes_home: Path, project: Path
) -> None:
    server_for("- fault: {kind: empty}")  # type: ignore[operator]
    code, _, err = turn(hermes_home, project)
    assert code in (0, 1)
    if code == 1:
        assert any(line.startswith("error:") for line in err.splitlines()), err
    messages = roles_and_text(hermes_home)
    assert messages[0] == ("user", "how is the kiln?")
    assert all(role in ("user", "assistant") for role, _ in messages)
    if code == 0:  # nothing on stdout, so stderr says why
        assert "note: the model's reply was empty; run it again, or rephrase" in err.splitlines(), err


def test_a_reply_larger_than_the_context_is_kept_whole_and_the_next_turn_still_fits(
    server_for: object, hermes_home: Path, project: Path
) -> None:
    huge = "The kiln log says the temperature held steady. " * 2400  # ~28k tokens in a 16k window
    server_for(  # type: ignore[operator]
        f"""
        - {{when: {{kind: flush}}, reply: {{text: "Nothing to save."}}}}
        - when: {{kind: summary}}
          reply: {{text: "## Goal\\nThe kiln.\\n## Progress\\nA long log was read."}}
        - when: {{turn: 1}}
          reply: {{text: "{huge.strip()}", chunk_size: 4000}}
        - reply: {{text: "{FINAL}"}}
        """,
        context_length=16_000,
    )
    code, out, err = turn(hermes_home, project, "read me the whole log")
    assert code == 0, err
    stored = roles_and_text(hermes_home)
    assert stored[-1] == ("assistant", huge.strip()), "the long reply was not stored whole"
    session = err.strip().splitlines()[-1].removeprefix("session ").strip()
    code, out, err = turn(hermes_home, project, "and now?", "--session", session)
    assert code in (0, 1), err
    if code == 0:
        assert out.strip().endswith(FINAL)
    else:
        assert any(line.startswith("error:") for line in err.splitlines()), err
    # Whatever happened, the long reply is still in the database, whole.
    assert ("assistant", huge.strip()) in roles_and_text(hermes_home)

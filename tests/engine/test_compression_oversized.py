"""A message larger than the window: compression that cannot save is not done, and an old one is cut.

The real agent, the real compressor and a real state.db against the scripted model server, which
reports a 32K window and refuses any request larger than that, as a provider does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from engine.compression.shorten import shorten_old_messages
from engine.events import (
    CompressionFinished,
    CompressionStarted,
    ConversationTooLarge,
    ErrorEvent,
    SessionChanged,
    TextDelta,
)
from tests.support.agent_support import make_rig, of_type, serve, stored_messages, text_of
from tests.support.compression_support import pasted_log, result, user
from tests.support.fault_support import assert_clean_exit, hws, write_scenario
from tests.support.fault_support import stored_messages as fault_stored_messages

WINDOW = 32_000
SCENARIO = f"""
context_length: {WINDOW}
rules:
  - name: too large
    when: {{prompt_tokens_over: {WINDOW}}}
    fault: {{kind: context_length, limit: {WINDOW}}}
  - name: summary
    when: {{kind: summary}}
    reply: {{text: "## Goal\\nThe user greeted the assistant several times, then pasted a log."}}
  - name: flush
    when: {{kind: flush}}
    reply: {{text: "Nothing to save."}}
  - reply: {{text: "Answer {{{{turn}}}}."}}
"""
PASTE = pasted_log(23_165)  # 2.0 MB, about 12 times the window


def request_tokens(request: object) -> int:
    """The request's size as the scripted server counts it (characters / 4)."""
    import json

    body = request.body  # type: ignore[attr-defined]
    return len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4


async def test_a_paste_larger_than_the_window_is_not_compressed_into_a_child_session_every_turn(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(SCENARIO)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        for n in range(4):
            await rig.turn(f"hello number {n}")
        first_session = rig.agent.session_id
        calls_before = len(server.chat_requests)

        sent_anyway = await rig.turn(PASTE)  # the person chose "send anyway"

        assert not of_type(sent_anyway, SessionChanged), "a compression that saves nothing split the session"
        finished = of_type(sent_anyway, CompressionFinished)
        assert finished and not any(f.compressed for f in finished)
        assert "min_savings" in finished[0].note
        notices = of_type(sent_anyway, ConversationTooLarge)
        assert len(notices) == 1 and not notices[0].fits and notices[0].window == WINDOW
        assert "latest message alone" in notices[0].message
        errors = of_type(sent_anyway, ErrorEvent)
        assert errors and "no longer fits" in errors[-1].message and "/new" in errors[-1].message
        assert len(server.chat_requests) == calls_before, "400K tokens were sent to a 32K model"
        assert rig.agent.session_id == first_session

        # The next message makes the paste an old one: compression cuts it, once, and the turn is answered.
        next_turn = await rig.turn("What went wrong in that log?")

        assert len(of_type(next_turn, SessionChanged)) == 1
        assert [f.compressed for f in of_type(next_turn, CompressionFinished)] == [True]
        done = of_type(next_turn, CompressionFinished)[0]
        assert done.tokens_after < WINDOW // 2 < done.tokens_before
        fits = of_type(next_turn, ConversationTooLarge)
        assert len(fits) == 1 and fits[0].fits
        assert text_of(next_turn).startswith("Answer")
        assert not of_type(next_turn, ErrorEvent)
        sent = server.chat_requests[-1]
        assert request_tokens(sent) < WINDOW
        cut = [m for m in sent.messages if "cut from the middle of this message" in str(m.get("content"))]
        assert len(cut) == 1 and "paste line 000000" in cut[0]["content"]
        assert "paste line 023164" in cut[0]["content"], "the end of the paste is kept too"

        # Nothing is lost: the parent session holds the paste whole.
        parent = [m.text for m in await stored_messages(rig.home, first_session)]
        assert PASTE in parent
    finally:
        await rig.agent.close()
        server.stop()


async def test_while_it_cannot_fit_each_turn_is_refused_quietly_without_calling_the_model(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(SCENARIO)
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        for n in range(4):
            await rig.turn(f"hello number {n}")
        calls = len(server.chat_requests)
        first = await rig.turn(PASTE)
        assert len(of_type(first, ConversationTooLarge)) == 1

        again = await rig.turn(PASTE)  # sent again (enter once more, or /retry)

        assert not of_type(again, CompressionStarted), "a compression that cannot help ran again"
        assert not of_type(again, ConversationTooLarge), "the notice came again"
        assert not of_type(again, SessionChanged)
        assert of_type(again, ErrorEvent) and not of_type(again, TextDelta)
        assert len(server.chat_requests) == calls, "the model was called with what cannot fit"
    finally:
        await rig.agent.close()
        server.stop()


def test_an_old_oversized_tool_result_or_user_message_keeps_its_start_and_end() -> None:
    log = pasted_log(5000)
    history = [
        user("Read the log."),
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function"}]},
        result("c1", log),
        user(log),
        {"role": "assistant", "content": "A long paste."},
        user(log),  # the latest user message: the request itself, never cut
    ]

    shortened, cut = shorten_old_messages(history, 2000, before=5)

    assert cut == 2
    for index in (2, 3):
        text = shortened[index]["content"]
        assert text.startswith("paste line 000000") and text.rstrip().endswith("queue depth 7")
        assert " lines · " in text and "cut from the middle of this message" in text
        assert len(text) < len(log) // 5
    assert shortened[5]["content"] == log and shortened[0] == history[0]
    assert history[2]["content"] == log, "the caller's history is not changed in place"


# --- hws run: refused before sending, and the three ways on -----------------------------------------

RUN_SCENARIO = f"""
context_length: {WINDOW}
rules:
  - when: {{prompt_tokens_over: {WINDOW}}}
    fault: {{kind: context_length, limit: {WINDOW}}}
  - when: {{user: "saved to `([^`]+)`"}}
    reply: {{text: "I will read {{{{match.1}}}}."}}
  - when: {{user: "cut from the middle of this message"}}
    reply: {{text: "I see the start and the end."}}
  - reply: {{text: "Got {{{{turn}}}}."}}
"""


def run_with_paste(home: Path, project: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    scenario = write_scenario(project.parent, RUN_SCENARIO)
    return hws(
        "run",
        "--scenario",
        str(scenario),
        "--cwd",
        str(project),
        *flags,
        "-",
        home=home,
        cwd=project,
        stdin=PASTE,
    )


def test_hws_run_refuses_a_message_larger_than_the_window_and_names_the_choices(
    hermes_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()

    done = run_with_paste(hermes_home, project)

    assert_clean_exit(done, (2,))
    assert "more than the model's context window of 32,000 tokens" in done.stderr
    assert "23,165 lines · 2.1 MB" in done.stderr
    for choice in ("--oversized file", "--oversized cut", "--oversized send"):
        assert choice in done.stderr
    assert stored_rows(hermes_home) == [], "nothing was sent nor stored"


def test_hws_run_oversized_file_saves_the_paste_in_the_project_and_sends_its_path(
    hermes_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()

    done = run_with_paste(hermes_home, project, "--oversized", "file")

    assert_clean_exit(done, (0,))
    saved = list((project / ".hws" / "pastes").glob("paste-*.txt"))
    assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == PASTE
    assert done.stdout.strip() == f"I will read .hws/pastes/{saved[0].name}."
    assert "saved to" in done.stderr


def test_hws_run_oversized_cut_sends_the_start_and_the_end(hermes_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()

    done = run_with_paste(hermes_home, project, "--oversized", "cut")

    assert_clean_exit(done, (0,))
    assert done.stdout.strip() == "I see the start and the end."
    sent = [text for _sid, role, text in stored_rows(hermes_home) if role == "user"]
    assert len(sent) == 1 and len(sent[0]) < len(PASTE) // 5
    assert sent[0].startswith("paste line 000000") and "paste line 023164" in sent[0]


def stored_rows(home: Path) -> list[tuple[str, str, str | None]]:
    return fault_stored_messages(home / "state.db")

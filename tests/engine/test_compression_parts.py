"""The compressor's model-free steps, each on its own: boundaries, pairs, pre-pass, summary message,
redaction, the summariser's input and prompt, and the deterministic fallback."""

from __future__ import annotations

import json

from engine.compression.boundaries import calls_in_longest_task, plan_boundaries
from engine.compression.fallback import fallback_summary
from engine.compression.messages import SUMMARY_FLAG, message_tokens
from engine.compression.middle_text import TranscriptLimits, render_message
from engine.compression.pairs import STUB_RESULT, sanitize_tool_pairs
from engine.compression.prepass import DUPLICATE_NOTE, PrepassLimits, describe_output, prepass
from engine.compression.redact import redact
from engine.compression.summarize import chunk_spans, clean_reply, summary_budget
from engine.compression.summary_message import (
    PREFIX,
    SUFFIX,
    TASKS_HEADING,
    place_summary,
    summary_text,
    take_previous_summaries,
    with_tasks,
    without_tasks,
)
from engine.compression.summary_prompt import SECTIONS, auto_focus, summary_prompt
from engine.compression.tail import cap_tail_outputs
from engine.config import defaults
from tests.support.compression_support import assistant, call, conversation, pairing_problems, result, user

SECTION = defaults().compression
LIMITS = PrepassLimits.from_config(SECTION)


def plan(messages, first=3, last=4, budget=0):
    return plan_boundaries(
        messages, message_tokens(messages), protect_first_n=first, protect_last_n=last, tail_budget=budget
    )


# --- boundaries -----------------------------------------------------------------------------------


def test_head_and_tail_are_protected_and_the_middle_is_what_is_left() -> None:
    messages = conversation(6)  # 24 messages
    p = plan(messages)
    # The third message is a tool result: the head ends after the call's results, not inside them.
    assert p.head_end == 3
    assert p.tail_start == 20
    assert len(p.middle(messages)) == 17


def test_the_head_grows_past_the_results_of_a_call_it_holds() -> None:
    messages = [
        user("go"),
        assistant("", call("a", "read_file", path="x"), call("b", "read_file", path="y")),
        result("a", "x"),
        result("b", "y"),
        *conversation(4),
    ]
    p = plan(messages, first=3)
    assert p.head_end == 4
    assert messages[p.head_end]["role"] == "user"


def test_the_tail_never_begins_with_a_result_whose_call_would_be_summarised() -> None:
    messages = conversation(6)
    for last in range(1, 12):
        p = plan(messages, last=last)
        assert messages[p.tail_start]["role"] != "tool", last
        kept = messages[: p.head_end] + messages[p.tail_start :]
        assert not pairing_problems(kept), last


def test_the_tail_takes_more_messages_while_they_fit_its_token_budget() -> None:
    messages = conversation(8)
    counts = message_tokens(messages)
    small = plan(messages, budget=0)
    large = plan(messages, budget=sum(counts[-10:]))
    assert large.tail_start < small.tail_start
    assert len(messages) - large.tail_start >= 10 - 1


def test_the_latest_user_message_is_kept_even_when_it_falls_in_the_middle() -> None:
    long_task = [user("Please migrate the whole database to Postgres 16.")]
    for n in range(10):
        long_task += [
            assistant("", call(f"c{n}", "terminal", command=f"step {n}")),
            result(f"c{n}", "ok " * 50),
        ]
    messages = conversation(3) + long_task + [assistant("Done with step 9.")]
    p = plan(messages, last=4)
    assert p.kept_user == 12
    assert all(m["content"] != long_task[0]["content"] for m in p.middle(messages))


def test_nothing_to_compress_when_head_and_tail_cover_everything() -> None:
    assert plan(conversation(1), first=3, last=4).empty
    assert not plan(conversation(4), first=3, last=4).empty


def test_a_task_of_many_calls_is_counted_between_user_messages() -> None:
    messages = [user("a"), assistant("", *[call(f"x{i}", "terminal", command="ls") for i in range(3)])]
    messages += [result(f"x{i}", "ok") for i in range(3)]
    messages += [
        assistant("", call("y", "terminal", command="pwd")),
        result("y", "/"),
        assistant("", call("z", "t")),
    ]
    messages += [result("z", ""), user("b"), assistant("", call("w", "t")), result("w", "")]
    assert calls_in_longest_task(messages) == 5


# --- tool pairs -----------------------------------------------------------------------------------


def test_orphaned_results_are_dropped_and_missing_results_stubbed() -> None:
    messages = [
        user("hi"),
        result("ghost", "a result whose call was summarised away"),
        assistant("", call("a", "terminal", command="ls"), call("b", "terminal", command="pwd")),
        result("a", "files"),
        user("and?"),
        result("b", "a result that arrives after another message"),
    ]
    fixed, dropped, stubbed = sanitize_tool_pairs(messages)
    assert dropped == 2 and stubbed == 1
    assert not pairing_problems(fixed)
    stub = next(m for m in fixed if m.get("tool_call_id") == "b")
    assert stub["content"] == STUB_RESULT
    assert [m["role"] for m in fixed] == ["user", "assistant", "tool", "tool", "user"]


# --- pre-pass -------------------------------------------------------------------------------------


def test_old_tool_outputs_become_one_line_descriptions_and_the_tail_is_untouched() -> None:
    messages = conversation(5)
    shrunk, report = prepass(messages, 4, 16, LIMITS)
    assert report.shrunk == 3
    assert shrunk[6]["content"] == "[terminal] ran `ls -la /srv/t/1` -> exit 0, 61 lines output"
    assert shrunk[:4] == messages[:4] and shrunk[16:] == messages[16:]
    assert messages[6]["content"].startswith("[exit 0;")  # the caller's list is not changed


def test_descriptions_say_what_each_tool_did() -> None:
    failed = "[exit 2; 0.2s]\nCollecting...\nFAILED tests/test_x.py::test_y - AssertionError\n"
    line = describe_output("terminal", {"command": "pytest -x"}, failed)
    assert line.startswith("[terminal] ran `pytest -x` -> exit 2, 3 lines output")
    assert "last line: FAILED tests/test_x.py::test_y" in line
    read = describe_output("read_file", {"path": "src/app.py", "offset": 40}, "x" * 3400)
    assert read == "[read_file] read src/app.py from line 40 (3,400 chars)"
    found = describe_output(
        "search_files", {"pattern": "TODO", "path": "src"}, "a.py:1: TODO\nb.py:2: TODO\n"
    )
    assert found == "[search_files] content search for 'TODO' in src -> 2 results"
    assert describe_output("weather", {"city": "Oslo"}, "sunny " * 50).startswith(
        "[weather] city=Oslo -> 300"
    )


def test_a_repeated_output_is_marked_as_a_duplicate_of_the_later_one() -> None:
    same = "identical output\n" * 30
    messages = [
        user("q"),
        assistant("", call("a", "read_file", path="notes.md")),
        result("a", same),
        assistant("", call("b", "read_file", path="notes.md")),
        result("b", same),
        user("and now?"),
        assistant("", call("c", "read_file", path="notes.md")),
        result("c", same),
    ]
    shrunk, report = prepass(messages, 1, 5, LIMITS)
    assert report.duplicates == 2
    assert DUPLICATE_NOTE in shrunk[2]["content"] and DUPLICATE_NOTE in shrunk[4]["content"]
    assert shrunk[7]["content"] == same


def test_long_call_arguments_are_cut_and_stay_valid_json() -> None:
    big = "x = 1\n" * 400
    messages = [
        user("write it"),
        assistant("", call("w", "write_file", path="a.py", content=big)),
        result("w", "ok"),
    ]
    shrunk, report = prepass(messages, 0, 3, LIMITS)
    assert report.args_cut == 1
    arguments = json.loads(shrunk[1]["tool_calls"][0]["function"]["arguments"])
    assert arguments["path"] == "a.py"
    assert len(arguments["content"]) < 600 and "chars cut" in arguments["content"]


def test_old_images_are_replaced_by_a_note() -> None:
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    messages = [user("hi"), {"role": "user", "content": [{"type": "text", "text": "look"}, picture]}]
    shrunk, report = prepass(messages, 0, 2, LIMITS)
    assert report.images_dropped == 1
    assert shrunk[1]["content"][1] == {"type": "text", "text": "[image attachment removed]"}


# --- the summary message --------------------------------------------------------------------------


def test_the_summary_is_marked_reference_only_and_ends_with_the_marker() -> None:
    text = summary_text("## Goal\nShip it.")
    assert text.startswith("[CONTEXT COMPACTION — REFERENCE ONLY]")
    assert "answer only the latest user message" in text
    assert text.endswith(SUFFIX)


def test_the_summary_role_avoids_a_neighbour_of_the_same_role() -> None:
    after_tool = place_summary(
        [user("a"), assistant("", call("x", "t")), result("x", "r")], "S", [assistant("b")]
    )
    assert after_tool[3]["role"] == "user" and after_tool[3][SUMMARY_FLAG]
    after_user = place_summary([user("a")], "S", [user("b")])
    assert after_user[1]["role"] == "assistant"
    collide = place_summary([user("a")], "S", [assistant("b")])
    assert len(collide) == 2 and collide[1]["role"] == "assistant"
    assert collide[1]["content"].startswith(PREFIX) and collide[1]["content"].endswith("b")
    first = place_summary([], "S", [user("b")])
    assert first[0]["role"] == "user" and first[0]["content"].endswith("b")


def test_a_previous_summary_is_found_again_even_when_merged_into_a_message() -> None:
    history = place_summary([user("a")], "## Goal\nOld goal.", [assistant("b")])
    history = [{k: v for k, v in m.items() if k != SUMMARY_FLAG} for m in history]  # as read back from the DB
    kept, previous = take_previous_summaries(history)
    assert previous == "## Goal\nOld goal."
    assert kept == [user("a"), assistant("b")]
    legacy, previous = take_previous_summaries([user("[CONTEXT SUMMARY]: the old way"), user("x")])
    assert previous == "the old way" and legacy == [user("x")]


def test_an_echoed_marker_is_removed_from_the_models_reply() -> None:
    assert clean_reply(summary_text("## Goal\nX")) == "## Goal\nX"
    assert clean_reply("  ## Goal\nY\n") == "## Goal\nY"


# --- redaction and the summariser's input ----------------------------------------------------------


def test_secrets_are_redacted_but_ordinary_text_is_not() -> None:
    text = (
        "key sk-proj-abcdefghijklmnopqrstuvwx and OPENAI_API_KEY=abc123def456 and "
        "postgres://bob:hunter22@db/x and Authorization: Bearer abcdefghijklmnop1234 "
        "and ghp_" + "a" * 36 + " MEDIA:/tmp/shot.png; the token budget is 2000, max_tokens: 512000"
    )
    out = redact(text)
    for secret in (
        "sk-proj-abc",
        "abc123def456",
        "hunter22",
        "abcdefghijklmnop1234",
        "ghp_aaaa",
        "/tmp/shot",
    ):
        assert secret not in out
    assert "OPENAI_API_KEY=[REDACTED]" in out and "[media attachment]" in out
    assert "the token budget is 2000, max_tokens: 512000" in out


def test_the_transcript_labels_roles_cuts_long_messages_and_redacts() -> None:
    limits = TranscriptLimits.from_config(SECTION)
    long = render_message(user("start " + "y" * 20_000 + " end"), limits)
    assert long.startswith("[USER]: start") and long.endswith(" end") and "...[truncated]..." in long
    assert len(long) < 6200
    calls = render_message(
        assistant("ok", call("k", "terminal", command="export TOKEN=abcdefghij12")), limits
    )
    assert calls.startswith("[ASSISTANT]: ok\n[Tool calls:\n  terminal(") and "abcdefghij12" not in calls
    assert render_message(result("k", "done"), limits) == "[TOOL RESULT k]: done"


# --- the prompt -----------------------------------------------------------------------------------


def test_the_first_prompt_asks_for_every_section_and_the_update_merges_the_previous_summary() -> None:
    first = summary_prompt("[USER]: hi", budget_tokens=2000)
    assert "Create a structured checkpoint summary" in first
    for name, _hint in SECTIONS:
        assert f"## {name}\n" in first
    assert "Target about 2,000 tokens" in first and "TURNS TO SUMMARIZE:\n[USER]: hi" in first
    update = summary_prompt("[USER]: more", budget_tokens=2000, previous="## Goal\nOld.", focus="the schema")
    assert "You are updating a context compaction summary" in update
    assert "PREVIOUS SUMMARY:\n## Goal\nOld." in update and update.endswith("NEW TURNS:\n[USER]: more")
    assert "FOCUS TOPIC: the schema" in update


def test_auto_focus_holds_the_latest_three_requests() -> None:
    messages = [user(f"request {n}") for n in range(5)]
    assert auto_focus(messages, 700) == "request 2 | request 3 | request 4"
    assert len(auto_focus(messages, 12)) == 12


def test_the_summary_budget_is_a_share_within_floor_and_ceiling() -> None:
    assert summary_budget(100_000, 1_000_000, SECTION) == 12_000
    assert summary_budget(30_000, 1_000_000, SECTION) == 6_000
    assert summary_budget(1_000, 1_000_000, SECTION) == 2_000
    assert summary_budget(50_000, 8_000, SECTION) == 400  # 5% of a small window wins over the floor


def test_chunks_of_the_middle_fit_the_summarisers_input() -> None:
    assert chunk_spans([5, 5, 5, 5], 10) == [(0, 2), (2, 4)]
    assert chunk_spans([50, 1, 1], 10) == [(0, 1), (1, 3)]
    assert chunk_spans([], 10) == []


# --- the model-free summary and the tail's last resort ---------------------------------------------


def test_the_fallback_summary_lists_goal_actions_files_and_turns_within_its_limit() -> None:
    middle = [
        *conversation(3),
        assistant("", call("r", "read_file", path="src/main.py")),
        result("r", "[read_file] read src/main.py from line 1 (3,400 chars)"),
        user("my password: hunter2222"),
    ]
    text = fallback_summary(middle, "## Goal\nEarlier goal.", max_chars=8000, turn_chars=700)
    assert text.startswith("(Built without a model")
    assert "## Earlier Summary\n## Goal\nEarlier goal." in text
    assert "## Goal\nQuestion 0 (t)" in text
    assert "1. terminal(command=ls -la /srv/t/0) — [exit 0; 0.1s]" in text
    assert "- src/main.py" in text and "hunter2222" not in text
    tight = fallback_summary(conversation(60), None, max_chars=2000, turn_chars=700)
    assert len(tight) <= 2000 and "omitted" in tight and "Answer 59" in tight


def test_the_tail_is_cut_only_when_it_alone_overflows() -> None:
    messages = [
        user("q"),
        assistant("", call("a", "read_file", path="big")),
        result("a", "z" * 40_000),
        user("next"),
    ]
    same, cut = cap_tail_outputs(messages, 0, 2000, 100_000)
    assert cut == 0 and same is messages
    smaller, cut = cap_tail_outputs(messages, 0, 2000, 1000)
    assert (
        cut == 1
        and len(smaller[2]["content"]) < 2200
        and "cut from 40,000 characters" in smaller[2]["content"]
    )


def test_the_live_task_list_is_appended_and_replaced_not_accumulated() -> None:
    summary = with_tasks("## Goal\nShip.\n## Critical Context\nv2", "1. [ ] write docs")
    assert summary.endswith(f"{TASKS_HEADING}\n1. [ ] write docs")
    assert without_tasks(summary) == "## Goal\nShip.\n## Critical Context\nv2"
    middle = "## Goal\nShip.\n\n" + TASKS_HEADING + "\n1. [x] old\n\n## Critical Context\nv2"
    assert without_tasks(middle) == "## Goal\nShip.\n\n## Critical Context\nv2"
    assert with_tasks("## Goal\nShip.", "") == "## Goal\nShip."

"""The turn loop: real turns through the scripted server, the real session store and the real tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.events import (
    ApprovalNeeded,
    ErrorEvent,
    MemoryWritten,
    ReasoningDelta,
    Status,
    TextDelta,
    ToolCalled,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    Usage,
    UserMessageStored,
)
from engine.storage.journal import Journal
from tests.support.agent_support import (
    make_rig,
    of_type,
    serve,
    stored_messages,
    stored_session,
    text_of,
    write_config,
)


async def test_a_plain_answer_streams_is_recorded_and_counted(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(
        """
        rules:
          - reply: {reasoning: "Greet back.", text: "Hello, Ada! Nice to meet you.", chunk_size: 5,
                    usage: {prompt_tokens: 900, completion_tokens: 12, cached_tokens: 640}}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("Hi, I'm Ada.")
        sid = rig.agent.session_id
        assert isinstance(events[0], TurnStarted) and events[0].text == "Hi, I'm Ada." and events[0].turn == 1
        assert isinstance(events[-1], TurnFinished) and events[-1].text == "Hello, Ada! Nice to meet you."
        assert text_of(events) == "Hello, Ada! Nice to meet you."
        assert len(of_type(events, TextDelta)) > 1, "the answer streams in pieces"
        assert "".join(e.text for e in of_type(events, ReasoningDelta)) == "Greet back."
        kinds = [type(e).__name__ for e in events if isinstance(e, (TextDelta, ReasoningDelta))]
        # All the reasoning is shown before the answer (a held-back tail after it read as a stray thought).
        assert kinds == sorted(kinds, key=lambda k: k != "ReasoningDelta"), kinds
        assert {e.session_id for e in events} == {sid}
        usage = of_type(events, Usage)[0]
        assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (900, 12, 640)
    finally:
        await rig.agent.close()
        server.stop()
    messages = await stored_messages(rig.home, sid)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "Hi, I'm Ada."),
        ("assistant", "Hello, Ada! Nice to meet you."),
    ]
    assert messages[1].reasoning == "Greet back." and messages[1].finish_reason == "stop"
    # The id state.db gave the user's message reaches the UI, right after the turn starts.
    stored = events[1]
    assert isinstance(stored, UserMessageStored) and (stored.session_id, stored.message_id) == (
        sid,
        messages[0].id,
    )
    session = await stored_session(rig.home, sid)
    assert (session.input_tokens, session.output_tokens, session.cache_read_tokens) == (900, 12, 640)
    assert session.api_call_count == 1 and session.end_reason == "cli_close"


async def test_parallel_tool_calls_run_at_the_same_time(hermes_home: Path, tmp_path: Path) -> None:
    # Each command waits for the other's file: both succeed only when they run concurrently.
    wait_for = (
        "touch {me}; for i in $(seq 100); do [ -f {other} ] && echo met {me} && exit 0; sleep 0.05; "
        "done; exit 1"
    )
    server = serve(
        f"""
        rules:
          - when: {{iteration: 1}}
            reply:
              text: "Running both."
              tool_calls:
                - {{name: terminal, arguments: {{command: "{wait_for.format(me="a", other="b")}"}}}}
                - {{name: terminal, arguments: {{command: "{wait_for.format(me="b", other="a")}"}}}}
          - when: {{after_tool: true}}
            reply: {{text: "Both finished."}}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("run both")
    finally:
        await rig.agent.close()
        server.stop()
    called = of_type(events, ToolCalled)
    finished = of_type(events, ToolFinished)
    assert [c.name for c in called] == ["terminal", "terminal"]
    assert all(f.ok for f in finished), [f.result for f in finished]
    assert events.index(called[1]) < events.index(finished[0]), "both calls start before either ends"
    assert events[-1].text == "Both finished." and events[-1].tool_calls == 2
    second = server.chat_requests[1].messages
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second[-2:]] == [c.call_id for c in called], "results in call order"


async def test_a_memory_write_reaches_disk_but_not_the_prompt_of_this_session(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {user: "(?i)remember (.+)", iteration: 1}
            reply:
              tool_calls:
                - {name: memory, arguments: {action: add, target: user, content: "{{match.1}}"}}
          - when: {after_tool: true}
            reply: {text: "Saved."}
          - reply: {text: "You said {{last_user}}."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        first = await rig.turn("remember The user keeps bees.")
        second = await rig.turn("what now?")
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
    written = of_type(first, MemoryWritten)
    assert len(written) == 1 and written[0].target == "user" and written[0].who == "agent"
    assert written[0].journal_id and written[0].session_id == sid
    entry = Journal(rig.home).get(written[0].journal_id)  # the entry the store wrote, not a guess
    assert (entry.target, entry.action, entry.who) == ("user", written[0].action, "agent")
    user_file = rig.home.memories / "USER.md"
    assert user_file.read_text(encoding="utf-8") == "The user keeps bees."
    prompts = [r.system_prompt for r in server.chat_requests]
    assert len(prompts) == 3 and prompts[0] is not None
    assert all(p == prompts[0] for p in prompts), "byte-identical system prompt on every call"
    assert "keeps bees" not in prompts[0], "the frozen snapshot does not see the mid-session write"
    assert second[-1].text == "You said what now?."

    # A new session is built from disk again, so the fact is in its prompt.
    rig2 = make_rig(server, hermes_home, tmp_path)
    try:
        await rig2.turn("hello again")
    finally:
        await rig2.agent.close()
        server.stop()
    assert "The user keeps bees." in (server.chat_requests[-1].system_prompt or "")
    assert rig2.agent.session_id != sid


async def test_a_resumed_session_sends_the_prompt_it_was_started_with(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {user: "remember", iteration: 1}
            reply:
              tool_calls:
                - {name: memory, arguments: {action: add, target: memory, content: "Box runs Debian."}}
          - reply: {text: "ok {{turn}}"}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        await rig.turn("remember the OS")
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
    resumed = make_rig(server, hermes_home, tmp_path, resume=sid[:12])
    try:
        events = await resumed.turn("and now?")
    finally:
        await resumed.agent.close()
        server.stop()
    assert resumed.agent.session_id == sid
    assert events[0].turn == 2 and events[-1].text == "ok 2"
    assert len(server.chat_requests) == 3
    prompts = {r.system_prompt for r in server.chat_requests}
    assert len(prompts) == 1, "the stored prompt is resumed byte for byte"
    last = server.chat_requests[-1].messages
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "user"]


async def test_approval_is_asked_through_the_stream_and_a_denial_is_final(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: terminal, arguments: {command: "rm -rf build"}}]}
          - when: {after_tool: true}
            reply: {text: "Understood: {{last_tool_result}}"}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    (rig.cwd / "build").mkdir()
    (rig.cwd / "build" / "keep.txt").write_text("precious")
    events = []
    try:
        async for event in rig.agent.run_turn("clean the build"):
            events.append(event)
            if isinstance(event, ApprovalNeeded):
                assert rig.agent.answer_approval(event.request_id, "deny")
    finally:
        await rig.agent.close()
        server.stop()
    asked = of_type(events, ApprovalNeeded)
    assert len(asked) == 1 and asked[0].command == "rm -rf build" and asked[0].tool == "terminal"
    finished = of_type(events, ToolFinished)[0]
    assert not finished.ok and "declined" in finished.result
    assert (rig.cwd / "build" / "keep.txt").read_text() == "precious"
    assert events[-1].text.startswith("Understood:")


async def test_yolo_runs_destructive_commands_without_asking(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: terminal, arguments: {command: "rm -rf build"}}]}
          - reply: {text: "Removed."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path, yolo=True)
    (rig.cwd / "build").mkdir()
    try:
        events = await rig.turn("clean the build")
    finally:
        await rig.agent.close()
        server.stop()
    assert not of_type(events, ApprovalNeeded) and not (rig.cwd / "build").exists()


async def test_provider_errors_are_retried_with_status_lines(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(
        """
        rules:
          - {times: 1, fault: {kind: rate_limit, retry_after: 0}}
          - {times: 1, fault: {kind: server_error, message: "upstream hiccup"}}
          - reply: {text: "Third time lucky."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("hello")
    finally:
        await rig.agent.close()
        server.stop()
    statuses = of_type(events, Status)
    assert len(statuses) == 2 and all(s.level == "warning" for s in statuses)
    assert "429" in statuses[0].text and "500" in statuses[1].text and "retrying (1/3)" in statuses[0].text
    assert events[-1].text == "Third time lucky." and not of_type(events, ErrorEvent)
    assert "void" not in statuses[0].text, "nothing had been shown yet"


async def test_a_stream_cut_midway_is_retried_and_the_shown_text_declared_void(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - times: 1
            fault: {kind: cut, after_chunks: 2}
            reply: {text: "Partial words that vanish", chunk_size: 4}
          - reply: {text: "Whole answer."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("hello")
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    status = of_type(events, Status)
    assert len(status) == 1 and "starts over" in status[0].text
    assert events[-1].text == "Whole answer."
    messages = await stored_messages(rig.home, sid)
    assert [m.text for m in messages] == ["hello", "Whole answer."], "only the whole reply is recorded"


async def test_a_final_provider_error_is_an_error_event_and_the_transcript_stays(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {turn: 1}
            reply: {text: "First answer."}
          - fault: {kind: server_error, message: "the model is on fire"}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        await rig.turn("one")
        events = await rig.turn("two")
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    errors = of_type(events, ErrorEvent)
    assert len(errors) == 1 and "the model is on fire" in errors[0].message and errors[0].retryable
    assert isinstance(events[-1], TurnFinished) and events[-1].text == ""
    assert len(server.chat_requests) == 1 + 4, "three retries after the first try"
    messages = await stored_messages(rig.home, sid)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "one"),
        ("assistant", "First answer."),
        ("user", "two"),
    ]


async def test_asking_again_after_a_failed_turn_does_not_add_the_question_twice(
    hermes_home: Path, tmp_path: Path
) -> None:
    """/retry (or typing it again) after a turn that failed for good: the model saw the question twice
    in a row, and state.db kept both copies."""
    server = serve(
        """
        rules:
          - {times: 4, fault: {kind: server_error, message: "down for a moment"}}
          - reply: {text: "Back: the kiln is at cone six."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        failed = await rig.turn("how is the kiln?")
        answered = await rig.turn("how is the kiln?")
        again = await rig.turn("how is the kiln?")  # answered now: a new question, even if the same words
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    assert of_type(failed, ErrorEvent) and not of_type(answered, ErrorEvent)
    sent = server.chat_requests[4].body["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["how is the kiln?"]
    assert not of_type(again, ErrorEvent)
    messages = await stored_messages(rig.home, sid)
    assert [(m.role, m.text) for m in messages] == [
        ("user", "how is the kiln?"),
        ("assistant", "Back: the kiln is at cone six."),
        ("user", "how is the kiln?"),
        ("assistant", "Back: the kiln is at cone six."),
    ]


async def test_broken_tool_json_gets_an_error_result_the_model_can_fix(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {iteration: 1}
            reply: {tool_calls: [{name: read_file, arguments_raw: '{"path": "notes.txt'}]}
          - when: {iteration: 2, tool_result: "not valid JSON"}
            reply: {tool_calls: [{name: read_file, arguments: {path: notes.txt}}]}
          - reply: {text: "Read it: {{last_tool_result}}"}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    (rig.cwd / "notes.txt").write_text("buy milk\n")
    try:
        events = await rig.turn("read my notes")
    finally:
        await rig.agent.close()
        server.stop()
    finished = of_type(events, ToolFinished)
    assert [f.ok for f in finished] == [False, True]
    assert "not valid JSON" in finished[0].result and "Unterminated string" in finished[0].result
    assert "buy milk" in events[-1].text
    sent = server.chat_requests[1].messages[-2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {}, "the broken arguments never go back to the provider"


async def test_interrupt_keeps_what_was_said_and_records_it(hermes_home: Path, tmp_path: Path) -> None:
    server = serve(
        """
        rules:
          - when: {turn: 1}
            reply: {text: "This is a long and slow answer that the user will cut short.", chunk_size: 4,
                    chunk_delay: 0.05}
          - reply: {text: "Fine, short then."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    events = []
    try:
        async for event in rig.agent.run_turn("tell me a story"):
            events.append(event)
            if isinstance(event, TextDelta) and len(of_type(events, TextDelta)) == 3:
                assert await rig.agent.interrupt()
        after = await rig.turn("shorter please")
        sid = rig.agent.session_id
    finally:
        await rig.agent.close()
        server.stop()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.interrupted
    said = text_of(events)
    assert said.startswith("This is a lo") and finished.text == said
    assert after[-1].text == "Fine, short then."
    messages = await stored_messages(rig.home, sid)
    assert messages[1].role == "assistant" and messages[1].text == said
    assert messages[1].finish_reason == "interrupted"
    history = server.chat_requests[-1].messages
    assert history[2] == {"role": "assistant", "content": said}, "the next call carries the partial reply"


async def test_interrupting_a_running_tool_answers_the_call_so_the_history_stays_valid(
    hermes_home: Path, tmp_path: Path
) -> None:
    server = serve(
        """
        rules:
          - when: {turn: 1}
            reply: {tool_calls: [{name: terminal, arguments: {command: "sleep 30"}}]}
          - reply: {text: "Next."}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    events = []
    try:
        async for event in rig.agent.run_turn("wait a while"):
            events.append(event)
            if isinstance(event, ToolCalled):
                await asyncio.sleep(0.2)
                await rig.agent.interrupt()
        await rig.turn("go on")
    finally:
        await rig.agent.close()
        server.stop()
    assert events[-1].interrupted
    ended = [e for e in events if isinstance(e, ToolFinished)]
    assert len(ended) == 1 and ended[0].interrupted and not ended[0].ok, "the call's end is an event"
    history = server.chat_requests[-1].messages
    assert [m["role"] for m in history] == ["system", "user", "assistant", "tool", "user"]
    assert "Interrupted" in history[3]["content"]


async def test_the_iteration_cap_ends_the_turn_with_a_clear_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_config(hermes_home, agent={"max_turns": 3})
    server = serve(
        """
        rules:
          - reply: {tool_calls: [{name: todo, arguments: {action: list}}]}
        """
    )
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        events = await rig.turn("loop forever")
        again = await rig.turn("one more")
    finally:
        await rig.agent.close()
        server.stop()
    errors = of_type(events, ErrorEvent)
    assert len(errors) == 1 and "agent.max_turns" in errors[0].message
    assert "3 model calls" in errors[0].message
    assert isinstance(events[-1], TurnFinished) and events[-1].tool_calls == 3
    assert len(server.chat_requests) == 6 and of_type(again, ErrorEvent)


async def test_a_second_turn_while_one_runs_is_refused(hermes_home: Path, tmp_path: Path) -> None:
    from engine.agent.errors import AgentBusy

    server = serve('rules:\n  - reply: {text: "slow", chunk_delay: 0.2, chunk_size: 1}\n')
    rig = make_rig(server, hermes_home, tmp_path)
    try:
        stream = rig.agent.run_turn("first")
        await stream.__anext__()
        try:
            async for _event in rig.agent.run_turn("second"):
                raise AssertionError("a second turn must not start")
        except AgentBusy as exc:
            assert "already running" in str(exc)
        await rig.agent.interrupt()
        rest = [e async for e in stream]
        assert rest[-1].interrupted
    finally:
        await rig.agent.close()
        server.stop()

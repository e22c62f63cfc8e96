"""The transcript fed by engine events, end to end: worker → Messages → @on handlers → widgets."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from textual.widgets import Button, Markdown
from textual.widgets.markdown import MarkdownStream

from engine import events
from tests.support.tui_support import (
    MODEL_CONFIG,
    SESSION,
    ScriptedAgent,
    make_app,
    pause_until,
    reply_events,
    settle,
)
from tui import messages
from widgets.live_reply import LiveReply
from widgets.transcript import Transcript, TranscriptPane
from widgets.transcript_blocks import (
    ApprovalBlock,
    FrozenReply,
    NoticeBlock,
    PrunedMarker,
    ReasoningBlock,
    ToolBlock,
    UserBlock,
)

REPLY = "## Navbar\n\nThe navbar is in place; **dark** background as you asked.\n\n- one\n- two\n"


def flow(collected: list[object]) -> list[str]:
    """The names of the turn's Messages in order, with runs of deltas collapsed to one."""
    names: list[str] = []
    for message in collected:
        if isinstance(message, (messages.EngineMessage, messages.TurnSubmitted, messages.TurnAborted)):
            name = type(message).__name__
            if not names or names[-1] != name or name not in ("TextDelta", "ReasoningDelta"):
                names.append(name)
    return names


async def send(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    for char in text:
        await pilot.press("space" if char == " " else char)
    await pilot.press("enter")


async def test_a_turn_streams_then_freezes_with_tool_calls_in_order() -> None:
    agent = ScriptedAgent(
        [
            [
                events.TurnStarted(SESSION, "add a navbar", 1),
                events.ReasoningDelta(SESSION, "Look at the layout "),
                events.ReasoningDelta(SESSION, "file first."),
                events.TextDelta(SESSION, "I'll start from the layout."),
                events.ToolCalled(SESSION, "c1", "read_file", {"path": "src/layout.tsx"}, "src/layout.tsx"),
                events.ToolFinished(SESSION, "c1", "read_file", True, "142 lines", 0.1, "line 1\nline 2"),
                *reply_events(REPLY, 12),
                events.Usage(SESSION, 39_800, 412, cached_tokens=31_000, cost_usd=0.012),
                events.TurnFinished(SESSION, "I'll start from the layout." + REPLY, tool_calls=1),
            ]
        ]
    )
    collected: list[object] = []
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(160, 48), message_hook=collected.append) as pilot:
        await send(pilot, "hi")
        await app.workers.wait_for_complete()
        await pilot.pause()
        transcript = app.main_screen.transcript
        assert agent.received == ["hi"]
        assert flow(collected) == [
            "TurnSubmitted",
            "TurnStarted",
            "ReasoningDelta",
            "TextDelta",
            "ToolCalled",
            "ToolFinished",
            "TextDelta",
            "Usage",
            "TurnFinished",
        ]
        kinds = [type(b).__name__ for b in transcript.blocks()]
        assert kinds == [
            "NoticeBlock",
            "UserBlock",
            "ReasoningBlock",
            "FrozenReply",
            "ToolBlock",
            "FrozenReply",
        ] or kinds == ["UserBlock", "ReasoningBlock", "FrozenReply", "ToolBlock", "FrozenReply"]
        assert not transcript.query(LiveReply), "the finished reply is frozen into a cheap widget"
        frozen = list(transcript.query(FrozenReply))
        assert frozen[0].source == "I'll start from the layout."
        assert frozen[1].source == REPLY
        tool = transcript.query_one(ToolBlock)
        assert tool.finished is not None and "142 lines" in str(tool.render())
        assert "0.1s" in str(tool.render())
        assert transcript.last_reply.endswith(REPLY)
        status = app.main_screen.status.state
        assert (
            status.working is False
            and status.context_used == 40_212
            and status.cost_usd == pytest.approx(0.012)
        )


async def test_the_live_reply_is_one_markdown_fed_by_a_stream_never_rewritten(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    updates: list[str] = []
    original = Markdown.update

    def counting_update(self, markdown: str):  # type: ignore[no-untyped-def]
        updates.append(markdown)
        return original(self, markdown)

    monkeypatch.setattr(Markdown, "update", counting_update)
    chunks = reply_events(REPLY * 20, 200)
    agent = ScriptedAgent([[*chunks[:100], 30.0, *chunks[100:], events.TurnFinished(SESSION, REPLY * 20)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "go")
        transcript = app.main_screen.transcript
        for _ in range(200):
            await pilot.pause()
            live = list(transcript.query(LiveReply))
            if live and len(live[0].source) >= len("".join(c.text for c in chunks[:100])):
                break
        assert len(live) == 1
        assert isinstance(transcript._stream, MarkdownStream)
        assert updates == [""], "the live reply is only appended to, never re-rendered whole"
        agent.interrupted.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not transcript.query(LiveReply)


async def test_the_live_reply_draws_one_block_per_step_and_freezes_all_the_text(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    appended: list[str] = []
    original = Markdown.append

    def recording_append(self, markdown: str):  # type: ignore[no-untyped-def]
        appended.append(markdown)
        return original(self, markdown)

    monkeypatch.setattr(Markdown, "append", recording_append)
    reply = REPLY * 12
    agent = ScriptedAgent([[events.TextDelta(SESSION, reply), events.TurnFinished(SESSION, reply)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "go")
        await settle(pilot, app)
        transcript = app.main_screen.transcript
        assert appended, "the reply was drawn live before it was frozen"
        assert all(piece.rstrip("\n").count("\n\n") == 0 for piece in appended), appended
        assert len("".join(appended)) < len(reply), "what was not drawn when the turn ended was dropped"
        assert "".join(b.source for b in transcript.query(FrozenReply)) == reply


async def test_reasoning_and_tool_blocks_expand_from_the_keyboard() -> None:
    agent = ScriptedAgent(
        [
            [
                events.ReasoningDelta(SESSION, "The user wants a navbar."),
                events.ToolCalled(SESSION, "c1", "terminal", {"command": "npm run build"}, "npm run build"),
                events.ToolFinished(SESSION, "c1", "terminal", True, "exit 0", 3.2, "built in 3.1s"),
                events.TurnFinished(SESSION, ""),
            ]
        ]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "build")
        await app.workers.wait_for_complete()
        await pilot.pause()
        transcript = app.main_screen.transcript
        tool = transcript.query_one(ToolBlock)
        reasoning = transcript.query_one(ReasoningBlock)
        assert "arguments" not in str(tool.render())
        assert "The user wants" not in str(reasoning.render()) and "5 words" in str(reasoning.render())
        await pilot.press("f1", "ctrl+up")
        assert transcript.cursor is tool
        await pilot.press("enter")
        await pilot.pause()
        rendered = str(tool.render())
        assert "arguments:" in rendered and "npm run build" in rendered and "built in 3.1s" in rendered
        assert tool.size.height > 3
        await pilot.press("ctrl+up", "enter")
        await pilot.pause()
        assert transcript.cursor is reasoning and "The user wants a navbar." in str(reasoning.render())


@pytest.mark.parametrize(
    ("button", "decision"),
    [("#approve-once", "once"), ("#approve-session", "session"), ("#approve-deny", "deny")],
)
async def test_an_approval_is_answered_inline_through_the_future(button: str, decision: str) -> None:
    agent = ScriptedAgent(
        [
            [
                events.ToolCalled(SESSION, "c1", "terminal", {"command": "rm -rf build"}, "rm -rf build"),
                events.ApprovalNeeded(
                    SESSION, "req-1", "terminal", "rm -rf build", "deletes files recursively"
                ),
                events.ToolFinished(SESSION, "c1", "terminal", decision != "deny", "done", 0.2),
                events.TurnFinished(SESSION, "ok"),
            ]
        ]
    )
    collected: list[object] = []
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40), message_hook=collected.append) as pilot:
        await send(pilot, "clean")
        transcript = app.main_screen.transcript
        for _ in range(100):
            await pilot.pause()
            if transcript.query(ApprovalBlock):
                break
        block = transcript.query_one(ApprovalBlock)
        assert app.focused is app.main_screen.prompt.input  # the question never takes the focus
        assert not block.future.done() and app.turn_running
        await pilot.click(button)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.answers == [("req-1", decision)]
        assert block.decision == decision and not block.query(Button)
        assert [n for n in flow(collected) if n in ("ApprovalNeeded", "TurnFinished")] == [
            "ApprovalNeeded",
            "TurnFinished",
        ]
        answered = [m for m in collected if isinstance(m, ApprovalBlock.Answered)]
        assert answered and answered[0].decision == decision


async def test_ctrl_c_interrupts_the_turn_and_keeps_what_was_said() -> None:
    agent = ScriptedAgent(
        [[events.TextDelta(SESSION, "Working on it"), 60.0, events.TextDelta(SESSION, "never")]]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    collected: list[object] = []
    async with app.run_test(size=(120, 40), message_hook=collected.append) as pilot:
        await send(pilot, "long task")
        for _ in range(100):
            await pilot.pause()
            if app.main_screen.transcript.query(LiveReply):
                break
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        transcript = app.main_screen.transcript
        assert agent.calls == ["interrupt"]
        assert any(isinstance(m, messages.InterruptRequested) for m in collected)
        finished = [m for m in collected if isinstance(m, messages.TurnFinished)]
        assert finished and finished[0].event.interrupted
        assert [b.source for b in transcript.query(FrozenReply)] == ["Working on it"]
        assert any("interrupted" in b.text for b in transcript.query(NoticeBlock))
        assert not app.turn_running and app.main_screen.status.state.working is False


async def test_an_agent_without_interrupt_is_cancelled() -> None:
    class Stubborn:
        async def run_turn(self, text: str):  # type: ignore[no-untyped-def]
            yield events.TextDelta(SESSION, "partial")
            import asyncio

            await asyncio.sleep(60)
            yield events.TextDelta(SESSION, "never")

    app = make_app(MODEL_CONFIG, agent=Stubborn())
    collected: list[object] = []
    async with app.run_test(size=(120, 40), message_hook=collected.append) as pilot:
        await send(pilot, "x")
        for _ in range(100):
            await pilot.pause()
            if app.main_screen.transcript.query(LiveReply):
                break
        await pilot.press("ctrl+c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        aborted = [m for m in collected if isinstance(m, messages.TurnAborted)]
        assert aborted and aborted[0].reason == "interrupted"
        assert [b.source for b in app.main_screen.transcript.query(FrozenReply)] == ["partial"]


async def test_twice_ctrl_c_clears_the_input() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test() as pilot:
        await pilot.press("a", "b", "c")
        prompt = app.main_screen.prompt
        assert prompt.text == "abc"
        await pilot.press("ctrl+c")
        assert prompt.text == "abc"
        await pilot.press("ctrl+c")
        assert prompt.text == ""


async def test_a_failing_engine_ends_the_turn_with_a_sentence() -> None:
    class Broken:
        async def run_turn(self, text: str):  # type: ignore[no-untyped-def]
            yield events.TextDelta(SESSION, "Starting")
            raise RuntimeError("provider went away")

    app = make_app(MODEL_CONFIG, agent=Broken())
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "x")
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        assert "The turn failed: RuntimeError: provider went away" in notices
        assert not app.turn_running
        assert app.main_screen.status.state.working is False


async def test_events_show_in_their_panes_and_the_transcript() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        main = app.main_screen
        for event in (
            events.MemoryWritten(SESSION, "user", "add", "agent", "j1", "User hates light themes"),
            events.SkillChanged(SESSION, "web/astro-navbar", "create", "agent", "1", "new skill"),
            events.SkillLoaded(SESSION, "ops/deploy", "references/rsync.md", 380),
            events.CompressionStarted(SESSION, "threshold", 64_000),
            events.CompressionPhase(SESSION, "summarize", 58_100, 9_400),
            events.CompressionFinished(SESSION, SESSION, "20260101_130000_def456", 58_100, 9_400, "summary"),
            events.Usage(SESSION, 41_000, 200, 31_000, 0.08),
        ):
            main.post_message(messages.to_message(event))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert main.memory.writes == 1
        loaded = main.skills.row("ops/deploy")
        assert loaded is not None and loaded.tier == 3 and loaded.files == (("references/rsync.md", 380),)
        assert main.skills.changed == {"web/astro-navbar": "create"}
        assert main.compression.count == 1 and len(main.compression.timeline.root.children) == 1
        assert main.status.state.compressions == 1
        assert main.budget.brief == "32%"
        notices = " ".join(b.text for b in main.transcript.query(NoticeBlock))
        assert "User hates light themes" in notices and "web/astro-navbar" in notices
        assert "58,100 → 9,400" in notices


async def test_new_output_below_marker_when_scrolled_up() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.main_screen
        transcript = main.transcript
        for index in range(80):
            main.post_message(messages.Notice(f"line {index}"))
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y  # it follows the output
        pane = main.query_one(TranscriptPane)
        await pilot.press("f1", "home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        main.post_message(messages.Notice("fresh output"))
        await pilot.pause()
        assert pane.has_class("-new-output") and transcript.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert not pane.has_class("-new-output")
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_old_blocks_are_pruned_from_the_dom_past_the_line_budget() -> None:
    config = MODEL_CONFIG + "tui:\n  prune_keep_lines: 100\n  prune_excess_lines: 50\n"
    app = make_app(config)
    async with app.run_test(size=(100, 30)) as pilot:
        main = app.main_screen
        for index in range(400):
            main.post_message(messages.Notice(f"line {index}"))
        transcript: Transcript = main.transcript

        def settled() -> bool:
            markers = transcript.query(PrunedMarker)
            return bool(markers) and markers.first().count + len(transcript.query(NoticeBlock)) == 400

        assert await pause_until(pilot, settled)
        marker = transcript.query_one(PrunedMarker)
        notices = list(transcript.query(NoticeBlock))
        assert marker.count > 200 and len(notices) + marker.count == 400
        assert transcript.virtual_size.height <= 150 + 2
        assert notices[-1].text == "line 399"


def fake_clipboard_tool(folder: Path, name: str, out: Path) -> None:
    script = folder / name
    script.write_text(f"#!/bin/sh\ncat > {out}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


async def test_copy_uses_the_system_clipboard_tool_when_there_is_one(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    tools = tmp_path / "bin"
    tools.mkdir()
    out = tmp_path / "clipboard.txt"
    fake_clipboard_tool(tools, "xclip", out)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    agent = ScriptedAgent([[*reply_events(REPLY, 3), events.TurnFinished(SESSION, REPLY)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "x")
        await app.workers.wait_for_complete()
        await pilot.press("f1", "ctrl+y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.last_copy is not None and app.last_copy.method == "xclip"
        assert out.read_text(encoding="utf-8") == REPLY


async def test_copy_falls_back_to_osc52_and_says_so(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", str(tmp_path))  # no clipboard tool anywhere
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    agent = ScriptedAgent([[*reply_events(REPLY, 3), events.TurnFinished(SESSION, REPLY)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await send(pilot, "x")
        await app.workers.wait_for_complete()
        await send(pilot, "/copy")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.last_copy is not None and app.last_copy.method == "osc52"
        assert app.clipboard == REPLY
        said = [n.message for n in app._notifications]
        assert any("OSC 52" in m and "only works if your terminal allows it" in m for m in said)


async def test_ctrl_y_on_a_selected_block_copies_that_block(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("DISPLAY", raising=False)
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(120, 40)) as pilot:
        app.main_screen.post_message(messages.TurnSubmitted("the question itself"))
        await pilot.pause()
        await pilot.press("f1", "ctrl+up")
        assert isinstance(app.main_screen.transcript.cursor, UserBlock)
        await pilot.press("ctrl+y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.clipboard == "the question itself"


async def test_a_long_reply_is_frozen_in_segments_cut_between_blocks_never_inside_code() -> None:
    fence = "```python\nprint('a')\n\nprint('b')\n```\n\n"
    reply = ("A paragraph about the layout that goes on for a while.\n\n" + fence) * 40
    agent = ScriptedAgent([[*reply_events(reply, 200), events.TurnFinished(SESSION, reply)]])
    app = make_app(MODEL_CONFIG + "tui:\n  live_segment_chars: 600\n", agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "x")
        await settle(pilot, app)
        transcript = app.main_screen.transcript
        segments = [b.source for b in transcript.query(FrozenReply)]
        assert len(segments) >= 4
        assert "".join(segments) == reply
        for segment in segments:
            assert segment.count("```") % 2 == 0, "a segment never ends inside a code fence"
        assert transcript.last_reply == reply
        assert not transcript.query(LiveReply)


async def test_a_frozen_reply_lays_itself_out_again_when_the_width_changes() -> None:
    reply = "word " * 200
    agent = ScriptedAgent([[events.TextDelta(SESSION, reply), events.TurnFinished(SESSION, reply)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(160, 48)) as pilot:
        await send(pilot, "x")
        await settle(pilot, app)
        frozen = app.main_screen.transcript.query_one(FrozenReply)
        wide = frozen.size.height
        await pilot.press("ctrl+b")  # the transcript takes the whole width
        await settle(pilot, app)
        assert frozen.size.height < wide
        await pilot.press("ctrl+b")
        await settle(pilot, app)
        assert frozen.size.height == wide


async def test_approval_keys_answer_without_the_mouse() -> None:
    agent = ScriptedAgent(
        [
            [
                events.ApprovalNeeded(SESSION, "req-9", "terminal", "git push --force", "rewrites history"),
                events.TurnFinished(SESSION, ""),
            ]
        ]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "push")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
        await pilot.press("ctrl+o", "right", "right", "enter")
        await settle(pilot, app)
        assert agent.answers == [("req-9", "deny")]


async def test_interrupting_while_an_approval_waits_denies_it_and_stops() -> None:
    agent = ScriptedAgent(
        [
            [
                events.ApprovalNeeded(SESSION, "req-2", "terminal", "rm -rf /tmp/x", "deletes"),
                events.TextDelta(SESSION, "after"),
                30.0,
            ]
        ]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "go")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
        await pilot.press("ctrl+c")
        await settle(pilot, app)
        assert agent.answers == [("req-2", "deny")]
        assert agent.calls == ["interrupt"] and not app.turn_running


async def test_a_drag_over_a_finished_reply_selects_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished reply is drawn line by line; a drag over it selected nothing before (no offsets)."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no clipboard tool: the app's own clipboard is checked
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    agent = ScriptedAgent([[*reply_events(REPLY, 3), events.TurnFinished(SESSION, REPLY)]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "x")
        await app.workers.wait_for_complete()
        await pilot.pause()
        reply = app.main_screen.transcript.query(FrozenReply).last()
        lines = [reply.render_line(y).text for y in range(reply.content_region.height)]
        row = next(i for i, line in enumerate(lines) if "The navbar" in line)
        column = lines[row].index("navbar") + reply.styles.padding.left
        await pilot.mouse_down(reply, offset=(column, row))
        await pilot.hover(reply, offset=(column + 3, row))
        await pilot.hover(reply, offset=(column + len("navbar"), row + 2))
        await pilot.mouse_up(reply, offset=(column + len("navbar"), row + 2))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None and selected.startswith("navbar is in place")
        assert "\n" in selected and "Navbar" not in selected  # two lines, from the drag's start on
        painted = reply.render_line(row)
        highlight = app.screen.get_component_rich_style("screen--selection")
        assert any(seg.style and seg.style.bgcolor == highlight.bgcolor for seg in painted)
        await pilot.press("f1", "ctrl+y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.clipboard == selected


async def test_after_an_approval_is_answered_the_focus_goes_back_to_the_input() -> None:
    """The person moves from the input to the question (ctrl+o); once answered (here with the key 3),
    the next letters typed belong to the next message (they went to the transcript and were lost)."""
    agent = ScriptedAgent(
        [
            [
                events.ToolCalled(SESSION, "c1", "terminal", {"command": "rm -rf build"}, "rm -rf build"),
                events.ApprovalNeeded(SESSION, "req-1", "terminal", "rm -rf build", "deletes files"),
                events.ToolFinished(SESSION, "c1", "terminal", False, "declined", 0.2),
                events.TurnFinished(SESSION, "ok"),
            ]
        ]
    )
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "clean")
        transcript = app.main_screen.transcript
        assert await pause_until(pilot, lambda: bool(transcript.query(ApprovalBlock)))
        await pilot.pause()
        await pilot.press("ctrl+o")
        assert isinstance(app.focused, Button)
        await pilot.press("3")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.answers == [("req-1", "deny")]
        await pilot.press("o", "k")
        assert app.main_screen.prompt.text == "ok"

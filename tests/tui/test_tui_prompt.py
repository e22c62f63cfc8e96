"""The input: enter sends, shift+enter / ctrl+j add lines, history, slash commands with completion."""

from __future__ import annotations

from textual import events as textual_events

from engine import events
from tests.support.tui_support import MODEL_CONFIG, SESSION, ScriptedAgent, make_app, settle
from tui import messages
from tui.commands import SLASH_COMMANDS, SkillEntry, parse_slash
from widgets.message_input import PromptBox, SlashCommand, matching_commands
from widgets.transcript_blocks import NoticeBlock, UserBlock


def test_parse_slash() -> None:
    assert parse_slash("/compress keep the API notes") == ("compress", "keep the API notes")
    assert parse_slash("  /help ") == ("help", "")
    assert parse_slash("plain words") is None
    assert parse_slash("//not a command") is None
    assert parse_slash("/") is None


def test_matching_commands_prefers_prefixes() -> None:
    commands = [SlashCommand("compress", ""), SlashCommand("copy", ""), SlashCommand("undo", "")]
    assert [c.name for c in matching_commands(commands, "/co")] == ["compress", "copy"]
    assert [c.name for c in matching_commands(commands, "/do")] == ["undo"]
    assert len(matching_commands(commands, "/")) == 3


async def test_enter_sends_and_newline_keys_insert_lines() -> None:
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        prompt: PromptBox = app.main_screen.prompt
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert prompt.text == "a\nb\nc"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.received == ["a\nb\nc"]
        assert prompt.text == ""
        assert app.main_screen.transcript.query_one(UserBlock).text == "a\nb\nc"


async def test_the_input_grows_with_its_lines_up_to_a_limit() -> None:
    app = make_app(MODEL_CONFIG + "tui:\n  prompt_max_lines: 4\n")
    async with app.run_test() as pilot:
        editor = app.main_screen.prompt.input
        assert editor.size.height == 1
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c")
        await pilot.pause()
        assert editor.size.height == 3
        for _ in range(5):
            await pilot.press("ctrl+j", "x")
        await pilot.pause()
        assert editor.size.height == 4


async def test_up_and_down_walk_the_history_and_keep_the_draft() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test() as pilot:
        prompt = app.main_screen.prompt
        for word in ("one", "two"):
            await pilot.press(*word, "enter")
            await app.workers.wait_for_complete()
        await pilot.press("d", "r")
        await pilot.press("up")
        assert prompt.text == "two"
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("down")
        assert prompt.text == "two"
        await pilot.press("down")
        assert prompt.text == "dr"


async def test_slash_shows_completions_and_tab_completes() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test() as pilot:
        prompt = app.main_screen.prompt
        await pilot.press("slash")
        await pilot.pause()
        assert prompt.completions_shown
        assert prompt.completions.option_count == len(SLASH_COMMANDS)  # 13 with /edit and /identity
        await pilot.press("c", "o")
        await pilot.pause()
        assert [c.name for c in prompt._shown] == ["compress", "copy"]
        await pilot.press("down", "tab")
        assert prompt.text == "/copy"
        assert not prompt.completions_shown
        await pilot.press("ctrl+u", "slash", "c", "o", "m")
        await pilot.press("enter")  # enter on an unfinished name completes it rather than sending
        assert prompt.text == "/compress "
        await pilot.press("escape")
        assert not prompt.completions_shown


async def test_skill_names_from_the_provider_complete_and_reach_the_palette() -> None:
    skills = [SkillEntry("astro-navbar", "build an Astro navbar", "web"), SkillEntry("deploy-static", "")]
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent, skill_source=lambda: skills)
    async with app.run_test() as pilot:
        await settle(pilot, app)
        assert [e.name for e in app.skill_entries] == ["astro-navbar", "deploy-static"]
        await pilot.press("slash", "a", "s")
        await pilot.pause()
        prompt = app.main_screen.prompt
        assert [c.name for c in prompt._shown] == ["astro-navbar"]
        await pilot.press("tab", *"the docs", "enter")
        await app.workers.wait_for_complete()
        assert agent.received == ["/astro-navbar the docs"]


async def test_unknown_slash_command_is_explained_not_sent() -> None:
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        await pilot.press("slash", "n", "o", "p", "e", "space", "enter")
        await pilot.pause()
        assert agent.received == []
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        assert any("/nope is not a command or a skill" in n for n in notices)


async def test_slash_commands_that_need_the_agent_say_so() -> None:
    app = make_app()
    async with app.run_test() as pilot:
        for command in ("/compress", "/new", "/undo", "/revert"):
            app.main_screen.prompt.set_text(command)
            await pilot.press("escape", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        for name in ("compress", "new", "undo"):
            assert f"/{name} needs the agent: no model is configured." in notices
        # /revert works on the journal, agent or not: with nothing written it says so.
        assert "Nothing to undo: no memory or skill write is left in the journal." in notices


async def test_slash_compress_calls_the_agent_with_its_focus() -> None:
    class Compressing(ScriptedAgent):
        async def compress(self, focus: str = ""):  # type: ignore[no-untyped-def]
            self.calls.append(f"compress:{focus}")
            yield events.CompressionStarted(SESSION, "manual", 50_000)
            yield events.CompressionFinished(SESSION, SESSION, "20260101_130000_def456", 50_000, 8_000, "s")

    agent = Compressing()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        app.main_screen.prompt.set_text("/compress keep the API notes")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.calls == ["compress:keep the API notes"]
        assert app.main_screen.compression.count == 1


async def test_retry_sends_the_last_message_again() -> None:
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        await pilot.press("h", "i", "enter")
        await app.workers.wait_for_complete()
        app.main_screen.prompt.set_text("/retry")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert agent.received == ["hi", "hi"]


async def test_sending_while_a_turn_runs_queues_the_text() -> None:
    agent = ScriptedAgent([[events.TextDelta(SESSION, "slow"), 30.0]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("a", "enter")
        await pilot.pause()
        await pilot.press("b", "enter")
        await pilot.pause()
        assert app.main_screen.prompt.text == ""
        assert [item.text for item in app.busy_input.queued] == ["b"]
        assert agent.received == ["a"]
        agent.interrupted.set()
        await app.workers.wait_for_complete()


async def test_busy_input_refuse_keeps_the_text_in_the_input() -> None:
    agent = ScriptedAgent([[events.TextDelta(SESSION, "slow"), 30.0]])
    app = make_app(MODEL_CONFIG + "agent:\n  busy_input: refuse\n", agent=agent)
    async with app.run_test(notifications=True) as pilot:
        await pilot.press("a", "enter")
        await pilot.pause()
        await pilot.press("b", "enter")
        await pilot.pause()
        assert app.main_screen.prompt.text == "b"
        assert agent.received == ["a"] and app.busy_input.queued == []
        agent.interrupted.set()
        await app.workers.wait_for_complete()


async def test_memory_and_sessions_commands_move_the_focus() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test(size=(160, 48)) as pilot:
        app.main_screen.prompt.set_text("/memory")
        await pilot.press("enter")
        await pilot.pause()
        assert app.main_screen.memory.has_focus_within
        await pilot.press("escape")
        app.main_screen.prompt.set_text("/sessions")
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "SessionsScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen


async def test_notice_messages_reach_the_transcript() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test() as pilot:
        app.main_screen.post_message(messages.Notice("hello", "warning", "!"))
        await pilot.pause()
        block = app.main_screen.transcript.query(NoticeBlock).last()
        assert block.text == "hello" and block.has_class("-warning")


async def test_keys_arriving_in_a_burst_are_sent_in_order() -> None:
    """Typed fast or pasted, then enter: the whole text is sent (enter once overtook the queued keys)."""
    agent = ScriptedAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test() as pilot:
        await settle(pilot, app)
        keys = [*"hello", "ctrl+j", *"there", "enter"]
        for key in keys:  # all posted before the app handles any: a burst from the terminal
            app.post_message(textual_events.Key(key, key if len(key) == 1 else None))
        await app.workers.wait_for_complete()
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert agent.received == ["hello\nthere"]
        assert app.main_screen.prompt.text == ""


async def test_up_and_down_move_the_cursor_inside_a_text_of_several_lines() -> None:
    """Up on the second line goes to the first (the history waits until the first row); down on the
    first line comes back; only past the edges do they walk the history."""
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test() as pilot:
        prompt = app.main_screen.prompt
        await pilot.press("o", "l", "d", "enter")
        await app.workers.wait_for_complete()
        await pilot.press("a", "ctrl+j", "b")
        await pilot.press("up", "X")
        assert prompt.text == "aX\nb"
        await pilot.press("down", "Y")
        assert prompt.text == "aX\nbY"
        await pilot.press("up", "up")
        assert prompt.text == "old"
        await pilot.press("down")
        assert prompt.text == "aX\nbY"


async def test_up_on_a_long_wrapped_line_moves_up_a_row_before_the_history() -> None:
    app = make_app(MODEL_CONFIG, agent=ScriptedAgent())
    async with app.run_test(size=(40, 20)) as pilot:
        prompt = app.main_screen.prompt
        await pilot.press("o", "l", "d", "enter")
        await app.workers.wait_for_complete()
        long = " ".join(["word"] * 13)
        prompt.input.insert(long)
        await pilot.pause()
        assert prompt.input.wrapped_document.height > 1
        await pilot.press("up")
        assert prompt.text == long  # still the draft: the cursor went up a row
        assert prompt.input.cursor_location[1] < len(long)
        await pilot.press("up")
        assert prompt.text == "old"


class SessionsAgent(ScriptedAgent):
    """A given agent that starts its own sessions (the app's ctrl+n path without a builder)."""

    async def new_session(self) -> None:
        self.calls.append("new_session")


async def test_a_new_conversation_gives_the_input_the_focus() -> None:
    """After ctrl+n from a pane, the message typed next reaches the input (it went to the pane's keys:
    `h` hid the skills pane and the text was lost)."""
    agent = SessionsAgent()
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        main = app.main_screen
        await pilot.press("f4")
        await pilot.pause()
        assert main.skills.has_focus_within
        await pilot.press("ctrl+n")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.calls == ["new_session"]
        await pilot.press("h", "i")
        assert main.prompt.text == "hi"
        assert not main.skills.collapsed


async def test_the_prompt_placeholder_is_whole_at_80_columns() -> None:
    """It read "… shift+enter or ctrl+j: new line · / for" at 80x24, with or without a model."""
    from tests.support.tui_support import screen_cells
    from tui.app import NO_MODEL_PLACEHOLDER, PROMPT_PLACEHOLDER

    for config, placeholder in (("", NO_MODEL_PLACEHOLDER), (MODEL_CONFIG, PROMPT_PLACEHOLDER)):
        app = make_app(config)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            lines = ["".join(c for c, _ in line) for line in screen_cells(app)]
            assert any(placeholder in line for line in lines), (placeholder, lines[-3:])


async def test_sending_a_message_brings_a_hidden_transcript_back() -> None:
    """With the transcript hidden (F1, f9), a message sent went on out of sight: an empty screen
    under a '▸ F1' header, the reply included."""
    agent = ScriptedAgent([[events.TextDelta(SESSION, "Hello."), events.TurnFinished(SESSION, "Hello.")]])
    app = make_app(MODEL_CONFIG, agent=agent)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        pane = app.main_screen.pane("transcript")
        await pilot.press("f1", "f9")
        assert pane.collapsed
        await pilot.press("escape", "h", "i", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert agent.received == ["hi"]
        assert not pane.collapsed and app.main_screen.transcript.size.height > 10

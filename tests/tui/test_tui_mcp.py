"""MCP in the workstation: the real app, a scripted model, and a real MCP server of tests/support."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.support.mcp_support import support_server
from tests.support.tui_support import (
    agent_started,
    make_scripted_app,
    pause_until,
    say,
    scripted_model,
    turn_done,
)

SCENARIO = """
rules:
  - when: {after_tool: true}
    reply: {text: "The tool said: {{last_tool_result}}"}
  - when: {user: "(?i)^echo (.+)"}
    reply: {tool_calls: [{name: mcp_desk_echo, arguments: {text: "{{match.1}}"}}]}
  - when: {user: "(?i)^gate (.+)"}
    reply: {tool_calls: [{name: mcp_desk_gate, arguments: {path: "{{match.1}}"}}]}
  - reply: {text: "Plainly answered."}
"""


def desk_config(**settings: Any) -> str:
    return yaml.safe_dump({"mcp_servers": {"desk": support_server("desk", **settings)}}, sort_keys=False)


def kinds(seen: list[Any], mark: int = 0) -> list[str]:
    return [type(m).__name__ for m in seen[mark:]]


def tool_blocks(app: Any) -> list[Any]:
    from widgets.transcript_blocks import ToolBlock

    return list(app.main_screen.transcript.query(ToolBlock))


async def test_an_mcp_call_shows_its_block_asks_and_shows_the_result_and_progress(tmp_path: Path) -> None:
    seen: list[Any] = []
    with scripted_model(tmp_path, SCENARIO) as model:
        app = make_scripted_app(model, desk_config(trust="ask"))
        async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            from widgets.transcript_blocks import ApprovalBlock

            # trust: ask: the call waits for the person; approving once runs it and the result shows.
            await say(pilot, app, "echo over the wire")
            assert await pause_until(pilot, lambda: "ApprovalNeeded" in kinds(seen), rounds=1200)
            assert await pause_until(pilot, lambda: bool(app.main_screen.transcript.query(ApprovalBlock)))
            [asked] = [m.event for m in seen if type(m).__name__ == "ApprovalNeeded"]
            assert asked.rule == "mcp_trust_ask" and asked.tool == "mcp_desk_echo"
            [block] = tool_blocks(app)
            assert str(block.render()).startswith("▸ mcp_desk_echo")
            assert block.finished is None
            await pilot.press("ctrl+o", "1")
            await turn_done(pilot, app, seen, 1)
            assert block.finished is not None and block.finished.ok
            assert "echo: over the wire" in str(block.render())
            assert app.main_screen.transcript.last_reply == "The tool said: echo: over the wire"

            # A call that reports progress: the running block shows it, then the result replaces it.
            gate = tmp_path / "gate"
            mark = len(seen)
            await say(pilot, app, f"gate {gate}")
            assert await pause_until(pilot, lambda: "ApprovalNeeded" in kinds(seen, mark), rounds=1200)
            await pilot.press("ctrl+o", "1")
            running = tool_blocks(app)[-1]
            assert await pause_until(pilot, lambda: running.progress is not None, rounds=1200)
            lines = str(running.render()).split("\n")
            assert lines[0].startswith("▸ mcp_desk_gate") and "running…" in lines[0]
            assert lines[1].strip() == "⋯ 1/2 waiting for the gate"
            gate.touch()
            await turn_done(pilot, app, seen, 2)
            assert "ToolProgress" in kinds(seen, mark)
            done = str(running.render())
            assert "⋯" not in done and "gate opened" in done
            running.toggle()
            assert "progress: 2/2 the gate opened" in str(running.render())


def budget_lines(app: Any) -> list[str]:
    from textual.widgets import Static

    return str(app.main_screen.budget.query_one("#budget-table", Static).content).split("\n")


async def budget_with_mcp(pilot: Any, app: Any) -> Any:
    """The budget pane read again once the desk server is ready (a server joins in the background)."""
    assert await pause_until(
        pilot,
        lambda: app.agent.mcp is not None and app.agent.mcp.connections["desk"].state == "ready",
        rounds=1200,
    )
    budget = app.main_screen.budget
    app.pane_feeds.refresh("budget")
    assert await pause_until(pilot, lambda: budget.view.mcp is not None and budget.view.mcp.tokens > 0, 600)
    await app.workers.wait_for_complete()
    await pilot.pause()
    return budget.view


async def test_the_budget_pane_shows_the_mcp_schemas_as_a_layer_of_their_own(tmp_path: Path) -> None:
    seen: list[Any] = []
    with scripted_model(tmp_path, SCENARIO) as model:
        app = make_scripted_app(model, desk_config(trust="allow"))
        async with app.run_test(size=(200, 50), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            await say(pilot, app, "hello")
            await turn_done(pilot, app, seen, 1)
            view = await budget_with_mcp(pilot, app)
            from engine.prompt.build import tool_schema_tokens

            hub = app.agent.mcp
            assert view.mcp.tools == 2 and view.mcp.deferred == 0  # echo and gate, both sent
            assert view.mcp.tokens == hub.sent_tokens()
            assert view.tools == tool_schema_tokens(app.agent.registry.schemas())  # the built-in ones alone
            assert view.used == view.prompt + view.conversation + view.tools + view.mcp.tokens
            assert view.cached_prefix >= view.tools + view.mcp.tokens
            [row] = [line for line in budget_lines(app) if line.startswith("MCP schemas")]
            assert "2 tools sent" in row and "deferred" not in row


async def test_deferred_mcp_tools_show_as_deferred_in_the_budget_pane(tmp_path: Path) -> None:
    seen: list[Any] = []
    with scripted_model(tmp_path, SCENARIO) as model:
        config = desk_config(trust="allow") + "mcp:\n  defer_share: 0.0001\n"
        app = make_scripted_app(model, config)
        async with app.run_test(size=(200, 50), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            await say(pilot, app, "hello")
            await turn_done(pilot, app, seen, 1)
            view = await budget_with_mcp(pilot, app)
            assert view.mcp.tools == 0 and view.mcp.deferred == 2  # only tool_search is sent
            [row] = [line for line in budget_lines(app) if line.startswith("MCP schemas")]
            assert "0 tools sent, 2 deferred" in row


async def test_without_mcp_servers_the_budget_pane_has_no_mcp_row(tmp_path: Path) -> None:
    seen: list[Any] = []
    with scripted_model(tmp_path, SCENARIO) as model:
        app = make_scripted_app(model)
        async with app.run_test(size=(200, 50), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            await say(pilot, app, "hello")
            await turn_done(pilot, app, seen, 1)
            assert app.main_screen.budget.view.mcp is None
            assert not [line for line in budget_lines(app) if line.startswith("MCP")]


async def test_the_mcp_screen_lists_the_servers_and_turns_one_off_and_on(tmp_path: Path) -> None:
    from tui.screens.mcp import McpScreen
    from widgets.transcript_blocks import NoticeBlock

    seen: list[Any] = []
    servers = {"desk": support_server("desk", trust="allow"), "injected": support_server("injected")}
    with scripted_model(tmp_path, SCENARIO) as model:
        app = make_scripted_app(model, yaml.safe_dump({"mcp_servers": servers}, sort_keys=False))
        async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            await say(pilot, app, "hello")
            await turn_done(pilot, app, seen, 1)
            hub = app.agent.mcp
            assert await pause_until(
                pilot, lambda: all(c.state == "ready" for c in hub.connections.values()), rounds=1200
            )
            await say(pilot, app, "/mcp")
            assert await pause_until(pilot, lambda: isinstance(app.screen, McpScreen))
            screen = app.screen
            rows = {r.name: r for r in screen.rows}
            assert (
                rows["desk"].state == "ready" and rows["desk"].tools == 2 and rows["desk"].schema_tokens > 0
            )
            assert rows["injected"].flags and rows["injected"].flags[0].startswith("lookup: description")
            await pilot.press("down")  # the injected server: its cut description is said below the table
            assert await pause_until(
                pilot, lambda: "prompt injection" in str(screen.query_one("#mcp-detail").content)
            )

            await pilot.press("up", "space")  # desk off: written into config.yaml, applied at the next call
            config = app.home.config_file

            def desk_row() -> Any:
                return next(r for r in screen.rows if r.name == "desk")

            assert await pause_until(pilot, lambda: desk_row().state == "disabled", rounds=1200)
            assert yaml.safe_load(config.read_text())["mcp_servers"]["desk"]["enabled"] is False
            assert not [n for n in (s["function"]["name"] for s in app.agent.tool_schemas()) if "desk" in n]
            assert "turned off" in str(screen.query_one("#mcp-note").content)

            await pilot.press("space")  # and on again: the server starts and its tools come back
            assert await pause_until(pilot, lambda: desk_row().state == "ready", rounds=1200)
            assert yaml.safe_load(config.read_text())["mcp_servers"]["desk"]["enabled"] is True
            assert "mcp_desk_echo" in [s["function"]["name"] for s in app.agent.tool_schemas()]
            await pilot.press("escape")
            assert await pause_until(pilot, lambda: not isinstance(app.screen, McpScreen))
            notices = [str(b.render()) for b in app.main_screen.transcript.query(NoticeBlock)]
            assert any("MCP server `desk` turned off" in n and "cached prefix" in n for n in notices), notices
            assert any("MCP server `desk` turned on" in n for n in notices)


ECHO = """
rules:
  - reply: {text: "Got: {{last_user}}"}
"""


async def test_server_prompts_are_slash_commands_and_resources_attach_in_the_workstation(
    tmp_path: Path,
) -> None:
    seen: list[Any] = []
    with scripted_model(tmp_path, ECHO) as model:
        app = make_scripted_app(model, desk_config(trust="allow"))
        async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            await say(pilot, app, "hello")
            await turn_done(pilot, app, seen, 1)
            hub = app.agent.mcp
            assert await pause_until(pilot, lambda: hub.connections["desk"].state == "ready", rounds=1200)
            app.commands.mcp.offer_prompts()
            main = app.main_screen
            main.prompt.input.focus()
            await pilot.press(*"/mcp:")
            assert await pause_until(pilot, lambda: main.prompt.completions_shown)
            shown = [c.text for c in main.prompt._shown]
            assert "/mcp:desk:review" in shown
            main.prompt.clear()

            await say(pilot, app, "/mcp:desk:review the release")
            await turn_done(pilot, app, seen, 2)
            assert main.transcript.last_reply == "Got: Review the release carefully and list three risks."

            # `@desk:` completes the server's resources; enter takes the one highlighted, enter sends
            await turn_done(pilot, app, seen, 2)
            main.prompt.input.focus()
            await pilot.press(*"what is on @desk:t")
            assert await pause_until(pilot, lambda: main.prompt.completions_shown)
            assert [c.text for c in main.prompt._shown] == ["@desk:today"]
            await pilot.press("enter")
            assert main.prompt.text == "what is on @desk:today "
            await pilot.press("enter")
            await turn_done(pilot, app, seen, 3)
            reply = main.transcript.last_reply
            assert reply.startswith("Got: what is on @desk:today")
            assert "Ship the release notes; call Ada about the invoice." in reply

"""Providers in the workstation: the primary answers 503, the fallback completes the turn (the budget
pane names it, the transcript says so), then `/model NAME --provider P` switches back mid-session.

Two real scripted model servers on 127.0.0.1 and the workstation's own agent builder, under Pilot.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.message import Message

from engine.config import load_config
from engine.model_server.server import ScriptedModelServer
from tests.support.tui_support import agent_ready_since, agent_started, make_home, pause_until, say, turn_done
from tui.app import HwsApp

PRIMARY = """
model: main-model
rules:
  - when: {user: "^first"}
    fault: {kind: server_error, status: 503, message: "overloaded"}
  - reply: {text: "Answered by the primary.", usage: {prompt_tokens: 50, completion_tokens: 4}}
"""
BACKUP = """
model: backup-model
rules:
  - reply: {text: "Answered by the fallback.", usage: {prompt_tokens: 40, completion_tokens: 5}}
"""

SCENARIO = BACKUP  # the `scripted` fixture's model


def config_text(primary: str, backup: str) -> str:
    return (
        f"model:\n  provider: primary\n  default: main-model\n  base_url: {primary}\n"
        "agent:\n  api_max_retries: 0\n"
        "review:\n  enabled: false\n"
        "fallback_providers:\n"
        f"  - provider: backup\n    model: backup-model\n    base_url: {backup}\n"
    )


def make_app(primary: str, backup: str) -> HwsApp:
    from tui.agent_port import AgentBuilder

    home = make_home(config_text(primary, backup))
    workdir = Path(os.environ["HOME"]) / "code" / "site"
    workdir.mkdir(parents=True, exist_ok=True)
    return HwsApp(home, load_config(home.root), agent_factory=AgentBuilder(workdir), workdir=workdir)


def notices(app: HwsApp) -> list[str]:
    from widgets.transcript_blocks import NoticeBlock

    return [block.text for block in app.main_screen.transcript.query(NoticeBlock)]


async def test_the_fallback_finishes_the_turn_the_budget_pane_names_it_and_model_switches_back() -> None:
    with ScriptedModelServer.from_yaml(PRIMARY) as primary, ScriptedModelServer.from_yaml(BACKUP) as backup:
        app = make_app(primary.base_url, backup.base_url)
        seen: list[Message] = []
        async with app.run_test(size=(160, 48), message_hook=seen.append) as pilot:
            await agent_started(pilot, app)
            main = app.main_screen
            await say(pilot, app, "first question")
            await turn_done(pilot, app, seen, 1)
            assert main.transcript.last_reply == "Answered by the fallback."
            said = [n for n in notices(app) if "goes on with backup-model at backup" in n]
            assert len(said) == 1 and "main-model at http://127.0.0.1:" in said[0] and "HTTP 503" in said[0]
            assert "prompt cache starts cold" in said[0]
            assert await pause_until(pilot, lambda: "model" in main.budget.render_table().plain)
            table = main.budget.render_table().plain
            row = next(line for line in table.splitlines() if line.startswith("model "))
            assert "backup-model at backup" in row and "fallback" in row and "HTTP 503" in row, table
            assert main.status.state.model == "backup-model"

            session = app.session_id
            mark = len(seen)
            await say(pilot, app, "/model main-model --provider primary")
            await agent_ready_since(pilot, seen, mark)
            await app.workers.wait_for_complete()
            await pilot.pause()
            switching = [n for n in notices(app) if n.startswith("Switching the model")]
            assert switching == [
                f"Switching the model to main-model at primary; session {session} goes on; the prompt cache "
                "starts over (the next call sends the whole prompt uncached)…"
            ], notices(app)

            await say(pilot, app, "second question")
            await turn_done(pilot, app, seen, 2)
            assert main.transcript.last_reply == "Answered by the primary."
            assert app.session_id == session
            # The primary got the whole conversation, the fallback's answer included.
            last = primary.chat_requests[-1]
            contents = [m.get("content") for m in last.messages]
            assert "first question" in contents and "Answered by the fallback." in contents
            assert contents[-1] == "second question"
            assert len(backup.chat_requests) == 1
            await pilot.pause()
            assert await pause_until(
                pilot,
                lambda: "main-model at primary" in main.budget.render_table().plain,
            )
            assert "fallback;" not in main.budget.render_table().plain


async def test_model_with_an_unknown_provider_says_which_ones_there_are(scripted: Any) -> None:
    from tests.support.tui_support import make_scripted_app

    app = make_scripted_app(scripted)
    async with app.run_test(size=(160, 48)) as pilot:
        await agent_started(pilot, app)
        agent = app.agent
        await say(pilot, app, "/model other --provider nowhere")
        assert await pause_until(pilot, lambda: any("`nowhere` is not a provider" in n for n in notices(app)))
        said = next(n for n in notices(app) if "`nowhere` is not a provider" in n)
        assert "openrouter" in said and "127.0.0.1" in said
        assert app.agent is agent  # nothing was switched

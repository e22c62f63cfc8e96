"""The ACP agent: each ACP session is one hws `Agent` in the home, driven by the client's requests.

`session/new` opens a session in the client's folder, `session/load` resumes one from `state.db` and
replays it, `session/prompt` runs a turn and streams its events as `session/update`s, an approval the
engine needs goes to the client as `session/request_permission`, and `session/cancel` interrupts the
turn. The ACP session id is the hws session the conversation began in; compression moves the agent
to a child session and the client keeps its id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionListCapabilities,
)

from engine.acp.client_servers import with_client_servers
from engine.acp.commands import skill_commands
from engine.acp.permission import decision_from, options_for, tool_call_for
from engine.acp.prompt_blocks import prompt_text
from engine.acp.replay import history_updates
from engine.acp.updates import ToolCalls
from engine.agent.errors import AgentBusy, AgentError
from engine.agent.turns import Agent
from engine.config import Config
from engine.events import ApprovalNeeded, ClarifyNeeded, ErrorEvent, Event, TurnFinished
from engine.home import Home

log = logging.getLogger(__name__)


@dataclass
class AcpSession:
    """One client session: its agent, its tool calls as shown, and the questions waiting for the client."""

    session_id: str
    agent: Agent
    calls: ToolCalls
    asking: set[asyncio.Task[None]] = field(default_factory=set)


@dataclass(frozen=True)
class AgentOptions:
    """How every session's agent is made: the model clients (None: the home's config) and yolo."""

    clients: Callable[[], tuple[Any, Any]] = lambda: (None, None)
    yolo: bool | None = None


class HwsAcpAgent:
    """The hws engine behind the Agent Client Protocol (the methods the SDK's router calls)."""

    def __init__(self, home: Home, config: Config, options: AgentOptions | None = None) -> None:
        self.home = home
        self.config = config
        self.options = options or AgentOptions()
        self.sessions: dict[str, AcpSession] = {}
        self.client: Client | None = None
        self._offering: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(
            protocol_version=min(int(protocol_version), PROTOCOL_VERSION),
            agent_capabilities=capabilities,
            auth_methods=[],
            agent_info=Implementation(name="hws", title="Hermes Workstation", version=_hws_version()),
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        return AuthenticateResponse()  # nothing to sign in to: the home's config names the model

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers)
        self._offer_commands_soon(session)  # after the response: the client knows the session by then
        return NewSessionResponse(session_id=session.session_id)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> Any:
        from engine.acp.listing import list_sessions

        return await list_sessions(self.home, self.config, cwd, cursor)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        session = self.sessions.get(session_id) or await self._open(cwd, session_id, mcp_servers)
        for update in history_updates(session.agent.history):
            await self._send(session.session_id, update)
        self._offer_commands_soon(session)
        return LoadSessionResponse()

    def _offer_commands_soon(self, session: AcpSession) -> None:
        commands = skill_commands(session.agent.skills)
        if commands is None:
            return

        async def offer() -> None:
            await asyncio.sleep(0)  # the response to the request that opened the session goes first
            try:
                await self._send(session.session_id, commands)
            except Exception as exc:  # the client left: nothing to offer to
                log.info("the skill commands were not sent: %s", exc)

        task = asyncio.create_task(offer())
        self._offering.add(task)
        task.add_done_callback(self._offering.discard)

    async def _open(self, cwd: str, resume: str | None, mcp_servers: list[Any] | None) -> AcpSession:
        folder = Path(cwd).expanduser()
        if not folder.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd} is not a folder."})
        main, aux = self.options.clients()
        try:
            agent = Agent(
                self.home,
                with_client_servers(self.config, mcp_servers),
                cwd=folder,
                resume=resume,
                source="acp",
                yolo=self.options.yolo,
                client=main,
                aux_client=aux,
                on_background=_log_background,
                exact_tokens=False,
            )
            opened = await agent.start()
        except AgentError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        session_id = resume if resume is not None else opened
        calls = ToolCalls(agent.cwd, agent.redactor, lambda: agent.ctx.state.todos if agent.ctx else [])
        self.sessions[session_id] = AcpSession(session_id, agent, calls)
        log.info("ACP session %s opened on hws session %s in %s", session_id, opened, agent.cwd)
        return self.sessions[session_id]

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"No session {session_id} is open here."})
        return session

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt)
        if not text.strip():
            raise RequestError.invalid_params({"prompt": "The message is empty."})
        interrupted = False
        try:
            async for event in session.agent.run_turn(text, command=True):
                await self._show(session, event)
                if isinstance(event, TurnFinished):
                    interrupted = event.interrupted
        except AgentBusy as exc:
            raise RequestError.invalid_request({"message": str(exc)}) from None
        finally:
            for task in list(session.asking):
                task.cancel()
        return PromptResponse(stop_reason="cancelled" if interrupted else "end_turn")

    async def _show(self, session: AcpSession, event: Event) -> None:
        if isinstance(event, ApprovalNeeded):
            task = asyncio.create_task(self._ask(session, event))
            session.asking.add(task)
            task.add_done_callback(session.asking.discard)
            return
        if isinstance(event, ClarifyNeeded):  # ACP has no question to a person: the model decides
            from engine.tools.context import Decision

            session.agent.answer_approval(event.request_id, Decision.DENY)
            return
        if isinstance(event, ErrorEvent):
            await self._send(session.session_id, update_agent_message_text(f"\n\nerror: {event.message}\n"))
            return
        for update in session.calls.updates(event):
            await self._send(session.session_id, update)

    async def _ask(self, session: AcpSession, event: ApprovalNeeded) -> None:
        """Ask the client; its answer is the person's. No answer (cancelled, failed) denies."""
        assert self.client is not None
        decision = None
        try:
            response = await self.client.request_permission(
                session_id=session.session_id, tool_call=tool_call_for(event), options=options_for(event)
            )
            decision = decision_from(response, event)
        except Exception as exc:
            log.warning("the client did not answer the approval for %s: %s", event.command, exc)
        finally:
            session.agent.answer_approval(event.request_id, decision or "deny")

    async def _send(self, session_id: str, update: Any) -> None:
        assert self.client is not None
        await self.client.session_update(session_id=session_id, update=update)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            await session.agent.interrupt()

    async def close(self) -> None:
        """The client left: interrupt what runs, let background reviews finish, end every session."""
        wait = float(self.config.review.wait_timeout)
        for session in list(self.sessions.values()):
            with contextlib.suppress(Exception):
                await session.agent.interrupt()
                await session.agent.wait_background(wait)
            try:
                await session.agent.close("acp_close")
            except Exception:
                log.exception("closing ACP session %s failed", session.session_id)
        self.sessions.clear()


def _hws_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hermes-workstation")
    except PackageNotFoundError:  # a checkout run in place
        return "0+checkout"


def _log_background(event: Event) -> None:
    """Work outside a turn (the review's writes, titles) is in the home's journal and logs already."""
    log.debug("background: %s", event.kind)

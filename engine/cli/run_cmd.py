"""`hws run "PROMPT"`: one turn of the agent, headless — the answer on stdout, tool calls on stderr.

`--json` prints every event (the turn's and the background review's) as one JSON line with its
`session_id`; `--session ID|TITLE` continues a session (at the newest child of its compression
chain) and `-c` the most recent one;
`--scripted` (or `--scenario NAME|FILE`) answers from the scripted model server, started in this
process, instead of the configured model. The process exits after any background review of the turn
has finished.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.cli.common import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, fail, open_home
from engine.tools.preview import format_call

if TYPE_CHECKING:
    from engine.config import Config
    from engine.events import Event
    from engine.home import Home
    from engine.llm.client import LLMClient
    from engine.tools.context import ApprovalRequest, ClarifyRequest


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "run",
        help="run one agent turn headless: the answer on stdout, tool calls on stderr",
        description=(
            "Send PROMPT to the agent and stream the answer to stdout; tool calls, memory and skill writes "
            "and status lines go to stderr as one-line summaries. Exits after any background review."
        ),
    )
    parser.add_argument(
        "prompt",
        nargs="?",
        help="the message ('/skill-name instruction' loads that skill for the turn); '-' or nothing reads "
        "it from stdin, sent as it is",
    )
    going_on = parser.add_mutually_exclusive_group()
    going_on.add_argument(
        "--session", metavar="SESSION", help="continue this session (its id, an id prefix or its title)"
    )
    going_on.add_argument(
        "-c", "--continue", dest="continue_last", action="store_true", help="continue the most recent session"
    )
    parser.add_argument("--json", action="store_true", help="print every event as a JSON line instead")
    parser.add_argument("--yolo", action="store_true", help="run destructive commands without asking")
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="answer from the built-in scripted model server (started in this process) instead of the "
        "configured model; no API key needed",
    )
    parser.add_argument(
        "--scenario",
        metavar="NAME|FILE",
        help="the scripted model's scenario: a shipped name or a YAML file (implies --scripted; "
        "default: default)",
    )
    parser.add_argument(
        "--request-log",
        metavar="FILE",
        help="with the scripted model: append every request it received to FILE as JSON lines",
    )
    parser.add_argument("--cwd", metavar="DIR", help="working directory of the tools (default: here)")
    parser.add_argument(
        "--oversized",
        choices=("file", "cut", "send"),
        help="when the message alone is larger than the model's context window: save it to a file in "
        "the project and send its path (file), keep its start and end (cut), or send it anyway (send); "
        "without this such a message is not sent",
    )
    parser.set_defaults(handler=run)


def _prompt_text(args: argparse.Namespace) -> str:
    text = args.prompt
    if text is None or text == "-":
        if sys.stdin.isatty():
            fail('Give a prompt: hws run "what is in this folder?" (or pipe one in).')
        text = sys.stdin.read()
    if not text.strip():
        fail("The prompt is empty; give the message to send.")
    return str(text)


def _no_model_sentence(home: Home) -> str:
    return (
        f"No model is configured: set model.base_url and model.default in {home.config_file} (any "
        f"OpenAI-compatible endpoint), or put OPENROUTER_API_KEY in {home.env_file}; "
        '`hws run --scripted "hello"` tries the built-in scripted model.'
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    home, config = open_home(args)
    text = _prompt_text(args)
    if args.continue_last:
        from engine.sessions.last_session import most_recent_session

        found, problem = most_recent_session(home, config, 'hws run "PROMPT"')
        if found is None:
            fail(problem, EXIT_USAGE)
        args.session = found
    cwd = Path(args.cwd).resolve() if args.cwd else None
    if cwd is not None and not cwd.is_dir():
        fail(f"--cwd {args.cwd} is not a folder.")
    server = None
    client = aux_client = None
    if args.request_log and not (args.scripted or args.scenario):
        fail("--request-log records what the scripted model received; use it with --scripted or --scenario.")
    if args.scripted or args.scenario:
        server, client = _scripted_client(args.scenario or "default", home, config, args.request_log)
        aux_client = client
    else:
        from engine.llm.settings import SettingsError, model_settings

        try:
            model_settings(config)
        except SettingsError:
            fail(_no_model_sentence(home), EXIT_USAGE)
    try:
        return asyncio.run(_run_turn(home, config, text, args, cwd, client, aux_client))
    finally:
        if server is not None:
            server.stop()


def _scripted_client(
    scenario_name: str, home: Home, config: Config, request_log: str | None = None
) -> tuple[Any, LLMClient]:
    from engine.llm.direct import DirectLLMClient
    from engine.llm.fallback import fallback_settings
    from engine.llm.settings import ModelSettings, SettingsError
    from engine.model_server.parsing import load_scenario
    from engine.model_server.scenario import ScenarioError
    from engine.model_server.server import ScriptedModelServer

    try:
        scenario = load_scenario(scenario_name)
    except ScenarioError as exc:
        fail(str(exc), EXIT_USAGE)
    server = ScriptedModelServer(scenario, log_path=request_log).start()
    settings = ModelSettings(
        base_url=server.base_url,
        model=scenario.model,
        max_retries=int(config.agent.api_max_retries),
        retry_base_delay=float(config.agent.retry_base_delay),
        retry_max_delay=float(config.agent.retry_max_delay),
    )
    try:
        fallbacks = fallback_settings(config, settings)  # config's fallback providers stand behind it
    except SettingsError as exc:
        server.stop()
        fail(str(exc), EXIT_USAGE)
    return server, DirectLLMClient(settings, home_root=home.root, fallbacks=fallbacks)


async def _run_turn(
    home: Home,
    config: Config,
    text: str,
    args: argparse.Namespace,
    cwd: Any,
    client: LLMClient | None,
    aux_client: LLMClient | None,
) -> int:
    from engine.agent.errors import AgentError
    from engine.agent.turns import Agent

    printer = JsonPrinter() if args.json else TextPrinter()
    try:
        agent = Agent(
            home,
            config,
            cwd=cwd,
            resume=args.session,
            source="cli",
            approve=TerminalApprover(printer),  # --yolo skips most questions, never those that always ask
            yolo=True if args.yolo else None,
            client=client,
            aux_client=aux_client,
            on_background=printer.show,
            exact_tokens=False,  # nothing here shows token gauges; skip loading the tokenizer
        )
    except AgentError as exc:
        fail(str(exc), EXIT_USAGE)
    try:
        fitted = await _fitted(agent, text, args.oversized)
        # The prompt argument is typed: `/skill-name …` loads the skill; a piped text goes as it is.
        typed = args.prompt not in (None, "-") and fitted == text
        async for event in agent.run_turn(fitted, command=typed):
            printer.show(event)
        await agent.wait_background(float(config.review.wait_timeout))
    finally:
        await agent.close()
    printer.finish(agent.session_id)
    return EXIT_REFUSED if printer.failed else EXIT_OK


async def _fitted(agent: Any, text: str, choice: str | None) -> str:
    """The message to send: as given, or as `--oversized` says when it alone does not fit the window."""
    from engine.compression.oversized import CHOICE_HELP
    from engine.storage.atomic import WriteError

    found = await agent.oversized(text)
    if found is None:
        return text
    if choice is None:
        ways = "; ".join(f"--oversized {name}: {help}" for name, help in CHOICE_HELP.items())
        fail(f"{found.sentence()} Choose how to go on: {ways}.", EXIT_USAGE)
    try:
        fitted = agent.fit_message(text, found, choice)
    except WriteError as exc:
        fail(f"The message could not be saved to a file: {exc}", EXIT_REFUSED)
    print(f"note: {fitted.note}", file=sys.stderr)
    return str(fitted.text)


class TerminalApprover:
    """Asks on the terminal when there is one; with nobody to ask, a destructive action is declined."""

    def __init__(self, printer: Any) -> None:
        self.printer = printer

    async def __call__(self, request: ApprovalRequest | ClarifyRequest) -> str:
        from engine.tools.context import ClarifyRequest, Decision

        if isinstance(request, ClarifyRequest):
            if not (sys.stdin.isatty() and sys.stderr.isatty()):
                self.printer.note(f"not asked: {request.question} (no terminal to ask; the model decides)")
                return Decision.DENY
            return await asyncio.to_thread(_ask_clarify, request.question, request.choices)
        rule = f" [{request.rule}]" if request.rule else ""
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            hint = "--yolo does not skip this question" if request.always_ask else "pass --yolo to allow"
            asker = f" (asked by {request.asker})" if request.asker else ""
            self.printer.note(
                f"declined: {request.command} ({request.reason}){rule}{asker}; no terminal to ask — {hint}"
            )
            return "deny"
        if request.detail:
            self.printer.note(request.detail.rstrip("\n"))
        if request.allow_session:
            scope = f" (for the session: {request.scope})" if request.scope else ""
            choices = f"[o]nce / [s]ession{scope} / [d]eny"
        else:
            choices = "[o]nce / [d]eny (asked every time)"
        asker = f"{request.asker} asks: " if request.asker else ""
        question = f"{asker}Allow `{request.command}`?{rule} {request.reason}  {choices}: "
        answer = await asyncio.to_thread(_ask, question)
        answers = {"o": "once", "s": "session"} if request.allow_session else {"o": "once"}
        return answers.get(answer[:1].lower(), "deny")


def _ask_clarify(question: str, choices: tuple[str, ...]) -> str:
    """The person's answer on the terminal: a choice's number picks it, anything else is their words."""
    lines = [f"? {question}", *(f"  {n}. {choice}" for n, choice in enumerate(choices, 1))]
    hint = f"1-{len(choices)} or your own answer" if choices else "your answer"
    sys.stderr.write("\n".join(lines) + "\n")
    answer = _ask(f"({hint}, empty to let the model decide): ")
    if answer.isdigit() and 1 <= int(answer) <= len(choices):
        return choices[int(answer) - 1]
    return answer


def _ask(question: str) -> str:
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline().strip()


def _unsaved_line(data: dict[str, Any]) -> str:
    if not data["waiting"]:
        return "┊ state.db  the kept messages are written"
    return (
        f"warning: state.db is locked by another program; {data['waiting']} message(s) kept in "
        f"{data['journal']} until it is released (the next hws writes them)"
    )


def _compression_line(data: dict[str, Any]) -> str:
    if data["compressed"]:
        return f"┊ compressed {data['tokens_before']:,} → {data['tokens_after']:,} tokens"
    return f"┊ {data['note']}" if data["note"] else ""


def _checkpoint_line(data: dict[str, Any]) -> str:
    kept, ident = "unchanged since" if data["unchanged"] else "saved as", data["checkpoint_id"]
    return f"┊ checkpoint {kept} {ident} (hws checkpoints restore {ident})"


def _skill_loaded_line(data: dict[str, Any]) -> str:
    what = f"{data['name']}/{data['file_path']}" if data["file_path"] else data["name"]
    return f"┊ skill     loaded {what} ({data['tokens']:,} tokens)"


NOTE_LINES: dict[str, Callable[[dict[str, Any]], str]] = {
    "memory_written": lambda d: f"┊ memory    {d['target']} {d['action']} by {d['who']}: {d['message']}",
    "skill_changed": lambda d: f"┊ skill     {d['action']} {d['name']} by {d['who']}",
    "skill_loaded": _skill_loaded_line,
    "write_staged": lambda d: (
        f"┊ pending   {d['subsystem']} write {d['pending_id']} waits for your approval: "
        f"{d['summary']} (hws {d['subsystem']} approve {d['pending_id']} / reject)"
    ),
    "unsaved_messages": _unsaved_line,
    "approved_by_session": lambda d: f"┊ approved  {d['command']} (this session allows {d['scope']})",
    "process_started": lambda d: f"┊ process   {d['process_id']} started ({d['where']}): {d['command']}",
    "process_ended": lambda d: f"┊ process   {d['message']}",
    "checkpoint_taken": _checkpoint_line,
    "checkpoint_skipped": lambda d: f"warning: {d['message']}",
    "nudge_fired": lambda d: f"┊ nudge     {d['nudge']}: {d['reason']}",
    "status": lambda d: f"{d['level']}: {d['text']}",
    "guarded_settings_changed": lambda d: f"warning: {d['message']}",
    "compression_finished": _compression_line,
    "conversation_too_large": lambda d: f"{'note' if d['fits'] else 'warning'}: {d['message']}",
    "session_titled": lambda d: f"┊ title     “{d['title']}” (by {d['by']})",
    "session_changed": lambda d: f"┊ session   now {d['session_id']} ({d['reason']})",
    "subagent_started": lambda d: (
        f"┊ subagent  {d['index']} started{' in the background' if d['background'] else ''}: "
        f"{d['goal']} (session {d['child_session_id']})"
    ),
    "subagent_progress": lambda d: (
        f"┊   └ {d['name']}  → {d['preview']}" if d["step"] == "tool_finished" else ""
    ),
    "subagent_finished": lambda d: (
        f"┊ subagent  {d['index']} {d['status']} ({d['calls']} calls, "
        f"{d['prompt_tokens'] + d['completion_tokens']:,} tokens, {d['duration_s']:.1f}s): "
        + (d["summary"].splitlines() or [""])[0]
    ),
}
"""One stderr line for each event `hws run` only reports (the others stream, or end the turn)."""


class TextPrinter:
    """Plain output: the answer streams to stdout, everything else is a short line on stderr.

    When stdout is not a terminal (a pipe, a file) each model call's text is held until the call
    ends, so a retry after a cut stream never leaves half a reply in the output.
    """

    def __init__(self, hold: bool | None = None) -> None:
        self.failed = False
        self.previews: dict[str, str] = {}
        self.text_open = False  # stdout has text without a final newline
        self.hold = (not sys.stdout.isatty()) if hold is None else hold
        self.pending: list[str] = []

    def note(self, line: str) -> None:
        if self.text_open:
            sys.stdout.flush()
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _write(self, text: str) -> None:
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
            self.text_open = not text.endswith("\n")

    def _release(self) -> None:
        text, self.pending = "".join(self.pending), []
        self._write(text)

    def show(self, event: Event) -> None:
        kind = event.kind
        data = event.__dict__
        if kind == "text_delta":
            if self.hold:
                self.pending.append(data["text"])
            else:
                self._write(data["text"])
            return
        if kind == "status" and data["reply_void"]:  # a retry: the reply streamed so far starts over
            if self.hold:
                self.pending.clear()
            elif self.text_open:  # on a terminal the retry starts on a line of its own
                self._write("\n")
        elif kind in ("tool_called", "usage", "turn_finished", "error_event"):
            self._release()
        if kind == "tool_called":
            if self.text_open:  # the model's words before its tool calls end their line
                sys.stdout.write("\n")
                sys.stdout.flush()
                self.text_open = False
            self.previews[data["call_id"]] = format_call(data["name"], data["preview"])
        elif kind == "tool_finished":
            mark = "┊" if data["ok"] else "┊ ✗"
            preview = self.previews.pop(data["call_id"], data["name"])
            self.note(f"{mark} {preview}  → {data['preview']} ({data['duration_s']:.1f}s)")
        elif kind == "error_event":
            self.failed = True
            self.note(f"error: {data['message']}")
        elif kind == "session_resumed":
            self.note(f"┊ session   {event.sentence}")  # type: ignore[attr-defined]
        elif kind in NOTE_LINES:
            line = NOTE_LINES[kind](data)
            if line:
                self.note(line)
        elif kind == "turn_finished":
            if self.text_open:
                sys.stdout.write("\n")
                sys.stdout.flush()
                self.text_open = False
            if data["interrupted"]:
                self.note("interrupted; what was said is kept")
            elif data["empty"]:
                self.note("note: the model's reply was empty; run it again, or rephrase")

    def finish(self, session_id: str) -> None:
        if session_id:
            self.note(f"session {session_id}")


class JsonPrinter:
    """`--json`: one JSON object per event on stdout, each with its `type` and `session_id`."""

    def __init__(self) -> None:
        self.failed = False

    def note(self, line: str) -> None:
        sys.stderr.write(line + "\n")

    def show(self, event: Event) -> None:
        if event.kind == "error_event":
            self.failed = True
        sys.stdout.write(json.dumps(event.as_dict(), ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()

    def finish(self, session_id: str) -> None:
        pass

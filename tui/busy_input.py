"""Input while the agent works, and input that is not a message for it.

- Enter while a turn runs queues the message (`agent.busy_input: queue`): the queue shows dimmed above
  the input, each message is sent as its own turn when the one before it ends; enter on a queued one
  puts it back into the input, delete drops it. ctrl+c interrupts the turn and the queue waits (enter
  on the empty input sends the next).
- `/steer TEXT` (alt+enter) gives the text to the running turn for its next tool boundary; a turn
  that ends first leaves it to be sent as the next message.
- `!CMD` runs CMD in the session's shell (the terminal tool's sandbox and approvals) and shows the
  output, sending nothing; `!!CMD` also attaches the output to the next message sent.
- alt+e opens the draft in $EDITOR.
"""

from __future__ import annotations

import asyncio
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from tui import messages
from tui.agent_port import drive_stream, steer, take_steers
from widgets.transcript_blocks import one_line

if TYPE_CHECKING:
    from tui.app import HwsApp

REFUSED = "The agent is still working: ctrl+c interrupts it, then send again."
SHELL_HELP = (
    "!CMD runs CMD in the session's shell and shows its output; !!CMD also sends it with your next message."
)


@dataclass(frozen=True)
class QueuedMessage:
    """A message typed while a turn ran: `text` is what is sent, `draft` what the input showed."""

    text: str
    draft: str


@dataclass(frozen=True)
class ShellOutput:
    """The output of a `!!CMD`, waiting for the next message."""

    command: str
    output: str


def with_outputs(text: str, outputs: list[ShellOutput]) -> str:
    """The message followed by each attached command's output, as the model reads it."""
    parts = [text]
    for found in outputs:
        said = f"Output of `{found.command}` (I ran it in the session's shell):"
        parts.append(f"{said}\n```\n{found.output.rstrip()}\n```")
    return "\n\n".join(parts)


class BusyInput:
    """The queue, steering, `!CMD` and the draft editor, for the app's input."""

    def __init__(self, app: HwsApp) -> None:
        self.app = app
        self.queued: list[QueuedMessage] = []
        self.steering: list[str] = []  # given to the running turn, not yet taken at a tool boundary
        self.attached: list[ShellOutput] = []
        self.shell_command = ""  # the person's own `!CMD` running now ("" when none): no agent turn runs

    def _say(self, text: str, level: str = "info", icon: str = "·") -> None:
        self.app.main_screen.post_message(messages.Notice(text, level, icon))

    def _show(self) -> None:
        waiting = [f"↳ steer, at the next tool boundary: {one_line(text, 60)}" for text in self.steering]
        self.app.main_screen.queued.show([item.draft for item in self.queued], waiting)

    # While a turn runs.

    def typed_while_busy(self, text: str, draft: str) -> None:
        """Enter while the agent works: queued, steered or refused, as `agent.busy_input` says."""
        mode = str(self.app.config.agent.busy_input)
        if mode == "refuse":
            self.app.main_screen.prompt.restore(text)
            self.app.notify(REFUSED, severity="warning")
        elif mode == "steer" and not text.startswith("!"):
            self.steer(text)
        else:
            self.queued.append(QueuedMessage(text, draft))
            self._show()

    def steer(self, text: str) -> None:
        """`/steer TEXT`, alt+enter: into the running turn; with no turn running it is simply sent."""
        text = text.strip()
        if not text:
            self._say("/steer TEXT adds TEXT to the running turn at its next tool boundary.", "warning")
            return
        app = self.app
        if not app.turn_running:
            app.send_to_agent(text)
            return
        if self.shell_command:  # the agent is not working: there is no turn and no tool boundary to reach
            self.queued.append(QueuedMessage(text, text))
            self._say(
                f"No agent turn is running (your `{one_line(self.shell_command, 40)}` runs in the shell): "
                "the message is queued and sent as a message when the command ends.",
                icon="↳",
            )
        elif steer(app.agent, text):
            self.steering.append(text)
        else:  # an agent that cannot be steered
            self.queued.append(QueuedMessage(text, text))
            self._say(
                "This agent cannot take a steer: the message is queued for when its turn ends.", "warning"
            )
        self._show()

    def saw(self, message: Message) -> None:
        """A message of the running turn went by: a steer the turn took leaves the waiting list."""
        if isinstance(message, messages.TurnSteered) and message.event.text in self.steering:
            self.steering.remove(message.event.text)
            self._show()

    def turn_ended(self, interrupted: bool) -> None:
        """The turn (or the `!CMD`) is over: a steer it never reached goes first, then the queue goes on."""
        left = take_steers(self.app.agent) if self.app.agent is not None else []
        self.steering.clear()
        if left:
            self.queued[0:0] = [QueuedMessage(text, text) for text in left]
            self._say(
                "The turn ended before a tool boundary: your steer is sent as the next message instead.",
                icon="↳",
            )
        if interrupted and self.queued:
            count = len(self.queued)
            what = "message stays" if count == 1 else "messages stay"
            self._say(
                f"{count} queued {what} queued: enter on the empty input sends the next; alt+up moves to "
                "them (enter edits one, delete drops it).",
                icon="⏸",
            )
        self._show()
        if not interrupted:
            self.send_next()

    def send_next(self) -> bool:
        """Send the oldest queued message as its own turn (nothing while one runs)."""
        if not self.queued or self.app.turn_running:
            return False
        item = self.queued.pop(0)
        self._show()
        self.app.call_later(self.app.submit_typed, item.text, item.draft)
        return True

    def edit(self, index: int) -> None:
        """A queued message back into the input (after the draft there), out of the queue."""
        if not 0 <= index < len(self.queued):
            return
        item = self.queued.pop(index)
        self._show()
        prompt = self.app.main_screen.prompt
        draft = prompt.full_text
        prompt.set_text(f"{draft}\n{item.text}" if draft.strip() else item.text)
        prompt.input.focus()

    def drop(self, index: int) -> None:
        if not 0 <= index < len(self.queued):
            return
        item = self.queued.pop(index)
        self._show()
        self._say(f"Dropped the queued message “{one_line(item.draft, 60)}”; it is not sent.", icon="✗")
        if not self.queued:
            self.app.main_screen.prompt.input.focus()

    def focus_queue(self) -> None:
        queued = self.app.main_screen.queued
        if not self.queued:
            self.app.notify("Nothing is queued: enter while the agent works queues a message.", timeout=4)
            return
        queued.focus()

    # `!CMD` and `!!CMD`.

    def shell(self, command: str, attach: bool) -> None:
        """Run `command` in the session's shell; `attach`: its output goes with the next message."""
        command = command.strip()
        app = self.app
        if not command:
            self._say(SHELL_HELP, "warning")
            return
        if app.agent is None or not hasattr(app.agent, "run_user_shell"):
            reason = app.agent_problem or "the agent is still starting"
            self._say(f"Not run: {reason}.", "warning", "!")
            return
        app.turn_running = True
        self.shell_command = command
        app.run_worker(
            self._run_shell(command, attach),
            group="turn",
            exclusive=True,
            exit_on_error=False,
            description="a command in the session's shell",
        )

    async def _run_shell(self, command: str, attach: bool) -> None:
        app = self.app
        post = app.main_screen.post_message
        agent = app.agent
        assert agent is not None
        ran = interrupted = False

        def forward(message: Message) -> object:
            nonlocal ran
            if isinstance(message, messages.ShellRan):
                ran = True
                message.attached = attach
                if attach:
                    self.attached.append(ShellOutput(command, message.event.output))
            return post(message)

        try:
            await drive_stream(agent, agent.run_user_shell(command), forward)  # type: ignore[attr-defined]
        except asyncio.CancelledError:
            interrupted = True
            raise
        except Exception as exc:  # the engine failed: said, and the app stays up
            post(messages.Notice(f"`{command}` could not run: {type(exc).__name__}: {exc}", "error", "✗"))
        finally:
            if not ran:
                interrupted = True
                post(messages.Notice(f"`{command}` was stopped before it finished.", "warning", "■"))
            app.turn_running = False
            self.shell_command = ""
            app.call_later(self.turn_ended, interrupted)

    def attach_outputs(self, text: str) -> str:
        """The message with the outputs of the `!!CMD`s since the last one sent (said in the transcript)."""
        if not self.attached:
            return text
        outputs, self.attached = self.attached, []
        names = ", ".join(f"`{found.command}`" for found in outputs)
        self._say(f"Sent with the output of {names}.", icon="📎")
        return with_outputs(text, outputs)

    # The draft in $EDITOR.

    def edit_draft(self, text: str) -> None:
        """alt+e: the draft in $EDITOR (hws is suspended meanwhile); what it saves comes back."""
        from tui.file_editing import external_editor_command

        app = self.app
        command = external_editor_command(str(app.config.editor.external_command or ""))
        with tempfile.TemporaryDirectory(prefix="hws-draft-") as folder:
            path = Path(folder) / "message.md"
            path.write_text(text, encoding="utf-8")
            try:
                with app.suspend():
                    completed = subprocess.run([*command, str(path)], check=False)
            except Exception as exc:  # headless, the browser, or no such program
                name = type(exc).__name__
                reason = (
                    "the workstation is not in a real terminal"
                    if name == "SuspendNotSupported"
                    else f"{command[0]} could not run ({exc})"
                )
                app.notify(f"alt+e: {reason}; the draft is unchanged.", severity="warning")
                return
            app.refresh()
            try:
                edited = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                app.notify(f"Could not read back what {command[0]} wrote ({exc}).", severity="error")
                return
        if completed.returncode != 0:
            app.notify(f"{command[0]} exited with {completed.returncode}; the draft is unchanged.")
            return
        prompt = app.main_screen.prompt
        prompt.set_text(edited.rstrip("\n"))
        prompt.input.focus()

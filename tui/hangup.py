"""The terminal driver `hws` runs on: Textual's own, made to outlive a closed terminal.

When the terminal closes (SIGHUP), every write to it fails. Textual's output thread dies on the first
failure, and the next screen update then waits for it for good, so the session could never be closed.
Here the output drops what it cannot write, and the input stops reading a terminal that only says
end-of-file, so the app can end the session as ctrl+q does and exit.
"""

from __future__ import annotations

from typing import IO, Any

from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class TerminalOutput:
    """The driver's output file, which drops writes once the terminal is gone."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._file.write(text)
            except (OSError, ValueError):  # EIO from a hung-up terminal, or a closed file
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self.gone = True

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class HangupSafeDriver(LinuxDriver):
    """Textual's terminal driver, whose output and input give up quietly on a closed terminal."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._output = TerminalOutput(self._file)
        self._file = self._output
        self._suspended = False

    def suspend_application_mode(self) -> None:
        self._suspended = True
        super().suspend_application_mode()

    def resume_application_mode(self) -> None:
        self._suspended = False
        super().resume_application_mode()

    def _sigcont_application(self, *args: Any) -> None:
        """Restart the terminal only after a suspension: a closing terminal sends SIGCONT with SIGHUP,
        and restarting then started a second set of threads on a terminal that is gone."""
        if self._suspended:
            super()._sigcont_application(*args)

    def terminal_gone(self) -> None:
        """The terminal closed: write nothing more to it and stop reading it."""
        self._output.gone = True
        self.exit_event.set()  # the input thread would spin on end-of-file until the app exits


def hangup_safe(driver_class: type[Driver]) -> type[Driver]:
    """The driver to run with: Textual's terminal driver made hang-up safe, any other (web, Windows) as is."""
    return HangupSafeDriver if driver_class is LinuxDriver else driver_class

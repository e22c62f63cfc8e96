"""One thread that runs a store's searches, and the lightest hand-off to and from the event loop.

`loop.run_in_executor` costs about 0.2 ms a round trip here (concurrent futures chained to asyncio
futures through callbacks), a fifth of a whole cheap search. A search needs much less: a queue
into one long-lived thread, and `call_soon_threadsafe` to set the awaiting future with the result.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_STOP = object()


class SearchThread:
    """Runs calls one at a time on a daemon thread of its own, in the order they were submitted."""

    def __init__(self, name: str = "hws-search") -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._started = False
        self._lock = threading.Lock()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the thread; its result, or its exception, here."""
        self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put((loop, future, fn, args))
        return await future

    async def stop(self, last: Callable[[], Any] | None = None) -> None:
        """Run `last` (closing what the thread owns) after every queued call, then end the thread."""
        if last is not None:
            await self.run(last)
        if self._started:
            self._jobs.put(_STOP)
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join)

    def _start(self) -> None:
        with self._lock:
            if not self._started:
                self._thread.start()
                self._started = True

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            loop, future, fn, args = job
            try:
                outcome: tuple[bool, Any] = (True, fn(*args))
            except Exception as exc:  # handed to the awaiting task, which re-raises it
                outcome = (False, exc)
            try:
                loop.call_soon_threadsafe(_settle, future, outcome)
            except RuntimeError:
                pass  # the loop closed while the call ran: nobody is waiting any more


def _settle(future: asyncio.Future[Any], outcome: tuple[bool, Any]) -> None:
    if future.cancelled():
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)

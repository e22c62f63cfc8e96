"""The search thread: calls run in order on one thread, errors come back, cancelling loses nothing."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from engine.sessions.search_thread import SearchThread


async def test_calls_run_in_order_on_one_thread_of_its_own() -> None:
    runner = SearchThread()
    seen: list[tuple[int, str]] = []

    def job(n: int) -> int:
        seen.append((n, threading.current_thread().name))
        return n * 2

    results = await asyncio.gather(*(runner.run(job, n) for n in range(20)))
    await runner.stop()
    assert results == [n * 2 for n in range(20)]
    assert [n for n, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"hws-search"}
    assert threading.current_thread().name not in {name for _, name in seen}


async def test_an_error_in_the_thread_is_raised_to_the_caller_and_the_thread_goes_on() -> None:
    runner = SearchThread()

    def broken() -> None:
        raise ValueError("no such column: m.active")

    with pytest.raises(ValueError, match="no such column"):
        await runner.run(broken)
    assert await runner.run(lambda: "still serving") == "still serving"
    await runner.stop()


async def test_a_cancelled_caller_does_not_break_the_next_call() -> None:
    runner = SearchThread()
    task = asyncio.create_task(runner.run(time.sleep, 0.2))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await runner.run(lambda: 42) == 42
    await runner.stop()


async def test_stop_runs_its_last_call_after_the_queued_ones_and_ends_the_thread() -> None:
    runner = SearchThread()
    order: list[str] = []
    first = asyncio.create_task(runner.run(lambda: order.append("search")))
    await asyncio.sleep(0)  # the search is queued
    await runner.stop(last=lambda: order.append("close"))
    await first
    assert order == ["search", "close"]
    assert not runner._thread.is_alive()


async def test_stopping_a_thread_that_never_ran_is_harmless() -> None:
    await SearchThread().stop()

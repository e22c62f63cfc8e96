"""Live files: how long from an external write of USER.md to the memory pane showing it.

The workstation runs headless with its real watcher (inotify here) on a throwaway home. Each round
writes a new entry into USER.md from outside the app — by atomic replace (a temp file renamed over
it, as safe-writing editors do) or in place (as vim and nano do here) — and times until the memory
pane holds the new entry and the screen has caught up. The figure includes the debounce
(`watch.debounce_ms`); the raw watchdog event latency, measured in the same run on the same home,
is the baseline. Own writes are counted too: the app's saves must never come back as changes.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.common import Figure, Options, temp_home

TARGET_MS = 150.0
ROUND_TIMEOUT_S = 5.0
POLL_S = 0.001


def replace_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def write_in_place(path: Path, text: str) -> None:
    with path.open("r+", encoding="utf-8") as handle:
        handle.seek(0)
        handle.truncate()
        handle.write(text)


def visible_text(widget: Any) -> str:
    """The text a pane shows: its Statics, list entries and editors (whatever pane implementation)."""
    from textual.widgets import OptionList, Static, TextArea

    parts: list[str] = []
    for node in [widget, *widget.query("*")]:
        if isinstance(node, OptionList):
            parts += [str(node.get_option_at_index(i).prompt) for i in range(node.option_count)]
        elif isinstance(node, Static):
            parts.append(str(node.content))
        elif isinstance(node, TextArea):
            parts.append(node.text)
    return "\n".join(parts)


def raw_event_latency_ms(root: Path, runs: int) -> list[float]:
    """Baseline: end of an atomic replace to watchdog's `moved` callback, no debounce, no app."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    target = root / "memories" / "USER.md"
    arrived = threading.Event()

    class Handler(FileSystemEventHandler):
        def on_moved(self, event: Any) -> None:
            if os.fsdecode(event.dest_path) == str(target):
                arrived.set()

    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    samples = []
    try:
        for n in range(runs):
            arrived.clear()
            start = time.perf_counter()
            replace_atomically(target, f"baseline {n}")
            if arrived.wait(ROUND_TIMEOUT_S):
                samples.append((time.perf_counter() - start) * 1000)
    finally:
        observer.stop()
        observer.join()
    return samples


async def pane_latency(runs: int) -> dict[str, Any]:
    """Rounds of external writes (both kinds) and own saves against a running app."""
    from engine.config import load_config
    from engine.home import Home
    from tui.app import HwsApp
    from tui.watcher import HomeChanged

    home = Home.resolve(os.environ["HERMES_HOME"]).ensure()
    user = home.memories / "USER.md"
    user.write_text("Name: Dana", encoding="utf-8")
    app = HwsApp(home, load_config(home.root))
    seen: list[Any] = []
    results: dict[str, Any] = {"atomic": [], "in_place": [], "echoes": 0, "own": 0}
    async with app.run_test(size=(140, 40), message_hook=seen.append) as pilot:
        deadline = time.monotonic() + ROUND_TIMEOUT_S
        while (app.live_files.watcher is None or not app.live_files.watcher._ready.is_set()) and (
            time.monotonic() < deadline
        ):
            await asyncio.sleep(0.01)
        pane = app.main_screen.memory
        entries = ["Name: Dana"]
        for n in range(runs * 2):
            kind = "atomic" if n % 2 == 0 else "in_place"
            token = f"Entry {n} written from outside"
            entries.append(token)
            text = "\n§\n".join(entries)
            start = time.perf_counter()
            (replace_atomically if kind == "atomic" else write_in_place)(user, text)
            while token not in visible_text(pane):
                if time.perf_counter() - start > ROUND_TIMEOUT_S:
                    raise RuntimeError(f"the memory pane never showed round {n}")
                await asyncio.sleep(POLL_S)
            await pilot.pause()  # the frame that draws it
            results[kind].append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(float(app.config.watch.debounce_ms) / 1000 * 2)
        # Own writes through the engine (what the editor's ctrl+s does): none may echo.
        from engine.editing import buffers as editing

        target = editing.memory_target(home, "user")
        before = len([m for m in seen if isinstance(m, HomeChanged)])
        for n in range(runs):
            loaded = await asyncio.to_thread(editing.load, home, app.config, target)
            await asyncio.to_thread(
                editing.save, home, app.config, target, loaded.text + f"\n§\nSaved by hws {n}", loaded.digest
            )
            results["own"] += 1
            await asyncio.sleep(float(app.config.watch.debounce_ms) / 1000 * 3)
        await pilot.pause(0.2)
        results["echoes"] = len([m for m in seen if isinstance(m, HomeChanged)]) - before
        results["mode"] = app.live_files.watch_mode
    return results


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(options: Options) -> list[Figure]:
    runs = 8 if options.quick else 20
    with temp_home() as root:
        Path(root, "memories").mkdir(parents=True, exist_ok=True)
        Path(root, "memories", "USER.md").write_text("x", encoding="utf-8")
        raw = raw_event_latency_ms(Path(root), runs)
        measured = asyncio.run(pane_latency(runs))
    from engine.config import defaults

    debounce = int(defaults().watch.debounce_ms)
    baseline = f"raw watchdog event {statistics.median(raw):.2f} ms"
    figures = []
    for kind, label in (("atomic", "atomic replace"), ("in_place", "in-place write")):
        samples = measured[kind]
        value = statistics.median(samples)
        figures.append(
            Figure(
                f"external write → memory pane ({label}, median of {len(samples)})",
                value,
                "ms",
                target=f"< {TARGET_MS:.0f} ms incl. {debounce} ms debounce",
                baseline=baseline,
                note=f"p95 {p95(samples):.1f} ms, max {max(samples):.1f} ms, watcher: {measured['mode']}",
                met=value < TARGET_MS,
            )
        )
    figures.append(
        Figure(
            f"own saves echoed back as changes (of {measured['own']})",
            float(measured["echoes"]),
            "",
            target="0",
            met=measured["echoes"] == 0,
        )
    )
    return figures

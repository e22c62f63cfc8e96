"""The workstation's speed: cold start, streaming a long reply, paging through a long session.

Cold start runs `hws` in a pseudo-terminal on a lived-in home (200 skills, 10,000 sessions and a
10,000-message conversation in state.db, built once per run by `bench/tui_home.py`) and times from
spawning the process to the moment its first frame (the status bar's "idle") arrives on the
terminal, and on to every side pane showing what it read; a minimal Textual app is timed the same
way in the same run as the baseline, and Hermes Agent's own CLI (installed in /tmp/hermes-venv) to
its input prompt on a copy of the same home. Streaming drives a 12 KB reply in 200 chunks through the real
path (turn worker → Messages → transcript → MarkdownStream) headless, timing every frame. Paging
opens the 10,000-message conversation read-only in a fresh process and presses home until its first
message: the time to open it, each page's time, the widgets mounted and the process's RSS at the end.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import Figure, Options, median
from bench.tui_home import LONG_MESSAGES, SESSIONS, SKILLS, BenchHome, build_home

ROOT = Path(__file__).resolve().parent.parent
COLUMNS, ROWS = 120, 40
START_TIMEOUT_S = 20.0
STALL_TICK_S = 0.005
PACED_INTERVAL_S = 0.02  # 50 chunks a second: about 750 tokens/s, faster than hosted models stream
COLD_START_RATIO_AIM = 1.3  # first frame within this many times a minimal Textual app's, same run
PANES_FILLED_AIM_S = 0.5  # every side pane showing what it read from the home
STALL_AIM_MS = 33.0  # longest UI loop stall streaming as fast as the model sends (two frames at 60 Hz)
PACED_STALL_AIM_MS = 16.0  # longest stall at 50 chunks/s (one frame at 60 Hz)
MINIMAL_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static


    class Minimal(App):
        def compose(self):
            yield Static("minimal-ready")


    Minimal().run()
    """
)


def first_paint_seconds(argv: Sequence[str], marker: bytes, env: dict[str, str]) -> float:
    """Seconds from spawning `argv` on a fresh pseudo-terminal until `marker` is drawn on it."""
    return paint_seconds(argv, [marker], env)[0]


def paint_seconds(
    argv: Sequence[str], markers: Sequence[bytes], env: dict[str, str], quit_keys: bytes = b"\x11"
) -> list[float]:
    """Seconds from spawning `argv` until each of `markers` has been drawn (then `quit_keys`: ctrl+q)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        list(argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True
    )
    os.close(slave)
    seen = b""
    found: dict[bytes, float] = {}
    try:
        while time.perf_counter() - started < START_TIMEOUT_S and len(found) < len(markers):
            ready, _, _ = select.select([master], [], [], 0.01)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            now = time.perf_counter() - started
            for marker in markers:
                if marker not in found and marker in seen:
                    found[marker] = now
        missing = [m for m in markers if m not in found]
        if missing:
            raise RuntimeError(f"{argv[-1]} drew no {missing[0]!r}; it wrote: {seen[-400:]!r}")
        os.write(master, quit_keys)
        _drain_until_exit(master, process)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        os.close(master)
    return [found[m] for m in markers]


def _drain_until_exit(master: int, process: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    deadline = time.perf_counter() + timeout
    while process.poll() is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                os.read(master, 65536)
            except OSError:
                break


# What each side pane draws once it has read the lived-in home: the memory bar, the skills count
# (all 200 indexed), and the budget's first prompt layer.
PANES_FILLED = (b"0/2,200", f"{SKILLS} indexed".encode(), b"identity")


def _bench_env(scratch: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN", "_SECRET"))}
    env.update({"HERMES_HOME": str(home), "HOME": scratch, "TERM": "xterm-256color"})
    # Bytecode as an installed program has it (this machine's shells set PYTHONDONTWRITEBYTECODE).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_start(options: Options, lived_in: BenchHome, scratch: str) -> list[Figure]:
    runs = 3 if options.quick else 7
    minimal = Path(scratch) / "minimal_app.py"
    minimal.write_text(MINIMAL_APP, encoding="utf-8")
    hws = [sys.executable, "-m", "tui.main"]
    empty_env = _bench_env(scratch, Path(scratch) / "empty-home")
    env = _bench_env(scratch, lived_in.root)
    first_paint_seconds(hws, b"idle", empty_env)  # seeds the empty home; not counted
    paint_seconds(hws, [b"idle", *PANES_FILLED], env)  # warms the file cache; not counted
    ours, filled, empty, baseline = [], [], [], []
    for _ in range(runs):  # interleaved, so all see the same machine load
        baseline.append(first_paint_seconds([sys.executable, str(minimal)], b"minimal-ready", env))
        times = paint_seconds(hws, [b"idle", *PANES_FILLED], env)
        ours.append(times[0])
        filled.append(max(times[1:]))
        empty.append(first_paint_seconds(hws, b"idle", empty_env))
    ours_s, base_s = median(ours), median(baseline)
    ratio = median([o / b for o, b in zip(ours, baseline, strict=True)])  # each pair saw the same load
    filled_s = median(filled)
    hermes = hermes_prompt_seconds(runs, lived_in, scratch)
    home_note = f"{SKILLS} skills, {SESSIONS:,} sessions + one of {LONG_MESSAGES:,} messages"
    return [
        Figure(
            "cold start to first frame (lived-in home)",
            ours_s,
            "s",
            target="< 0.6 s",
            baseline=f"minimal Textual app {base_s:.3f} s"
            + (f"; Hermes CLI to its prompt, same home, {hermes:.2f} s" if hermes else ""),
            note=f"median of {runs}; min {min(ours):.3f} max {max(ours):.3f}; {home_note}",
            met=ours_s < 0.6,
        ),
        Figure(
            "cold start to first frame ÷ a minimal Textual app",
            ratio,
            "×",
            target=f"≤ {COLD_START_RATIO_AIM}×",
            baseline=f"minimal Textual app {base_s:.3f} s",
            note="median of the runs' ratios, each pair started back to back (the load is shared)",
            met=ratio <= COLD_START_RATIO_AIM,
        ),
        Figure("cold start overhead over a minimal Textual app", ours_s - base_s, "s"),
        Figure(
            "cold start until every side pane has read the home",
            filled_s,
            "s",
            target=f"≤ {PANES_FILLED_AIM_S} s",
            baseline=f"minimal Textual app {base_s:.3f} s (to its first frame)",
            note="memory bars, all skills indexed, the budget's prompt layers (read in workers after the "
            f"first frame, beside the agent's build); {filled_s / base_s:.1f}× the minimal app's first frame",
            met=filled_s <= PANES_FILLED_AIM_S,
        ),
        Figure(
            "cold start to first frame (empty home)",
            median(empty),
            "s",
            baseline=f"minimal Textual app {base_s:.3f} s",
            note=f"median of {runs}",
        ),
    ]


HERMES = Path("/tmp/hermes-venv/bin/hermes")
HERMES_PROMPT = "❯".encode()


def hermes_prompt_seconds(runs: int, lived_in: BenchHome, scratch: str) -> float | None:
    """Hermes Agent's own CLI (when installed beside us) from spawn to its input prompt, on the same home."""
    if not HERMES.exists():
        return None
    home = Path(scratch) / "hermes-home"  # a copy: it may write to the home, which later figures read
    if not home.exists():
        shutil.copytree(lived_in.root, home)
    env = {**_bench_env(scratch, home), "OPENAI_API_KEY": "not-used"}  # a key it never uses before a turn
    argv = [str(HERMES)]
    try:
        paint_seconds(argv, [HERMES_PROMPT], env, quit_keys=b"\x04")  # compiles its bytecode; not counted
        return median([paint_seconds(argv, [HERMES_PROMPT], env, quit_keys=b"\x04")[0] for _ in range(runs)])
    except RuntimeError as exc:
        print(f"  Hermes CLI baseline skipped: {exc}", file=sys.stderr)
        return None


def reply_text(size: int = 12_000) -> str:
    """A Markdown reply of about `size` characters: headings, paragraphs, lists and code."""
    parts: list[str] = []
    section = 0
    while sum(len(p) for p in parts) < size:
        section += 1
        parts.append(f"## Step {section}: adjust the layout\n\n")
        parts.append(
            "The navbar sits in `src/layout.tsx`; it reads the links from the config and renders "
            "them with the **active** one underlined. Keep the markup small and the colours dark.\n\n"
        )
        parts.append("- read the current layout\n- change the link styles\n- build and check the output\n\n")
        parts.append(
            "```tsx\nexport function Nav({ links }: Props) {\n"
            "  return <nav>{links.map(render)}</nav>;\n}\n```\n\n"
        )
    return "".join(parts)[:size]


class StreamingAgent:
    """Yields one long reply in fixed chunks, as fast as the UI takes them or `interval` apart."""

    def __init__(self, text: str, chunks: int, interval: float = 0.0) -> None:
        self.text = text
        self.chunks = chunks
        self.interval = interval
        self.last_chunk_at = 0.0

    async def run_turn(self, text: str) -> AsyncIterator[object]:
        from engine import events

        size = max(1, len(self.text) // self.chunks)
        for start in range(0, len(self.text), size):
            if self.interval:
                await asyncio.sleep(self.interval)
            self.last_chunk_at = time.perf_counter()
            yield events.TextDelta("bench", self.text[start : start + size])
        yield events.TurnFinished("bench", self.text)


async def _stream_once(
    text: str, chunks: int, interval: float = 0.0
) -> tuple[float, float, int, float, float]:
    """Total, worst frame, frame count, longest loop stall, and lag from the last chunk to done."""
    from textual.screen import Screen

    from engine.config import load_config
    from engine.home import Home
    from tui.app import HwsApp

    frames: list[float] = []
    original = Screen._on_timer_update

    def timed_frame(self: Screen) -> None:  # type: ignore[type-arg]
        start = time.perf_counter()
        original(self)
        frames.append(time.perf_counter() - start)

    Screen._on_timer_update = timed_frame  # type: ignore[method-assign]
    stall = 0.0
    try:
        home = Home.resolve(os.environ["HERMES_HOME"]).ensure()
        agent = StreamingAgent(text, chunks, interval)
        app = HwsApp(home, load_config(home.root), agent=agent)  # type: ignore[arg-type]
        async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
            await pilot.pause()
            running = True

            async def watch_loop() -> None:
                # Wakes every few ms; oversleeping means something held the loop that long. (A
                # sleep(0) spin would keep the loop from ever going idle and slow what it measures.)
                nonlocal stall
                while running:
                    before = time.perf_counter()
                    await asyncio.sleep(STALL_TICK_S)
                    stall = max(stall, time.perf_counter() - before - STALL_TICK_S)

            watcher = asyncio.create_task(watch_loop())
            frames.clear()
            started = time.perf_counter()
            app.send_to_agent("write the long answer")
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            finished = time.perf_counter()
            total = finished - started
            lag = finished - agent.last_chunk_at
            running = False
            await watcher
            frozen = app.main_screen.transcript.last_reply
            assert frozen == text, "the streamed reply did not arrive whole"
    finally:
        Screen._on_timer_update = original  # type: ignore[method-assign]
    return total, max(frames, default=0.0), len(frames), stall, lag


async def _bare_markdown_stream(text: str, chunks: int) -> float:
    """The same stream into a bare `Markdown` in a minimal app: Textual's own cost, for comparison."""
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown()

    app = Bare()
    async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
        stream = Markdown.get_stream(app.query_one(Markdown))
        size = max(1, len(text) // chunks)
        started = time.perf_counter()
        for start in range(0, len(text), size):
            await stream.write(text[start : start + size])
        await stream.stop()
        await pilot.pause()
        return time.perf_counter() - started


def streaming(options: Options) -> list[Figure]:
    text = reply_text()
    runs = 2 if options.quick else 5
    with tempfile.TemporaryDirectory(prefix="hws-bench-") as scratch:
        old = {k: os.environ.get(k) for k in ("HERMES_HOME", "HOME")}
        os.environ["HERMES_HOME"] = str(Path(scratch) / "home")
        os.environ["HOME"] = scratch
        try:
            results = [asyncio.run(_stream_once(text, 200)) for _ in range(runs)]
            paced = [asyncio.run(_stream_once(text, 200, PACED_INTERVAL_S)) for _ in range(runs)]
            bare = [asyncio.run(_bare_markdown_stream(text, 200)) for _ in range(runs)]
        finally:
            for key, value in old.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    totals = [r[0] for r in results]
    worst_frames = [r[1] for r in results]
    frame_counts = [r[2] for r in results]
    stall_ms = median([r[3] for r in results]) * 1000
    paced_stall_ms = median([r[3] for r in paced]) * 1000
    total_ms, bare_ms = median(totals) * 1000, median(bare) * 1000
    return [
        Figure(
            "stream 12 KB in 200 chunks: total render",
            total_ms,
            "ms",
            target="≤ the bare MarkdownStream's",
            baseline=f"bare Markdown + MarkdownStream {bare_ms:,.0f} ms",
            note=f"median of {runs}, {len(text):,} chars, chunks as fast as the UI takes them, "
            f"{median([float(c) for c in frame_counts]):.0f} frames",
            met=total_ms <= bare_ms,
        ),
        Figure(
            "stream 12 KB in 200 chunks: worst frame",
            median(worst_frames) * 1000,
            "ms",
            note="layout + compositing of one screen update (median over runs of the worst)",
        ),
        Figure(
            "stream 12 KB in 200 chunks: longest UI loop stall",
            stall_ms,
            "ms",
            target=f"≤ {STALL_AIM_MS:.0f} ms",
            note="the longest the event loop was busy at once, chunks as fast as the model sends "
            "(markdown parsing, layout and garbage collection included)",
            met=stall_ms <= STALL_AIM_MS,
        ),
        Figure(
            f"paced 12 KB stream ({1 / PACED_INTERVAL_S:.0f} chunks/s): longest UI loop stall",
            paced_stall_ms,
            "ms",
            target=f"≤ {PACED_STALL_AIM_MS:.0f} ms",
            note=f"median of {runs}",
            met=paced_stall_ms <= PACED_STALL_AIM_MS,
        ),
        Figure(
            f"paced 12 KB stream ({1 / PACED_INTERVAL_S:.0f} chunks/s): lag after the last chunk",
            median([r[4] for r in paced]) * 1000,
            "ms",
            note="how far the screen trails a fast model; its worst frame "
            f"{median([r[1] for r in paced]) * 1000:.0f} ms",
        ),
    ]


def page_session_figures(lived_in: BenchHome, scratch: str) -> list[Figure]:
    """Open the long conversation read-only in a fresh `hws` process and page up to its first message."""
    env = _bench_env(scratch, lived_in.root)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.bench_tui",
            "--page-session",
            str(lived_in.root),
            lived_in.long_session,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"paging the long session failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    pages = got["pages_ms"]
    return [
        Figure(
            f"open a {LONG_MESSAGES:,}-message session read-only",
            got["open_ms"],
            "ms",
            note=f"from the call to its newest page drawn ({got['first_page_blocks']} blocks)",
        ),
        Figure(
            "page up through it: median page",
            median(pages),
            "ms",
            note=f"home pressed {len(pages)} times until the first message ({got['reached_top']}); "
            f"{got['loads']} reads of up to {got['page_messages']} messages",
        ),
        Figure("page up through it: worst page", max(pages), "ms"),
        Figure(
            "page up through it: key to the page drawn in place, median",
            median(got["drawn_ms"]),
            "ms",
            note=f"worst {max(got['drawn_ms']):.0f} ms; from the key to the last frame the step changed "
            "(the figures above add the test pilot's waits for idle)",
        ),
        Figure(
            "widgets mounted in its transcript at the top",
            got["mounted_end"],
            "",
            note=f"{got['mounted_peak']} at most while paging; a stored turn is one widget, old turns "
            "leave the DOM",
        ),
        Figure(
            "RSS at the end of paging",
            got["rss_end_mb"],
            "MB",
            note=f"{got['rss_open_mb']:.0f} MB when the window was up, before opening the session; "
            f"peak {got['rss_peak_mb']:.0f} MB",
        ),
    ]


async def _page_session(root: Path, session_id: str) -> dict[str, object]:
    """In this process: the workstation on `root` (no model), the session opened read-only, paged up."""
    from textual.screen import Screen

    from engine.config import load_config
    from engine.home import Home
    from tui.app import HwsApp

    home = Home.resolve(root).ensure()
    config = load_config(home.root)
    app = HwsApp(home, config)
    app.animation_level = "none"
    # When each frame was drawn: a step is done for the reader at the last frame it changed, which
    # the press-to-settled time below overshoots by the test pilot's idle waits (20 ms sleeps each).
    painted: list[float] = []
    original_refresh = Screen._compositor_refresh

    def timed_refresh(self: Screen) -> None:  # type: ignore[type-arg]
        original_refresh(self)
        painted.append(time.perf_counter())

    Screen._compositor_refresh = timed_refresh  # type: ignore[method-assign]
    try:
        return await _page_session_run(app, config, home, session_id, painted)
    finally:
        Screen._compositor_refresh = original_refresh  # type: ignore[method-assign]


async def _page_session_run(
    app: Any, config: Any, home: Any, session_id: str, painted: list[float]
) -> dict[str, object]:
    from tui.screens.session_view import SessionViewScreen
    from widgets.transcript_blocks import UserBlock

    async with app.run_test(size=(COLUMNS, ROWS)) as pilot:

        async def until(condition: Callable[[], bool], rounds: int = 2000) -> None:
            for _ in range(rounds):
                if condition():
                    return
                await pilot.pause()
            raise RuntimeError("the session view never got there")

        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        rss_open = rss_mb()
        started = time.perf_counter()
        app.view_session(session_id)
        await until(
            lambda: isinstance(app.screen, SessionViewScreen) and bool(app.screen.query("Transcript"))
        )
        view = app.screen
        transcript = view.transcript  # type: ignore[attr-defined]
        await until(
            lambda: (
                not transcript.paging._history_pending
                and any(isinstance(c, UserBlock) for c in transcript.children)
            )
        )
        await pilot.pause()
        open_ms = (time.perf_counter() - started) * 1000
        first_page_blocks = len(transcript.children)
        pages: list[float] = []
        drawn: list[float] = []
        peak = first_page_blocks
        loads = 0
        while transcript.paging.pruned is not None and transcript.paging.pruned.more:
            asked = transcript.paging._history_request
            started = time.perf_counter()
            await pilot.press("home")
            for _ in range(20):
                if transcript.paging._history_request > asked:
                    break
                await pilot.pause()
            else:  # already at the top without a scroll (nothing moved): ask as the scroll would have
                transcript.paging.request_earlier()
            seen = asked
            while transcript.paging._history_request > seen or transcript.paging._history_pending:
                # A loaded page may ask for the next at once (the view is still at its top): count
                # every load one press brings, as the reader waits for all of them.
                seen = transcript.paging._history_request
                await until(lambda: not transcript.paging._history_pending)
                await pilot.pause()
                await pilot.pause()
            loads += seen - asked
            pages.append((time.perf_counter() - started) * 1000)
            drawn.append((max((t for t in painted if t >= started), default=started) - started) * 1000)
            peak = max(peak, len(transcript.children))
        refs = [c.ref for c in transcript.children if getattr(c, "ref", None) is not None]
        top = min(r[1] for r in refs) if refs else None
        from engine.sessions.store import SessionStore

        store = await SessionStore.open(home.state_db, read_only=True)
        try:
            first, _last, _total = await store.bookends(session_id, 1, roles=())
        finally:
            await store.close()
        reached = "reached" if first and top == first[0].id else f"stopped at message {top}"
        return {
            "open_ms": open_ms,
            "first_page_blocks": first_page_blocks,
            "pages_ms": pages,
            "drawn_ms": drawn,
            "loads": loads,
            "page_messages": int(config.tui.history_page_messages),
            "reached_top": reached,
            "mounted_end": len(transcript.children),
            "mounted_peak": peak,
            "rss_open_mb": rss_open,
            "rss_end_mb": rss_mb(),
            "rss_peak_mb": peak_rss_mb(),
        }


def rss_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(options: Options) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="hws-bench-") as scratch:
        lived_in = build_home(Path(scratch) / "lived-in")
        built = Figure(
            "lived-in home built",
            lived_in.seconds,
            "s",
            note=f"{lived_in.rows:,} messages in state.db, {SKILLS} skills (not a speed aim)",
        )
        return [
            built,
            *cold_start(options, lived_in, scratch),
            *streaming(options),
            *page_session_figures(lived_in, scratch),
        ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="one part of the tui benchmark, in a fresh process")
    parser.add_argument("--page-session", nargs=2, metavar=("HOME", "SESSION"), required=True)
    args = parser.parse_args()
    home_root, session = args.page_session
    os.environ["HERMES_HOME"] = home_root
    print(json.dumps(asyncio.run(_page_session(Path(home_root), session))))

"""External memory: what a turn pays for Honcho (nothing, after the first), against the local server;
then the local fact store at 100,000 facts beside Hermes' own plugin (`facts_store`)."""

from __future__ import annotations

import subprocess
import sys
import time

import yaml

from bench import facts_store
from bench.common import Figure, Options, median, temp_home, time_ms
from engine.config import load_config
from engine.home import Home
from engine.providers.base import MirroredMessage
from engine.providers.host import ProviderHost
from tests.support.honcho_server import HonchoTestServer


def _host(root: object, url: str) -> ProviderHost:
    home = Home.resolve(root).ensure()  # type: ignore[arg-type]
    config_text = yaml.safe_dump(
        {"memory": {"provider": "honcho"}, "honcho": {"base_url": url, "timeout": 2.0, "max_retries": 0}}
    )
    home.config_file.write_text(config_text, encoding="utf-8")
    host = ProviderHost.from_config(home, load_config(home.root))
    assert host is not None
    return host


def run(options: Options) -> list[Figure]:
    runs = 20 if options.quick else 200
    figures: list[Figure] = []
    with temp_home() as root, HonchoTestServer() as server:
        host = _host(root, server.url)
        host.start("bench")
        host.mirror("user", "I prefer dark themes and short answers.")
        host.drain(10)

        # Baseline: one mirror call made directly, as a turn would pay without the host.
        provider = host.provider
        direct = median(time_ms(lambda: provider.mirror("bench", [MirroredMessage("user", "x")]), runs // 4))
        hold = server.hold()  # the server now stalls every request: a provider that hangs
        mirror = median(time_ms(lambda: host.mirror("assistant", "noted"), runs, warmup=1))
        figures.append(
            Figure(
                "mirror() while Honcho hangs",
                mirror * 1000,
                "µs",
                "< 1,000 µs",
                f"direct SDK call to a live local server: {direct:.2f} ms",
                met=mirror < 1.0,
            )
        )
        take = median(time_ms(host.take_layer, runs, warmup=1))
        figures.append(
            Figure("take_layer() while Honcho hangs", take * 1000, "µs", "< 1,000 µs", met=take < 1.0)
        )
        hold.release()
        server.clear_faults()
        host.drain(30)

        firsts, prefetches = [], []
        for index in range(5 if options.quick else 20):
            host.start(f"first-{index}")
            started = time.perf_counter()
            layer = host.turn_layer_sync("What should the navbar look like?")
            firsts.append((time.perf_counter() - started) * 1000)
            assert layer is not None
            host.after_turn("dark, please")
            host.drain(10)
            prefetches.append(host.status().last_prefetch_s * 1000)
        wait_ms = host.settings.first_turn_wait * 1000
        first = median(firsts)
        figures.append(
            Figure(
                "first turn of a session (waits for context)",
                first,
                "ms",
                f"< first_turn_wait ({wait_ms:.0f} ms)",
                "later turns: take_layer() above",
                met=first < wait_ms,
            )
        )
        figures.append(
            Figure(
                "background prefetch (3 calls in parallel)", median(prefetches), "ms", note="off the hot path"
            )
        )
        host.close()

    code = "import time; t = time.perf_counter(); import honcho; print((time.perf_counter() - t) * 1000)"
    samples = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    ]
    figures.append(
        Figure(
            "import honcho-ai (paid only when Honcho is active)", median(samples), "ms", note="lazy import"
        )
    )
    figures += facts_store.run(options)
    return figures

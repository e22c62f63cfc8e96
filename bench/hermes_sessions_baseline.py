"""Hermes Agent's own session store on the same data and queries: the baseline of `bench_sessions`.

Not run by default. `bench_sessions` runs this file with the Python named by
HWS_BENCH_HERMES_PYTHON (a venv with `hermes-agent` installed, apart from this project):

    python3 -m venv /tmp/hermes-venv && /tmp/hermes-venv/bin/pip install hermes-agent==0.19.0
    HWS_BENCH_HERMES_PYTHON=/tmp/hermes-venv/bin/python python -m bench sessions

It writes the same synthetic messages through Hermes' `SessionDB.append_message` (one transaction
each), times `search_messages` on the same queries, and prints one JSON line of figures.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sessions_data import make_corpus, messages  # noqa: E402

SEARCH_RUNS = 5
APPEND_SAMPLE = 400


def main(sessions: int, queries_file: str) -> int:
    from hermes_state import SessionDB  # Hermes Agent, from its own venv

    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    corpus = make_corpus()
    with tempfile.TemporaryDirectory(prefix="hws-bench-hermes-") as tmp:
        path = Path(tmp) / "state.db"
        db = SessionDB(path)
        texts = messages(corpus, sessions * 50)
        append_ms: list[float] = []
        start = time.time() - sessions * 3600
        for s in range(sessions):
            session_id = f"{time.strftime('%Y%m%d_%H%M%S', time.localtime(start + s * 3600))}_{s:06x}"
            db.create_session(session_id, "cli")
            for m in range(50):
                began = time.perf_counter()
                db.append_message(session_id, "user" if m % 2 == 0 else "assistant", next(texts))
                if s >= sessions - APPEND_SAMPLE // 50:
                    append_ms.append((time.perf_counter() - began) * 1000)
            db.end_session(session_id, "user_exit")
        timings = []
        for _kind, query in queries:
            db.search_messages(query, limit=20)
            samples = []
            for _ in range(SEARCH_RUNS):
                began = time.perf_counter()
                try:
                    db.search_messages(query, limit=20)
                except Exception:
                    pass  # Hermes reports some queries as errors; the time still counts
                samples.append((time.perf_counter() - began) * 1000)
            timings.append((statistics.median(samples), query))
        db.close()
        size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6
    worst = max(timings)
    print(
        json.dumps(
            {
                "append_median_ms": statistics.median(append_ms),
                "search_median_ms": statistics.median(t for t, _ in timings),
                "worst_ms": worst[0],
                "worst_query": worst[1],
                "mb_per_100k": size * 100_000 / (sessions * 50),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2]))

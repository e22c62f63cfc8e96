"""read_file costs what one window costs, whatever the length of a line (a 20 MB line held whole
would cost 20 MB and more to decode)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from tests.support.tool_helpers import make_bench

MB = 1 << 20


async def test_a_file_of_one_huge_line_is_read_in_bounded_memory(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home)
    huge = bench.cwd / "one-line.json"
    with huge.open("wb") as out:
        out.write(b'{"data": "')
        for _ in range(20):
            out.write(b"x" * MB)
        out.write(b'"}\nsecond line\n')
    tracemalloc.start()
    try:
        outcome = await bench.call("read_file", {"path": "one-line.json"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.ok, outcome.content
    assert peak < 4 * MB, f"peak {peak / MB:.1f} MB"
    first, second = outcome.content.splitlines()[:2]
    assert first.startswith('1|{"data": "xxx') and "chars]" in first and len(first) <= 2000
    assert second == "2|second line"
    # The hash that guards later writes covers the whole file, as before.
    assert await bench.call("patch", {"path": "one-line.json", "old_string": "second", "new_string": "2nd"})
    assert huge.read_bytes().endswith(b'"}\n2nd line\n')


async def test_a_huge_line_in_utf16_is_read_in_bounded_memory(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home)
    path = bench.cwd / "wide.txt"
    path.write_bytes(("a" * (8 * MB) + "\nend\n").encode("utf-16"))
    tracemalloc.start()
    try:
        outcome = await bench.call("read_file", {"path": "wide.txt"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.ok and peak < 4 * MB, f"peak {peak / MB:.1f} MB"
    assert outcome.content.splitlines()[1] == "2|end" and "UTF-16" in outcome.content


async def test_lines_past_the_cut_keep_their_numbers(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home)
    (bench.cwd / "mixed.txt").write_text("short\n" + "é" * 5000 + "\nlast\n", encoding="utf-8")
    outcome = await bench.call("read_file", {"path": "mixed.txt"})
    lines = outcome.content.splitlines()
    assert lines[0] == "1|short" and lines[1].startswith("2|éé") and "chars]" in lines[1]
    assert lines[2] == "3|last" and "not valid UTF-8" not in outcome.content

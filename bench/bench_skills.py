"""Skills: index build time (cold and warm), Tier 1 tokens by library size, and the guard's speed."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from bench.common import Figure, Options, median, temp_home, time_ms
from bench.skill_corpus import big_skill_files, skill_specs, write_library
from engine.home import Home
from engine.skills import discovery, guard, guard_content
from engine.skills.library import CACHE_FILE, SkillLibrary
from engine.text import tokens

BUDGET = 2000
GUARD_TARGET_MS = 150.0
HERMES_DESCRIPTION_CHARS = 60  # Hermes Agent cuts every description to 60 characters (57 + "...")


def cpu_ms(fn, runs: int, warmup: int = 1) -> list[float]:  # type: ignore[no-untyped-def]
    """CPU time of each call in milliseconds: steadier than wall time on a machine shared with others."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        samples.append((time.process_time() - start) * 1000)
    return samples


def _forget_caches(home: Home) -> None:
    discovery._CACHES.clear()
    SkillLibrary._rendered.clear()
    (home.journal_dir / CACHE_FILE).unlink(missing_ok=True)


def hermes_style_tokens(count: int) -> int:
    """Tokens of Hermes' own index format for the same library (descriptions cut to 60 characters)."""
    by_cat: dict[str, list[tuple[str, str]]] = {}
    for category, name, description in skill_specs(count):
        short = description if len(description) <= 60 else description[:57] + "..."
        by_cat.setdefault(category, []).append((name, short))
    lines = ["## Skills (mandatory)", "<available_skills>"]
    for category in sorted(by_cat):
        lines.append(f"  {category}:")
        lines += [f"    - {name}: {desc}" for name, desc in sorted(by_cat[category])]
    lines.append("</available_skills>")
    return tokens.count("\n".join(lines))


def index_figures(options: Options) -> list[Figure]:
    figures: list[Figure] = []
    runs = 3 if options.quick else 7
    tokens.count("warm up the tokenizer")  # its one-time vocabulary load is not the index's cost
    with temp_home() as root:
        home = Home(root).ensure()
        write_library(home.skills, 500, body_lines=40)
        library = SkillLibrary(home)
        cold = []
        for _ in range(runs):
            _forget_caches(home)
            start = time.perf_counter()
            library.index()
            cold.append((time.perf_counter() - start) * 1000)
        figures.append(
            Figure("index build, 500 skills, cold", median(cold), "ms", note="parse every SKILL.md")
        )
        library.index()
        disk = []
        for _ in range(runs):
            discovery._CACHES.clear()
            SkillLibrary._rendered.clear()
            start = time.perf_counter()
            library.index()
            disk.append((time.perf_counter() - start) * 1000)
        figures.append(
            Figure(
                "index build, 500 skills, warm (new process)", median(disk), "ms", note="stat + disk cache"
            )
        )
        warm = time_ms(library.index, runs * 3)
        figures.append(
            Figure("index build, 500 skills, warm (same process)", median(warm), "ms", note="stat only")
        )
    for count in (50, 200, 500):
        with temp_home() as root:
            home = Home(root).ensure()
            write_library(home.skills, count, body_lines=2)
            index = SkillLibrary(home).index()
            kept = len(index.entries) - index.count("hidden")
            figures.append(
                Figure(
                    f"Tier 1 tokens, {count} skills",
                    index.tokens,
                    "tokens",
                    target=f"<= {BUDGET:,}",
                    baseline=f"Hermes format: {hermes_style_tokens(count):,}",
                    note=f"{kept}/{count} names kept, {index.count('full')} full, {index.count('cut')} cut",
                    met=index.tokens <= BUDGET and kept == count,
                )
            )
    return figures


def _write(folder: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def guard_figures(options: Options) -> list[Figure]:
    runs = 3 if options.quick else 7
    files = big_skill_files(15_000)
    lines = sum(text.count("\n") for text in files.values())
    with tempfile.TemporaryDirectory(prefix="hws-bench-guard-") as tmp:
        folder = Path(tmp) / "big-workflow"
        _write(folder, files)

        def full_scan() -> None:
            guard_content._SHARED_CACHE.clear()  # cold: nothing remembered from an earlier scan
            guard.scan_folder(folder)

        whole = median(time_ms(full_scan, runs, warmup=1))
        whole_cpu = median(cpu_ms(full_scan, runs))
        joined = "\n".join(files.values())
        patterns = median(time_ms(lambda: guard.scan_text(joined), runs, warmup=1))
        report = guard.scan_folder(folder)
        prose_kb = report.shared_chars / 1024
        guard_content._SHARED_CACHE.clear()
        shared_ms = median(
            time_ms(
                lambda: (
                    guard_content._SHARED_CACHE.clear(),
                    guard_content.shared_findings(joined, "x", 16 * 1024),
                ),
                runs,
                1,
            )
        )
        sample = "\n".join(joined.split("\n")[:1000])
        brute = median(
            time_ms(lambda: guard.scan_text(sample, prefilter=False), 1 if options.quick else 3, 0)
        )
        fixtures = (
            Path(__file__).resolve().parent.parent / "tests" / "support" / "fixtures" / "skills" / "public"
        )
        skill_files = sorted(fixtures.rglob("SKILL.md"))
        public = [guard.scan_folder(p.parent) for p in skill_files]
        public_ms = [report.elapsed_ms for report in public]
        dangerous = [
            p.parent.name for p, r in zip(skill_files, public, strict=True) if r.verdict == "dangerous"
        ]
        shutil.rmtree(folder)
    per_thousand = patterns / lines * 1000
    return [
        Figure(
            "guard, skill patterns per 1,000 lines",
            per_thousand,
            "ms",
            target="< 10",
            baseline=f"every rule on every line: {brute:,.0f} ms",
            note="Hermes' guard: ~100 ms per 1,000 lines",
            met=per_thousand < 10,
        ),
        Figure(
            f"guard, whole {lines:,}-line skill",
            whole,
            "ms",
            target=f"< {GUARD_TARGET_MS:.0f}",
            baseline="Hermes' guard: ~1,800 ms",
            note=f"10 files; shared scanner read {prose_kb:.0f} KiB of prose",
            met=whole < GUARD_TARGET_MS,
        ),
        Figure(
            f"guard, whole {lines:,}-line skill (CPU time)",
            whole_cpu,
            "ms",
            target=f"< {GUARD_TARGET_MS:.0f}",
            note="CPU time of the same scan: what it costs without other processes in the way",
            met=whole_cpu < GUARD_TARGET_MS,
        ),
        Figure(
            "guard, shared threat scanner per KiB of prose",
            shared_ms / 16,
            "ms",
            note="why it reads only skills.guard_shared_scan_kb (16 KiB) of each skill",
        ),
        Figure("guard, slowest public-style fixture", max(public_ms), "ms", note=f"{len(public_ms)} skills"),
        Figure(
            "guard, public-style skills rated dangerous",
            len(dangerous),
            "skills",
            target="0",
            note=f"of {len(public)} ordinary skills, prose about precedence among them"
            + (f": {', '.join(dangerous)}" if dangerous else ""),
            met=not dangerous,
        ),
    ]


def run(options: Options) -> list[Figure]:
    return index_figures(options) + guard_figures(options)

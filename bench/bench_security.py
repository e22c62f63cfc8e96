"""Scanner figures: attacks caught and benign refused by the memory scanner and the skills guard, on the
corpora written for the intent design (tests/security/) and on the older ones; the cost of a scan.

The baseline is the scanner as it was before intents (git commit OLD_SCANNER_COMMIT: the pattern
table alone), loaded from git into a scratch package and run in the same process on the same texts.
Without git history it is left out. Scan costs are CPU time, so other load on the machine does not
count. `python -m bench security` runs this module (and any other bench module named *security*).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from bench.common import Figure, Options, temp_home

ROOT = Path(__file__).resolve().parent.parent
OLD_SCANNER_COMMIT = "db01fcb"  # the last commit whose scanner was the pattern table alone
OLD_MODULES = ("threats", "threat_patterns", "threat_i18n")
DOCUMENT_CHARS = 20_000
CAUGHT_AIM, REFUSED_AIM = 0.90, 0.02

Scanner = Callable[[str], bool]  # True when the text would be refused


def old_scanner() -> Scanner | None:
    """The pre-intent scanner, from git, as a throwaway package (None without the history)."""
    scratch = Path(tempfile.mkdtemp(prefix="hws-old-scanner-"))
    package = scratch / "old_scanner"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in OLD_MODULES:
        try:
            source = subprocess.run(
                ["git", "show", f"{OLD_SCANNER_COMMIT}:engine/{name}.py"],
                cwd=ROOT, capture_output=True, text=True, check=True, timeout=30,
            ).stdout  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
        (package / f"{name}.py").write_text(source.replace("from engine.threat", "from old_scanner.threat"))
    sys.path.insert(0, str(scratch))
    try:
        module: ModuleType = importlib.import_module("old_scanner.threats")
    finally:
        sys.path.remove(str(scratch))
    return lambda text: bool(module.scan(text, "strict"))


def new_scanner() -> Scanner:
    from engine.threats.scan import scan

    return lambda text: bool(scan(text, "strict"))


def rates(scanner: Scanner, attacks: list[str], benign: list[str]) -> tuple[int, int]:
    return sum(map(scanner, attacks)), sum(map(scanner, benign))


def cost_ms(scanner: Scanner, texts: list[str], rounds: int) -> float:
    """CPU milliseconds per text, best of `rounds`."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for text in texts:
            scanner(text)
        best = min(best, (time.process_time() - start) * 1000 / len(texts))
    return best


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def memory_figures(old: Scanner | None, rounds: int) -> list[Figure]:
    from tests.security.memory_corpus import ATTACKS, BENIGN
    from tests.security.memory_heldout import HELDOUT_ATTACKS, HELDOUT_BENIGN
    from tests.support.threat_corpus import ATTACKS as OLD_ATTACKS
    from tests.support.threat_corpus import BENIGN as OLD_BENIGN
    from tests.support.threat_heldout import HELDOUT_ATTACKS as OLD_HELD
    from tests.support.threat_heldout import HELDOUT_BENIGN as OLD_HELD_BENIGN

    new = new_scanner()
    sets = {
        "new memory corpus": ([t for _c, _l, t in ATTACKS], [t for _l, t in BENIGN], True),
        "memory held-out set": ([t for _l, t in HELDOUT_ATTACKS], [t for _l, t in HELDOUT_BENIGN], True),
        "old threat corpora": ([t for _c, t in OLD_ATTACKS] + OLD_HELD, OLD_BENIGN + OLD_HELD_BENIGN, False),
    }
    figures = []
    for name, (attacks, benign, aimed) in sets.items():
        caught, refused = rates(new, attacks, benign)
        before = rates(old, attacks, benign) if old else None
        figures += [
            Figure(
                f"{name}: attacks caught",
                _pct(caught, len(attacks)),
                "%",
                target=f">= {CAUGHT_AIM:.0%}" if aimed else "no regression",
                baseline=f"old scanner {_pct(before[0], len(attacks)):.1f}%" if before else "",
                note=f"{caught}/{len(attacks)}",
                met=caught >= CAUGHT_AIM * len(attacks) if aimed else (before is None or caught >= before[0]),
            ),
            Figure(
                f"{name}: benign refused",
                _pct(refused, len(benign)),
                "%",
                target=f"<= {REFUSED_AIM:.0%}" if aimed else "no regression",
                baseline=f"old scanner {_pct(before[1], len(benign)):.1f}%" if before else "",
                note=f"{refused}/{len(benign)}",
                met=refused <= REFUSED_AIM * len(benign)
                if aimed
                else (before is None or refused <= before[1]),
            ),
        ]
    notes = [t for _c, _l, t in ATTACKS] + [t for _l, t in BENIGN]
    document = "\n".join(t for _l, t in BENIGN) * 4
    document = document[:DOCUMENT_CHARS]
    per_note = cost_ms(new, notes, rounds)
    per_note_old = cost_ms(old, notes, rounds) if old else None
    document_ms = cost_ms(new, [document], rounds)
    document_old = cost_ms(old, [document], rounds) if old else None
    figures += [
        Figure(
            "scan cost per memory note",
            per_note,
            "ms",
            target="reasonable (a few x the old)",
            baseline=f"old scanner {per_note_old:.3f} ms" if per_note_old is not None else "",
            note=f"CPU time, mean over the {len(notes)} notes of the new corpus, best of {rounds}",
        ),
        Figure(
            f"scan of a {len(document) // 1000} KB document",
            document_ms,
            "ms",
            target="< 100 ms",
            baseline=f"old scanner {document_old:.1f} ms" if document_old is not None else "",
            note="benign notes in 21 languages run together (CPU time)",
            met=document_ms < 100,
        ),
    ]
    return figures


def skills_figures() -> list[Figure]:
    from engine.config import defaults
    from engine.home import Home
    from engine.skills.guard import decide, scan_folder
    from engine.skills.install import Installer
    from engine.skills.library import SkillLibrary
    from tests.security.skills_corpus import BENIGN, HOSTILE, build
    from tests.support.guard_corpus import GUARD_ATTACKS, GUARD_BENIGN
    from tests.support.skills_support import skill_text, write_skill

    figures = []
    with temp_home() as root, tempfile.TemporaryDirectory(prefix="hws-bench-skills-") as scratch:
        home = Home.resolve(root).ensure()
        installer = Installer(SkillLibrary(home, defaults()))
        started = time.process_time()
        stopped = sum(
            not installer.install(build(f, Path(scratch) / "h"), trust="community").installed for f in HOSTILE
        )
        refused = sum(
            not installer.install(build(f, Path(scratch) / "b"), trust="community").installed for f in BENIGN
        )
        per_folder = (time.process_time() - started) * 1000 / (len(HOSTILE) + len(BENIGN))
        old_root = Path(scratch) / "old"
        old_stopped = old_refused = 0
        for i, (_category, body) in enumerate(GUARD_ATTACKS + [("benign", b) for b in GUARD_BENIGN]):
            files = body if isinstance(body, dict) else {}
            text = skill_text(f"c-{i}", body="Step one." if isinstance(body, dict) else body)
            folder = write_skill(
                old_root, f"c-{i}", text, **{k.replace("/", "__"): v for k, v in files.items()}
            )
            blocked = decide(scan_folder(folder, trust="community").verdict, "community").action != "allow"
            if i < len(GUARD_ATTACKS):
                old_stopped += blocked
            else:
                old_refused += blocked
    figures += [
        Figure(
            "new skills corpus: hostile folders stopped (hws skills install)",
            _pct(stopped, len(HOSTILE)),
            "%",
            target=f">= {CAUGHT_AIM:.0%}",
            baseline="old guard 12/39 (measured when the corpus was written)",
            note=f"{stopped}/{len(HOSTILE)}, community trust",
            met=stopped >= CAUGHT_AIM * len(HOSTILE),
        ),
        Figure(
            "new skills corpus: ordinary folders refused",
            _pct(refused, len(BENIGN)),
            "%",
            target=f"<= {REFUSED_AIM:.0%}",
            baseline="old guard 0/34",
            note=f"{refused}/{len(BENIGN)}",
            met=refused <= REFUSED_AIM * len(BENIGN),
        ),
        Figure(
            "old guard corpus: attacks stopped",
            _pct(old_stopped, len(GUARD_ATTACKS)),
            "%",
            target=">= 95% (as before)",
            note=f"{old_stopped}/{len(GUARD_ATTACKS)}",
            met=old_stopped >= 0.95 * len(GUARD_ATTACKS),
        ),
        Figure(
            "old guard corpus: benign refused",
            _pct(old_refused, len(GUARD_BENIGN)),
            "%",
            target="<= 2% (as before)",
            note=f"{old_refused}/{len(GUARD_BENIGN)}",
            met=old_refused <= 0.02 * len(GUARD_BENIGN),
        ),
        Figure(
            "install with the guard, per skill folder",
            per_folder,
            "ms",
            note="copy to quarantine, scan, place or refuse (CPU time)",
        ),
    ]
    return figures


def run(options: Options) -> list[Figure]:
    rounds = 2 if options.quick else 5
    return memory_figures(old_scanner(), rounds) + skills_figures()

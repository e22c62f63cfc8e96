"""The write journal: entries, blobs, diffs, torn lines, pruning, and many processes appending at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.home import Home
from engine.storage.journal import Journal, JournalEntry, UnknownEntry, blob_hash


def test_record_keeps_entry_and_both_contents(home: Home) -> None:
    journal = Journal(home)
    entry = journal.record(
        "memory", "user", "memories/USER.md", "add", "agent", "a", "a\n§\nb", "Entry added."
    )
    assert isinstance(entry, JournalEntry)
    assert entry.before_hash == blob_hash("a") and entry.after_hash == blob_hash("a\n§\nb")
    assert journal.entries() == [entry]
    assert journal.get(entry.id) == entry
    assert journal.text(entry.before_hash) == "a"
    assert journal.text(entry.after_hash) == "a\n§\nb"
    assert (home.journal_dir / "journal.jsonl").exists()


def test_entries_filter_and_limit_oldest_first(home: Home) -> None:
    journal = Journal(home)
    first = journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", None, "x")
    second = journal.record("skill", "deploy", "skills/ops/deploy/SKILL.md", "create", "agent", None, "y")
    third = journal.record("memory", "user", "memories/USER.md", "add", "user", None, "z")
    assert [e.id for e in journal.entries()] == [first.id, second.id, third.id]
    assert journal.entries(kind="memory") == [first, third]
    assert journal.entries(target="deploy") == [second]
    assert journal.entries(limit=2) == [second, third]
    assert journal.last(kind="memory", target="memory") == first


def test_same_content_is_stored_once(home: Home) -> None:
    journal = Journal(home)
    big = "line\n" * 50_000
    for _ in range(5):
        journal.record("skill", "s", "skills/s/SKILL.md", "edit", "agent", big, big)
    blobs = [p for p in (home.journal_dir / "blobs").rglob("*") if p.is_file()]
    assert len(blobs) == 1


def test_diff_is_unified_before_to_after(home: Home) -> None:
    journal = Journal(home)
    entry = journal.record(
        "memory", "memory", "memories/MEMORY.md", "replace", "agent", "one\ntwo", "one\nthree"
    )
    diff = journal.diff(entry.id)
    assert "--- a/memories/MEMORY.md" in diff and "+++ b/memories/MEMORY.md" in diff
    assert "-two" in diff and "+three" in diff


def test_unknown_and_ambiguous_ids_are_clear_errors(home: Home) -> None:
    journal = Journal(home)
    with pytest.raises(UnknownEntry, match="No journal entry has the id 'nope'"):
        journal.get("nope")
    with pytest.raises(KeyError):
        journal.get("nope")
    entry = journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", None, "x")
    assert journal.get(entry.id[:10]) == entry  # a unique prefix is enough


def test_torn_last_line_is_skipped_and_fenced(home: Home) -> None:
    journal = Journal(home)
    good = journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", None, "x")
    with open(journal.path, "ab") as handle:
        handle.write(b'{"id":"torn","at":1.0,"kind":"mem')  # a crash mid-append
    assert journal.entries() == [good]
    after = journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "x", "y")
    assert journal.entries() == [good, after]


def test_unknown_writer_is_refused(home: Home) -> None:
    with pytest.raises(ValueError, match="Unknown writer"):
        Journal(home).record("memory", "memory", "m", "add", "robot", None, "x")


def test_prunes_past_the_limit_and_drops_unreferenced_blobs(home: Home) -> None:
    journal = Journal(home, max_entries=10)
    for number in range(40):
        journal.record(
            "memory", "memory", "memories/MEMORY.md", "add", "agent", f"v{number}", f"v{number + 1}"
        )
    kept = journal.entries()
    assert 10 <= len(kept) <= 11
    assert kept[-1].after_hash == blob_hash("v40")
    assert journal.text(blob_hash("v0")) is None  # pruned with its entry
    assert journal.text(kept[0].before_hash) is not None


def test_limit_comes_from_config(home: Home) -> None:
    home.config_file.write_text("memory:\n  journal_max_entries: 25\n", encoding="utf-8")
    assert Journal(home).max_entries == 25


WRITER = textwrap.dedent(
    """
    import sys
    from engine.home import Home
    from engine.storage.journal import Journal
    journal = Journal(Home.resolve(sys.argv[1]))
    for n in range(int(sys.argv[3])):
        journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", None, f"{sys.argv[2]}-{n}")
    """
)


def test_many_processes_append_without_losing_an_entry(home: Home) -> None:
    root = Path(__file__).resolve().parents[2]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(home.root), f"p{n}", "25"], cwd=root)
        for n in range(6)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    journal = Journal(home)
    texts = {journal.text(e.after_hash) for e in journal.entries()}
    assert len(journal.entries()) == 150
    assert texts == {f"p{n}-{k}" for n in range(6) for k in range(25)}


def test_small_contents_share_one_pack_and_large_ones_get_files(home: Home) -> None:
    journal = Journal(home)
    journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "", "small")
    big = "x" * 100_000
    journal.record("skill", "s", "skills/s/SKILL.md", "edit", "agent", None, big)
    assert (home.journal_dir / "blobs.pack").exists()
    assert [p.name for p in (home.journal_dir / "blobs").iterdir()] == [blob_hash(big)]
    assert journal.text(blob_hash("small")) == "small" and journal.text(blob_hash(big)) == big
    assert Journal(home).text(blob_hash("small")) == "small"  # a fresh reader indexes the pack


def test_a_pack_record_torn_by_a_crash_is_cut_off(home: Home) -> None:
    journal = Journal(home)
    journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "", "kept")
    journal.close()
    with open(home.journal_dir / "blobs.pack", "ab") as handle:
        handle.write(b"a" * 64 + b" 500\npartial")  # the writer died mid-record
    again = Journal(home)
    assert again.text(blob_hash("kept")) == "kept"
    again.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "kept", "after crash")
    assert Journal(home).text(blob_hash("after crash")) == "after crash"
    assert b"partial" not in (home.journal_dir / "blobs.pack").read_bytes()


def test_damaged_content_is_never_returned(home: Home) -> None:
    journal = Journal(home)
    journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "", "original text")
    journal.close()
    pack = home.journal_dir / "blobs.pack"
    pack.write_bytes(pack.read_bytes().replace(b"original", b"tampered"))
    assert Journal(home).text(blob_hash("original text")) is None


def test_last_sees_entries_written_by_another_journal_object(home: Home) -> None:
    mine, other = Journal(home), Journal(home)
    mine.record("memory", "user", "memories/USER.md", "add", "agent", "", "a")
    newer = other.record("memory", "user", "memories/USER.md", "add", "agent", "a", "a\n§\nb")
    assert mine.last("memory", "user") == newer


def test_last_walks_back_past_many_other_entries(home: Home) -> None:
    journal = Journal(home)
    wanted = journal.record("memory", "memory", "memories/MEMORY.md", "add", "agent", "", "m")
    for number in range(400):  # well past the first 4 KB block and across 64 KB blocks
        journal.record("skill", f"s{number}", "skills/x/SKILL.md", "edit", "agent", None, "y", "z" * 200)
    assert Journal(home).last("memory", "memory") == wanted
    assert Journal(home).last("memory", "nothing") is None

"""Flipped bytes in state.db: every command says so in a sentence and leaves the file as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.support.fault_support import assert_clean_exit, hws

COMMANDS = (("run", "--scripted", "hi"), ("sessions", "list"), ("sessions", "search", "tea"))


@pytest.fixture(scope="module")
def lived_in_db(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A state.db as hws leaves it after a few sessions (made once, copied into each test's home)."""
    home = tmp_path_factory.mktemp("lived-in")
    for text in ("hello there", "remember that I like tea", "run ls"):
        assert_clean_exit(hws("run", "--scripted", text, home=home), (0,))
    return (home / "state.db").read_bytes()


def damage_a_column_name(data: bytes) -> bytes:
    """A byte of a column's name in the schema no longer text: SQLite accepts it, readers fail."""
    at = data.index(b"api_call_count")
    return data[:at] + b"ap\x96" + data[at + 3 :]


def damage_a_page(data: bytes) -> bytes:
    """The second page's header overwritten: SQLite calls the file malformed."""
    page = int.from_bytes(data[16:18], "big") or 65536
    return data[:page] + b"\xa5" * 64 + data[page + 64 :]


@pytest.mark.parametrize("damage", [damage_a_column_name, damage_a_page])
def test_a_damaged_state_db_gets_a_sentence_and_stays_as_it_was(
    tmp_path: Path, hermes_home: Path, lived_in_db: bytes, damage
) -> None:  # type: ignore[no-untyped-def]
    hermes_home.mkdir(parents=True, exist_ok=True)
    db = hermes_home / "state.db"
    db.write_bytes(damage(lived_in_db))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for command in COMMANDS:
        done = hws(*command, home=hermes_home)
        assert_clean_exit(done)
        said = done.stdout + done.stderr
        assert "damaged" in said and "left untouched" in said, (command, said[-800:])
    doctor = hws("doctor", "--offline", home=hermes_home)
    assert_clean_exit(doctor, (3,))  # doctor found an error
    assert "error    database" in doctor.stdout and ".recover" in doctor.stdout, doctor.stdout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0

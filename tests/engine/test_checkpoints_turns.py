"""Which checkpoint holds the folder as a turn began (what rewinding a conversation rolls files back to),
on a real shadow repository: a turn that changed nothing makes no new checkpoint but is still found."""

from __future__ import annotations

from pathlib import Path

from engine.checkpoints.store import CheckpointStore
from engine.config import load_config
from engine.home import Home


def test_before_turn_finds_the_checkpoint_each_turn_began_with(hermes_home: Path, tmp_path: Path) -> None:
    home = Home(hermes_home).ensure()
    project = tmp_path / "work"
    project.mkdir()
    notes = project / "notes.txt"
    notes.write_text("v1\n")
    store = CheckpointStore(home, load_config(home.root), project)

    one = store.take("write_file notes.txt", session_id="s1", turn=1).checkpoint
    notes.write_text("v2\n")  # turn 1's change
    two = store.take("terminal make", session_id="s1", turn=2)
    assert two.checkpoint is not None and not two.unchanged
    # turn 2 changed nothing; turn 3 begins with the folder as turn 2 left it
    three = store.take("patch notes.txt", session_id="s1", turn=3)
    assert three.unchanged and three.checkpoint == two.checkpoint
    notes.write_text("v3\n")

    assert one is not None
    assert store.before_turn("s1", 1) == one
    assert store.before_turn("s1", 2) == two.checkpoint
    assert store.before_turn("s1", 3) == two.checkpoint  # found although no checkpoint was made for it
    assert store.before_turn("s1", 4) is None
    assert store.before_turn("other", 1) is None

    restored = store.restore(store.before_turn("s1", 2) or one)
    assert notes.read_text() == "v2\n" and [c.path for c in restored.changes] == ["notes.txt"]

"""Checkpoints of the project's files: the working folder saved before the agent changes it, and restored.

Before the agent's first change in a turn (write_file, patch, a terminal command that may write), the
working folder is saved as a commit of a shadow git repository under the home,
`$HERMES_HOME/hws/checkpoints/<hash of the folder's path>/`, by the `git` CLI run with `GIT_DIR` there
and `GIT_WORK_TREE` at the folder. The project's own `.git` is never read for history nor written, and
nothing is written into the folder; its `.gitignore` files (and `.git/info/exclude`) are honoured.

    store = CheckpointStore(home, config, project)                       # engine/checkpoints/store.py
    taken = store.take("write_file notes.txt", session_id=sid, turn=3)   # Taken: new, unchanged or skipped
    store.checkpoints()                  # newest first, each with its session, turn and reason
    store.changes_since(checkpoint)      # what a restore would change (added, modified, removed)
    restored = store.restore(checkpoint, "src/a.py")   # a checkpoint of now is taken first: the undo

The rooms:
- `git.py` — the shadow repository: an isolated `git` (no system or global config, no hooks, no
  filters, no end-of-line conversion), its lock and its exclude file.
- `survey.py` — the bounded listing that says whether a folder fits the limits, before any copy.
- `store.py` — take, list, compare and restore checkpoints; retention.
- `turn.py` — the agent's side: which calls change files, one checkpoint per turn, its events.
"""

"""Storage primitives every store builds on.

`atomic` writes files whole (temp file, fsync, rename) and takes the advisory locks Hermes Agent
also takes; `self_writes` remembers what this process wrote so the file watcher can tell its own
writes from a person's; `blobs` keeps content-addressed copies; `journal` is the append-only record
of every write to a store, so any change can be shown as a diff and undone.
"""

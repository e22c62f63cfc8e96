"""The write-approval gate (`memory.write_approval`, `skills.write_approval`).

`records` keeps staged writes in Hermes' `pending/{memory,skills}/` layout; `staging` is what the
memory and skill stagers share (engine/memory/staging.py, engine/skills/staging.py); `approval`
lists staged writes with their diff and approves (replaying the write through its store) or rejects
them. `approval` sits above the stores; `records` and `staging` below them.
"""

"""The write-approval gate (`memory.write_approval`, `skills.write_approval`).

`records` keeps staged writes in Hermes' `pending/{memory,skills}/` layout; `staging` works a write
out as the real one would be and stages it instead; `approval` lists them with their diff and
approves (replaying the write through its store) or rejects them.
"""

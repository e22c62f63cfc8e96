"""Declarative memory: MEMORY.md and USER.md, bounded, scanned and journaled.

`store` is the memory tool's store (Hermes' checks in Hermes' order); `format` is the file format
both the store and the snapshot read; `snapshot` freezes what the system prompt shows for a whole
session; `staging` stages the agent's writes when `memory.write_approval` is on.
"""

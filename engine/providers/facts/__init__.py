"""The local fact store provider, compatible with Hermes' holographic memory plugin.

`schema` opens `memory_store.db`; `store` writes, rates and searches facts; `entities` links the
names facts mention; `hrr` holds the phase vectors (with numpy); `queries` answers probe, related,
reason and contradict; `tools` gives `fact_store` and `fact_feedback` Hermes' shapes; `shared` keeps
one open store per file; `provider` is the provider the host runs.
"""

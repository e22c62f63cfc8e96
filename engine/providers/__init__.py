"""External memory providers: one at a time, on top of the built-in files, never on the hot path.

`registry` names the providers and builds the one `memory.provider` chooses; `host.ProviderHost`
is what the agent owns; `honcho` is the Honcho provider (imported only when chosen).
"""

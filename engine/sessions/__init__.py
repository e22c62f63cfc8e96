"""Episodic memory: every message in `state.db` (Hermes Agent's format) and search over them."""

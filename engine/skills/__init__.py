"""Procedural memory: skills in the agentskills.io format, their tiers, the agent's writes, and the guard."""

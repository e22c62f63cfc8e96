"""A scripted OpenAI-compatible model server for the demo and the tests.

It stands apart from the engine's floors: nothing here imports the agent, and the agent never
imports this. See `engine.model_server.scenario` (and `docs/scenarios.md`) for the file format.
"""

"""`hws mcp serve`: the home's memory, skills and past sessions, served to other agents over MCP.

`knowledge` is what is served (the tools, resources and prompts as plain functions over the home's
stores, with the same limits, scanner, locking, journal and approval gate as the agent's own tools);
`server` puts it on the SDK's low-level server and runs it over stdio; `http` serves it over streamable
HTTP on loopback behind a bearer token; `client_config` writes the snippet each client's config takes.
"""

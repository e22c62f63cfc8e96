"""The MCP client: servers named in `mcp_servers:` (Hermes' shape) whose tools the agent can call.

`servers.py` reads the config, `connection.py` keeps one server's session open, `adapt.py` turns its
tools into registry tools, `hub.py` runs them all for a session and decides which schemas are sent.
"""

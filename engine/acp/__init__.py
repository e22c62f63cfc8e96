"""`hws acp`: the engine as an Agent Client Protocol agent, for editors and agent TUIs (Zed, JetBrains, Toad).

The client speaks JSON-RPC over the process's stdin and stdout. `server` holds the ACP agent: one hws
`Agent` per ACP session, each turn's engine events turned into `session/update` notifications by
`updates` (text, thoughts, tool calls with their diffs, the todo list as a plan), approvals asked with
`session/request_permission` through `permission`, a loaded session's history replayed by `replay`.
`prompt_blocks` turns the client's content blocks into the message text, `client_servers` the MCP
servers a client passes into `mcp_servers` entries, and `streams` keeps stdout for the protocol alone.
The learning loop (memory and skill writes, nudges, background review, compression) runs as in the
workstation, in the same home.
"""

"""The agent: one conversation with a model over the session store, the tools and the learning loop.

`turns` holds `Agent` and its turn loop; the agent holds an `AgentSession` (`session`: the open
session, its prompt, history and stores) and three collaborators with their own state: `Lifecycle`
(`lifecycle`: the store, opening, switching and closing sessions), `WindowKeeper` (`window`: the
context window, compression, oversized messages) and `BackgroundWork` (`background`: the review a
nudge asks for, titles, the auxiliary model's recaps). `review` runs one background review,
`titles` names sessions, `api_history` turns stored messages into what the API accepts, and
`errors` holds the agent's exceptions. Import each name from its module; this package imports none.
"""

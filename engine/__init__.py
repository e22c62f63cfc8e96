"""The agent engine: stores, prompt, model client, tools and the turn loop. No UI lives here."""

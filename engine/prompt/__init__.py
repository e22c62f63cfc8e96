"""The system prompt, built once per session and kept byte-stable for the provider's cache.

`layers` orders the prompt's named layers from the most stable to the least; `build` gathers them
from the home; `context_files` reads SOUL.md and the project's context file, scanned; `soul` writes
SOUL.md for the workstation, journaled; `nudges` says when the agent should stop and learn, and the
review prompt they make up.
"""

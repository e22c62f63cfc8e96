"""System tests: a real terminal (tmux), real servers (sshd, dockerd, MCP servers from PyPI), a real
browser and round trips with a real Hermes Agent; each skips with a reason when its part is missing."""

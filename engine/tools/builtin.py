"""The tools the tool layer itself provides: files, search, terminal, its processes and the task list."""

from __future__ import annotations

from engine.tools import edit, process_tool, read, search_files, terminal, todo
from engine.tools.registry import Tool

TOOLS: tuple[Tool, ...] = (
    todo.TOOL,
    read.TOOL,
    edit.WRITE_TOOL,
    edit.PATCH_TOOL,
    search_files.TOOL,
    terminal.TOOL,
    process_tool.TOOL,
)

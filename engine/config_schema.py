"""Every tunable number and setting, with its default and meaning (Hermes' defaults where it has one).

The README's configuration reference is generated from this table, so it cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ROOT = ""  # section name for top-level keys such as `context_file_max_chars`


@dataclass(frozen=True)
class Setting:
    """One configurable value: its default, the type it must have, and what it means."""

    default: Any
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None

    @property
    def kind(self) -> type:
        return type(self.default)


S = Setting

SCHEMA: dict[str, dict[str, Setting]] = {
    "model": {
        "default": S("", "Model name sent to the provider (Hermes also reads `model.model`)."),
        "model": S("", "Alias of `model.default`."),
        "provider": S("auto", "Provider name; any OpenAI-compatible endpoint works as `custom`."),
        "base_url": S("", "Base URL of the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1."),
        "api_key": S("", "API key; prefer `${OPENROUTER_API_KEY}`-style references to `.env`."),
        "api_key_env": S("", "Name of the environment variable (or `.env` key) holding the key."),
        "context_length": S(0, "Context window in tokens; 0 asks the endpoint, else 128,000.", 0),
        "max_tokens": S(0, "Cap on output tokens per call; 0 leaves it to the provider.", 0),
        "request_timeout": S(600.0, "Seconds to wait for a whole model call.", 1),
        "stale_timeout": S(300.0, "Seconds a stream may stall before it is retried.", 1),
    },
    "auxiliary": {
        "model": S("", "Model for summaries and background review; empty uses the main model."),
        "base_url": S("", "Endpoint of the auxiliary model; empty uses the main endpoint."),
        "api_key": S("", "API key of the auxiliary endpoint; empty uses the main key."),
        "timeout": S(120.0, "Seconds an auxiliary call may take.", 1),
    },
    "agent": {
        "max_turns": S(90, "Most model calls (tool iterations) in one user turn.", 1),
        "api_max_retries": S(3, "Retries of a failed model call (429, 5xx, timeouts, cut streams).", 0),
        "retry_base_delay": S(1.0, "First retry delay in seconds; doubles on each retry.", 0),
        "system_prompt": S("", "Extra system text added at call time, outside the cached prefix."),
        "reasoning_effort": S("", "Reasoning effort passed to models that take one."),
        "yolo": S(False, "Run destructive terminal commands without asking."),
    },
    "memory": {
        "memory_enabled": S(True, "Keep MEMORY.md (environment notes) in the system prompt."),
        "user_profile_enabled": S(True, "Keep USER.md (the user profile) in the system prompt."),
        "write_approval": S(False, "Ask before the agent writes memory."),
        "memory_char_limit": S(2200, "Size limit of MEMORY.md in characters, delimiters included.", 1),
        "user_char_limit": S(1375, "Size limit of USER.md in characters, delimiters included.", 1),
        "nudge_interval": S(10, "User turns between reminders to save memories; 0 turns it off.", 0),
        "flush_min_turns": S(6, "User turns before ending a session triggers a memory flush.", 0),
        "provider": S("", "External memory provider (`honcho`), on top of the built-in files."),
        "journal_max_entries": S(2000, "Write-journal entries kept before the oldest are pruned.", 10),
    },
    "compression": {
        "enabled": S(True, "Compress the conversation when it fills the context window."),
        "threshold": S(0.50, "Share of the context window that triggers compression.", 0.05, 0.99),
        "target_ratio": S(0.20, "Share of the threshold kept as the recent tail.", 0.10, 0.80),
        "protect_first_n": S(3, "Messages at the start never summarised.", 0),
        "protect_last_n": S(4, "Messages at the end never summarised.", 1),
        "summary_temperature": S(0.3, "Temperature of the summary call.", 0, 2),
        "min_savings": S(0.10, "Below this saving twice in a row, automatic compression stops.", 0, 1),
        "abort_on_summary_failure": S(False, "Keep the messages and stop when no summary can be made."),
    },
    "skills": {
        "external_dirs": S([], "Extra read-only skill folders; a local skill wins a name clash."),
        "index_token_budget": S(2000, "Tokens the Tier 1 skills index may take in the prompt.", 100),
        "guard_agent_created": S(True, "Scan every skill the agent writes, and roll back on a block."),
        "write_approval": S(False, "Ask before the agent writes a skill."),
        "creation_nudge_tool_calls": S(5, "Tool calls in one task that suggest saving a skill.", 1),
        "max_skill_chars": S(100_000, "Largest SKILL.md the agent may write, in characters.", 1),
        "max_support_file_bytes": S(1_048_576, "Largest support file the agent may write.", 1),
        "template_vars": S(True, "Expand ${HERMES_SKILL_DIR} and ${HERMES_SESSION_ID} in skills."),
        "inline_shell": S(False, "Run !`cmd` snippets inside skills (off: shown as text)."),
        "inline_shell_timeout": S(10, "Seconds an inline skill command may run.", 1),
    },
    "sessions": {
        "search_limit": S(3, "Sessions returned by session_search when the model gives no limit.", 1, 10),
        "search_window": S(5, "Messages shown on each side of a search hit.", 1, 20),
        "auto_prune": S(False, "Delete sessions older than `retention_days`."),
        "retention_days": S(90, "Age in days after which sessions may be pruned.", 1),
    },
    "prompt_caching": {
        "enabled": S(True, "Mark cache breakpoints where the endpoint honours them."),
        "cache_ttl": S("5m", "Cache lifetime asked for: 5m or 1h.", choices=("5m", "1h")),
    },
    "terminal": {
        "timeout": S(180, "Seconds a terminal command may run.", 1),
        "max_output_chars": S(50_000, "Characters of command output returned to the model.", 100),
    },
    "tool_output": {
        "max_bytes": S(50_000, "Largest tool result sent to the model, in bytes.", 100),
        "max_lines": S(2000, "Most lines of a tool result sent to the model.", 1),
        "max_line_length": S(2000, "Longest line of a tool result sent to the model.", 10),
    },
    "display": {
        "theme": S("hws-dark", "Theme name: a built-in, a Textual theme, or one in `themes/`."),
        "show_reasoning": S(True, "Show the model's reasoning, collapsed, in the transcript."),
        "show_cost": S(True, "Show the session's cost in the status bar."),
        "bell_on_complete": S(False, "Ring the terminal bell when a turn ends."),
    },
    "tui": {
        "fold_below_columns": S(
            110, "Terminal width below which the side panes fold into tabs above the transcript.", 40
        ),
        "side_width_percent": S(40, "Share of a wide terminal the side panes take, in percent.", 20, 70),
        "prune_keep_lines": S(1500, "Transcript lines kept mounted after pruning old turns.", 100),
        "prune_excess_lines": S(1000, "Extra transcript lines allowed before old turns are pruned.", 50),
        "live_segment_chars": S(
            2000, "A streamed reply is frozen in segments of about this many characters.", 200
        ),
        "prompt_max_lines": S(8, "Lines the input grows to before it scrolls.", 1, 40),
        "history_size": S(500, "Inputs kept for recall with up / down in this run.", 0),
        "interrupt_repeat_seconds": S(2.0, "A second ctrl+c within this many seconds clears the input.", 0.2),
        "interrupt_grace_seconds": S(
            5.0, "Seconds an interrupted turn may take to stop before it is cancelled.", 0.1
        ),
        "tool_preview_chars": S(72, "Characters of a tool's argument and result preview in one line.", 10),
        "gauge_warn": S(0.50, "Share of a limit at which gauges turn to the warning colour.", 0, 1),
        "gauge_high": S(0.80, "Share of a limit at which gauges turn to the high colour.", 0, 1),
        "gauge_critical": S(0.95, "Share of a limit at which gauges turn to the critical colour.", 0, 1),
        "default_context_window": S(128_000, "Context window shown when the model reports none.", 1024),
    },
    "watch": {
        "debounce_ms": S(50, "Milliseconds of quiet before a file change refreshes the panes.", 0),
        "poll_interval": S(1.0, "Seconds between checks when file events are unavailable.", 0.1),
    },
    "honcho": {
        "base_url": S("", "Honcho server URL; empty with no API key disables Honcho."),
        "api_key": S("", "Honcho API key (prefer `${HONCHO_API_KEY}` in `.env`)."),
        "workspace": S("hermes", "Honcho workspace id."),
        "user_peer": S("user", "Peer id of the user."),
        "ai_peer": S("hermes", "Peer id of the agent."),
        "timeout": S(10.0, "Seconds a Honcho call may take before the turn goes on without it.", 0.1),
    },
    "keys": {},  # binding id -> key, e.g. `keys: {focus_memory: f2}`; any id is accepted
    ROOT: {
        "context_file_max_chars": S(20_000, "Characters kept of each project context file.", 100),
        "file_read_max_chars": S(100_000, "Characters read_file returns at most.", 100),
    },
}

# Sections Hermes Agent writes that we read past in silence, so a Hermes home does not warn.
FOREIGN_SECTIONS = frozenset(
    {
        "_config_version",
        "providers",
        "fallback_providers",
        "credential_pool_strategies",
        "provider_routing",
        "openrouter",
        "curator",
        "context",
        "personalities",
        "platforms",
        "toolsets",
        "mcp_servers",
        "gateway",
        "cron",
        "tts",
        "stt",
        "voice",
        "browser",
        "code_execution",
        "delegation",
        "kanban",
        "approvals",
        "security",
        "logging",
        "web",
        "vision",
        "checkpoints",
        "smart_model_routing",
        "honcho_config",
        "plugins",
        "hooks",
        "privacy",
        "network",
        "updates",
    }
)

# Sections whose keys are free-form (a keymap, or Hermes sections we pass through unchecked).
OPEN_SECTIONS = frozenset({"keys"})

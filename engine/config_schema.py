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

# Tool and cache folders that are never what a search is looking for.
# fmt: off
SEARCH_SKIP_DIRS = [
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".tox", ".nox", ".idea", ".cache", ".next", ".gradle",
]
# fmt: on

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
        "connect_timeout": S(15.0, "Seconds to wait for the endpoint to accept a connection.", 0.1),
        "fallback_context_length": S(
            128_000, "Context window assumed when neither config nor the endpoint's /models gives one.", 1024
        ),
    },
    "auxiliary": {
        "model": S("", "Model for summaries, background review and titles; empty uses the main model."),
        "provider": S(
            "auto",
            "Provider of the auxiliary model: `auto` (or `main`) uses the main endpoint; a known name "
            "(openrouter, openai, anthropic, ollama, lmstudio) gives the address and the usual key; "
            "any other name labels `base_url`.",
        ),
        "base_url": S("", "Endpoint of the auxiliary model; empty uses the provider's, else the main one."),
        "api_key": S("", "API key of the auxiliary endpoint; empty uses the main key."),
        "api_key_env": S("", "Environment variable (or `.env` key) holding the auxiliary key."),
        "timeout": S(120.0, "Seconds an auxiliary call may take.", 1),
    },
    "agent": {
        "max_turns": S(90, "Most model calls (tool iterations) in one user turn.", 1),
        "api_max_retries": S(3, "Retries of a failed model call (429, 5xx, timeouts, cut streams).", 0),
        "retry_base_delay": S(1.0, "First retry delay in seconds; doubles on each retry.", 0),
        "retry_max_delay": S(60.0, "Longest wait before a retry, Retry-After included, in seconds.", 0),
        "system_prompt": S("", "Extra system text added at call time, outside the cached prefix."),
        "reasoning_effort": S("", "Reasoning effort passed to models that take one."),
        "yolo": S(False, "Run destructive terminal commands without asking."),
        "oversized_cut_share": S(
            0.5,
            "A message too large for the context window, cut to fit, keeps this share of the window "
            "(its start and end).",
            0.05,
            0.95,
        ),
        "oversized_folder": S(
            ".hws/pastes",
            "Folder of the project where a message too large for the context window is saved, so that "
            "its path is sent instead.",
        ),
        "busy_input": S(
            "queue",
            "What enter does while a turn runs: `queue` holds the message and sends it when the turn "
            "ends (each as its own turn); `steer` adds it to the running turn at the next tool boundary "
            "(as /steer does); `refuse` hands it back to the input.",
            choices=("queue", "steer", "refuse"),
        ),
    },
    "delegation": {
        "enabled": S(True, "Offer `delegate_task`: the agent hands self-contained tasks to subagents."),
        "max_concurrent": S(3, "Subagents that run at once; more tasks wait for a free place.", 1, 16),
        "max_tasks": S(6, "Most tasks one `delegate_task` call may hand over.", 1, 32),
        "max_turns": S(30, "Most model calls one subagent makes (a call's `max_turns` may ask fewer).", 1),
        "background": S(
            True, "Allow `background: true`: the parent goes on; each result arrives as a message."
        ),
        "allow_memory": S(
            False, "Let subagents write memory and skills (off: they read the frozen snapshot only)."
        ),
        "model": S("", "Model of the subagents; empty uses the main model."),
        "base_url": S("", "Endpoint of the subagents' model; empty uses the main endpoint."),
        "api_key": S("", "API key of the subagents' endpoint; empty uses the main key."),
        "api_key_env": S("", "Environment variable (or `.env` key) holding the subagents' key."),
    },
    "review": {
        "enabled": S(True, "Run the background review when a nudge is due (memory, skill save, skill fix)."),
        "max_iterations": S(16, "Most model calls one background review may make.", 1),
        "wait_timeout": S(
            300.0, "Seconds `hws run` and closing a session wait for a running review before stopping it.", 0
        ),
    },
    "memory": {
        "memory_enabled": S(True, "Keep MEMORY.md (environment notes) in the system prompt."),
        "user_profile_enabled": S(True, "Keep USER.md (the user profile) in the system prompt."),
        "write_approval": S(
            False,
            "Stage the agent's memory writes until you approve them "
            "(memory pane, /memory, `hws memory pending`).",
        ),
        "memory_char_limit": S(2200, "Size limit of MEMORY.md in characters, delimiters included.", 1),
        "user_char_limit": S(1375, "Size limit of USER.md in characters, delimiters included.", 1),
        "nudge_interval": S(10, "User turns between reminders to save memories; 0 turns it off.", 0),
        "flush_min_turns": S(
            6,
            "User turns since the last memory flush after which ending the session (/new, quitting) first "
            "lets the model save memories; 0 turns it off.",
            0,
        ),
        "provider": S(
            "",
            "External memory provider on top of the built-in files: `honcho`, or `holographic` (alias "
            "`facts`), the local fact store.",
        ),
        "journal_max_entries": S(2000, "Write-journal entries kept before the oldest are pruned.", 10),
        "journal_fsync": S(
            False, "Fsync each journal entry; off, a power cut may lose the newest history (files stay safe)."
        ),
        "snapshot_min_chars": S(
            4000, "Smallest prompt cap of a memory block: the larger of this and twice its limit.", 100
        ),
        "max_consolidation_failures": S(
            3, "Failed over-budget or no-match memory calls in a turn before the tool says stop.", 1
        ),
    },
    "compression": {
        "enabled": S(True, "Compress the conversation when it fills the context window."),
        "threshold": S(0.50, "Share of the context window that triggers compression.", 0.05, 0.99),
        "target_ratio": S(0.20, "Share of the threshold kept as the recent tail.", 0.10, 0.80),
        "protect_first_n": S(3, "Messages at the start never summarised.", 0),
        "protect_last_n": S(4, "Messages at the end never summarised.", 1),
        "summary_temperature": S(0.3, "Temperature of the summary call.", 0, 2),
        "min_savings": S(
            0.10,
            "A compression saving less than this share of the context is not done (no new session, one "
            "notice); twice in a row, automatic compression stops.",
            0,
            1,
        ),
        "oversized_message_share": S(
            0.25,
            "An old user message or tool result larger than this share of the context window is cut to "
            "that size (its start and end kept, the cut noted; state.db keeps it whole).",
            0.01,
            1,
        ),
        "abort_on_summary_failure": S(False, "Keep the messages and stop when no summary can be made."),
        "flush_enabled": S(True, "Let the model save memories (an auxiliary call) before turns are dropped."),
        "flush_temperature": S(0.3, "Temperature of the memory-flush call.", 0, 2),
        "flush_max_tokens": S(
            5120, "Tokens kept free for the memory-flush reply when its input is fitted.", 64
        ),
        "flush_max_iterations": S(2, "Model calls the memory flush may make (each may write memory).", 1, 10),
        "summary_ratio": S(0.20, "Summary length as a share of the tokens it replaces.", 0.01, 1),
        "summary_min_tokens": S(2000, "Shortest summary budget, in tokens (never above the maximum).", 100),
        "summary_max_tokens": S(12_000, "Longest summary budget, in tokens.", 100),
        "summary_max_context_share": S(
            0.05, "Summary budget never above this share of the context window.", 0.005, 0.5
        ),
        "summary_max_calls": S(
            4, "Summary calls per compression; a middle larger than that many inputs is digested first.", 1
        ),
        "tool_output_stub_chars": S(
            200, "Tool outputs longer than this, outside the tail, become one-line descriptions.", 0
        ),
        "duplicate_min_chars": S(200, "Tool outputs this long or longer are checked for duplicates.", 1),
        "tool_args_max_chars": S(500, "Longer tool-call argument values outside the tail are cut.", 50),
        "input_message_chars": S(
            6000, "Characters of one message the summariser reads (head and tail kept).", 500
        ),
        "input_tool_args_chars": S(1500, "Characters of one call's arguments the summariser reads.", 100),
        "auto_focus_chars": S(700, "Characters of the latest user requests given to the summariser.", 0),
        "fallback_max_chars": S(8000, "Size of the summary built without a model.", 500),
        "fallback_turn_chars": S(700, "Characters of one turn in the summary built without a model.", 50),
        "failure_cooldown": S(
            60.0, "Seconds after both summary models failed during which the model-free summary is used.", 0
        ),
        "tail_tool_output_chars": S(
            2000,
            "When the tail alone is too big, its older tool outputs are cut to this many characters.",
            200,
        ),
    },
    "skills": {
        "external_dirs": S([], "Extra read-only skill folders; a local skill wins a name clash."),
        "index_token_budget": S(2000, "Tokens the Tier 1 skills index may take in the prompt.", 100),
        "guard_agent_created": S(True, "Scan every skill the agent writes, and roll back on a block."),
        "guard_at_use": S(
            True,
            "Check each skill with the guard where it is used (Tier 1 index, skills_list, skill_view): "
            "a blocked skill is listed for the person with its reason and never shown to the model.",
        ),
        "write_approval": S(
            False,
            "Stage the agent's skill writes until you approve them "
            "(skills pane, /skills, `hws skills pending`).",
        ),
        "creation_nudge_tool_calls": S(5, "Tool calls in one task that suggest saving a skill.", 1),
        "max_skill_chars": S(100_000, "Largest SKILL.md the agent may write, in characters.", 1),
        "max_support_file_bytes": S(1_048_576, "Largest support file the agent may write.", 1),
        "template_vars": S(True, "Expand ${HERMES_SKILL_DIR} and ${HERMES_SESSION_ID} in skills."),
        "disabled": S([], "Skill names kept out of the index and skills_list (still viewable)."),
        "index_min_description_tokens": S(
            12, "Shortest description the index shows; below this a skill is listed by name only.", 1
        ),
        "max_category_depth": S(4, "Deepest nesting of category folders searched for skills.", 1, 16),
        "guard_max_files": S(50, "Files in one skill above which the guard reports a finding.", 1),
        "guard_max_total_kb": S(1024, "Total size of one skill, in KiB, above which the guard warns.", 1),
        "guard_max_file_kb": S(256, "Size of one skill file, in KiB, above which the guard warns.", 1),
        "guard_shared_scan_kb": S(
            16, "Prose per skill, in KiB, also read by the shared threat scanner (SKILL.md first).", 0
        ),
        "guard_code_scan_kb": S(
            64, "Text per skill, in KiB, code included, read for exfiltration and persistence intents.", 0
        ),
        "install_max_files": S(2000, "Files a folder may hold for `hws skills install` to copy it.", 1),
        "install_max_mb": S(50, "Size in MiB a folder may have for `hws skills install` to copy it.", 1),
        "hub_default_taps": S(
            [
                "openai/skills/skills/.curated",
                "openai/skills/skills/.system",
                "anthropics/skills/skills",
                "huggingface/skills/skills",
                "NVIDIA/skills/skills",
            ],
            "Sources the skills hub searches besides the taps in skills/.hub/taps.json (Hermes' defaults).",
        ),
        "hub_trusted_repos": S(
            ["openai/skills", "anthropics/skills", "huggingface/skills", "NVIDIA/skills"],
            "GitHub repositories whose skills install as `trusted` (a caution verdict is allowed).",
        ),
        "hub_github_url": S(
            "https://github.com", "Where `owner/repo` sources are cloned from (`<url>/<owner>/<repo>.git`)."
        ),
        "hub_cache_ttl": S(
            3600,
            "Seconds a cloned tap or fetched index is reused by search and browse before asking again.",
            0,
        ),
        "hub_fetch_timeout": S(30, "Seconds one clone or download of the skills hub may take.", 1),
        "hub_fetch_max_mb": S(20, "Largest download (index, file or archive) of the skills hub, in MiB.", 1),
        "config": S(
            {},
            "Values for the settings skills declare (`metadata.hermes.config`), by their dotted key: "
            "`wiki: {path: ~/wiki}` answers a skill's `wiki.path`. Given to the skill when it loads.",
        ),
    },
    "sessions": {
        "search_limit": S(3, "Sessions returned by session_search when the model gives no limit.", 1, 10),
        "search_window": S(5, "Messages shown on each side of a search hit.", 1, 20),
        "auto_title": S(
            True,
            "Title each session from its first exchange: the auxiliary model names it when one is "
            "configured (auxiliary.model, auxiliary.base_url or auxiliary.provider), else its first "
            "words do.",
        ),
        "title_words": S(
            6, "Words of the first message a session's title takes when no model names it.", 1, 20
        ),
        "title_timeout": S(
            20.0, "Seconds the auxiliary model may take to name a session before its first words do.", 1
        ),
        "auto_prune": S(
            False,
            "At start, archive then delete ended sessions older than `retention_days` (never one in use; "
            "`hws sessions prune` does it by hand).",
        ),
        "retention_days": S(90, "Age in days after which an ended session may be pruned.", 1),
        "min_interval_hours": S(24, "Hours between two automatic prunes (shared with Hermes Agent).", 0),
        "busy_timeout_ms": S(
            3000, "Milliseconds a write waits for another process's write before giving up.", 0
        ),
        "append_retries": S(
            3,
            "Times a message write that another program's lock refused is tried again before the "
            "message is kept in hws/unsaved-messages.jsonl (written once the lock is released).",
            0,
            20,
        ),
        "synchronous": S(
            "normal",
            "normal: a committed message survives a crash of hws; full: also a power cut (slower).",
            choices=("normal", "full"),
        ),
        "search_hits": S(50, "Message hits gathered before grouping them by conversation.", 1, 500),
        "search_session_share": S(
            0.3,
            "Weight of a conversation's other hits beside its best when conversations are ranked by "
            "relevance (0: by the best hit alone).",
            0,
            1,
        ),
        "index_upkeep_ms": S(
            200,
            "Milliseconds a closing session store may spend merging its search index (0: never).",
            0,
        ),
        "index_max_segments": S(
            6, "Pieces a search index may hold before upkeep merges them all into one.", 1
        ),
        "index_merge_pages": S(64, "Index pages one upkeep step merges (its own transaction).", 1),
        "search_rank_rows": S(
            300, "Matches ranked by bm25 over all history when a query's rarest words have this many.", 10
        ),
        "search_window_rows": S(
            50, "Newest matches of each word ranked by bm25 when none is rare enough to rank them all.", 10
        ),
        "search_common_share": S(
            0.2, "Share of messages a word may appear in before ranking treats it as a stopword.", 0.01, 1
        ),
        "search_rerank_pool": S(
            100,
            "Best bm25 matches of a question reordered by the rarity of the question words each holds.",
            1,
        ),
        "search_feedback_hits": S(
            3,
            "Best hits of a question whose rare words (names, places) a second pass searches for "
            "(0: no second pass).",
            0,
            20,
        ),
        "search_feedback_rare": S(
            10, "Messages a word of those hits may appear in and still count as rare for that pass.", 2
        ),
        "search_feedback_share": S(
            0.005,
            "Share of all messages a word of those hits may appear in and still count as rare (in a "
            "small history every word is rare, so it has no second pass).",
            0,
            1,
        ),
        "search_budget_ms": S(
            15.0, "CPU milliseconds a search may spend before it returns the newest matches found so far.", 1
        ),
        "read_head": S(20, "Messages shown from the start of a long session in read mode.", 1),
        "read_tail": S(10, "Messages shown from the end of a long session in read mode.", 1),
        "browse_limit": S(10, "Recent conversations listed by session_search with no arguments.", 1, 100),
        "message_chars": S(
            2000, "Characters of one message shown in search results; longer ones are cut in the middle.", 100
        ),
        "summary_max_chars": S(
            100_000, "Characters of transcript given to the model for a `summarize` recap.", 1000
        ),
        "summary_tool_chars": S(
            500, "Characters kept of each tool output in a recap transcript (head and tail).", 50
        ),
        "index_batch": S(2000, "Messages indexed per transaction when an older state.db is indexed.", 100),
    },
    "prompt_caching": {
        "enabled": S(True, "Mark cache breakpoints where the endpoint honours them."),
        "cache_ttl": S("5m", "Cache lifetime asked for: 5m or 1h.", choices=("5m", "1h")),
    },
    "terminal": {
        "timeout": S(180, "Seconds a terminal command may run.", 1),
        "max_timeout": S(600, "Longest timeout the model may ask for in one terminal call, in seconds.", 1),
        "max_output_chars": S(50_000, "Characters of command output returned to the model.", 100),
        "output_head_share": S(
            0.4, "Share of capped command output kept from the start; the rest is the end.", 0, 1
        ),
        "kill_grace": S(1.0, "Seconds between SIGTERM and SIGKILL for a command that timed out.", 0),
        "exit_drain": S(0.5, "Seconds to keep reading output after the shell exits (background jobs).", 0),
        "sandbox": S(
            "bubblewrap",
            "How terminal commands are confined. `bubblewrap`: under bwrap, only the working folder "
            "and a private /tmp are writable, the home's control files are read-only and .env/auth.json "
            "unreadable, secrets are left out of the environment, and there is no network unless the "
            "user approves it; where bwrap is missing or cannot start, every command that is not "
            "read-only asks first. `none`: commands run with your whole file system, network and "
            "environment, and only destructive ones ask.",
            choices=("bubblewrap", "none"),
        ),
        "persistent": S(
            True,
            "Keep one shell per session: `cd`, `export`, an activated virtual environment and shell "
            "functions carry over from one terminal command to the next. false: a fresh shell per command.",
        ),
        "backend": S(
            "local",
            "Where terminal commands run: `local` (this machine, in the sandbox), `ssh` (the host named by "
            "the ssh_* settings) or `docker` (a container of `docker_image`, one per session).",
        ),
        "max_processes": S(
            8, "Background processes (`terminal` with `background: true`) running at once.", 1
        ),
        "process_buffer_bytes": S(
            200_000,
            "Bytes of a background process's newest output kept in memory for `process poll` and `wait`; "
            "everything it prints also goes to its log file.",
            1000,
        ),
        "process_log_max_bytes": S(
            50_000_000, "A background process's log file stops growing past this many bytes.", 1000
        ),
        "restart_grace": S(
            2.0,
            "Seconds a timed-out command may take to stop after it was killed before the whole shell is "
            "restarted.",
            0,
        ),
        "connect_timeout": S(20.0, "Seconds to reach the ssh host or the docker daemon.", 1),
        "ssh_host": S("", "Host the `ssh` backend runs commands on."),
        "ssh_user": S("", "User on the ssh host; empty: your user name here."),
        "ssh_port": S(22, "Port of the ssh host.", 1, 65535),
        "ssh_key": S(
            "", "Private key file for the ssh host; empty: the keys your ssh agent (SSH_AUTH_SOCK) holds."
        ),
        "ssh_known_hosts": S(
            "",
            "known_hosts file the ssh host's key is checked against; empty: ~/.ssh/known_hosts. An unknown "
            "host is asked about once, and its key added here.",
        ),
        "ssh_cwd": S("", "Folder on the ssh host commands start in; empty: the remote user's home."),
        "docker_image": S("", "Image the `docker` backend starts its container from (it must have bash)."),
        "docker_keep": S(
            False, "Keep the session's container when the session ends, instead of removing it."
        ),
    },
    "checkpoints": {
        "enabled": S(
            True,
            "Before the agent's first change in a turn (write_file, patch, a terminal command that may "
            "write), save the working folder in a shadow git repository under the home (hws/checkpoints), "
            "so `/rollback` and `hws checkpoints restore` can bring it back. The project's own .git is "
            "never touched; its .gitignore files are honoured.",
        ),
        "max_files": S(
            20_000, "A working folder with more files than this is not saved (said once per session).", 1
        ),
        "max_total_size_mb": S(
            500, "A working folder whose files add up to more MiB than this is not saved.", 1
        ),
        "max_file_size_mb": S(
            10, "Files larger than this many MiB are left out of checkpoints (and out of restores).", 1
        ),
        "max_snapshots": S(50, "Checkpoints kept per working folder; the oldest go first.", 1),
        "max_entries_walked": S(
            200_000,
            "Files and folders (before .gitignore applies; the exclude folders not entered) counted once per "
            "session before git lists the working folder; past this many it is not saved, so a huge tree "
            "(a home folder) never holds up a turn.",
            1,
        ),
        "exclude": S(
            [d for d in SEARCH_SKIP_DIRS if d != ".git"],
            "Folder names never saved (rebuilt by tools), beside what .gitignore leaves out.",
        ),
        "timeout": S(30.0, "Seconds saving a checkpoint may take before the turn goes on without one.", 1),
    },
    "tool_output": {
        "max_bytes": S(50_000, "Largest tool result sent to the model, in bytes.", 100),
        "max_lines": S(2000, "Most lines of a tool result sent to the model.", 1),
        "max_line_length": S(2000, "Longest line of a tool result sent to the model.", 10),
        "preview_chars": S(60, "Characters of a tool call's one-line preview in the UI and CLI.", 10),
        "search_max_results": S(100, "Matches (or file names) search_files returns at most.", 1),
        "search_max_file_bytes": S(5_000_000, "Files larger than this are skipped by content search.", 1),
        "search_skip_dirs": S(SEARCH_SKIP_DIRS, "Folder names search_files never descends into."),
        "patch_preview_lines": S(12, "Lines of the file shown when a patch's old text is not found.", 1),
        "diff_max_lines": S(200, "Lines of the diff shown in the UI for write_file and patch.", 1),
    },
    "display": {
        "theme": S("hws-dark", "Theme name: a built-in, a Textual theme, or one in `themes/`."),
        "show_reasoning": S(True, "Show the model's reasoning, collapsed, in the transcript."),
        "show_cost": S(True, "Show the session's cost in the status bar."),
        "bell_on_complete": S(False, "Ring the terminal bell when a turn ends."),
        "paste_chip_lines": S(
            200,
            "A paste of more lines than this becomes one chip in the input (`[Pasted 23,165 lines · "
            "2.0 MB]`) and a sent message that long shows collapsed; the full text is sent.",
            1,
        ),
        "paste_chip_chars": S(
            20_000, "A paste (or a sent message) of more characters than this is a chip too.", 100
        ),
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
        "shell_output_lines": S(
            20, "Lines of a `!CMD`'s output the transcript shows (a click shows all; ctrl+y copies all).", 1
        ),
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
        "close_wait_seconds": S(
            10.0, "Seconds quitting (or /new) waits for the session to close and a review to finish.", 0
        ),
        "history_page_messages": S(
            80, "Messages read from state.db per page when the transcript scrolls into old turns.", 10, 2000
        ),
        "journal_rows": S(60, "Journal entries the memory pane lists, newest first.", 1, 2000),
        "memory_pane_entries": S(
            200, "Entries of one memory file the memory pane lists; a longer file is cut with a note.", 1
        ),
        "palette_sessions": S(200, "Past conversations the command palette offers.", 0, 10_000),
        "sessions_page": S(100, "Conversations the sessions screen lists per page.", 10, 2000),
        "guard_scan_skills": S(
            500, "Skills the skills pane scans with the guard for verdicts (the most used first).", 0
        ),
    },
    "watch": {
        "debounce_ms": S(50, "Milliseconds of quiet before a file change refreshes the panes.", 0),
        "poll_interval": S(1.0, "Seconds between checks when file events are unavailable.", 0.1),
        "mode": S(
            "auto",
            "How the home is watched: `auto` (file events, polling when they cannot start), `events`, "
            "`polling` (for network file systems whose events never arrive), or `off`.",
            choices=("auto", "events", "polling", "off"),
        ),
        "remember_max_bytes": S(
            262_144,
            "Largest file whose text the watcher keeps, so a hand edit can be journaled with its before.",
            0,
        ),
    },
    "editor": {
        "max_file_bytes": S(1_048_576, "Largest file the side-by-side editor opens.", 1024),
        "diff_context_lines": S(3, "Unchanged lines shown around each change in a conflict diff.", 0, 50),
        "external_command": S(
            "",
            "Editor for ctrl+g; empty uses $VISUAL, then $EDITOR, then vi.",
        ),
    },
    "honcho": {
        "base_url": S("", "Honcho server URL; empty with no API key disables Honcho."),
        "api_key": S("", "Honcho API key (prefer `${HONCHO_API_KEY}` in `.env`)."),
        "workspace": S("hermes", "Honcho workspace id."),
        "user_peer": S("user", "Peer id of the user."),
        "ai_peer": S("hermes", "Peer id of the agent."),
        "timeout": S(10.0, "Seconds a Honcho call may take before the turn goes on without it.", 0.1),
        "max_retries": S(1, "Retries of a failed Honcho call (timeouts, 429, 5xx), in the background.", 0, 5),
        "reasoning_level": S(
            "low",
            "Effort Honcho spends on the dialectic answer.",
            choices=("minimal", "low", "medium", "high", "max"),
        ),
        "dialectic_query": S(
            "Given that the user just said: {last_user}\n"
            "What does the user care about here, and what should the assistant keep in mind next?",
            "Dialectic question asked after each turn; `{last_user}` is the user's last message.",
        ),
        "max_conclusions": S(25, "Conclusions per peer representation fetched for the next turn.", 1, 100),
        "message_max_chars": S(25_000, "Longest message Honcho takes; longer ones are sent in parts.", 100),
    },
    "facts": {
        "db_path": S("", "The fact store's SQLite file; empty is `$HERMES_HOME/memory_store.db` (Hermes')."),
        "vectors": S(
            "auto",
            "HRR vectors for ranking and entity queries: `auto` uses them when numpy is installed.",
            choices=("auto", "off"),
        ),
        "hrr_dim": S(1024, "Angles per HRR vector (Hermes' default; both must agree to share vectors).", 64),
        "default_trust": S(0.5, "Trust a new fact starts with.", 0.0, 1.0),
        "min_trust": S(0.3, "Facts below this trust are left out of searches and prefetches.", 0.0, 1.0),
        "helpful_delta": S(0.05, "Trust a fact gains when `fact_feedback` calls it helpful.", 0.0, 1.0),
        "unhelpful_delta": S(0.10, "Trust a fact loses when `fact_feedback` calls it unhelpful.", 0.0, 1.0),
        "fts_weight": S(0.4, "Weight of the FTS5 bm25 rank in a search's relevance.", 0.0, 1.0),
        "overlap_weight": S(0.3, "Weight of word overlap between query and fact in relevance.", 0.0, 1.0),
        "hrr_weight": S(
            0.3, "Weight of HRR similarity in relevance (given to the others without numpy).", 0.0, 1.0
        ),
        "half_life_days": S(
            180.0, "Days after which an untouched fact's search score halves; 0 turns recency off.", 0
        ),
        "prefetch_limit": S(5, "Facts found for the user's message and put in the turn's context.", 0, 50),
        "search_or_cap": S(
            5000,
            "Facts a search may rank when no query with all (or the rarest) of its words finds enough: "
            "the OR fallback takes the rarest words whose facts add up to at most this.",
            10,
        ),
        "first_turn_ms": S(
            15.0,
            "Milliseconds a session's first turn may spend on facts about the names its message mentions "
            "(the entity index, no ranked search), so the model never waits; later turns get the ranked "
            "prefetch.",
            0,
            1000,
        ),
        "identity_facts": S(20, "User-preference facts the identity view lists beside USER.md.", 0, 200),
        "search_results": S(50, "Facts `/facts` lists for one search in the workstation.", 1, 1000),
        "contradict_scan": S(500, "Most recently updated facts `contradict` compares pairwise.", 2, 5000),
    },
    "external_memory": {
        "first_turn_wait": S(
            3.0, "Seconds the first turn of a session waits for provider context before going on.", 0
        ),
        "queue_max": S(1000, "Provider calls that may wait in the background before more are dropped.", 1),
        "layer_max_tokens": S(800, "Tokens the provider's ephemeral prompt layer may take.", 50),
        "close_timeout": S(5.0, "Seconds closing a session waits for queued provider calls.", 0),
        "drift_threshold": S(
            0.5, "Word overlap at which a stated and an observed claim count as the same.", 0.1, 1.0
        ),
    },
    "setup": {
        "check_timeout": S(20.0, "Seconds the endpoint check of `hws setup` and `hws doctor` may take.", 1),
        "check_max_tokens": S(16, "Most tokens the endpoint check asks the model for.", 1, 4096),
        "offer_screen": S(
            True, "Open the setup screen when the workstation starts with no model configured."
        ),
    },
    "doctor": {
        "state_db_warn_mb": S(1024, "Size of state.db, in MiB, above which `hws doctor` warns.", 1),
        "logs_warn_mb": S(200, "Size of logs/, in MiB, above which `hws doctor` warns.", 1),
        "check_endpoint": S(True, "Let `hws doctor` send one tiny request to the model endpoint."),
    },
    "serve": {
        "host": S("127.0.0.1", "Address `hws serve` listens on; anything but loopback needs --public."),
        "port": S(8765, "Port `hws serve` listens on.", 1, 65535),
        "stop_grace": S(
            3.0, "Seconds `hws serve` gives its app processes to exit on stop before it kills them.", 0
        ),
    },
    "demo": {
        "type_chars_per_second": S(28.0, "Typing pace of the demo's user messages at --speed 1.", 1),
        "caption_seconds": S(2.5, "Seconds a demo caption stays before the next step at --speed 1.", 0),
        "turn_pause_seconds": S(1.2, "Seconds after a demo turn ends before the next step at --speed 1.", 0),
        "chunk_delay": S(0.012, "Seconds between streamed reply chunks in the demo at --speed 1.", 0),
    },
    "logs": {
        "level": S(
            "info",
            "Lowest level written to logs/agent.log (errors.log always takes warnings and worse).",
            choices=("debug", "info", "warning", "error"),
        ),
        "max_bytes": S(5_000_000, "Size at which a log file is rotated.", 10_000),
        "backups": S(3, "Rotated copies kept of each log file.", 0, 50),
    },
    "security": {
        "aux_review": S(
            False,
            "Ask the auxiliary model for a second opinion on memory writes and skill writes or installs "
            "that the threat patterns leave uncertain (a note that might be an instruction); its UNSAFE "
            "refuses them.",
        ),
        "aux_review_timeout": S(
            60.0, "Seconds the second opinion may take; past it the write goes ahead.", 1
        ),
    },
    "web": {
        "allow": S(
            "ask",
            "How web_fetch reaches the web: `ask` (the first fetch from each domain asks; approving for "
            "the session covers that domain), `all` (any domain, unasked), `off` (web_fetch is not offered).",
            choices=("ask", "all", "off"),
        ),
        "domains": S([], "Domains web_fetch reaches unasked under `ask` (each covers its subdomains)."),
        "blocked_domains": S([], "Domains web_fetch never reaches, whatever `allow` says (and subdomains)."),
        "private_addresses": S(
            "ask",
            "web_fetch to loopback, private and link-local addresses (this machine, the local network, a "
            "cloud's metadata service): `ask` every time (--yolo does not skip it), `refuse`, or `allow`.",
            choices=("ask", "refuse", "allow"),
        ),
        "timeout": S(20.0, "Seconds web_fetch and web_search wait for a server (connecting at most 10).", 1),
        "max_bytes": S(5_000_000, "Largest body web_fetch downloads; a larger page is refused.", 1000),
        "max_redirects": S(5, "Redirects web_fetch follows at most (each target checked like the URL).", 0),
        "max_chars": S(40_000, "Characters of a page's extracted text web_fetch returns at most.", 500),
        "search_backend": S(
            "",
            "web_search's backend: `searxng`, `brave`, `tavily` or `exa` (keys BRAVE_API_KEY, "
            "TAVILY_API_KEY, EXA_API_KEY from .env); empty: web_search is not offered.",
            choices=("", "searxng", "brave", "tavily", "exa"),
        ),
        "search_url": S(
            "",
            "The search backend's address: required for `searxng` (e.g. http://localhost:8888); for the "
            "others empty means their public API.",
        ),
        "search_results": S(5, "Results web_search returns at most.", 1, 20),
    },
    "mcp": {
        "defer_share": S(
            0.10,
            "Share of the context window the MCP servers' tool schemas may take; past it they are deferred "
            "behind `tool_search`, and only the schemas the model picks join the next calls.",
            0.0,
            1.0,
        ),
        "connect_timeout": S(30.0, "Seconds an MCP server may take to start and list its tools.", 1),
        "call_timeout": S(120.0, "Seconds an MCP tool call may take, unless its server sets `timeout`.", 1),
        "description_max_chars": S(
            1024, "Characters of an MCP tool's description (and of each parameter's) sent to the model.", 80
        ),
        "search_results": S(5, "Tools `tool_search` returns at most per search.", 1, 50),
        "default_trust": S(
            "once",
            "Approval of an MCP server's tool calls when the server sets no `trust`: `ask` (every call), "
            "`once` (the first call of each tool in a session), `allow` (never asks).",
            choices=("ask", "once", "allow"),
        ),
        "max_tools": S(500, "Tools taken from one MCP server at most (the rest are left out and said).", 1),
        "resource_max_chars": S(
            20_000, "Characters of an MCP resource attached with `@server:resource` (the rest is cut).", 100
        ),
    },
    "mcp_serve": {
        "allow_skill_writes": S(
            False,
            "`hws mcp serve` offers other agents `skill_manage` (create, patch and delete skills, through "
            "the skills guard); off, they may only list and read skills. Memory writes are always offered "
            "unless it runs with --read-only.",
        ),
        "port": S(
            8766, "Port `hws mcp serve --http` listens on (127.0.0.1 unless --host says otherwise).", 1, 65535
        ),
    },
    "keys": {},  # binding id -> key, e.g. `keys: {focus_memory: f2}`; any id is accepted
    ROOT: {
        "context_file_max_chars": S(20_000, "Characters kept of each project context file.", 100),
        "file_read_max_chars": S(100_000, "Characters read_file returns at most.", 100),
        "fallback_providers": S(
            [],
            "Providers tried in order when the main one fails (a refused connection at once; 429 and "
            "5xx once `agent.api_max_retries` are spent); the session stays on the one that answers. "
            "Each entry: `provider` (a known name gives the address and the usual key), `model`, "
            "`base_url`, `api_key_env` (the name of the key's variable in the environment or .env).",
        ),
    },
}

# Sections Hermes Agent writes that we read past in silence, so a Hermes home does not warn.
FOREIGN_SECTIONS = frozenset(
    {
        "_config_version",
        "providers",
        "credential_pool_strategies",
        "provider_routing",
        "openrouter",
        "curator",
        "context",
        "personalities",
        "platforms",
        "toolsets",
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
        "logging",
        "vision",
        "smart_model_routing",
        "honcho_config",
        "plugins",
        "hooks",
        "privacy",
        "network",
        "updates",
    }
)

# Sections with a reader of their own (their shape is not name -> setting): read past here, checked there.
OWN_SECTIONS = frozenset({"mcp_servers"})
# Sections whose keys are free-form (a keymap, or Hermes sections we pass through unchecked).
OPEN_SECTIONS = frozenset({"keys"})
# Sections we share with Hermes Agent: our keys are checked, Hermes' own are read past in silence
# (`mcp`: Hermes has `auto_reload_on_config_change` there; `web`: Hermes' `backend` and its keys).
SHARED_SECTIONS = frozenset({"security", "mcp", "checkpoints", "web"})

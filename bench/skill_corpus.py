"""A reproducible library of realistic skills (names, categories, descriptions, bodies) for the benchmarks."""

from __future__ import annotations

import random
from pathlib import Path

CATEGORIES = {
    "devops": ["docker", "compose", "kubernetes", "helm", "terraform", "ansible", "nginx", "systemd"],
    "github": ["pr", "issues", "actions", "release", "review", "branch", "cherry-pick", "bisect"],
    "data-science": ["pandas", "polars", "notebook", "plotting", "regression", "clustering", "sql", "duckdb"],
    "documents": ["pdf", "docx", "xlsx", "pptx", "markdown", "latex", "csv", "epub"],
    "web": ["react", "vite", "tailwind", "playwright", "lighthouse", "css", "svelte", "forms"],
    "mlops": ["vllm", "llama-cpp", "lora", "quantize", "eval", "tokenizer", "gguf", "embedding"],
    "research": ["arxiv", "papers", "citations", "survey", "benchmark", "dataset", "reading", "notes"],
    "productivity": ["calendar", "email", "todo", "obsidian", "notion", "meeting", "summary", "inbox"],
    "media": ["ffmpeg", "youtube", "podcast", "image", "gif", "audio", "subtitle", "thumbnail"],
    "security": ["secrets", "sbom", "cve", "audit", "tls", "ssh", "firewall", "sandbox"],
    "databases": ["postgres", "sqlite", "redis", "migration", "backup", "index", "replica", "vacuum"],
    "python": ["packaging", "uv", "pytest", "typing", "asyncio", "profiling", "ruff", "wheel"],
    "rust": ["cargo", "clippy", "ffi", "tokio", "serde", "bench", "wasm", "release"],
    "cloud": ["aws", "gcp", "azure", "s3", "lambda", "iam", "billing", "cdn"],
    "writing": ["blog", "changelog", "docs", "readme", "tone", "proofread", "outline", "release-notes"],
    "mobile": ["android", "ios", "flutter", "expo", "signing", "testflight", "gradle", "xcode"],
    "smart-home": ["homeassistant", "zigbee", "mqtt", "lights", "thermostat", "camera", "scenes", "sensors"],
    "finance": ["invoices", "budget", "taxes", "receipts", "ledger", "stocks", "expenses", "payroll"],
    "communication": [
        "slack",
        "discord",
        "telegram",
        "matrix",
        "email-digest",
        "announce",
        "standup",
        "status",
    ],
    "creative": ["canvas", "svg", "palette", "typography", "logo", "storyboard", "poster", "generative-art"],
    "leisure": ["recipes", "travel", "fitness", "books", "music", "games", "garden", "movies"],
    "networking": ["dns", "vpn", "wireguard", "latency", "ports", "proxy", "certificates", "routing"],
    "testing": ["fixtures", "snapshot", "fuzzing", "coverage", "mutation", "load-test", "contract", "flaky"],
    "agents": [
        "mcp-server",
        "tool-schema",
        "prompt",
        "memory",
        "skills",
        "subagent",
        "eval-harness",
        "tracing",
    ],
    "os": ["macos", "linux", "windows", "wsl", "homebrew", "apt", "launchd", "cron"],
}
ACTIONS = [
    "debugging",
    "setup",
    "workflow",
    "migration",
    "troubleshooting",
    "recipes",
    "checklist",
    "automation",
    "cleanup",
    "upgrade",
    "review",
    "monitoring",
]
VERBS = [
    "Set up",
    "Debug",
    "Automate",
    "Review",
    "Migrate",
    "Speed up",
    "Clean up",
    "Monitor",
    "Build",
    "Fix",
]
WHEN = [
    "the user mentions {t} or asks why it fails",
    "a {t} step breaks in CI or on a fresh machine",
    "you need a repeatable {t} procedure with known pitfalls",
    "{t} output looks wrong, slow or incomplete",
    "the task involves {t} and more than a few commands",
]
PITFALLS = [
    "cached state from an earlier run",
    "a missing environment variable",
    "file permissions",
    "a version mismatch between tools",
    "timeouts on slow networks",
    "paths with spaces",
]


def skill_specs(count: int, seed: int = 7) -> list[tuple[str, str, str]]:
    """(category, name, description) for `count` distinct skills, spread over the categories."""
    rng = random.Random(seed)
    specs: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    cats = list(CATEGORIES)
    i = 0
    while len(specs) < count:
        category = cats[i % len(cats)]
        topic = rng.choice(CATEGORIES[category])
        action = rng.choice(ACTIONS)
        name = f"{topic}-{action}"
        i += 1
        if name in seen:
            name = f"{topic}-{action}-{rng.choice(['advanced', 'basics', 'notes', 'v2', 'fast'])}"
            if name in seen:
                continue
        seen.add(name)
        words = topic.replace("-", " ")
        description = (
            f"{rng.choice(VERBS)} {words} {action}: the exact commands, checks and fixes that worked, "
            f"including {rng.choice(PITFALLS)} and {rng.choice(PITFALLS)}. "
            f"Use when {rng.choice(WHEN).format(t=words)}."
        )
        if rng.random() < 0.3:
            description += (
                f" Covers {words} on Linux and macOS, with a rollback plan and a verification step."
            )
        specs.append((category, name, description))
    return specs


def write_library(skills_dir: Path, count: int, seed: int = 7, body_lines: int = 40) -> list[str]:
    """Write `count` skills in the Hermes layout; returns their names."""
    names = []
    for category, name, description in skill_specs(count, seed):
        folder = skills_dir / category / name
        (folder / "references").mkdir(parents=True, exist_ok=True)
        body = "\n".join(
            f"{n + 1}. Run `{name.split('-')[0]} --step {n}` and check the output for errors."
            for n in range(body_lines)
        )
        (folder / "SKILL.md").write_text(
            f'---\nname: {name}\ndescription: "{description}"\nversion: 1.0.0\n---\n\n# {name}\n\n'
            f"## Procedure\n\n{body}\n",
            encoding="utf-8",
        )
        (folder / "references" / "notes.md").write_text(f"# Notes on {name}\n\nDetails.\n", encoding="utf-8")
        names.append(name)
    return names


PROSE = [
    "Before you change anything, read the current configuration and note the version of every tool involved.",
    "If the command fails with a permission error, check the owner of the folder rather than adding sudo.",
    "Keep the original file and write results to a new path, so a bad run can be compared and thrown away.",
    "Large inputs: work in batches of a few hundred rows and report progress to the user between batches.",
    "When the output looks wrong, rerun the previous step with verbose logging and compare the two logs.",
    "Ask the user before deleting anything that cannot be rebuilt from the repository or the package cache.",
    "The API returns at most one hundred items per page; follow the cursor until it comes back empty.",
    "Record what worked in this skill with a patch as soon as the task is done, while the details are fresh.",
]
CODE = [
    "python scripts/run_step.py --input data/{n}.csv --output out/{n}.json --retries 3",
    'curl -fsS "https://api.github.com/repos/OWNER/REPO/actions/runs?per_page={n}" -H "Accept: text/json"',
    "pip install pandas==2.2.{n} pyarrow",
    "rm -rf build/{n} dist/{n}",
    'export PATH="$HOME/.local/bin:$PATH"',
    "docker compose -f compose.{n}.yaml up -d --wait",
    "git log --oneline -n {n} -- src/",
    "jq '.items[] | {{id, status}}' out/{n}.json",
]
PY = [
    "def step_{n}(path: Path, retries: int = 3) -> dict[str, Any]:",
    '    data = json.loads(path.read_text(encoding="utf-8"))',
    '    token = os.environ.get("SERVICE_TOKEN", "")',
    '    response = session.get(f"{{BASE}}/items/{n}", headers={{"Authorization": f"Bearer {{token}}"}})',
    '    for key in sorted(env): log.debug("%s is set (%d chars)", key, len(env[key]))',
    '    result = subprocess.run(["tool", "--id", str({n})], capture_output=True, text=True, check=False)',
    "    if result.returncode != 0: raise RuntimeError(result.stderr.strip())",
    '    return {{"id": {n}, "rows": len(data), "ok": True}}',
]


def big_skill_files(total_lines: int = 15_000, seed: int = 11) -> dict[str, str]:
    """A large, realistic skill: a SKILL.md, long Markdown references and scripts, no two paragraphs alike."""
    rng = random.Random(seed)

    def markdown(lines: int, title: str) -> str:
        out = [f"# {title}", ""]
        n = 0
        while len(out) < lines:
            n += 1
            out += [f"## Step {n}: {rng.choice(ACTIONS)} of part {rng.randrange(10_000)}", ""]
            out += [f"{rng.choice(PROSE)} (case {rng.randrange(100_000)})" for _ in range(rng.randint(2, 5))]
            out += (
                ["", "```bash"]
                + [rng.choice(CODE).format(n=rng.randrange(1000)) for _ in range(3)]
                + ["```", ""]
            )
        return "\n".join(out[:lines]) + "\n"

    def script(lines: int) -> str:
        out = [
            "import json",
            "import os",
            "import subprocess",
            "from pathlib import Path",
            "from typing import Any",
            "",
        ]
        while len(out) < lines:
            n = rng.randrange(100_000)
            out += [line.format(n=n) for line in PY] + [""]
        return "\n".join(out[:lines]) + "\n"

    skill_lines = 450
    files = {
        "SKILL.md": "---\nname: big-workflow\ndescription: A long, real-world style workflow with many "
        "references and scripts. Use for benchmarking.\n---\n\n" + markdown(skill_lines, "Big workflow"),
    }
    remaining = total_lines - skill_lines
    for i in range(6):
        files[f"references/part-{i}.md"] = markdown(remaining // 9, f"Reference part {i}")
    for i in range(3):
        files[f"scripts/step_{i}.py"] = script(remaining // 9)
    return files

"""`hws setup` and the config writer: settings written without losing the user's file, the endpoint
checked with a tiny request, and a failing endpoint explained."""

from __future__ import annotations

import os
import pty
import select
import shlex
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from engine.cli.model_setup import ModelChoice, SetupError, check_endpoint, restore_config, write_choice
from engine.config import load_config
from engine.config_edit import set_env_value, update_config
from engine.home import Home
from engine.model_server.server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
USER_CONFIG = """\
# my own notes about this file
display:
  theme: hws-dark   # the one I like
model:
  default: old-model  # was a test
  context_length: 64000
  api_key: sk-old-literal
memory:
  nudge_interval: 7
future_section:
  kept: true
"""


def hws(*args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=60,
    )


@pytest.fixture
def server() -> ScriptedModelServer:
    with ScriptedModelServer.from_yaml('model: tiny\nrules:\n  - reply: {text: "OK"}\n') as running:
        yield running


def test_the_choice_is_written_in_place_keeping_comments_and_unknown_sections(home: Home) -> None:
    home.config_file.write_text(USER_CONFIG, encoding="utf-8")
    result = write_choice(home, ModelChoice("ollama", "qwen3:8b"))
    text = home.config_file.read_text(encoding="utf-8")
    assert result.how == "edited" and result.previous_text == USER_CONFIG
    for kept in ("# my own notes about this file", "theme: hws-dark   # the one I like", "nudge_interval: 7"):
        assert kept in text
    assert "future_section:\n  kept: true" in text
    data = yaml.safe_load(text)
    assert data["model"] == {
        "default": "qwen3:8b",
        "context_length": 64000,
        "provider": "ollama",
        "base_url": "http://localhost:11434/v1",
    }, "a literal key that would win over the choice is gone"
    config = load_config(home.root)
    assert config.model_name == "qwen3:8b" and config.memory.nudge_interval == 7
    restore_config(home, result.previous_text)
    assert home.config_file.read_text(encoding="utf-8") == USER_CONFIG


def test_a_hermes_style_model_line_and_a_missing_file(home: Home) -> None:
    home.config_file.write_text("model: anthropic/claude-opus\nterminal:\n  timeout: 30\n", encoding="utf-8")
    how = update_config(home.config_file, "model", {"default": "gpt-4.1-mini", "provider": "openai"})
    assert how == "rewritten"
    data = yaml.safe_load(home.config_file.read_text(encoding="utf-8"))
    assert data == {"model": {"default": "gpt-4.1-mini", "provider": "openai"}, "terminal": {"timeout": 30}}
    home.config_file.unlink()
    result = write_choice(
        home, ModelChoice("openai", "gpt-4.1-mini", key_source="env", key_env="OPENAI_API_KEY")
    )
    assert result.how == "created" and home.config_file.read_text(encoding="utf-8").startswith(
        "# hws settings"
    )
    assert load_config(home.root).model.api_key_env == "OPENAI_API_KEY"


def test_a_value_that_needs_quotes_reads_back_the_same(home: Home) -> None:
    home.config_file.write_text("model:\n  default: x\n", encoding="utf-8")
    for name in ("on", "123", "a: b", "gpt # 4", "  padded", 'say "hi"'):
        update_config(home.config_file, "model", {"default": name})
        assert load_config(home.root).model.default == name


def test_the_key_goes_to_a_private_env_file_beside_other_lines(home: Home) -> None:
    home.env_file.write_text("# keys\nOTHER=1\nOPENROUTER_API_KEY=old\n", encoding="utf-8")
    write_choice(
        home,
        ModelChoice(
            "openrouter", "x/y", key_source="dotenv", key_env="OPENROUTER_API_KEY", key_value="sk-or-new"
        ),
    )
    assert home.env_file.read_text(encoding="utf-8") == "# keys\nOTHER=1\nOPENROUTER_API_KEY=sk-or-new\n"
    assert stat.S_IMODE(home.env_file.stat().st_mode) == 0o600
    assert "sk-or-new" not in home.config_file.read_text(encoding="utf-8"), "the key never enters config.yaml"
    config = load_config(home.root)
    assert config.secret(config.model.api_key_env) == "sk-or-new"
    set_env_value(home.env_file, "SPACED", "a key with spaces")
    assert load_config(home.root).env["SPACED"] == "a key with spaces"


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        (ModelChoice("custom", "m"), "must start with http"),
        (ModelChoice("openai", ""), "Give the model name"),
        (ModelChoice("openai", "m", key_source="dotenv", key_env="OPENAI_API_KEY"), "Paste the key"),
        (ModelChoice("openai", "m", key_source="env"), "Name the variable"),
    ],
)
def test_an_incomplete_choice_is_one_sentence_and_writes_nothing(
    home: Home, choice: ModelChoice, words: str
) -> None:
    with pytest.raises(SetupError, match=words):
        write_choice(home, choice)
    assert not home.config_file.exists()


def test_the_check_is_one_tiny_request(home: Home, server: ScriptedModelServer) -> None:
    write_choice(home, ModelChoice("custom", "tiny", base_url=server.base_url))
    result = check_endpoint(load_config(home.root))
    assert result.ok and "tiny at http://127.0.0.1" in result.message and result.reply == "OK"
    (request,) = server.chat_requests
    assert request.body["max_tokens"] == 16 and len(request.messages) == 1


def test_setup_with_flags_writes_and_checks(hermes_home: Path, server: ScriptedModelServer) -> None:
    result = hws(
        "setup",
        "--provider",
        "vllm",
        "--base-url",
        server.base_url,
        "--model",
        "tiny",
        "--yes",
        home=hermes_home,
    )
    assert result.returncode == 0, result.stderr
    assert "✓ tiny at" in result.stdout and "Start the workstation with: hws" in result.stdout
    assert load_config(hermes_home).model.base_url == server.base_url


def _start_line(stdout: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith("Start the workstation with: ")]
    return line.removeprefix("Start the workstation with: ")


def test_setup_on_another_home_says_the_command_that_opens_it(
    hermes_home: Path, tmp_path: Path, server: ScriptedModelServer
) -> None:
    other = tmp_path / "work homes" / "it's mine"
    flags = ("--provider", "vllm", "--base-url", server.base_url, "--model", "tiny", "--yes")
    result = hws("--home", str(other), "setup", *flags, home=hermes_home)
    assert result.returncode == 0, result.stderr
    command = shlex.split(_start_line(result.stdout))
    assert command == ["hws", "--home", str(other)], "the shell reads back the very home that was set up"
    assert load_config(other).model.base_url == server.base_url

    result = hws("setup", *flags, home=hermes_home)  # $HERMES_HOME for this one command
    assert shlex.split(_start_line(result.stdout)) == ["hws", "--home", str(hermes_home)]

    default_home = Path(os.environ["HOME"]) / ".hermes"  # the test's own HOME, never the real one
    env = {k: v for k, v in os.environ.items() if k != "HERMES_HOME"}
    result = subprocess.run(
        [sys.executable, "-m", "tui.main", "setup", *flags],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert _start_line(result.stdout) == "hws" and default_home.joinpath("config.yaml").exists()


def test_a_failing_endpoint_is_explained_and_the_settings_kept(hermes_home: Path) -> None:
    result = hws(
        "setup",
        "--provider",
        "llamacpp",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--yes",
        home=hermes_home,
    )
    assert result.returncode == 1
    assert "✗ The call to m at http://127.0.0.1:9/v1 failed with a connection error" in result.stderr
    assert "check that the endpoint is running and model.base_url is right" in result.stderr
    assert "retries are off" not in result.stderr, "the check never retries; that is not the problem"
    assert f"`hws --home {hermes_home} doctor`" in result.stderr, "the hint names the home it checks"
    assert load_config(hermes_home).model.default == "m"


def test_a_refused_key_is_explained(hermes_home: Path) -> None:
    scenario = 'rules:\n  - fault: {kind: http, status: 401, message: "Incorrect API key provided"}\n'
    with ScriptedModelServer.from_yaml(scenario) as refusing:
        result = hws(
            "setup",
            "--provider",
            "custom",
            "--base-url",
            refusing.base_url,
            "--model",
            "m",
            "--key-from",
            "dotenv",
            "--key-env",
            "MY_KEY",
            "--key-stdin",
            "--yes",
            home=hermes_home,
            stdin="sk-wrong\n",
        )
        assert refusing.chat_requests[0].raw.find(b"sk-wrong") == -1, "the log never holds the key"
    assert result.returncode == 1
    assert "HTTP 401" in result.stderr and "Incorrect API key provided" in result.stderr
    assert "check model.api_key" in result.stderr
    assert "MY_KEY=sk-wrong" in (hermes_home / ".env").read_text(encoding="utf-8")


def test_without_a_terminal_a_missing_answer_names_its_flag(hermes_home: Path) -> None:
    result = hws("setup", home=hermes_home)
    assert result.returncode == 2 and "--provider" in result.stderr
    result = hws("setup", "--provider", "custom", "--model", "m", home=hermes_home)
    assert result.returncode == 2 and "--base-url" in result.stderr
    assert not (hermes_home / "config.yaml").exists()


class Terminal:
    """`hws setup` on a pseudo-terminal: wait for a prompt, type an answer."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT), "TERM": "dumb"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child becomes hws
            os.execvpe(sys.executable, [sys.executable, "-m", "tui.main", "setup"], env)
        self.seen = ""
        self.start = 0  # each expect looks only past the previous match

    def expect(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen[self.start :]:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}; the screen so far:\n{self.seen}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.fd, 4096).decode("utf-8", "replace")
                except OSError:
                    break
        self.start = self.seen.index(text, self.start) + len(text)

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def finish(self) -> int:
        _pid, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_setup_asks_in_a_terminal(hermes_home: Path, server: ScriptedModelServer) -> None:
    terminal = Terminal(hermes_home)
    terminal.expect("Number")
    for choice in (
        "OpenAI",
        "OpenRouter",
        "Anthropic-compatible",
        "Ollama",
        "llama.cpp server",
        "vLLM",
        "Custom",
    ):
        assert choice in terminal.seen
    terminal.send("7")
    terminal.expect("Base URL of the endpoint")
    terminal.send(server.base_url)
    terminal.expect("Model name")
    terminal.send("tiny")
    terminal.expect("Does the endpoint need an API key?")
    terminal.send("y")
    terminal.expect("Where should hws find the key?")
    terminal.expect("Number [2]: ")
    terminal.send("2")
    terminal.expect("Name of the variable that holds the key")
    terminal.send("TINY_KEY")
    terminal.expect("Paste the key for TINY_KEY")
    terminal.send("sk-typed")
    terminal.expect("Start the workstation with: hws")
    assert terminal.finish() == 0
    assert "sk-typed" not in terminal.seen, "the key is not echoed"
    config = load_config(hermes_home)
    assert config.model.base_url == server.base_url and config.secret("TINY_KEY") == "sk-typed"

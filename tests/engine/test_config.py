from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import ConfigError, defaults, load_config, parse_env_file

ROOT = Path(__file__).resolve().parents[2]


def write(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text, encoding="utf-8")


def test_defaults_match_hermes() -> None:
    cfg = defaults()
    assert cfg.memory.memory_char_limit == 2200
    assert cfg.memory.user_char_limit == 1375
    assert cfg.memory.nudge_interval == 10
    assert cfg.memory.flush_min_turns == 6
    assert cfg.compression.threshold == 0.50
    assert cfg.compression.protect_first_n == 3
    assert cfg.compression.protect_last_n == 4
    assert cfg.get("context_file_max_chars") == 20_000


def test_missing_file_means_defaults(hermes_home: Path) -> None:
    hermes_home.mkdir()
    cfg = load_config(hermes_home)
    assert cfg.memory.memory_char_limit == 2200 and cfg.warnings == []


def test_values_override_and_ints_widen_to_floats(hermes_home: Path) -> None:
    write(hermes_home, "memory:\n  memory_char_limit: 500\ncompression:\n  threshold: 1\n")
    with pytest.raises(ConfigError, match="between"):
        load_config(hermes_home)
    write(hermes_home, "memory:\n  memory_char_limit: 500\nmodel:\n  request_timeout: 30\n")
    cfg = load_config(hermes_home)
    assert cfg.memory.memory_char_limit == 500
    assert cfg.model.request_timeout == 30.0 and isinstance(cfg.model.request_timeout, float)


def test_model_as_plain_string_like_hermes(hermes_home: Path) -> None:
    write(hermes_home, "model: anthropic/claude-sonnet\n")
    assert load_config(hermes_home).model_name == "anthropic/claude-sonnet"


def test_bad_yaml_names_file_and_line(hermes_home: Path) -> None:
    write(hermes_home, "memory:\n  memory_char_limit: 10\n bad: [\n")
    with pytest.raises(ConfigError) as err:
        load_config(hermes_home)
    assert "config.yaml line" in str(err.value)


def test_wrong_type_names_the_setting_line_and_default(hermes_home: Path) -> None:
    write(hermes_home, "memory:\n  nudge_interval: often\n")
    with pytest.raises(ConfigError) as err:
        load_config(hermes_home)
    message = str(err.value)
    assert "line 2" in message and "memory.nudge_interval" in message
    assert "whole number" in message and "10" in message


def test_bool_is_not_a_number(hermes_home: Path) -> None:
    write(hermes_home, "memory:\n  nudge_interval: true\n")
    with pytest.raises(ConfigError, match="whole number"):
        load_config(hermes_home)


def test_unknown_keys_warn_and_hermes_sections_are_silent(hermes_home: Path) -> None:
    write(
        hermes_home,
        "_config_version: 29\nproviders: {}\nmemory:\n  colour: blue\nfrobnicate: 1\n",
    )
    cfg = load_config(hermes_home)
    assert any("memory.colour" in w and "line 4" in w for w in cfg.warnings)
    assert any("frobnicate" in w for w in cfg.warnings)
    assert not any("providers" in w or "_config_version" in w for w in cfg.warnings)


def test_a_typo_in_a_setting_name_suggests_the_setting(hermes_home: Path) -> None:
    write(hermes_home, "model:\n  request_timout: 30\n  flavour: x\nmemroy:\n  nudge_interval: 3\n")
    warnings = load_config(hermes_home).warnings
    assert any(
        w.endswith(
            "line 2: unknown setting `model.request_timout` is ignored; did you mean `model.request_timeout`?"
        )
        for w in warnings
    ), warnings
    assert any(w.endswith("unknown setting `model.flavour` is ignored.") for w in warnings), warnings
    assert any(w.endswith("`memroy` is ignored; did you mean `memory`?") for w in warnings), warnings


def test_env_substitution_from_dotenv_and_environment(hermes_home: Path, monkeypatch) -> None:
    hermes_home.mkdir()
    (hermes_home / ".env").write_text(
        "# secrets\nexport OPENROUTER_API_KEY='sk-or-123'\nBASE=http://x  # comment\n",
        encoding="utf-8",
    )
    write(hermes_home, "model:\n  api_key: ${OPENROUTER_API_KEY}\n  base_url: ${BASE}/v1\n")
    cfg = load_config(hermes_home)
    assert cfg.model.api_key == "sk-or-123"
    assert cfg.model.base_url == "http://x/v1"
    monkeypatch.setenv("OPENROUTER_API_KEY", "from-env")
    assert load_config(hermes_home).model.api_key == "from-env"
    write(hermes_home, "model:\n  api_key: ${NOT_SET_ANYWHERE}\n")
    assert any("NOT_SET_ANYWHERE" in w for w in load_config(hermes_home).warnings)


def test_env_file_parsing(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text('A=1\nB="two words"\n\nnot a line\nexport C=3\n', encoding="utf-8")
    assert parse_env_file(env) == {"A": "1", "B": "two words", "C": "3"}


def alias_bomb() -> bytes:
    lines = ["a: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"x{i}: &x{i} [*x{i - 1}, *x{i - 1}]" for i in range(1, 300)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"\xff\xfe\x00bad", "UTF-8"),
        (b"- a\n- b\n", "top level must be a mapping"),
        (b"memory: 5\n", "must be a mapping"),
        (alias_bomb(), "aliases"),
        (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
    ],
)
def test_hostile_config_is_a_clear_error(hermes_home: Path, content: bytes, fragment: str) -> None:
    hermes_home.mkdir()
    (hermes_home / "config.yaml").write_bytes(content)
    with pytest.raises(ConfigError, match=fragment):
        load_config(hermes_home)


def test_cli_config_error_exits_2_without_traceback(hermes_home: Path) -> None:
    write(hermes_home, "memory:\n  user_char_limit: lots\n")
    out = subprocess.run(
        [sys.executable, "-m", "tui.main", "config"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "memory.user_char_limit" in out.stderr and "line 2" in out.stderr

"""What the redactor hides and what it leaves readable, and what a refusal may say.

Both sides are tested: values under secret names in the forms files use (`.env`, YAML, JSON, INI,
code, URLs, headers) go; numbers, booleans, placeholders, references in code and names that only
mention a secret stay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import defaults, load_config
from engine.home import Home
from engine.threats.redact import REDACTED, Redactor, env_file_secrets
from engine.threats.redact_forms import is_secret_name, redact_forms
from tests.support.tool_helpers import make_bench

HIDDEN = [
    ("DB_PASSWORD=s3cretP4ss", "s3cretP4ss"),
    ("export STRIPE_KEY=rk_abcdef123", "rk_abcdef123"),
    ("  12|password: hunter22", "hunter22"),
    ('{"token": "abc123def456", "max_tokens": 4096}', "abc123def456"),
    ("[smtp]\nsecret = Zx9!kQ2pLm", "Zx9!kQ2pLm"),
    ('API_KEY = "a1b2c3d4e5f6"', "a1b2c3d4e5f6"),
    ("postgres://app:Sup3rS3cret@db:5432/app", "Sup3rS3cret"),
    ("git clone https://x-access-token:tok3nValue9@github.com/o/r", "tok3nValue9"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("conn = connect(host=h, password='hunter22')", "hunter22"),
    ("GET /cb?access_token=abc123xyz789&page=2", "abc123xyz789"),
    ('config.py:3:    password: str = "hunter22"', "hunter22"),
    ("awsSecretAccessKey: wJalrXUtnFEMIbK7MDENG", "wJalrXUtnFEMIbK7MDENG"),
    ("spring.datasource.password=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("mysql --password=9xY2wq7Z -u root", "9xY2wq7Z"),
    ('{"command": "export TOKEN=abcdefghij12"}', "abcdefghij12"),
    ("X-Api-Key: 7f3c9a1b2d4e", "7f3c9a1b2d4e"),
    ("client_secret: 'plainwordsecretvalue'", "plainwordsecretvalue"),
]
KEPT = [
    "max_tokens=4096",
    "PASSWORD_MIN_LENGTH=8",
    "token_count: 12",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "password = getpass.getpass()",
    "API_KEY=${OPENAI_API_KEY}",
    "api_key: <your-key>",
    "SECRET_KEY=changeme",
    "OPENAI_API_KEY=sk-...",
    "token = None",
    "use_auth: true",
    '"password": ""',
    "Set the token: it expires soon",
    "sorted(items, key=len)",
    'cache_key = f"user:{id}"',
    "api_key = settings.API_KEY",
    "password = password",
    "the token budget is 2000, max_tokens: 512000",
    "https://user@example.com/x and postgres://app:${DB_PASS}@db/app",
    "primary_key=True, sort_key: name",
    "password: required",
    "token: xxxxxxxxxxxx",
    "TOKEN_LIMIT=100000",
    "Tokens: 1,234 in, 567 out",
    "authorization: the person approves each command",
]


@pytest.mark.parametrize(("text", "secret"), HIDDEN)
def test_values_under_secret_names_are_hidden_and_the_names_stay(text: str, secret: str) -> None:
    out = redact_forms(text)
    assert secret not in out and REDACTED in out, out
    name_part = text.split(secret)[0]
    assert out.startswith(name_part), out  # everything before the value is as it was


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_settings_placeholders_and_code_stay_readable(text: str) -> None:
    assert redact_forms(text) == text


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("DB_PASSWORD", True),
        ("apiKey", True),
        ("STRIPE_KEY", True),
        ("x-api-key", True),
        ("MYCORP_LLM_CREDS", True),
        ("client_secret", True),
        ("max_tokens", False),
        ("PASSWORD_MIN_LENGTH", False),
        ("cache_key", False),
        ("primary_key", False),
        ("api_key_env", False),
        ("tokenizer", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_every_real_env_value_is_a_secret_whatever_its_name_but_settings_are_not() -> None:
    env = {
        "MYCORP_LLM_CREDS": "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1",
        "GATEWAY": "plain-but-long-credential",
        "HOOK": "https://hooks.corp.test/services/T0?sig=abcdef123",
        "PROXY": "http://bob:hunter22@proxy:3128",
        "PORT": "8080",
        "DEBUG": "true",
        "LOG_DIR": "/var/log/hws",
        "BASE_URL": "https://api.example.com/v1",
        "GREETING": "hello there, world",
        "BIG_NUMBER": "123456789",
        "OPENAI_API_KEY": "<your key here>",
        "EMPTY": "",
    }
    found = {source.split()[0] for _, source in env_file_secrets(env)}
    assert found == {"MYCORP_LLM_CREDS", "GATEWAY", "HOOK", "PROXY"}


def test_the_key_a_setting_names_is_hidden_whatever_the_variables_name(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Home.resolve(hermes_home).ensure()
    (home.root / "config.yaml").write_text("model:\n  api_key_env: ACME_GATEWAY\n")
    monkeypatch.setenv("ACME_GATEWAY", "gw-Tn5Yq2Lp8Rv3Xs6Wk9")
    monkeypatch.setenv("ACME_REGION", "eu-north-1-long")  # not named by a setting: left alone
    redactor = Redactor.from_config(load_config(home.root))
    shown = redactor("using gw-Tn5Yq2Lp8Rv3Xs6Wk9 in eu-north-1-long")
    assert shown == f"using {REDACTED} in eu-north-1-long"
    assert redactor.find("gw-Tn5Yq2Lp8Rv3Xs6Wk9") == "the value of ACME_GATEWAY from the environment"


def test_a_refusal_names_the_secret_and_never_shows_it(hermes_home: Path) -> None:
    home = Home.resolve(hermes_home).ensure()
    (home.root / ".env").write_text("OPENROUTER_API_KEY=q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1\n")
    (home.root / "config.yaml").write_text("honcho:\n  api_key: hc-literal-key-889900\n")
    redactor = Redactor.from_config(load_config(home.root))
    found = {
        "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1": "the value of OPENROUTER_API_KEY from .env",
        "hc-literal-key-889900": "the value of honcho.api_key in config.yaml",
        "sk-proj-Xy7Qw3Er5Ty8Ui0Op2As4Df6Gh8Jk0Lz": "what looks like an API key (sk-…)",
        "xoxb-2048-4096-Ab3dE5gH7jK9": "what looks like a Slack token",
        "Authorization: Bearer abcDEF123456ghiJKL789": "what looks like a Bearer token",
    }
    for secret, said in found.items():
        assert redactor.find(f"note: {secret} here") == said
        assert secret not in said


@pytest.mark.parametrize(
    "text",
    [
        "export OPENAI_API_KEY=sk-your-key-goes-here-xxxx",
        "curl -H 'Authorization: Bearer YOUR_TOKEN_HERE' https://api.example.com",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is what a token looks like",
        "Use $OPENROUTER_API_KEY, never the key itself.",
        "Set OPENAI_API_KEY in .env (it starts with sk-).",
    ],
)
def test_placeholders_in_a_skill_or_a_note_are_not_refused(text: str) -> None:
    assert Redactor().find(text) is None


async def test_a_key_added_to_env_mid_session_is_hidden_from_the_next_read(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    (bench.cwd / "notes.txt").write_text("the gateway credential is q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1\n")
    first = await bench.registry.dispatch("read_file", {"path": "notes.txt"}, bench.ctx)
    assert "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1" in first.content  # nothing says it is a secret yet
    bench.home.env_file.write_text("GATEWAY=q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1\n")
    second = await bench.registry.dispatch("read_file", {"path": "notes.txt"}, bench.ctx)
    assert "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1" not in second.content and REDACTED in second.content


async def test_an_error_result_and_a_cut_result_are_redacted_too(tmp_path: Path, hermes_home: Path) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.home.env_file.write_text("GATEWAY=q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1\n")
    (bench.cwd / "app.cfg").write_text("url = x\nkey = q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1\n")
    missed = await bench.registry.dispatch(
        "patch", {"path": "app.cfg", "old_string": "key =  q7", "new_string": "y"}, bench.ctx
    )
    assert not missed.ok and "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1" not in missed.content  # the miss shows the lines
    long_line = "x" * 5000 + " q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1 " + "y" * 5000
    (bench.cwd / "long.txt").write_text(long_line + "\n")
    ran = await bench.registry.dispatch("terminal", {"command": "cat long.txt"}, bench.ctx)
    assert "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1" not in ran.content + ran.summary + ran.display


SETTINGS = "host = db\npassword = s3cretP4ss\nport = 5432\n"


async def test_writing_back_what_was_read_never_replaces_a_secret_with_the_marker(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    bench.ctx.yolo = True
    path = bench.cwd / "db.ini"
    path.write_text(SETTINGS)
    read = await bench.registry.dispatch("read_file", {"path": "db.ini"}, bench.ctx)
    assert "password = [REDACTED]" in read.content and "s3cretP4ss" not in read.content
    whole = SETTINGS.replace("s3cretP4ss", REDACTED).replace("5432", "6543")
    rewrite = await bench.registry.dispatch("write_file", {"path": "db.ini", "content": whole}, bench.ctx)
    assert not rewrite.ok and "Nothing was written" in json.loads(rewrite.content)["error"]
    patched = await bench.registry.dispatch(
        "patch",
        {"path": "db.ini", "old_string": "port = 5432", "new_string": f"password = {REDACTED}\nport = 1"},
        bench.ctx,
    )
    assert not patched.ok
    through = await bench.registry.dispatch(
        "patch",
        {"path": "db.ini", "old_string": f"password = {REDACTED}", "new_string": "password = x"},
        bench.ctx,
    )
    assert not through.ok and "stands for a secret" in json.loads(through.content)["error"]
    assert path.read_text() == SETTINGS
    around = await bench.registry.dispatch(
        "patch", {"path": "db.ini", "old_string": "port = 5432", "new_string": "port = 6543"}, bench.ctx
    )
    assert around.ok and path.read_text() == SETTINGS.replace("5432", "6543")
    fresh = await bench.registry.dispatch(
        "write_file", {"path": "copy.ini", "content": read.content}, bench.ctx
    )
    assert fresh.ok  # a new file holds no secret to lose


def test_defaults_alone_hide_only_shapes() -> None:
    redactor = Redactor.from_config(defaults(), {})
    assert redactor.tool_text("PORT=8080 DEBUG=1") == "PORT=8080 DEBUG=1"


async def test_the_tokens_of_auth_json_are_hidden_wherever_they_are_read(
    tmp_path: Path, hermes_home: Path
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    auth = {"providers": {"nous": {"access_token": "nt-9Kq2Wz7Lp3Xv8Rm", "expires_in": 3600}}}
    (bench.home.root / "auth.json").write_text(json.dumps(auth))
    (bench.cwd / "copy.txt").write_text("cached: nt-9Kq2Wz7Lp3Xv8Rm\n")
    read = await bench.registry.dispatch("read_file", {"path": "copy.txt"}, bench.ctx)
    assert "nt-9Kq2Wz7Lp3Xv8Rm" not in read.content and f"cached: {REDACTED}" in read.content
    said = bench.ctx.redactor.find("nt-9Kq2Wz7Lp3Xv8Rm")
    assert said == "the value of providers.nous.access_token in auth.json"


async def test_a_key_cut_in_half_by_a_long_line_or_a_long_output_shows_neither_half(
    tmp_path: Path, hermes_home: Path
) -> None:
    """read_file and terminal cut long lines and long output before the dispatcher redacts them."""
    from tests.support.tool_helpers import with_settings

    key = "q7Lm2Vx9Rt4Kp8Zw3Nc6Hb1"
    config = with_settings(tool_output__max_line_length=60, terminal__max_output_chars=200)
    bench = make_bench(tmp_path, hermes_home, config)
    bench.home.env_file.write_text(f"GATEWAY={key}\n")
    for cut in range(3, len(key) - 3):
        line = "x" * (54 - cut) + key + "y" * 40
        (bench.cwd / "long.txt").write_text(f"{line}\n")
        read = await bench.registry.dispatch("read_file", {"path": "long.txt"}, bench.ctx)
        assert key[:6] not in read.content and key[-6:] not in read.content, read.content
    output = "a" * 90 + key + "b" * 200 + key + "c" * 90
    (bench.cwd / "out.txt").write_text(output)
    ran = await bench.registry.dispatch("terminal", {"command": "cat out.txt"}, bench.ctx)
    assert "cut from the middle" in ran.content and key[:6] not in ran.content and key[-6:] not in ran.content


async def test_a_key_set_in_the_environment_after_the_first_call_is_hidden_from_the_next(
    tmp_path: Path, hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = make_bench(tmp_path, hermes_home)
    (bench.cwd / "notes.txt").write_text("the deploy credential is v8Qe3Rt6Yu1Io4Pa\n")
    first = await bench.registry.dispatch("read_file", {"path": "notes.txt"}, bench.ctx)
    assert "v8Qe3Rt6Yu1Io4Pa" in first.content
    monkeypatch.setenv("DEPLOY_TOKEN", "v8Qe3Rt6Yu1Io4Pa")
    second = await bench.registry.dispatch("read_file", {"path": "notes.txt"}, bench.ctx)
    assert "v8Qe3Rt6Yu1Io4Pa" not in second.content

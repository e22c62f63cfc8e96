"""The environment a terminal command gets: this process's, without a single secret in it.

Dropped: the provider keys, every variable the home's `.env` names, the variables `*.api_key_env`
names, every variable whose name says it holds a secret (`*_TOKEN`, `*_API_KEY`, `*PASSWORD`, …),
and every variable whose value is a configured key, looks like a key, or carries `user:password@`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.config import Config
from engine.llm.settings import GENERIC_KEYS, HOST_KEYS
from engine.threats.redact import SECRET_NAME, Redactor

QUIET_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "DEBIAN_FRONTEND": "noninteractive",
}
PROVIDER_KEYS = frozenset({*HOST_KEYS.values(), *GENERIC_KEYS})
_URL_PASSWORD = re.compile(r"://[^/\s:@]+:[^/\s@]+@")


def named_secrets(config: Config) -> set[str]:
    """Names of the variables that hold this home's keys."""
    names = set(PROVIDER_KEYS) | set(config.env)
    for section in config.sections.values():
        for key, value in dict(section).items():
            if key.endswith("api_key_env") and isinstance(value, str) and value.strip():
                names.add(value.strip())
    return names


def command_environment(config: Config, environ: Mapping[str, str], **extra: str) -> dict[str, str]:
    """`environ` scrubbed of secrets, plus the settings that keep commands from waiting on a pager."""
    drop = named_secrets(config)
    redactor = Redactor.from_config(config)
    kept = {}
    for name, value in environ.items():
        if name in drop or SECRET_NAME.search(name) or _URL_PASSWORD.search(value):
            continue
        if redactor(value) != value:  # a configured key, or a value shaped like one
            continue
        kept[name] = value
    return {**kept, **QUIET_ENV, **extra}

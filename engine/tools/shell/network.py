"""Sending local files or the environment to the network: uploads (`curl -d @file`, `-F x=@file`, `-T`),
data piped into a network client, copies to another host, and addresses or payloads built from
expansions (`curl "https://x/?k=$KEY"`, `dig $(cat .env).example.com`).
"""

from __future__ import annotations

import re

from engine.tools.shell.findings import Call, Finding
from engine.tools.shell.options import long_matches, operands, option_value
from engine.tools.shell.programs import NETWORK_CLIENTS

_CURL_VALUES = "dFTKuHXeAbcCDEoQrtUwxYyzmP"
_CURL_DATA_LONG = (
    "data",
    "data-binary",
    "data-ascii",
    "data-urlencode",
    "json",
    "form",
    "upload-file",
    "url-query",
)
_REMOTE = re.compile(r"^([\w.-]+@)?[\w.-]+:(?!//)|^rsync://|^[\w+]+://")


def judge_network(call: Call) -> list[Finding]:
    """Exfiltration findings for a network client (none for a plain download of a literal address)."""
    name = call.name
    if name in _UPLOADERS or name in ("gh", "az"):
        return judge_upload(call)
    if name not in NETWORK_CLIENTS and name != "openssl":
        return []
    args = call.args
    subject = call.text()
    if any(w.value is None for w in args):
        return [
            Finding("exfiltration", subject, detail=f"{name} with an address or data only known when it runs")
        ]
    fed = call.inv.stdin.kind != "closed"
    if name == "curl":
        return _curl(call)
    if name == "wget":
        posts = [w for w in args if long_matches((w.value or "").split("=")[0], "post-file", "body-file")]
        return [Finding("exfiltration", subject, detail="wget --post-file")] if posts else []
    if name in ("nc", "socat", "telnet", "ssh", "mail", "mailx", "sendmail", "ftp", "tftp", "sftp"):
        values = [w.value or "" for w in args]
        if name == "nc" and any(v.startswith("-") and ("e" in v[1:] or "c" in v[1:]) for v in values):
            return [Finding("reverse-shell", subject, detail=name)]
        if name == "socat" and any(re.match(r"(?i)^(exec|system):", v) for v in values):
            return [Finding("reverse-shell", subject, detail=name)]
        if fed or name == "socat" or (name in ("mail", "mailx") and "-a" in values):
            return [
                Finding("exfiltration", subject, detail=f"{name} reading {call.inv.stdin.origin or 'input'}")
            ]
        return []
    if name == "openssl" and any(w.value == "s_client" for w in args) and fed:
        return [Finding("exfiltration", subject, detail=f"openssl s_client reading {call.inv.stdin.origin}")]
    if name in ("scp", "rsync"):
        files = operands(
            args, "PiFoSlcJ" if name == "scp" else "e", ("--rsh", "--exclude", "--include", "--filter")
        )
        if (
            files
            and _REMOTE.match(files[-1].value or "")
            and not (files[-1].value or "").startswith(("http://", "https://"))
        ):
            return [Finding("exfiltration", subject, detail=f"{name} to {files[-1].value}")]
    return []


# Cloud and sharing tools: (subcommands that upload, how a remote destination looks)
_UPLOADERS: dict[str, tuple[frozenset[str], re.Pattern[str]]] = {
    "aws": (frozenset({"cp", "sync", "mv"}), re.compile(r"^s3://")),
    "gsutil": (frozenset({"cp", "rsync", "mv"}), re.compile(r"^gs://")),
    "gcloud": (frozenset({"cp", "rsync", "mv"}), re.compile(r"^gs://")),
    "rclone": (frozenset({"copy", "copyto", "sync", "move", "moveto", "rcat"}), re.compile(r"^[\w-]+:")),
    "azcopy": (frozenset({"copy", "cp", "sync"}), re.compile(r"^https?://")),
}


def judge_upload(call: Call) -> list[Finding]:
    """Cloud copies to a remote destination and gists or release assets made of local files."""
    values = [w.value or "" for w in call.args]
    if call.name == "gh" and values[:2] in (["gist", "create"], ["release", "upload"], ["gist", "edit"]):
        return [Finding("exfiltration", call.text(), detail=f"gh {values[0]} {values[1]}")]
    if call.name == "az" and {"upload", "upload-batch"} & set(values):
        return [Finding("exfiltration", call.text(), detail="az storage upload")]
    rule = _UPLOADERS.get(call.name)
    if rule is None or not set(values) & rule[0]:
        return []
    files = [w for w in call.args if w.value is None or not (w.value or "").startswith("-")]
    if files and (files[-1].value is None or rule[1].match(files[-1].value or "")):
        return [Finding("exfiltration", call.text(), detail=f"{call.name} to {files[-1].text}")]
    return []


def _curl(call: Call) -> list[Finding]:
    args = call.args
    sent: list[str] = []
    for letter, long_name in (("d", "data"), ("F", "form"), ("T", "upload-file")):
        for word in option_value(args, letter, long_name, takes_value=_CURL_VALUES):
            if word is not None and word.value is not None:
                sent.append(f"-{letter} {word.value}")
    for word in args:
        value = word.value or ""
        key, eq, rest = value.partition("=")
        if eq and key.startswith("--") and any(long_matches(key, n) for n in _CURL_DATA_LONG):
            sent.append(f"{key} {rest}")
    for i, word in enumerate(args[:-1]):
        value = word.value or ""
        if (
            value.startswith("--")
            and "=" not in value
            and any(long_matches(value, n) for n in _CURL_DATA_LONG)
        ):
            sent.append(f"{value} {args[i + 1].value}")
        if value in ("-K", "--config"):
            sent.append(f"{value} {args[i + 1].value}")
    for item in sent:
        option, _, payload = item.partition(" ")
        if option in ("-T", "-K") or long_matches(option, "upload-file", "config"):
            return [Finding("exfiltration", call.text(), detail=item)]
        if payload.startswith("@") or "=@" in payload or "=<" in payload or re.match(r"^[\w-]*@", payload):
            return [Finding("exfiltration", call.text(), detail=item)]
    return []

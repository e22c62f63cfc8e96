"""What is known about programs by name: shells, interpreters, decoders, downloaders and readers."""

from __future__ import annotations

import re

SHELLS = frozenset(
    {
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "pdksh",
        "ash",
        "yash",
        "posh",
        "rbash",
        "fish",
        "csh",
        "tcsh",
    }
)
# Programs that run code given inline, in a file or on stdin (engine/tools/shell/interpreters.py).
INTERPRETERS = frozenset(
    {
        "python",
        "perl",
        "ruby",
        "node",
        "bun",
        "deno",
        "php",
        "lua",
        "awk",
        "rscript",
        "tclsh",
        "osascript",
        "expect",
    }
)
# Programs whose output is some transformation of their input: piping it into a shell hides the code.
DECODERS = frozenset(
    {
        "base64",
        "base32",
        "basenc",
        "xxd",
        "rev",
        "tr",
        "openssl",
        "gzip",
        "gunzip",
        "zcat",
        "bzip2",
        "bunzip2",
        "bzcat",
        "xz",
        "unxz",
        "xzcat",
        "zstd",
        "unzstd",
        "zstdcat",
        "lz4",
        "uncompress",
        "uudecode",
        "iconv",
        "recode",
        "od",
        "hexdump",
        "sed",
        "awk",
        "perl",
        "python",
        "ruby",
        "node",
        "php",
        "printf",
        "tac",
        "fold",
        "cut",
        "dd",
        "gpg",
        "rot13",
        "caesar",
    }
)
DOWNLOADERS = frozenset(
    {
        "curl",
        "wget",
        "fetch",
        "aria2c",
        "http",
        "https",
        "httpie",
        "xh",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "ssh",
        "scp",
        "sftp",
        "ftp",
        "tftp",
        "lynx",
        "links",
        "w3m",
    }
)
NETWORK_CLIENTS = DOWNLOADERS | frozenset(
    {"telnet", "dig", "nslookup", "host", "ping", "ping6", "traceroute", "rsync", "mail", "mailx", "sendmail"}
)
SQL_CLIENTS = frozenset(
    {
        "sqlite3",
        "sqlite",
        "psql",
        "mysql",
        "mariadb",
        "sqlcmd",
        "duckdb",
        "clickhouse-client",
        "cockroach",
        "mongo",
        "mongosh",
        "redis-cli",
        "cqlsh",
    }
)
# Programs that only read (files, the system's state) and print, whatever flags they are given.
READ_ONLY_PROGRAMS = frozenset(
    {
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "pwd",
        "echo",
        "printf",
        "true",
        "false",
        "whoami",
        "id",
        "uname",
        "stat",
        "du",
        "df",
        "which",
        "type",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "sort",
        "cut",
        "tr",
        "diff",
        "cmp",
        "column",
        "nl",
        "od",
        "hexdump",
        "sha256sum",
        "sha1sum",
        "md5sum",
        "env",
        "printenv",
        "test",
        "[",
    }
)
_VERSIONED = re.compile(r"^(python|pypy|perl|ruby|php|lua|luajit|node|nodejs|bash|zsh|tclsh)[\d.]*$")
_ALIASES = {
    "pypy": "python",
    "nodejs": "node",
    "luajit": "lua",
    "gawk": "awk",
    "mawk": "awk",
    "nawk": "awk",
    "busybox-awk": "awk",
    "Rscript": "rscript",
    "ncat": "nc",
    "netcat": "nc",
    "pkexec": "sudo",
    "run0": "sudo",
}


def program_name(word: str) -> str:
    """The program a command word names: its base name, without a version suffix (`python3.11` → python)."""
    name = word.rsplit("/", 1)[-1]
    versioned = _VERSIONED.match(name)
    if versioned:
        name = versioned.group(1)
    return _ALIASES.get(name, name)

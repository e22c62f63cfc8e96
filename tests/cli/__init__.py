"""CLI tests: `hws` subcommands run as real subprocesses, one command area per file."""

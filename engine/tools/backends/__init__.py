"""Where terminal commands run (terminal.backend): `local`, `ssh` or `docker`.

`choice` picks and names the configured one; `base` is what each offers the persistent shell.
"""

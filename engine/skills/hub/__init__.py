"""The skills hub: skills found in git repositories, `/.well-known/skills` indexes and direct URLs.

A source (sources.py and its kinds) lists the skills it offers and fetches one into a folder; taps
(taps.py, Hermes' `taps.json`) are the sources a person follows; the hub (hub.py) searches them and
installs, checks, updates and uninstalls through the local installer's quarantine, guard and trust
policy, recording each skill in Hermes' `.hub/lock.json` and every step in `.hub/audit.log`.
"""

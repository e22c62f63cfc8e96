"""The demo: a scripted day of work played through the real engine in a home of its own.

`script` reads demo files, `workspace` prepares the demo home and its model server, `player` plays
the script headless, `report` reads back what changed and judges the checks.
"""

"""Snapshot tests: pixels of the app as SVG files, compared by pytest-textual-snapshot.

The accepted SVGs live beside the tests in `__snapshots__/<test module>/` (where the plugin looks);
accept a change with `pytest tests/snapshots/<file> --snapshot-update` after reading the report."""

"""TUI tests: the Textual app and its widgets driven headless with Pilot (`App.run_test`)."""

"""The Textual workstation: app, screens, the engine worker and the file watcher."""

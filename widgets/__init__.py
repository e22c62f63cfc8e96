"""One reusable widget per pane; widgets know engine events, never the engine itself."""

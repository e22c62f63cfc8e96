"""Built-in themes and the loader for user theme files."""

"""Reading shell commands the way bash will run them: a parse, the programs it runs, and what each does.

`parse` turns a command into invocations with tree-sitter-bash; `words` gives each word the value bash
would pass (or says it cannot be known before run time); `unwrap` looks through wrappers, `-c` strings
and interpreters; the rule modules say which invocations destroy, persist or send data away.
"""

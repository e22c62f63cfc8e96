"""Measures and safety for text: `tokens` counts tokens offline, `size` says how big a text is in
words a person reads, `printable` escapes control characters before text is shown,
`sentences` closes a message built from parts with one full stop, and `generated_blocks` rewrites
the generated parts of hand-written files.
"""

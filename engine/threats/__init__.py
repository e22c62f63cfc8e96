"""What is scanned and what is hidden before content reaches the model or the disk.

`scan` is the one content scanner for memory writes, context files and skills, built from
`patterns`, `i18n`, `intents`, `lexicon`, `vocab`, `shapes`, `normalise` and `decode`; `review` asks
the auxiliary model for a second opinion where the patterns are unsure; `redact` (with
`redact_forms`) keeps secrets out of what the model, the logs and the screen see.
"""

"""The workstation's screens; each is imported only when first shown, with its `.tcss` beside it."""

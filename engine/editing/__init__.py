"""Files a person edits beside the agent, and the hand edits made outside it.

`buffers` says which files may be edited and loads, checks and saves a buffer; `checks` finds what a
buffer would break before it is saved, with the line of each problem; `merge` shows two versions of
a file as a line diff and a hand-merge buffer for the conflict view; `external_edits` journals the
hand edits the file watcher sees (as `external`, in the memory journal or the skill history).
"""

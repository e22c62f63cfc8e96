"""The client's prompt (a list of content blocks) as the one message text the engine sends.

Text goes as it is; a file the person attached comes as its contents (embedded) or as its address
(a link); an image or audio block, which this agent does not declare it takes, is named and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import acp  # noqa: F401  first the whole SDK: a thread importing one of its submodules alone races its __init__
from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


def _embedded(block: EmbeddedResourceContentBlock) -> str:
    resource = block.resource
    if isinstance(resource, TextResourceContents):
        return f'\n<file uri="{resource.uri}">\n{resource.text}\n</file>\n'
    return f"[attached binary resource {resource.uri}, not read]"


def prompt_text(blocks: Sequence[Any]) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            parts.append(_embedded(block))
        else:
            parts.append(f"[an attached {block.type} was left out: hws takes text]")
    return "".join(parts)

"""The tool ids Anthropic refuses, and the ids written in their place.

The API takes a tool id of letters, digits, ``_`` and ``-`` only, and other
providers' ids are not always so (Kimi's ``functions.read:0``).  Rewriting them
is no part of writing any one block: it is decided once for the whole
conversation, before anything is written, because a call and its result must get
the same new id wherever they stand and no two ids may become one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from .._blocks import ToolResultBlock, ToolUseBlock
from .._messages import Msg

__all__ = ["tool_ids"]

_TOOL_ID = re.compile(r"[A-Za-z0-9_-]+")
_NOT_IN_TOOL_ID = re.compile(r"[^A-Za-z0-9_-]")


def tool_ids(messages: Sequence[Msg]) -> dict[str, str]:
    """The id to write for each tool id the API refuses (it takes letters, digits, ``_`` and ``-``):
    another provider's id such as Kimi's ``functions.read:0`` gets its other characters made ``_``
    and a digest of the original, the same in a call and its result.  No two ids become one: a
    rewritten id that another id already is gets a longer digest, then a number."""
    given = {  # no id is written as "", which the API refuses too
        block.id or ""
        for message in messages
        for block in message.content
        if isinstance(block, (ToolUseBlock, ToolResultBlock))
    }
    taken = {call_id for call_id in given if _TOOL_ID.fullmatch(call_id)}
    rewritten: dict[str, str] = {}
    for call_id in sorted(given - taken):  # sorted: the same payload whatever the order of the set
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
        base = _NOT_IN_TOOL_ID.sub("_", call_id)
        candidates = (f"{base}_{digest[:size]}" for size in (8, 16, 64))
        written = next((c for c in candidates if c not in taken), None)
        number = 2
        while written is None or written in taken:
            written, number = f"{base}_{digest}_{number}", number + 1
        taken.add(written)
        rewritten[call_id] = written
    return rewritten

"""The tool ids Anthropic refuses, and the ids written in their place.

The API takes a tool id of letters, digits, ``_`` and ``-`` only, and each call's
id once in a request; other providers' ids are not always so (Kimi's
``functions.read:0``, or ``call_0`` in every answer).  Rewriting them is no part
of writing any one block: it is decided once for the whole conversation, before
anything is written, because a call and its result must get the same new id
wherever they stand and no two ids may become one.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Sequence

from .._blocks import ToolResultBlock, ToolUseBlock
from ._turns import Turn

__all__ = ["tool_ids"]

_TOOL_ID = re.compile(r"[A-Za-z0-9_-]+")
_NOT_IN_TOOL_ID = re.compile(r"[^A-Za-z0-9_-]")


def tool_ids(turns: Sequence[Turn]) -> dict[tuple[int, int], str]:
    """The id to write for each call and result, by ``(message index, content index)``, where it is
    not its own: an id the API refuses (it takes letters, digits, ``_`` and ``-``), such as Kimi's
    ``functions.read:0``, gets its other characters made ``_`` and a digest of the original; a call
    whose id a call of an earlier turn has (the API wants each once in a request, and some providers
    number each answer's calls anew) gets ``_2``, ``_3``… after it.  A result gets the id written for
    the call it answers: the earliest of its id not answered yet in the turn before it.  No two ids
    become one: a new id that another id already is gets a longer digest, or the next number."""
    given = {  # no id is written as "", which the API refuses too
        block.id or ""
        for turn in turns
        for _, block in turn.blocks
        if isinstance(block, (ToolUseBlock, ToolResultBlock))
    }
    taken = {call_id for call_id in given if _TOOL_ID.fullmatch(call_id)}
    valid = _valid_ids(given - taken, taken)
    written: dict[tuple[int, int], str] = {}
    earlier: set[str] = set()  # the ids written for the calls of the turns before this one
    current: set[str] = set()  # those written for this turn's calls
    renamed: dict[str, str] = {}  # this turn's: an id earlier turns have -> the one written instead
    waiting: dict[str, deque[str]] = {}  # an id -> the ids written for its calls not answered yet
    previous = None  # the kind of the turn before
    for turn in turns:
        if turn.kind == "assistant" != previous:
            # A new assistant turn (consecutive ones are written as one): the results after it answer
            # its calls.  Calls of one turn that share an id stay so (DUPLICATE_TOOL_CALL_ID).
            earlier |= current
            current, renamed = set(), {}
            waiting.clear()
        previous = turn.kind
        for index, block in turn.blocks:
            if not isinstance(block, (ToolUseBlock, ToolResultBlock)):
                continue
            own = block.id or ""
            out = valid.get(own, own)
            if isinstance(block, ToolUseBlock):
                if out in earlier:
                    if out not in renamed:
                        number = 2
                        while f"{out}_{number}" in taken:
                            number += 1
                        renamed[out] = f"{out}_{number}"
                        taken.add(renamed[out])
                    out = renamed[out]
                current.add(out)
                waiting.setdefault(own, deque()).append(out)
            elif pending := waiting.get(own):
                out = pending.popleft()
            if out != block.id:
                written[turn.message_index, index] = out
    return written


def _valid_ids(refused: set[str], taken: set[str]) -> dict[str, str]:
    """An id the API takes for each ``refused`` one, none of them in ``taken`` (which it extends)."""
    valid: dict[str, str] = {}
    for call_id in sorted(refused):  # sorted: the same payload whatever the order of the set
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
        base = _NOT_IN_TOOL_ID.sub("_", call_id)
        candidates = (f"{base}_{digest[:size]}" for size in (8, 16, 64))
        written = next((c for c in candidates if c not in taken), None)
        number = 2
        while written is None or written in taken:
            written, number = f"{base}_{digest}_{number}", number + 1
        taken.add(written)
        valid[call_id] = written
    return valid

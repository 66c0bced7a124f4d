"""The tool ids a provider's API refuses, and the ids written in their place.

Anthropic takes a tool id of letters, digits, ``_`` and ``-`` only, and each
call's id once in a request; OpenAI takes one of at most 40 characters.  Other
providers' ids are not always so (Kimi's ``functions.read:0``, ``call_0`` in
every answer, a Responses API item id of 51 characters).  Rewriting them is no
part of writing any one block: it is decided once for the whole conversation,
before anything is written, because a call and its result must get the same new
id wherever they stand and no two ids may become one.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterator, Sequence

import attrs

from .._blocks import ToolResultBlock, ToolUseBlock
from ._turns import Turn

__all__ = ["ANTHROPIC_TOOL_IDS", "OPENAI_TOOL_IDS", "ToolIdRules", "tool_ids"]


@attrs.frozen
class ToolIdRules:
    """What a provider's API takes as a tool id."""

    refused_character: re.Pattern[str] | None  # a character it refuses in an id
    max_length: int | None  # the longest id it takes
    takes_empty: bool  # whether it takes ``""``
    once_per_request: bool  # whether it wants each call's id once in a request

    def takes(self, call_id: str) -> bool:
        return (
            (bool(call_id) or self.takes_empty)
            and (self.max_length is None or len(call_id) <= self.max_length)
            and (self.refused_character is None or self.refused_character.search(call_id) is None)
        )

    def replacements(self, call_id: str) -> Iterator[str]:
        """Ids it takes to write instead of ``call_id``, best first, each less likely than the one
        before to be an id already: the id's own characters (refused ones as ``_``, cut to fit)
        and a longer digest of it, then a number."""
        base = call_id if self.refused_character is None else self.refused_character.sub("_", call_id)
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
        for size in (8, 16, 64):
            yield self.fitted(base, f"_{digest[:size]}")
        number = 2
        while True:
            yield self.fitted(base, f"_{digest}_{number}")
            number += 1

    def fitted(self, base: str, suffix: str) -> str:
        """``base`` and ``suffix`` as one id no longer than it takes."""
        if self.max_length is None:
            return base + suffix
        # The suffix makes it unique: the base is cut first, then the suffix from its start.
        return (base[: max(0, self.max_length - len(suffix))] + suffix)[-self.max_length :]


ANTHROPIC_TOOL_IDS = ToolIdRules(re.compile(r"[^A-Za-z0-9_-]"), None, takes_empty=False, once_per_request=True)
# OpenAI answers a longer id with a 400 ("string too long. Expected a string with maximum length 40").
OPENAI_TOOL_IDS = ToolIdRules(None, 40, takes_empty=True, once_per_request=False)


def tool_ids(turns: Sequence[Turn], rules: ToolIdRules) -> dict[tuple[int, int], str]:
    """The id to write for each call and result, by ``(message index, content index)``, where it is
    not its own: an id the API refuses gets one from ``rules.replacements`` (Kimi's
    ``functions.read:0`` becomes ``functions_read_0_`` and a digest of the original); where the API
    wants each call's id once in a request (some providers number each answer's calls anew), a call
    whose id a call of an earlier turn has gets ``_2``, ``_3``… after it.  A result gets the id
    written for the call it answers: the earliest of its id not answered yet in the turn before it.
    No two ids become one: a new id that another id already is gets a longer digest, or the next
    number."""
    given = {
        block.id or ""
        for turn in turns
        for _, block in turn.blocks
        if isinstance(block, (ToolUseBlock, ToolResultBlock))
    }
    taken = {call_id for call_id in given if rules.takes(call_id)}
    valid: dict[str, str] = {}
    for call_id in sorted(given - taken):  # sorted: the same payload whatever the order of the set
        valid[call_id] = next(new for new in rules.replacements(call_id) if new not in taken)
        taken.add(valid[call_id])
    written: dict[tuple[int, int], str] = {}
    earlier: set[str] = set()  # the ids written for the calls of the turns before this one
    current: set[str] = set()  # those written for this turn's calls
    renamed: dict[str, str] = {}  # this turn's: an id earlier turns have -> the one written instead
    # An id -> the number to try first for it: each turn reusing it starts where the last stopped,
    # not at 2 again, which made a history of one id in every turn quadratic.
    numbers: dict[str, int] = {}
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
                if rules.once_per_request and out in earlier:
                    if out not in renamed:
                        number = numbers.get(out, 2)
                        while rules.fitted(out, f"_{number}") in taken:
                            number += 1
                        numbers[out] = number + 1
                        renamed[out] = rules.fitted(out, f"_{number}")
                        taken.add(renamed[out])
                    out = renamed[out]
                current.add(out)
                waiting.setdefault(own, deque()).append(out)
            elif pending := waiting.get(own):
                out = pending.popleft()
            if out != (block.id or ""):
                written[turn.message_index, index] = out
    return written

"""Anthropic's blocks that we have no block for, carried whole in the message they stood in.

A server tool's blocks (``server_tool_use``, ``web_search_tool_result``,
``code_execution_tool_result`` …), an MCP call and its result, a
``container_upload``, a ``search_result`` and any type added after this library
mean something to Anthropic alone, which wants them back verbatim and in place:
an answer stopped with ``pause_turn`` is continued by sending it back as it is,
and thinking blocks must come back in the order they were given, with these
between them.  So reading keeps each run of them under ``"blocks"`` in the
message's ``metadata["anthropic"]``, by the index of the block of ours it stood
before (the number of blocks for a run at the end), and under ``"blocks_before"``
that block's fingerprint, so that the run follows it when the content is edited.
Writing puts each run back there; no other format sees them (they are metadata).  A kept block
of a type we read as content is malformed (reading never keeps one) and is not written.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Container, Mapping, Sequence
from typing import Any

from .._blocks import ContentBlock
from .._frozen import thawed
from ._carry import fingerprint, position
from ._turns import Turn

__all__ = ["BLOCKS", "BLOCKS_BEFORE", "KeptBlocks", "kept_entries"]

BLOCKS = "blocks"
BLOCKS_BEFORE = "blocks_before"

#: Runs of whole blocks, by the index of the block of ours each stands before.
Runs = dict[int, list[dict[str, Any]]]


def kept_entries(runs: Mapping[int, Sequence[Mapping[str, Any]]], blocks: Sequence[ContentBlock]) -> dict[str, Any]:
    """The entries of a message's carried dict for ``runs`` read with its content ``blocks``."""
    if not runs:
        return {}
    out: dict[str, Any] = {BLOCKS: {str(index): list(run) for index, run in runs.items()}}
    before = {str(index): fingerprint(blocks[index]) for index in runs if index < len(blocks)}
    if before:
        out[BLOCKS_BEFORE] = before
    return out


def placed(own: Mapping[str, Any], blocks: Sequence[ContentBlock], read: Container[str]) -> Runs:
    """Where the runs a message's carried dict ``own`` keeps go among its content ``blocks`` now, each
    by the index of the block it goes before (``len(blocks)``: after the last); anything malformed
    reads as absent, a block of a type in ``read`` (one we read as content) too.

    A run goes before the block it was read before, found by its fingerprint past the blocks the runs
    before it went before (runs keep their order, and each block is found once): the first such block
    at or after the index it was read at (blocks put in front shift it right, and a copy of it put in
    front is no reason to move), else the last before that index (blocks removed shift it left).
    When there is none (the block was removed or changed), at the index it had, or after the last
    block if there are fewer now.  A run read after the last block stays after the last block.
    Unedited, every run is where it was.  Linear in the runs and blocks but for a binary search each.
    """
    runs = own.get(BLOCKS)
    if not isinstance(runs, Mapping):
        return {}
    before = own.get(BLOCKS_BEFORE)
    before = before if isinstance(before, Mapping) else {}
    recorded = [
        (index, before.get(key), run)
        for key, run in runs.items()
        if (index := position(key)) is not None and isinstance(run, Sequence) and not isinstance(run, str)
    ]
    recorded.sort(key=lambda entry: entry[0])  # "1" and "01" name one index: their order as given
    # Each fingerprint's positions, in order: a run finds its block by a binary search, not a scan
    # (a scan per run was quadratic, and metadata naming no block made every one a scan to the end).
    where: dict[str, list[int]] = {}
    if before:
        for at, block in enumerate(blocks):
            where.setdefault(fingerprint(block), []).append(at)
    out: Runs = {}
    last = 0  # the place the run before went: runs keep their order
    taken = -1  # the block the last run found by its fingerprint went before: each is found once
    for index, print_, run in recorded:
        place = len(blocks)
        if isinstance(print_, str):
            found = _found(where.get(print_, ()), max(last, taken + 1), index)
            if found is not None:
                place = taken = found
            else:
                place = max(last, min(index, len(blocks)))
        last = place
        out.setdefault(place, []).extend(thawed(block) for block in run if _kept(block, read))
    return out


def _found(positions: Sequence[int], start: int, index: int) -> int | None:
    """The first of the sorted ``positions`` at or after ``index`` and ``start``, else the last before
    ``index`` and at or after ``start``; ``None`` when there is neither."""
    after = bisect_left(positions, max(start, index))
    if after < len(positions):
        return positions[after]
    below = bisect_left(positions, index) - 1
    return positions[below] if below >= 0 and positions[below] >= start else None


def _kept(block: object, read: Container[str]) -> bool:
    """Whether ``block`` is one to write back: an object naming its type, a type we do not read.
    Reading keeps only such blocks, so another came from elsewhere (hand-written or untrusted
    metadata): with no type, the API refuses it; of a type we read, written it would pass the
    conversation check unseen (a tool call nothing answers, say)."""
    if not isinstance(block, Mapping):
        return False
    kind = block.get("type")
    return isinstance(kind, str) and bool(kind) and kind not in read


class KeptBlocks:
    """The whole blocks of each turn's message still to be written.  A message cut into several turns
    (results split out of it) writes a run in the turn of the block it goes before, and the runs left
    in its last turn of its own kind; turns are asked about message by message, and a message's blocks
    in order, so its runs are taken in order of place, from a pointer into their sorted places.
    ``read``: the types of blocks we read as content, never kept (see ``placed``)."""

    __slots__ = ("_fmt", "_index", "_last", "_next", "_places", "_read", "_runs")

    def __init__(self, fmt: str, turns: Sequence[Turn], read: Container[str]) -> None:
        self._fmt = fmt
        self._read = read
        self._last = {turn.message_index: turn for turn in turns if turn.own}
        self._index = -1
        self._runs: Runs = {}
        self._places: list[int] = []  # the places of _runs, sorted
        self._next = 0  # the first of _places not yet taken

    def _load(self, turn: Turn) -> None:
        if turn.message_index != self._index:
            self._index = turn.message_index
            own = turn.message.metadata.get(self._fmt)
            self._runs = placed(own, turn.message.content, self._read) if isinstance(own, Mapping) else {}
            self._places = sorted(self._runs)
            self._next = 0

    def before(self, turn: Turn, index: int | None) -> list[dict[str, Any]]:
        """The blocks to write before content block ``index`` of ``turn``'s message (``None``: after the
        turn's last block), taken: none for a turn that is not of its message's kind, or a system one
        (the API holds text only there)."""
        if not turn.own or turn.kind == "system":
            return []
        self._load(turn)
        start = self._next
        if start == len(self._places):
            return []
        if index is None:
            if self._last.get(turn.message_index) is not turn:
                return []
            end = len(self._places)
        else:
            end = bisect_right(self._places, index, start)
        self._next = end
        return [block for place in self._places[start:end] for block in self._runs[place]]

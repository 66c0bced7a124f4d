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
Writing puts each run back there; no other format sees them (they are metadata).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def placed(own: Mapping[str, Any], blocks: Sequence[ContentBlock]) -> Runs:
    """Where the runs a message's carried dict ``own`` keeps go among its content ``blocks`` now, each
    by the index of the block it goes before (``len(blocks)``: after the last); anything malformed
    reads as absent.

    A run goes before the block it was read before: at the index it was read at while that block is
    still there, else before the next block after the runs before it that matches its fingerprint
    (an edit put a block in front of it, say); when there is none (the block was removed or
    changed), at the index it had, or after the last block if there are fewer now.
    A run read after the last block stays after the last block.  Unedited, every run is where it was.
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
    prints = [fingerprint(block) for block in blocks] if before else []
    out: Runs = {}
    last = 0  # the place the run before went: runs keep their order
    taken = -1  # the block the last run found by its fingerprint went before: each is found once
    for index, print_, run in recorded:
        place = len(blocks)
        if isinstance(print_, str):
            start = max(last, taken + 1)
            if start <= index < len(blocks) and prints[index] == print_:
                found: int | None = index
            else:
                found = next((i for i in range(start, len(blocks)) if prints[i] == print_), None)
            if found is not None:
                place = taken = found
            else:
                place = max(last, min(index, len(blocks)))
        last = place
        out.setdefault(place, []).extend(thawed(block) for block in run if isinstance(block, Mapping))
    return out


class KeptBlocks:
    """The whole blocks of each turn's message still to be written.  A message cut into several turns
    (results split out of it) writes a run in the turn of the block it goes before, and the runs left
    in its last turn of its own kind; turns are asked about message by message."""

    __slots__ = ("_fmt", "_index", "_last", "_runs")

    def __init__(self, fmt: str, turns: Sequence[Turn]) -> None:
        self._fmt = fmt
        self._last = {turn.message_index: turn for turn in turns if turn.own}
        self._index = -1
        self._runs: Runs = {}

    def _of(self, turn: Turn) -> Runs:
        if turn.message_index != self._index:
            self._index = turn.message_index
            own = turn.message.metadata.get(self._fmt)
            self._runs = placed(own, turn.message.content) if isinstance(own, Mapping) else {}
        return self._runs

    def before(self, turn: Turn, index: int | None) -> list[dict[str, Any]]:
        """The blocks to write before content block ``index`` of ``turn``'s message (``None``: after the
        turn's last block), taken: none for a turn that is not of its message's kind, or a system one
        (the API holds text only there)."""
        if not turn.own or turn.kind == "system":
            return []
        runs = self._of(turn)
        if not runs:
            return []
        if index is None:
            if self._last.get(turn.message_index) is not turn:
                return []
            index = max(runs)
        return [block for place in sorted(runs) if place <= index for block in runs.pop(place)]

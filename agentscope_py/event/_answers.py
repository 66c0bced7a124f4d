"""Which tool result answers which tool call of a reply, for the events that list waiting calls."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .._blocks import ContentBlock, ToolResultBlock, ToolUseBlock

__all__ = ["answers"]


def answers(content: Iterable[ContentBlock]) -> list[tuple[ToolUseBlock, ToolResultBlock | None]]:
    """Each tool call of ``content``, in order, with the result that answers it (``None``: none does).

    A result answers the earliest call of its id before it that no other result answered: an id
    alone is not enough, as providers number their calls anew in each answer, so a reply's second
    answer may call ``call_0`` again after the first's ``call_0`` got its result.
    """
    pairs: list[tuple[ToolUseBlock, ToolResultBlock | None]] = []
    unanswered: dict[str | None, deque[int]] = {}  # call id -> indexes in ``pairs`` of its calls waiting, oldest first
    for block in content:
        if isinstance(block, ToolUseBlock):
            unanswered.setdefault(block.id, deque()).append(len(pairs))
            pairs.append((block, None))
        elif isinstance(block, ToolResultBlock) and unanswered.get(block.id):
            index = unanswered[block.id].popleft()
            pairs[index] = (pairs[index][0], block)
    return pairs

"""Where agent-swarm-kit's system messages go among tool calls and their results.

swarm-kit sends its model every ``system`` message of a history first, wherever it
stands (``ClientHistory.toArrayForAgent``), so a tool may commit one
(``commitSystemMessage``) while its call still waits for its result: the history
then holds a system message between an assistant's ``tool_calls`` and the
``tool`` messages answering them.  Kept there, the call would have no result right
after it for every other format (``to_openai`` refuses it, ``repair_conversation``
invents an error result and drops the real one).  So :func:`from_swarm_kit` reads
such a message after the run of tool messages, and marks where it stood:
``LAYOUT`` ``{"before_result": <index among the results>, "tool_call_id": <that
result's id>}`` in its ``metadata["swarm_kit"]``.  :func:`to_swarm_kit` writes it
there again only while it still follows those results (a TOOL message right after
the assistant's calls, with only such marked messages between) and the result at
that index still has that id; after any other edit it is written where it now is,
so a stale mark never moves it anywhere else.
Only ``system`` moves: swarm-kit sends ``developer`` messages where they stand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._blocks import ContentBlock, ToolResultBlock, ToolUseBlock
from .._enums import MsgRole
from .._messages import Msg
from ._carried_fields import LAYOUT, carried, with_carried

__all__ = ["HeldSystemMessages", "Placement", "placement"]

_FMT = "swarm_kit"
_BEFORE = "before_result"
_CALL_ID = "tool_call_id"

#: ``{index of a message holding results: {index among its results: [indices of the system messages
#: written right before that result]}}``.
Placement = dict[int, dict[int, list[int]]]


class HeldSystemMessages:
    """The system messages read while an assistant's tool calls wait for the tool messages after them."""

    __slots__ = ("_held", "_waiting")

    def __init__(self) -> None:
        self._waiting = False
        self._held: list[tuple[Msg[Any], int]] = []

    def after(self, message: Msg[Any]) -> None:
        """A message other than a held one or a tool message was read: calls wait only after one holding calls."""
        self._waiting = _calls(message)

    def take(self, message: Msg[Any], results_read: int) -> bool:
        """Hold a system message, when calls are waiting; ``results_read``: how many results came before it."""
        if self._waiting:
            self._held.append((message, results_read))
        return self._waiting

    def release(self, results: Sequence[ContentBlock]) -> list[Msg[Any]]:
        """The held messages, to follow ``results`` (the run that ended), each marked with the result it
        stood before; one read after all of them needs no mark (or no run came: it stays where it was)."""
        out = [message if before >= len(results) else _marked(message, results[before], before) for message, before in self._held]
        self._held = []
        return out


def _calls(message: Msg[Any]) -> bool:
    return message.role is MsgRole.ASSISTANT and any(isinstance(b, ToolUseBlock) for b in message.content)


def _marked(message: Msg[Any], result: ContentBlock, before: int) -> Msg[Any]:
    assert isinstance(result, ToolResultBlock)
    extras = {**carried(message.metadata, _FMT), LAYOUT: {_BEFORE: before, _CALL_ID: result.id}}
    return message.with_metadata(with_carried(message.metadata, _FMT, extras))


def _mark(message: Msg[Any]) -> tuple[int, str | None] | None:
    """The result a system message stood before, as read; ``None`` for any other message or mark."""
    if message.role is not MsgRole.SYSTEM:
        return None
    mark = carried(message.metadata, _FMT).get(LAYOUT)
    if not isinstance(mark, Mapping):
        return None
    before, call_id = mark.get(_BEFORE), mark.get(_CALL_ID)
    # Anything else there (metadata edited by hand) is no mark of ours.
    if type(before) is not int or before < 0 or not (call_id is None or isinstance(call_id, str)):
        return None
    return before, call_id


def placement(messages: Sequence[Msg[Any]]) -> Placement:
    """Which marked system messages go back before which results: those that follow a TOOL message
    right after an assistant message holding calls (as they were read) with only such messages
    between, in order, while the result they stood before is still at its index with its id."""
    plan: Placement = {}
    anchor: tuple[int, list[ToolResultBlock]] | None = None  # the last such TOOL message, and its results
    last = 0  # the index of the result the last placed message goes before: they never swap
    for index, message in enumerate(messages):
        mark = _mark(message)
        if mark is not None and anchor is not None:
            before, call_id = mark
            results = anchor[1]
            if last <= before < len(results) and results[before].id == call_id:
                plan.setdefault(anchor[0], {}).setdefault(before, []).append(index)
                last = before
                continue
        results = [block for block in message.content if isinstance(block, ToolResultBlock)]
        answers = index > 0 and message.role is MsgRole.TOOL and _calls(messages[index - 1])
        anchor = (index, results) if results and answers else None
        last = 0
    return plan

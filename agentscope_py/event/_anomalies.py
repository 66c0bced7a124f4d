"""What a ``MessageAssembler`` noticed about a stream that did not follow the rules."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from operator import index as as_index
from typing import overload

import attrs

from .._enums import SpelledEnum
from .._shown import shown
from ._base import AgentEvent

__all__ = ["AnomalyKind", "AnomalySnapshot", "StreamAnomaly", "describe_event"]


class AnomalyKind(SpelledEnum):
    """The kinds of trouble an assembler reports.

    In strict mode every kind but ``INVALID_TOOL_ARGUMENTS`` raises
    :class:`~agentscope_py.StreamError`; that one only describes what a model
    wrote, and the message still holds the text exactly, so it is recorded in
    both modes.
    """

    #: An event that belongs to no open reply.  Block events open an implicit reply
    #: (completed by ``ModelCallEndEvent`` of their reply id, or by ``close()``); others are dropped.
    OUTSIDE_REPLY = "outside_reply"
    #: A delta for a block that is not open (never started, or already ended): the block is
    #: created or reopened and the delta kept.
    DELTA_WITHOUT_START = "delta_without_start"
    #: An end for a block or reply that never started.  A tool call's or tool result's end
    #: creates the block (it carries the id, name and state); other ends are dropped.
    END_WITHOUT_START = "end_without_start"
    #: A start for a reply or block that is already open: dropped.
    DUPLICATE_START = "duplicate_start"
    #: An event for a reply that already completed: dropped (its message was returned already).
    LATE_EVENT = "late_event"
    #: Not an event this assembler knows: dropped.
    UNKNOWN_EVENT = "unknown_event"
    #: An event with a field the assembler cannot use (e.g. a malformed ``agentscope_block``
    #: entry): the field is ignored, the rest of the event applied.
    MALFORMED_EVENT = "malformed_event"
    #: A reply that never ended: completed by ``close()`` or by the next ``AgentStartEvent`` of
    #: the same source.
    UNFINISHED_REPLY = "unfinished_reply"
    #: A tool call's arguments are not a JSON object: ``content`` keeps the text, ``input`` is empty.
    INVALID_TOOL_ARGUMENTS = "invalid_tool_arguments"


@attrs.frozen
class StreamAnomaly:
    """One thing an assembler noticed, and what it did about it.

    ``event`` is the event that showed the problem (``None`` when ``close()``
    found it); ``source`` and ``reply_id`` say which reply it concerns.
    """

    kind: AnomalyKind
    message: str
    event: AgentEvent | None = None
    source: str | None = None
    reply_id: str | None = None

    def __str__(self) -> str:
        return self.message


class AnomalySnapshot(Sequence[StreamAnomaly]):
    """The anomalies an assembler had recorded when asked: a read-only sequence, equal to the
    tuple of the same anomalies.

    A view of the assembler's own list, which only ever grows, limited to its length then: taking
    one costs the same however many there are, so reading ``anomalies`` after every event of a
    stream that is all anomalies stays linear (a tuple copied each time would not).
    """

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[StreamAnomaly]) -> None:
        self._items = items
        self._length = len(items)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, position: int) -> StreamAnomaly: ...
    @overload
    def __getitem__(self, position: slice) -> tuple[StreamAnomaly, ...]: ...
    def __getitem__(self, position: int | slice) -> StreamAnomaly | tuple[StreamAnomaly, ...]:
        if isinstance(position, slice):
            return tuple(self._items[i] for i in range(*position.indices(self._length)))
        i = as_index(position)
        if not -self._length <= i < self._length:
            raise IndexError("anomaly index out of range")
        return self._items[i % self._length]

    def __iter__(self) -> Iterator[StreamAnomaly]:
        return islice(self._items, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (AnomalySnapshot, tuple)):  # as a tuple compares: a list is not equal
            return NotImplemented
        return len(other) == self._length and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


_KEY_FIELDS = ("reply_id", "block_id", "tool_call_id", "name")


def describe_event(event: object) -> str:
    """``TextBlockDeltaEvent(id='9f…', reply_id='r1', block_id='text')``: enough to find it in a log."""
    fields = [f"id={shown(getattr(event, 'id', None))}"]
    fields += [f"{name}={shown(getattr(event, name))}" for name in _KEY_FIELDS if hasattr(event, name)]
    source = getattr(event, "source", None)
    if source is not None:
        fields.append(f"source={shown(source)}")
    return f"{type(event).__name__}({', '.join(fields)})"

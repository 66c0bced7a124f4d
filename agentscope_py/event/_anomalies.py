"""What a ``MessageAssembler`` noticed about a stream that did not follow the rules."""

from __future__ import annotations

import attrs

from .._enums import SpelledEnum

from ._base import AgentEvent

__all__ = ["AnomalyKind", "StreamAnomaly", "describe_event"]


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


_KEY_FIELDS = ("reply_id", "block_id", "tool_call_id", "name")


def describe_event(event: object) -> str:
    """``TextBlockDeltaEvent(id='9f…', reply_id='r1', block_id='text')``: enough to find it in a log."""
    fields = [f"id={getattr(event, 'id', None)!r}"]
    fields += [f"{name}={getattr(event, name)!r}" for name in _KEY_FIELDS if hasattr(event, name)]
    source = getattr(event, "source", None)
    if source is not None:
        fields.append(f"source={source!r}")
    return f"{type(event).__name__}({', '.join(fields)})"

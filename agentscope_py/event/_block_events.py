"""Events that stream a content block: start, delta(s), end, keyed by ``(reply_id, block_id)``.

Text, thinking and data blocks share one shape, so each kind is a subclass of
two small private bases; ``HintBlockEvent`` delivers a whole hint at once.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from ._base import AgentEvent, event_fields
from ._types import AgentEventType

__all__ = [
    "DataBlockDeltaEvent",
    "DataBlockEndEvent",
    "DataBlockStartEvent",
    "HintBlockEvent",
    "TextBlockDeltaEvent",
    "TextBlockEndEvent",
    "TextBlockStartEvent",
    "ThinkingBlockDeltaEvent",
    "ThinkingBlockEndEvent",
    "ThinkingBlockStartEvent",
]


@attrs.frozen(field_transformer=event_fields)
class _BlockBoundaryEvent(AgentEvent):
    """The start or the end of block ``block_id`` in model call ``reply_id``."""

    reply_id: str | None
    block_id: str | None


@attrs.frozen(field_transformer=event_fields)
class _BlockDeltaEvent(AgentEvent):
    """The next fragment of block ``block_id`` in model call ``reply_id``."""

    reply_id: str | None
    block_id: str | None
    delta: str | None


@attrs.frozen(field_transformer=event_fields)
class TextBlockStartEvent(_BlockBoundaryEvent):
    """A text block opens (Java uses the block id ``"text"`` in every model call)."""

    type: ClassVar[AgentEventType] = AgentEventType.TEXT_BLOCK_START


@attrs.frozen(field_transformer=event_fields)
class TextBlockDeltaEvent(_BlockDeltaEvent):
    """More text: ``TextBlockDeltaEvent("r1", "text", "Hel")``."""

    type: ClassVar[AgentEventType] = AgentEventType.TEXT_BLOCK_DELTA


@attrs.frozen(field_transformer=event_fields)
class TextBlockEndEvent(_BlockBoundaryEvent):
    """A text block is complete."""

    type: ClassVar[AgentEventType] = AgentEventType.TEXT_BLOCK_END


@attrs.frozen(field_transformer=event_fields)
class ThinkingBlockStartEvent(_BlockBoundaryEvent):
    """A thinking block opens (Java uses the block id ``"thinking"``)."""

    type: ClassVar[AgentEventType] = AgentEventType.THINKING_BLOCK_START


@attrs.frozen(field_transformer=event_fields)
class ThinkingBlockDeltaEvent(_BlockDeltaEvent):
    """More of the model's reasoning."""

    type: ClassVar[AgentEventType] = AgentEventType.THINKING_BLOCK_DELTA


@attrs.frozen(field_transformer=event_fields)
class ThinkingBlockEndEvent(_BlockBoundaryEvent):
    """A thinking block is complete."""

    type: ClassVar[AgentEventType] = AgentEventType.THINKING_BLOCK_END


@attrs.frozen(field_transformer=event_fields)
class DataBlockStartEvent(_BlockBoundaryEvent):
    """A media block opens."""

    type: ClassVar[AgentEventType] = AgentEventType.DATA_BLOCK_START


@attrs.frozen(field_transformer=event_fields)
class DataBlockDeltaEvent(_BlockDeltaEvent):
    """The next base64 fragment of a media block."""

    type: ClassVar[AgentEventType] = AgentEventType.DATA_BLOCK_DELTA


@attrs.frozen(field_transformer=event_fields)
class DataBlockEndEvent(_BlockBoundaryEvent):
    """A media block is complete."""

    type: ClassVar[AgentEventType] = AgentEventType.DATA_BLOCK_END


@attrs.frozen(field_transformer=event_fields)
class HintBlockEvent(AgentEvent):
    """A whole hint, sent at once (no start, delta or end).

    ``hint_source`` names who sent the hint; it is not the event's ``source``.
    """

    type: ClassVar[AgentEventType] = AgentEventType.HINT_BLOCK
    reply_id: str | None
    block_id: str | None
    hint_source: str | None
    hint: str | None

"""Events that stream tool calls (the model's arguments) and tool results (the tool's output),
keyed by ``tool_call_id``."""

from __future__ import annotations

from typing import ClassVar

import attrs

from .._blocks import ContentBlock
from .._enums import ToolResultState
from .._fields import register_converter
from ._base import AgentEvent, event_fields, optional_instance
from ._types import AgentEventType

__all__ = [
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultDataDeltaEvent",
    "ToolResultEndEvent",
    "ToolResultStartEvent",
    "ToolResultTextDeltaEvent",
]

register_converter("ContentBlock | None", (type(None),), optional_instance(ContentBlock, "a content block"))
register_converter(
    "ToolResultState | None", (type(None), ToolResultState), optional_instance(ToolResultState, "a ToolResultState")
)


@attrs.frozen(field_transformer=event_fields)
class _ToolEvent(AgentEvent):
    """An event about the call ``tool_call_id`` of tool ``tool_call_name`` in ``reply_id``."""

    reply_id: str | None
    tool_call_id: str | None
    tool_call_name: str | None


@attrs.frozen(field_transformer=event_fields)
class _ToolDeltaEvent(_ToolEvent):
    delta: str | None


@attrs.frozen(field_transformer=event_fields)
class ToolCallStartEvent(_ToolEvent):
    """The model begins a tool call: ``ToolCallStartEvent("r1", "call-1", "search")``."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_CALL_START


@attrs.frozen(field_transformer=event_fields)
class ToolCallDeltaEvent(_ToolDeltaEvent):
    """The next fragment of the call's raw JSON arguments (fragments need not be valid JSON)."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_CALL_DELTA


@attrs.frozen(field_transformer=event_fields)
class ToolCallEndEvent(_ToolEvent):
    """The tool call's arguments are complete."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_CALL_END


@attrs.frozen(field_transformer=event_fields)
class ToolResultStartEvent(_ToolEvent):
    """The tool begins running."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_RESULT_START


@attrs.frozen(field_transformer=event_fields)
class ToolResultTextDeltaEvent(_ToolDeltaEvent):
    """More text output of the tool."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_RESULT_TEXT_DELTA


@attrs.frozen(field_transformer=event_fields)
class ToolResultDataDeltaEvent(_ToolEvent):
    """A whole block of tool output (a ``DataBlock``, an ``ImageBlock`` …)."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_RESULT_DATA_DELTA
    data: ContentBlock | None


@attrs.frozen(field_transformer=event_fields)
class ToolResultEndEvent(_ToolEvent):
    """The tool finished in ``state``:
    ``ToolResultEndEvent("r1", "call-1", "search", ToolResultState.SUCCESS)``."""

    type: ClassVar[AgentEventType] = AgentEventType.TOOL_RESULT_END
    state: ToolResultState | None

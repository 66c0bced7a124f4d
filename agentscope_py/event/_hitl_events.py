"""Human-in-the-loop events: the agent pauses for the user's confirmation or for tools the
client runs itself, and the answers that resume it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import attrs

from .._blocks import ToolResultBlock, ToolUseBlock
from ._base import AgentEvent, event_fields, to_tuple
from ._permission import ConfirmResult
from ._types import AgentEventType

__all__ = [
    "AllToolsDeniedEvent",
    "ExternalExecutionResultEvent",
    "RequireExternalExecutionEvent",
    "RequireUserConfirmEvent",
    "UserConfirmResultEvent",
]


# Named converters (the attrs mypy plugin reads their argument types): lists arrive as any
# iterable, None reads as empty, as in Java.
def _tool_calls(value: Iterable[ToolUseBlock] | None) -> tuple[ToolUseBlock, ...]:
    return to_tuple(value, ToolUseBlock, "tool_calls")


def _denied_tool_calls(value: Iterable[ToolUseBlock] | None) -> tuple[ToolUseBlock, ...]:
    return to_tuple(value, ToolUseBlock, "AllToolsDeniedEvent.denied_tool_calls")


def _confirm_results(value: Iterable[ConfirmResult] | None) -> tuple[ConfirmResult, ...]:
    return to_tuple(value, ConfirmResult, "UserConfirmResultEvent.confirm_results")


def _tool_results(value: Iterable[ToolResultBlock] | None) -> tuple[ToolResultBlock, ...]:
    return to_tuple(value, ToolResultBlock, "ExternalExecutionResultEvent.tool_results")


@attrs.frozen(field_transformer=event_fields)
class RequireUserConfirmEvent(AgentEvent):
    """The agent waits for the user to allow or deny ``tool_calls`` (state ASKING)."""

    type: ClassVar[AgentEventType] = AgentEventType.REQUIRE_USER_CONFIRM
    reply_id: str | None
    tool_calls: tuple[ToolUseBlock, ...] = attrs.field(converter=_tool_calls)


@attrs.frozen(field_transformer=event_fields)
class RequireExternalExecutionEvent(AgentEvent):
    """The agent waits for the client to run ``tool_calls`` and send their results back."""

    type: ClassVar[AgentEventType] = AgentEventType.REQUIRE_EXTERNAL_EXECUTION
    reply_id: str | None
    tool_calls: tuple[ToolUseBlock, ...] = attrs.field(converter=_tool_calls)


@attrs.frozen(field_transformer=event_fields)
class UserConfirmResultEvent(AgentEvent):
    """The user's answers to a :class:`RequireUserConfirmEvent`."""

    type: ClassVar[AgentEventType] = AgentEventType.USER_CONFIRM_RESULT
    reply_id: str | None
    confirm_results: tuple[ConfirmResult, ...] = attrs.field(converter=_confirm_results)


@attrs.frozen(field_transformer=event_fields)
class ExternalExecutionResultEvent(AgentEvent):
    """The results of the tools the client ran for a :class:`RequireExternalExecutionEvent`."""

    type: ClassVar[AgentEventType] = AgentEventType.EXTERNAL_EXECUTION_RESULT
    reply_id: str | None
    tool_results: tuple[ToolResultBlock, ...] = attrs.field(converter=_tool_results)


@attrs.frozen(field_transformer=event_fields)
class AllToolsDeniedEvent(AgentEvent):
    """Every tool call of the last round was denied."""

    type: ClassVar[AgentEventType] = AgentEventType.ALL_TOOLS_DENIED
    denied_tool_calls: tuple[ToolUseBlock, ...] = attrs.field(converter=_denied_tool_calls)

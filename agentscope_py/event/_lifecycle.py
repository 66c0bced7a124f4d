"""Events that frame a reply and report on it: start and end of the agent and of each model
call, the final result, stops, iteration limits, sub-agents and application-defined events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from .._checks import check_enum, check_mapping, check_str
from .._enums import GenerateReason
from .._fields import register_converter
from .._frozen import EMPTY, EVENT_STORED_DEPTH
from .._messages import Msg
from .._usage import ChatUsage
from ._base import AgentEvent, event_fields, optional_instance
from ._types import AgentEventType

__all__ = [
    "AgentEndEvent",
    "AgentResultEvent",
    "AgentStartEvent",
    "CustomEvent",
    "ExceedMaxItersEvent",
    "ModelCallEndEvent",
    "ModelCallStartEvent",
    "RequestStopEvent",
    "SubagentExposedEvent",
]

register_converter("Msg | None", (type(None),), optional_instance(Msg, "a message"))


def _role(value: str | None) -> str:
    return "assistant" if value is None else check_str(value, "AgentStartEvent.role")


def _custom_value(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return check_mapping(value, "CustomEvent.value", depth=EVENT_STORED_DEPTH)  # None reads as empty, as in Java


def _generate_reason(value: GenerateReason | None) -> GenerateReason:
    if value is None:
        return GenerateReason.MIDDLEWARE_STOP_REQUESTED
    return check_enum(value, GenerateReason, "RequestStopEvent.generate_reason")


@attrs.frozen(field_transformer=event_fields)
class AgentStartEvent(AgentEvent):
    """An agent begins the reply ``reply_id``; the reply lasts until ``AgentEndEvent(reply_id)``."""

    type: ClassVar[AgentEventType] = AgentEventType.AGENT_START
    session_id: str | None
    reply_id: str | None
    name: str | None
    role: str = attrs.field(default="assistant", converter=_role)


@attrs.frozen(field_transformer=event_fields)
class AgentEndEvent(AgentEvent):
    """The reply ``reply_id`` is over (always sent, also after a failure)."""

    type: ClassVar[AgentEventType] = AgentEventType.AGENT_END
    reply_id: str | None


@attrs.frozen(field_transformer=event_fields)
class AgentResultEvent(AgentEvent):
    """The final message of a successful reply."""

    type: ClassVar[AgentEventType] = AgentEventType.AGENT_RESULT
    result: Msg | None


@attrs.frozen(field_transformer=event_fields)
class ModelCallStartEvent(AgentEvent):
    """A model call begins; its blocks stream under this (fresh) ``reply_id``."""

    type: ClassVar[AgentEventType] = AgentEventType.MODEL_CALL_START
    reply_id: str | None


@attrs.frozen(field_transformer=event_fields)
class ModelCallEndEvent(AgentEvent):
    """A model call is over; ``usage`` is what it cost, when the model reported it."""

    type: ClassVar[AgentEventType] = AgentEventType.MODEL_CALL_END
    reply_id: str | None
    usage: ChatUsage | None = None


@attrs.frozen(field_transformer=event_fields)
class ExceedMaxItersEvent(AgentEvent):
    """The agent reached its iteration limit; a summary model call follows."""

    type: ClassVar[AgentEventType] = AgentEventType.EXCEED_MAX_ITERS
    reply_id: str | None
    max_iters: int
    current_iter: int


@attrs.frozen(field_transformer=event_fields)
class RequestStopEvent(AgentEvent):
    """A middleware asks the agent to stop; the reply ends with ``generate_reason``.

    ``generate_reason`` defaults to ``MIDDLEWARE_STOP_REQUESTED`` (also when ``None``).
    """

    type: ClassVar[AgentEventType] = AgentEventType.REQUEST_STOP
    reason: str | None
    generate_reason: GenerateReason = attrs.field(
        default=GenerateReason.MIDDLEWARE_STOP_REQUESTED, converter=_generate_reason
    )


@attrs.frozen(field_transformer=event_fields)
class SubagentExposedEvent(AgentEvent):
    """A tool started a sub-agent whose events the client may follow (by ``source``)."""

    type: ClassVar[AgentEventType] = AgentEventType.SUBAGENT_EXPOSED
    subagent_id: str | None
    agent_id: str | None
    session_id: str | None
    label: str | None


@attrs.frozen(field_transformer=event_fields)
class CustomEvent(AgentEvent):
    """An application-defined event: ``CustomEvent("progress", {"pct": 50})``.

    Known names include ``"state_updated"`` and ``"team_updated"``; consumers
    should skip names they do not know.
    """

    type: ClassVar[AgentEventType] = AgentEventType.CUSTOM
    name: str | None
    value: Mapping[str, Any] = attrs.field(default=EMPTY, converter=_custom_value)

"""Streaming events: the 31 AgentScope event types an agent's reply is streamed as.

A reply streams as ``AgentStartEvent`` … ``AgentEndEvent``; in between, each
model call streams its blocks as start → delta(s) → end events.  Every event is
frozen and compared by value, and has a generated ``id`` and ``created_at``::

    >>> from agentscope_py.event import TextBlockDeltaEvent
    >>> event = TextBlockDeltaEvent("r1", "text", "Hel")
    >>> event.type.value, event.delta
    ('TEXT_BLOCK_DELTA', 'Hel')
"""

from __future__ import annotations

from ._anomalies import AnomalyKind, StreamAnomaly
from ._assembler import AssembledMessages, MessageAssembler, assemble
from ._base import AgentEvent
from ._block_events import (
    DataBlockDeltaEvent,
    DataBlockEndEvent,
    DataBlockStartEvent,
    HintBlockEvent,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ThinkingBlockDeltaEvent,
    ThinkingBlockEndEvent,
    ThinkingBlockStartEvent,
)
from ._hitl_events import (
    AllToolsDeniedEvent,
    ExternalExecutionResultEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    UserConfirmResultEvent,
)
from ._lifecycle import (
    AgentEndEvent,
    AgentResultEvent,
    AgentStartEvent,
    CustomEvent,
    ExceedMaxItersEvent,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
    SubagentExposedEvent,
)
from ._permission import ConfirmResult, PermissionBehavior, PermissionRule
from ._tool_events import (
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
)
from ._message_events import events_from_message
from ._reply_emitter import ReplyEmitter
from ..errors import StreamError  # what a strict assembler raises, beside it as in api.md §8
from ._types import AgentEventType
from . import _wire  # noqa: F401  (registers the events with the JSON codec)

__all__ = [
    # assembling and emitting streams
    "AnomalyKind",
    "AssembledMessages",
    "MessageAssembler",
    "ReplyEmitter",
    "StreamAnomaly",
    "StreamError",
    "assemble",
    "events_from_message",
    # the events
    "AgentEndEvent",
    "AgentEvent",
    "AgentEventType",
    "AgentResultEvent",
    "AgentStartEvent",
    "AllToolsDeniedEvent",
    "ConfirmResult",
    "CustomEvent",
    "DataBlockDeltaEvent",
    "DataBlockEndEvent",
    "DataBlockStartEvent",
    "ExceedMaxItersEvent",
    "ExternalExecutionResultEvent",
    "HintBlockEvent",
    "ModelCallEndEvent",
    "ModelCallStartEvent",
    "PermissionBehavior",
    "PermissionRule",
    "RequestStopEvent",
    "RequireExternalExecutionEvent",
    "RequireUserConfirmEvent",
    "SubagentExposedEvent",
    "TextBlockDeltaEvent",
    "TextBlockEndEvent",
    "TextBlockStartEvent",
    "ThinkingBlockDeltaEvent",
    "ThinkingBlockEndEvent",
    "ThinkingBlockStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultDataDeltaEvent",
    "ToolResultEndEvent",
    "ToolResultStartEvent",
    "ToolResultTextDeltaEvent",
    "UserConfirmResultEvent",
]

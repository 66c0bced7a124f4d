"""agentscope_py: the message layer for LLM agents, in the style of AgentScope Java.

Typed, immutable messages made of content blocks, with the role rules checked at
construction and visible to mypy::

    >>> from agentscope_py import UserMessage
    >>> UserMessage("What's in this image?", name="alice").get_text_content()
    "What's in this image?"
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._blocks import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    HintBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
)
from ._enums import GenerateReason, MsgRole, ToolCallState, ToolResultState
from ._messages import MessageMetadataKeys, Msg
from ._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from ._roles import ALLOWED_BLOCKS, AssistantBlock, SystemBlock, ToolBlock, UserBlock
from ._serializable import DecodeLimits
from ._sources import Base64Source, Source, URLSource
from ._usage import ChatUsage
from .errors import (
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    ConversationError,
    DecodeError,
    FrozenFieldError,
    MissingStructuredDataError,
    ReadOnlyError,
    RoleContentError,
    StreamConnectionError,
    StreamError,
    UnsupportedContentError,
)

__all__ = [
    # streaming events (agentscope_py.event)
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
    # assembling and emitting streams (agentscope_py.event)
    "AnomalyKind",
    "AssembledMessages",
    "MessageAssembler",
    "ReplyEmitter",
    "StreamAnomaly",
    "assemble",
    "events_from_message",
    "ALLOWED_BLOCKS",
    "AgentScopeError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "AssistantBlock",
    "AssistantMessage",
    "AudioBlock",
    "Base64Source",
    "ChatUsage",
    "ContentBlock",
    "ConversationError",
    "DataBlock",
    "DecodeError",
    "DecodeLimits",
    "FrozenFieldError",
    "GenerateReason",
    "HintBlock",
    "ImageBlock",
    "MessageMetadataKeys",
    "MissingStructuredDataError",
    "ReadOnlyError",
    "Msg",
    "MsgRole",
    "RoleContentError",
    "Source",
    "StreamConnectionError",
    "StreamError",
    "SystemBlock",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ToolBlock",
    "ToolCallState",
    "ToolResultBlock",
    "ToolResultMessage",
    "ToolResultState",
    "ToolUseBlock",
    "URLSource",
    "UnsupportedContentError",
    "UserBlock",
    "UserMessage",
    "VideoBlock",
]

if TYPE_CHECKING:
    from .event import (
        AgentEndEvent,
        AgentEvent,
        AgentEventType,
        AgentResultEvent,
        AgentStartEvent,
        AllToolsDeniedEvent,
        AnomalyKind,
        AssembledMessages,
        ConfirmResult,
        CustomEvent,
        DataBlockDeltaEvent,
        DataBlockEndEvent,
        DataBlockStartEvent,
        ExceedMaxItersEvent,
        ExternalExecutionResultEvent,
        HintBlockEvent,
        MessageAssembler,
        ModelCallEndEvent,
        ModelCallStartEvent,
        PermissionBehavior,
        PermissionRule,
        ReplyEmitter,
        RequestStopEvent,
        RequireExternalExecutionEvent,
        RequireUserConfirmEvent,
        StreamAnomaly,
        SubagentExposedEvent,
        TextBlockDeltaEvent,
        TextBlockEndEvent,
        TextBlockStartEvent,
        ThinkingBlockDeltaEvent,
        ThinkingBlockEndEvent,
        ThinkingBlockStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
        ToolResultDataDeltaEvent,
        ToolResultEndEvent,
        ToolResultStartEvent,
        ToolResultTextDeltaEvent,
        UserConfirmResultEvent,
        assemble,
        events_from_message,
    )


if not TYPE_CHECKING:  # type checkers see the names in the block above; a misspelt one is an error

    def __getattr__(name: str) -> Any:
        # The event classes cost as much to import as the whole message model (thirty-odd
        # attrs classes and their codecs), so they load on first use; every other public
        # name is bound above, so a public name that reaches here is an event's.
        if name in __all__ or name == "event":
            # import_module, not ``from . import event``: that form would look the
            # submodule up through this very function first.
            event = importlib.import_module(".event", __name__)
            value = event if name == "event" else getattr(event, name)
            globals()[name] = value
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        # The lazily loaded names too, so that completion in a REPL offers them.
        return sorted({*globals(), *__all__, "event"})


__version__ = "0.1.0"

"""agentscope_py: the message layer for LLM agents, in the style of AgentScope Java.

Typed, immutable messages made of content blocks, with the role rules checked at
construction and visible to mypy::

    >>> from agentscope_py import UserMessage
    >>> UserMessage("What's in this image?", name="alice").get_text_content()
    "What's in this image?"
"""

from __future__ import annotations

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
from ._messages import (
    AssistantMessage,
    MessageMetadataKeys,
    Msg,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from ._roles import ALLOWED_BLOCKS, AssistantBlock, SystemBlock, ToolBlock, UserBlock
from ._sources import Base64Source, Source, URLSource
from ._usage import ChatUsage
from .errors import (
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    DecodeError,
    MissingStructuredDataError,
    RoleContentError,
    StreamError,
    UnsupportedContentError,
)

__all__ = [
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
    "DataBlock",
    "DecodeError",
    "GenerateReason",
    "HintBlock",
    "ImageBlock",
    "MessageMetadataKeys",
    "MissingStructuredDataError",
    "Msg",
    "MsgRole",
    "RoleContentError",
    "Source",
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

__version__ = "0.1.0"

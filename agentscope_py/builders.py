"""The builder classes, for annotating code that passes builders around.

Get a builder from its class (``TextBlock.builder()``, ``UserMessage.builder()``);
there is no need to construct these directly.
"""

from __future__ import annotations

from ._blocks import (
    AudioBlockBuilder,
    DataBlockBuilder,
    HintBlockBuilder,
    ImageBlockBuilder,
    TextBlockBuilder,
    ThinkingBlockBuilder,
    ToolResultBlockBuilder,
    ToolUseBlockBuilder,
    VideoBlockBuilder,
)
from ._msg_builders import MessageBuilder, MsgBuilder, RoleMessageBuilder, ToolResultMessageBuilder
from ._sources import Base64SourceBuilder, URLSourceBuilder
from ._usage import ChatUsageBuilder

__all__ = [
    "AudioBlockBuilder",
    "Base64SourceBuilder",
    "ChatUsageBuilder",
    "DataBlockBuilder",
    "HintBlockBuilder",
    "ImageBlockBuilder",
    "MessageBuilder",
    "MsgBuilder",
    "RoleMessageBuilder",
    "TextBlockBuilder",
    "ThinkingBlockBuilder",
    "ToolResultBlockBuilder",
    "ToolResultMessageBuilder",
    "ToolUseBlockBuilder",
    "URLSourceBuilder",
    "VideoBlockBuilder",
]

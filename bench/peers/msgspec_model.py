"""The W3 blocks and message as msgspec Structs: a C codec with no per-field Python code.

Tagged unions on ``type`` as in the wire format; only the classes the codec
workloads (W4, W5) need.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec


class TextBlock(msgspec.Struct, frozen=True, tag="text", tag_field="type"):
    text: str = ""


class ThinkingBlock(msgspec.Struct, frozen=True, tag="thinking", tag_field="type"):
    thinking: str = ""
    metadata: Union[dict[str, Any], None] = None


class ToolUseBlock(msgspec.Struct, frozen=True, tag="tool_use", tag_field="type"):
    id: Union[str, None] = None
    name: Union[str, None] = None
    input: dict[str, Any] = {}
    content: Union[str, None] = None
    metadata: dict[str, Any] = {}
    state: str = "pending"


class AssistantMessage(msgspec.Struct, frozen=True):
    id: str
    timestamp: str
    content: tuple[Union[ThinkingBlock, TextBlock, ToolUseBlock], ...] = ()
    name: Union[str, None] = None
    role: str = "ASSISTANT"
    metadata: dict[str, Any] = {}

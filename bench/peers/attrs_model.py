"""The same messages as plain frozen attrs classes with no validators: the ceiling.

This is as fast as a frozen, slotted attrs class can be built, so the gap
between it and agentscope_py is what the role rules, type checks and copying
of mappings cost.  It draws ids and timestamps from agentscope_py's own cheap
generators, so that cost is the same on both sides and does not blur the gap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from agentscope_py._ids import new_hex_id, new_msg_id, new_msg_timestamp


@attrs.frozen
class URLSource:
    url: str
    mime_type: str | None = None


@attrs.frozen
class Base64Source:
    media_type: str
    data: str


@attrs.frozen
class TextBlock:
    text: str = ""


@attrs.frozen
class ThinkingBlock:
    thinking: str = ""
    metadata: Mapping[str, Any] | None = None


@attrs.frozen
class DataBlock:
    source: URLSource | Base64Source
    id: str = attrs.field(factory=new_hex_id)
    name: str | None = None


@attrs.frozen
class ToolUseBlock:
    id: str | None
    name: str | None
    input: Mapping[str, Any] = attrs.field(factory=dict)
    content: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    state: str = "pending"


@attrs.frozen
class Msg:
    role: str
    content: tuple[Any, ...]
    id: str = attrs.field(factory=new_msg_id)
    name: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    timestamp: str = attrs.field(factory=new_msg_timestamp)
    usage: Any = None

    def get_text_content(self) -> str:
        return "\n".join([block.text for block in self.content if isinstance(block, TextBlock)])

    def get_content_blocks(self, cls: type[Any]) -> list[Any]:
        return [block for block in self.content if isinstance(block, cls)]

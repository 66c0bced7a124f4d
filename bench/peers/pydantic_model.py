"""The same messages as a pydantic v2 model, written the way pydantic recommends.

Frozen models; blocks and sources are discriminated unions on ``type``; each
role-pinned message narrows ``content`` to its role's blocks, so pydantic checks
the role rule as agentscope_py does.  Like AgentScope Java, a message gets a
``uuid4`` id and a ``strftime`` timestamp when none is given.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from agentscope_py._ids import new_hex_id, new_msg_id, new_msg_timestamp


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class URLSource(_Frozen):
    type: Literal["url"] = "url"
    url: str
    mime_type: str | None = None


class Base64Source(_Frozen):
    type: Literal["base64"] = "base64"
    media_type: str
    data: str


Source = Annotated[Union[URLSource, Base64Source], Field(discriminator="type")]


class ToolCallState(str, Enum):
    PENDING = "pending"
    ASKING = "asking"
    ALLOWED = "allowed"
    SUBMITTED = "submitted"
    FINISHED = "finished"


class ToolResultState(str, Enum):
    SUCCESS = "success"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    DENIED = "denied"
    RUNNING = "running"


class TextBlock(_Frozen):
    type: Literal["text"] = "text"
    text: str = ""


class ThinkingBlock(_Frozen):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    metadata: dict[str, Any] | None = None


class DataBlock(_Frozen):
    type: Literal["data"] = "data"
    source: Source
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    name: str | None = None


class ImageBlock(_Frozen):
    type: Literal["image"] = "image"
    source: Source
    min_pixels: int | None = None
    max_pixels: int | None = None


class AudioBlock(_Frozen):
    type: Literal["audio"] = "audio"
    source: Source


class VideoBlock(_Frozen):
    type: Literal["video"] = "video"
    source: Source | None = None
    fps: float | None = None
    max_frames: int | None = None
    min_pixels: int | None = None
    max_pixels: int | None = None
    total_pixels: int | None = None


class HintBlock(_Frozen):
    type: Literal["hint"] = "hint"
    id: str | None = None
    hint: str | None = None
    source: str | None = None


class ToolUseBlock(_Frozen):
    type: Literal["tool_use"] = "tool_use"
    id: str | None = None
    name: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    content: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    state: ToolCallState = ToolCallState.PENDING


class ToolResultBlock(_Frozen):
    type: Literal["tool_result"] = "tool_result"
    id: str | None = None
    name: str | None = None
    output: tuple[AnyBlock, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    state: ToolResultState = ToolResultState.RUNNING


AnyBlock = Annotated[
    Union[
        TextBlock,
        ThinkingBlock,
        DataBlock,
        ImageBlock,
        AudioBlock,
        VideoBlock,
        HintBlock,
        ToolUseBlock,
        ToolResultBlock,
    ],
    Field(discriminator="type"),
]
UserBlock = Annotated[
    Union[TextBlock, DataBlock, ImageBlock, AudioBlock, VideoBlock], Field(discriminator="type")
]
ToolResultBlock.model_rebuild()


class ChatUsage(_Frozen):
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    time: float = 0.0


def _java_timestamp() -> str:
    # Java's "yyyy-MM-dd HH:mm:ss.SSS": microseconds cut to milliseconds.
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


class _Msg(_Frozen):
    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: str = Field(default_factory=_java_timestamp)
    usage: ChatUsage | None = None
    content: tuple[Any, ...] = ()  # each role narrows it to the blocks it allows

    def get_text_content(self) -> str:
        return "\n".join([block.text for block in self.content if isinstance(block, TextBlock)])

    def get_content_blocks(self, cls: type[Any]) -> list[Any]:
        return [block for block in self.content if isinstance(block, cls)]


class UserMessage(_Msg):
    role: Literal["USER"] = "USER"
    content: tuple[UserBlock, ...] = ()


class AssistantMessage(_Msg):
    role: Literal["ASSISTANT"] = "ASSISTANT"
    content: tuple[AnyBlock, ...] = ()


class SystemMessage(_Msg):
    role: Literal["SYSTEM"] = "SYSTEM"
    content: tuple[TextBlock, ...] = ()


# -- the same models with agentscope_py's id and timestamp generators -------------------------
# uuid4() and strftime cost about 2 µs each, about half of building a W1 message with the models
# above.  These subclasses generate as cheaply as agentscope_py does, so that a comparison with
# them measures the models alone (bench_core's "pydantic v2, same ids" row).


class DataBlockSameIds(DataBlock):
    id: str = Field(default_factory=new_hex_id)


class UserMessageSameIds(UserMessage):
    id: str = Field(default_factory=new_msg_id)
    timestamp: str = Field(default_factory=new_msg_timestamp)


class AssistantMessageSameIds(AssistantMessage):
    id: str = Field(default_factory=new_msg_id)
    timestamp: str = Field(default_factory=new_msg_timestamp)

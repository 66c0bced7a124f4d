"""The wire declarations of usage, sources, blocks and messages (``wire-format.md``)."""

from __future__ import annotations

from .._blocks import (
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
from .._checks import JAVA_FLOAT_OVERFLOW
from .._enums import MsgRole, ToolCallState, ToolResultState
from .._messages import Msg
from .._role_messages import AssistantMessage, SystemMessage, ToolResultMessage, UserMessage
from .._roles import ALLOWED_BLOCKS
from .._sources import Base64Source, Source, URLSource
from .._usage import ChatUsage
from ._compile import register, register_union
from ._kinds import Enum, Float, Int, JsonObject, ListOf, Nested, Str
from ._spec import WireClass, WireField, WireUnion

__all__: list[str] = []

STR = Str()
INT = Int()
FLOAT = Float()
OBJECT = JsonObject()

register(
    WireClass(
        ChatUsage,
        (
            WireField("input_tokens", "inputTokens", INT),
            WireField("output_tokens", "outputTokens", INT),
            WireField("cached_tokens", "cachedTokens", INT),
            WireField("time", "time", FLOAT),
            WireField("total_tokens", "totalTokens", INT, read=False),
        ),
    ),
    WireClass(URLSource, (WireField("url", "url", STR, required=True), WireField("mime_type", "mime_type", STR, nullable=True, omit="null")), tag="url"),
    WireClass(Base64Source, (WireField("media_type", "media_type", STR, required=True), WireField("data", "data", STR, required=True)), tag="base64"),
)
register_union(WireUnion(Source, "type", {cls.type: cls for cls in (URLSource, Base64Source)}))

SOURCE = Nested(Source)
METADATA = WireField("metadata", "metadata", OBJECT)
# Legacy media blocks write camelCase and also read the snake_case their Java constructors name.
_PIXELS = tuple(
    WireField(attr, key, INT, nullable=True, omit="null", aliases=(attr,))
    for attr, key in (("min_pixels", "minPixels"), ("max_pixels", "maxPixels"))
)

register(
    WireClass(TextBlock, (WireField("text", "text", STR),), tag=TextBlock.type),
    WireClass(
        ThinkingBlock,
        (WireField("thinking", "thinking", STR), WireField("metadata", "metadata", OBJECT, nullable=True)),
        tag=ThinkingBlock.type,
    ),
    WireClass(
        DataBlock,
        (
            WireField("source", "source", SOURCE, required=True),
            WireField("id", "id", STR, nullable=True),  # null or empty: the block makes a fresh id, as Java does
            WireField("name", "name", STR, nullable=True, omit="null"),
        ),
        tag=DataBlock.type,
    ),
    WireClass(ImageBlock, (WireField("source", "source", SOURCE, required=True), *_PIXELS), tag=ImageBlock.type),
    WireClass(AudioBlock, (WireField("source", "source", SOURCE, required=True),), tag=AudioBlock.type),
    WireClass(
        VideoBlock,
        (
            WireField("source", "source", SOURCE, nullable=True, omit="null"),
            WireField("fps", "fps", Float(JAVA_FLOAT_OVERFLOW), nullable=True, omit="null"),
            WireField("max_frames", "maxFrames", INT, nullable=True, omit="null", aliases=("max_frames",)),
            *_PIXELS,
            WireField("total_pixels", "totalPixels", INT, nullable=True, omit="null", aliases=("total_pixels",)),
        ),
        tag=VideoBlock.type,
    ),
    WireClass(
        HintBlock,
        (
            WireField("id", "id", STR, nullable=True),
            WireField("hint", "hint", STR, nullable=True),
            WireField("source", "source", STR, nullable=True),
        ),
        tag=HintBlock.type,
    ),
    WireClass(
        ToolUseBlock,
        (
            WireField("id", "id", STR, nullable=True),
            WireField("name", "name", STR, nullable=True),
            WireField("input", "input", OBJECT),
            WireField("content", "content", STR, nullable=True),
            METADATA,
            WireField("state", "state", Enum(ToolCallState)),
        ),
        tag=ToolUseBlock.type,
    ),
    WireClass(
        ToolResultBlock,
        (
            WireField("id", "id", STR, nullable=True),
            WireField("name", "name", STR, nullable=True),
            WireField("output", "output", ListOf(ContentBlock)),
            METADATA,
            WireField("state", "state", Enum(ToolResultState)),
        ),
        tag=ToolResultBlock.type,
    ),
)
# The decoder tries the tags in this order: the blocks most messages hold first.
_BLOCKS = (TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, DataBlock, ImageBlock, AudioBlock, VideoBlock, HintBlock)
register_union(WireUnion(ContentBlock, "type", {cls.type: cls for cls in _BLOCKS}))


def _message(cls: type[Msg], role: MsgRole | None) -> WireClass:
    # Java drops null content entries and null metadata values; the message drops the latter itself.
    allowed = ALLOWED_BLOCKS[role] if role is not None else ()
    content = ListOf(ContentBlock, drop_nulls=True, schema_members=() if ContentBlock in allowed else allowed)
    return WireClass(
        cls,
        (
            WireField("id", "id", STR, nullable=True),
            WireField("name", "name", STR, nullable=True),
            WireField("role", "role", Enum(MsgRole), nullable=True),
            WireField("content", "content", content, default=()),
            WireField("metadata", "metadata", OBJECT, default=None),
            WireField("timestamp", "timestamp", STR, nullable=True),
            WireField("usage", "usage", Nested(ChatUsage), nullable=True),
        ),
        # The role chose the class (plain Msg: no role); the message checks the role's blocks.
        build=cls._from_decoded,
    )


_ROLE_CLASSES = {
    MsgRole.USER: UserMessage,
    MsgRole.ASSISTANT: AssistantMessage,
    MsgRole.SYSTEM: SystemMessage,
    MsgRole.TOOL: ToolResultMessage,
}
register(_message(Msg, None), *(_message(cls, role) for role, cls in _ROLE_CLASSES.items()))
register_union(WireUnion(Msg, "role", {role.value: cls for role, cls in _ROLE_CLASSES.items()}, default=Msg))

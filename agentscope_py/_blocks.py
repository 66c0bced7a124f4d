"""The content blocks a message is made of.

Every block is frozen, slotted and compared by value, and carries its wire
discriminator as the class attribute ``type`` (``"text"``, ``"tool_use"`` …).
Field order is the positional order, mirroring the Java constructors.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, overload

import attrs

from ._builder import Builder, FieldSetter
from ._checks import (
    NestedTooDeeply,
    Sentinel,
    check_mapping,
    check_optional_java_float,
    check_optional_str,
    check_str,
    describe,
    is_iterable_of_items,
    unbuilt_hint,
    unordered_hint,
)
from ._enums import ToolCallState, ToolResultState
from ._fields import checked_fields, mark_type_checks
from ._frozen import EMPTY, FrozenDict, stored_nesting
from ._ids import new_hex_id
from ._serializable import DEPTH_CEILING, MAX_BLOCK_DEPTH, JsonSerializable
from ._sources import Source
from .errors import ArgumentTypeError

__all__ = [
    "AudioBlock",
    "ContentBlock",
    "DataBlock",
    "HintBlock",
    "ImageBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "VideoBlock",
    "block_depth",
]


@attrs.frozen
class ContentBlock(JsonSerializable):
    """Base class of every block.  ``get_content_blocks(ContentBlock)`` matches them all."""

    type: ClassVar[str]

    def __init__(self) -> None:
        # Jackson can make a bare ContentBlock, which nothing reads; the blocks below define their own.
        raise ArgumentTypeError(f"{type(self).__name__} is abstract; build one of the block classes, e.g. TextBlock('hi')")


@attrs.frozen(field_transformer=checked_fields)
class TextBlock(ContentBlock):
    """Plain text."""

    type: ClassVar[str] = "text"

    @staticmethod
    def builder() -> TextBlockBuilder:
        return TextBlockBuilder()

    text: str = ""


def _thinking_metadata(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    # Unlike every other mapping, a thinking block's metadata stays None when unset (Java writes null).
    return None if value is None else check_mapping(value, "ThinkingBlock.metadata")


# Named converters (not the transformer's) so that mypy's attrs plugin lets ``None`` through
# to these mappings, which it means empty, as in Java.
def _tool_use_input(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return check_mapping(value, "ToolUseBlock.input")


def _tool_use_metadata(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return check_mapping(value, "ToolUseBlock.metadata")


def _tool_result_metadata(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    # Java copies it with Map.copyOf, which refuses a null value: an entry set to None is left
    # out, as a message's is, so that Java can read what is written.
    return check_mapping(value, "ToolResultBlock.metadata", drop_none=True)


def _video_fps(value: float | None) -> float | None:
    # A Java Float, not a double: Java could not read a larger number back.
    return check_optional_java_float(value, "VideoBlock.fps")


# A frozen mapping passes these unchanged, and a float in range _video_fps, so the decoder, which
# checks as much itself, may skip them (see _fields).
mark_type_checks(_thinking_metadata, _tool_use_input, _tool_use_metadata, _video_fps)


@attrs.frozen(field_transformer=checked_fields)
class ThinkingBlock(ContentBlock):
    """The model's reasoning.  ``metadata`` may stay ``None``, as in Java."""

    type: ClassVar[str] = "thinking"

    @staticmethod
    def builder() -> ThinkingBlockBuilder:
        return ThinkingBlockBuilder()

    METADATA_REASONING_DETAILS: ClassVar[str] = "reasoningDetails"
    thinking: str = ""
    metadata: Mapping[str, Any] | None = attrs.field(default=None, converter=_thinking_metadata)


def _data_block_id(value: str | None) -> str:
    # Java replaces a null or empty id with a fresh one, on construction and on decoding alike.
    return check_optional_str(value, "DataBlock.id") or new_hex_id()


@attrs.frozen(field_transformer=checked_fields)
class DataBlock(ContentBlock):
    """Media of any kind (image, audio, video, file): the unified media block."""

    type: ClassVar[str] = "data"

    @staticmethod
    def builder() -> DataBlockBuilder:
        return DataBlockBuilder()

    source: Source
    id: str = attrs.field(default="", converter=_data_block_id)
    name: str | None = None


@attrs.frozen(field_transformer=checked_fields)
class ImageBlock(ContentBlock):
    """An image (legacy; prefer :class:`DataBlock`)."""

    type: ClassVar[str] = "image"

    @staticmethod
    def builder() -> ImageBlockBuilder:
        return ImageBlockBuilder()

    source: Source
    min_pixels: int | None = None
    max_pixels: int | None = None


@attrs.frozen(field_transformer=checked_fields)
class AudioBlock(ContentBlock):
    """An audio clip (legacy; prefer :class:`DataBlock`)."""

    type: ClassVar[str] = "audio"

    @staticmethod
    def builder() -> AudioBlockBuilder:
        return AudioBlockBuilder()

    source: Source


@attrs.frozen(field_transformer=checked_fields)
class VideoBlock(ContentBlock):
    """A video clip (legacy; prefer :class:`DataBlock`).  Unlike the others its source may be absent."""

    type: ClassVar[str] = "video"

    @staticmethod
    def builder() -> VideoBlockBuilder:
        return VideoBlockBuilder()

    source: Source | None = None
    fps: float | None = attrs.field(default=None, converter=_video_fps)
    max_frames: int | None = None
    min_pixels: int | None = None
    max_pixels: int | None = None
    total_pixels: int | None = None


@attrs.frozen(field_transformer=checked_fields)
class HintBlock(ContentBlock):
    """An instruction injected into the agent loop; ``source`` names its sender."""

    type: ClassVar[str] = "hint"

    @staticmethod
    def builder() -> HintBlockBuilder:
        return HintBlockBuilder()

    id: str | None
    hint: str | None
    source: str | None = None


@attrs.frozen(field_transformer=checked_fields)
class ToolUseBlock(ContentBlock):
    """A tool call.  ``content`` keeps the raw argument JSON as it was streamed."""

    type: ClassVar[str] = "tool_use"

    @staticmethod
    def builder() -> ToolUseBlockBuilder:
        return ToolUseBlockBuilder()

    METADATA_THOUGHT_SIGNATURE: ClassVar[str] = "thoughtSignature"
    id: str | None
    name: str | None
    input: Mapping[str, Any] = attrs.field(default=EMPTY, converter=_tool_use_input)
    content: str | None = None
    metadata: Mapping[str, Any] = attrs.field(default=EMPTY, converter=_tool_use_metadata)
    state: ToolCallState = ToolCallState.PENDING

    def with_state(self, state: ToolCallState) -> ToolUseBlock:
        """A copy in ``state``."""
        return attrs.evolve(self, state=state)


def _output_blocks(value: ContentBlock | Iterable[ContentBlock] | None) -> tuple[ContentBlock, ...]:
    if value is None:
        return ()
    if isinstance(value, ContentBlock):
        return (value,)
    if is_iterable_of_items(value):
        blocks = tuple(value)
        for index, block in enumerate(blocks):
            if not isinstance(block, ContentBlock):
                raise ArgumentTypeError(
                    f"ToolResultBlock.output[{index}] must be a content block, got {describe(block)}{unbuilt_hint(block)}"
                )
        return blocks
    given: object = value  # typed as what it should be; at run time it may be anything, a str too
    raise ArgumentTypeError(
        f"ToolResultBlock.output must be a content block or an iterable of them, got {describe(value)}"
        + (": wrap text in a TextBlock" if isinstance(given, str) else unordered_hint(given))
    )


def block_depth(block: ContentBlock) -> int:
    """The levels of JSON objects and arrays in the document of ``block`` (itself one).  The test
    of this function checks it against the documents the codec writes, block kind by block kind."""
    fixed = _FIXED_DEPTHS.get(type(block))
    if fixed is not None:
        return fixed
    if isinstance(block, ToolResultBlock):
        return block._depth
    if isinstance(block, ToolUseBlock):
        return 1 + max(_stored_depth(block.input), _stored_depth(block.metadata))
    if isinstance(block, ThinkingBlock):
        return 1 + _stored_depth(block.metadata)
    return 2 if isinstance(getattr(block, "source", None), Source) else 1  # a media block's source object


def _result_depth(result: ToolResultBlock) -> int:
    # Made with every result: the usual blocks (text) and metadata (none) are told without a call.
    deepest = 0
    for block in result.output:
        depth = _FIXED_DEPTHS.get(type(block)) or block_depth(block)
        if depth > deepest:
            deepest = depth
    metadata = result.metadata
    return 1 + max(1 + deepest, 1 if metadata is EMPTY else _stored_depth(metadata))


def _stored_depth(value: Mapping[str, Any] | None) -> int:
    return stored_nesting(value) if type(value) is FrozenDict else 0  # a stored mapping, or None


_FIXED_DEPTHS = {TextBlock: 1, HintBlock: 1, DataBlock: 2, ImageBlock: 2, AudioBlock: 2}  # as block_depth finds them

_ONE_ARGUMENT: Any = Sentinel("<not given>")  # ToolResultBlock.error called with the message alone


@attrs.frozen(field_transformer=checked_fields)
class ToolResultBlock(ContentBlock):
    """What a tool returned.  The state defaults to RUNNING, as in Java."""

    type: ClassVar[str] = "tool_result"

    @staticmethod
    def builder() -> ToolResultBlockBuilder:
        return ToolResultBlockBuilder()

    METADATA_SUSPENDED: ClassVar[str] = "agentscope_suspended"
    id: str | None
    name: str | None
    output: tuple[ContentBlock, ...] = attrs.field(default=(), converter=_output_blocks)
    metadata: Mapping[str, Any] = attrs.field(default=EMPTY, converter=_tool_result_metadata)
    state: ToolResultState = ToolResultState.RUNNING

    def __attrs_post_init__(self) -> None:
        # Results nest without bound otherwise: one too deep could be hashed, printed or pickled
        # only past Python's recursion limit, and its JSON, or a message's holding it, not read back.
        depth = _result_depth(self)  # kept only when asked for (``_depth``): rarely, for a nested result
        if depth > MAX_BLOCK_DEPTH:
            raise NestedTooDeeply(
                f"ToolResultBlock.output is nested too deeply: the block's JSON would be {depth} levels deep, "
                f"past the {MAX_BLOCK_DEPTH} a block may be (so that a message holding it, and the events streaming "
                f"that message, read back within {DEPTH_CEILING}); nest fewer results"
            )

    @functools.cached_property
    def _depth(self) -> int:
        """The levels of objects and arrays in this block's document (itself one), worked out once."""
        return _result_depth(self)

    @property
    def is_suspended(self) -> bool:
        """Whether the tool awaits external execution (``metadata["agentscope_suspended"] is True``)."""
        return self.metadata.get(self.METADATA_SUSPENDED) is True

    def with_state(self, state: ToolResultState) -> ToolResultBlock:
        """A copy in ``state``."""
        return attrs.evolve(self, state=state)

    def with_id_and_name(self, id: str | None, name: str | None) -> ToolResultBlock:
        """A copy answering the call ``id`` of tool ``name``; output, metadata and state are kept."""
        return attrs.evolve(self, id=id, name=name)

    @classmethod
    def text(cls, text: str) -> ToolResultBlock:
        """A result holding ``text``, state RUNNING, no id or name."""
        return cls(None, None, TextBlock(check_str(text, "ToolResultBlock.text text")))

    @overload
    @classmethod
    def error(cls, message: str, /) -> ToolResultBlock: ...
    @overload
    @classmethod
    def error(cls, tool_id: str | None, message: str, /) -> ToolResultBlock: ...
    @classmethod
    def error(cls, message_or_tool_id: str | None, message: object = _ONE_ARGUMENT, /) -> ToolResultBlock:
        """``error(message)``: text ``"Error: <message>"``; ``error(tool_id, message)``: id set,
        text ``"[ERROR] <message>"``.  Both have state ERROR, as in Java."""
        if message is _ONE_ARGUMENT:  # told by the number of arguments, not by a None
            text = f"Error: {check_str(message_or_tool_id, 'ToolResultBlock.error message')}"
            return cls(None, None, TextBlock(text), state=ToolResultState.ERROR)
        tool_id = check_optional_str(message_or_tool_id, "ToolResultBlock.error tool_id")
        text = f"[ERROR] {check_str(message, 'ToolResultBlock.error message')}"
        return cls(tool_id, None, TextBlock(text), state=ToolResultState.ERROR)

    @classmethod
    def suspended(cls, tool_use: ToolUseBlock, reason: str | None = None) -> ToolResultBlock:
        """The placeholder result of a call that waits for external execution."""
        if not isinstance(tool_use, ToolUseBlock):
            raise ArgumentTypeError(
                f"ToolResultBlock.suspended takes the ToolUseBlock that waits, got {describe(tool_use)}"
            )
        text = "[Awaiting external execution]" if reason is None else check_str(reason, "ToolResultBlock.suspended reason")
        return cls(tool_use.id, tool_use.name, TextBlock(text), {cls.METADATA_SUSPENDED: True})


# -- builders: one setter per field, same name as the field ---------------------


class TextBlockBuilder(Builder[TextBlock], target=TextBlock):
    text: ClassVar[FieldSetter[str]] = FieldSetter()


class ThinkingBlockBuilder(Builder[ThinkingBlock], target=ThinkingBlock):
    thinking: ClassVar[FieldSetter[str]] = FieldSetter()
    metadata: ClassVar[FieldSetter[Mapping[str, Any] | None]] = FieldSetter()


class DataBlockBuilder(Builder[DataBlock], target=DataBlock):
    source: ClassVar[FieldSetter[Source]] = FieldSetter()
    id: ClassVar[FieldSetter[str | None]] = FieldSetter()
    name: ClassVar[FieldSetter[str | None]] = FieldSetter()


class ImageBlockBuilder(Builder[ImageBlock], target=ImageBlock):
    source: ClassVar[FieldSetter[Source]] = FieldSetter()
    min_pixels: ClassVar[FieldSetter[int | None]] = FieldSetter()
    max_pixels: ClassVar[FieldSetter[int | None]] = FieldSetter()


class AudioBlockBuilder(Builder[AudioBlock], target=AudioBlock):
    source: ClassVar[FieldSetter[Source]] = FieldSetter()


class VideoBlockBuilder(Builder[VideoBlock], target=VideoBlock):
    source: ClassVar[FieldSetter[Source | None]] = FieldSetter()
    fps: ClassVar[FieldSetter[float | None]] = FieldSetter()
    max_frames: ClassVar[FieldSetter[int | None]] = FieldSetter()
    min_pixels: ClassVar[FieldSetter[int | None]] = FieldSetter()
    max_pixels: ClassVar[FieldSetter[int | None]] = FieldSetter()
    total_pixels: ClassVar[FieldSetter[int | None]] = FieldSetter()


# id and name (hint) are positional in the constructors but may be left unset in a builder.
_NO_ID_NAME = {"id": None, "name": None}


class HintBlockBuilder(Builder[HintBlock], target=HintBlock, defaults={"id": None, "hint": None}):
    id: ClassVar[FieldSetter[str | None]] = FieldSetter()
    hint: ClassVar[FieldSetter[str | None]] = FieldSetter()
    source: ClassVar[FieldSetter[str | None]] = FieldSetter()


class ToolUseBlockBuilder(Builder[ToolUseBlock], target=ToolUseBlock, defaults=_NO_ID_NAME):
    id: ClassVar[FieldSetter[str | None]] = FieldSetter()
    name: ClassVar[FieldSetter[str | None]] = FieldSetter()
    input: ClassVar[FieldSetter[Mapping[str, Any] | None]] = FieldSetter()
    content: ClassVar[FieldSetter[str | None]] = FieldSetter()
    metadata: ClassVar[FieldSetter[Mapping[str, Any] | None]] = FieldSetter()
    state: ClassVar[FieldSetter[ToolCallState]] = FieldSetter()


class ToolResultBlockBuilder(Builder[ToolResultBlock], target=ToolResultBlock, defaults=_NO_ID_NAME):
    id: ClassVar[FieldSetter[str | None]] = FieldSetter()
    name: ClassVar[FieldSetter[str | None]] = FieldSetter()
    output: ClassVar[FieldSetter[ContentBlock | Iterable[ContentBlock] | None]] = FieldSetter()
    metadata: ClassVar[FieldSetter[Mapping[str, Any] | None]] = FieldSetter()
    state: ClassVar[FieldSetter[ToolResultState]] = FieldSetter()

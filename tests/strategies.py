"""Hypothesis strategies for the core model, shared by every property test.

Everything generated is valid: messages only hold the blocks their role allows
(read from ``ALLOWED_BLOCKS``, the one role table), and mapping values are
JSON-compatible.  Sizes are bounded so that generation stays fast.
"""

from __future__ import annotations

import base64
import datetime
import json
import math
from collections import OrderedDict
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, TypeVar

from hypothesis import strategies as st

from agentscope_py import (
    ALLOWED_BLOCKS,
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ChatUsage,
    ContentBlock,
    DataBlock,
    HintBlock,
    ImageBlock,
    Msg,
    MsgRole,
    Source,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py._frozen import copy_json_value

__all__ = [
    "BLOCK_CLASSES",
    "EXAMPLE_BLOCKS",
    "MESSAGE_CLASSES",
    "as_built_in_python",
    "assistant_messages",
    "audio_blocks",
    "base64_sources",
    "blocks",
    "blocks_of",
    "chat_usages",
    "data_blocks",
    "hint_blocks",
    "image_blocks",
    "json_objects",
    "json_text",
    "json_values",
    "message_metadata",
    "messages",
    "msg_ids",
    "msg_timestamps",
    "sources",
    "text_blocks",
    "thinking_blocks",
    "tool_result_blocks",
    "tool_use_blocks",
    "url_sources",
    "video_blocks",
]

#: Every concrete block class, in the order api.md lists them.
BLOCK_CLASSES: tuple[type[ContentBlock], ...] = (
    TextBlock,
    ThinkingBlock,
    DataBlock,
    ImageBlock,
    AudioBlock,
    VideoBlock,
    HintBlock,
    ToolUseBlock,
    ToolResultBlock,
)

#: One ordinary instance of every block class, for tests that need a block of a given kind.
EXAMPLE_BLOCKS: dict[type[ContentBlock], ContentBlock] = {
    TextBlock: TextBlock("hello"),
    ThinkingBlock: ThinkingBlock("let me think"),
    DataBlock: DataBlock(URLSource("https://example.com/cat.png", "image/png")),
    ImageBlock: ImageBlock(Base64Source("image/png", "iVBORw0KGgo=")),
    AudioBlock: AudioBlock(URLSource("https://example.com/a.wav")),
    VideoBlock: VideoBlock(URLSource("https://example.com/v.mp4"), fps=2.0),
    HintBlock: HintBlock("h1", "keep it short", "supervisor"),
    ToolUseBlock: ToolUseBlock("call_1", "get_weather", {"city": "Paris"}),
    ToolResultBlock: ToolResultBlock("call_1", "get_weather", TextBlock("sunny")),
}

#: Role → the message class that pins it.
MESSAGE_CLASSES: dict[MsgRole, type[Msg[Any]]] = {
    MsgRole.USER: UserMessage,
    MsgRole.SYSTEM: SystemMessage,
    MsgRole.ASSISTANT: AssistantMessage,
    MsgRole.TOOL: ToolResultMessage,
}

_MAX_ITEMS = 4

# -- text and JSON ------------------------------------------------------------

# Text that has broken encoders before: empty, NUL and other controls, emoji sequences,
# right-to-left scripts, JSON's own metacharacters, JavaScript's line separators.
_TRICKY_TEXT = [
    "",
    " ",
    "\x00",
    "\n\t\r\x1b\x7f",
    "😀👍🏽👨‍👩‍👧",
    "日本語 العربية",
    '"quoted" \\back\\slash',
    "\u2028\u2029",
]
_LONE_SURROGATES = ["\ud800", "a\udfffb"]


def json_text(*, surrogates: bool = True, max_size: int = 20) -> st.SearchStrategy[str]:
    """Any text, including control characters, emoji and (unless ``surrogates=False``) lone surrogates."""
    tricky = _TRICKY_TEXT + _LONE_SURROGATES if surrogates else _TRICKY_TEXT
    # The utf-8 codec limits the alphabet to what UTF-8 can encode: no lone surrogates.
    alphabet = st.characters(codec=None if surrogates else "utf-8")
    return st.one_of(st.sampled_from(tricky), st.text(alphabet, max_size=max_size))


_JSON_INTS = st.one_of(
    st.integers(min_value=-(2**31), max_value=2**31),
    st.sampled_from([0, -1, 2**53, -(2**53), 2**63 - 1, -(2**63), 2**64]),
)
_JSON_FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1e21, -1e21, 1e-7, 5e-324, 1.7976931348623157e308, 0.1]),
)


def json_values(*, surrogates: bool = True, max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON-compatible value: None, bools, ints (big and negative), finite floats
    (``-0.0``, ``1e21``), any text, and lists and str-keyed dicts of them (empty ones too).
    No NaN or infinity."""
    text = json_text(surrogates=surrogates)
    scalars = st.one_of(st.none(), st.booleans(), _JSON_INTS, _JSON_FLOATS, text)
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=_MAX_ITEMS),
            st.dictionaries(text, children, max_size=_MAX_ITEMS),
        ),
        max_leaves=max_leaves,
    )


def json_objects(*, surrogates: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """A str-keyed dict of JSON values (a tool input, block metadata)."""
    return st.dictionaries(
        json_text(surrogates=surrogates), json_values(surrogates=surrogates), max_size=_MAX_ITEMS
    )


def message_metadata(*, surrogates: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Message metadata: a JSON object without top-level ``None`` values (a message drops those)."""
    value = json_values(surrogates=surrogates).filter(lambda v: v is not None)
    return st.dictionaries(json_text(surrogates=surrogates), value, max_size=_MAX_ITEMS)


# -- sources and usage ----------------------------------------------------------

_MEDIA_TYPES = st.sampled_from(["image/png", "image/jpeg", "audio/wav", "video/mp4", "application/pdf"])
_OPTIONAL_TEXT = st.none() | json_text()


def url_sources() -> st.SearchStrategy[URLSource]:
    urls = st.sampled_from(["https://example.com/cat.png", "file:///tmp/a.wav", "", "http://x/é?q=1#f"])
    return st.builds(URLSource, urls, st.none() | _MEDIA_TYPES)


def base64_sources() -> st.SearchStrategy[Base64Source]:
    data = st.binary(max_size=48).map(lambda raw: base64.b64encode(raw).decode())
    return st.builds(Base64Source, _MEDIA_TYPES, data)


def sources() -> st.SearchStrategy[Source]:
    return st.one_of(url_sources(), base64_sources())


def chat_usages() -> st.SearchStrategy[ChatUsage]:
    tokens = st.integers(min_value=0, max_value=2_000_000)
    seconds = st.floats(min_value=0, max_value=600, allow_nan=False, allow_infinity=False)
    return st.builds(ChatUsage, tokens, tokens, tokens, seconds)


# -- blocks -----------------------------------------------------------------------

_PIXELS = st.none() | st.integers(min_value=0, max_value=10_000_000)
_TOOL_IDS = st.none() | st.sampled_from(["call_1", "toolu_01A", ""]) | json_text(max_size=12)
_TOOL_NAMES = st.none() | st.sampled_from(["get_weather", "search", ""]) | json_text(max_size=12)


def text_blocks() -> st.SearchStrategy[TextBlock]:
    return st.builds(TextBlock, json_text(max_size=40))


def thinking_blocks() -> st.SearchStrategy[ThinkingBlock]:
    return st.builds(ThinkingBlock, json_text(max_size=40), st.none() | json_objects())


def data_blocks() -> st.SearchStrategy[DataBlock]:
    hex_ids = st.text("0123456789abcdef", min_size=32, max_size=32)
    return st.builds(DataBlock, sources(), hex_ids, _OPTIONAL_TEXT)


def image_blocks() -> st.SearchStrategy[ImageBlock]:
    return st.builds(ImageBlock, sources(), _PIXELS, _PIXELS)


def audio_blocks() -> st.SearchStrategy[AudioBlock]:
    return st.builds(AudioBlock, sources())


def video_blocks() -> st.SearchStrategy[VideoBlock]:
    fps = st.none() | st.floats(min_value=0, max_value=240, allow_nan=False)
    return st.builds(VideoBlock, st.none() | sources(), fps, _PIXELS, _PIXELS, _PIXELS, _PIXELS)


def hint_blocks() -> st.SearchStrategy[HintBlock]:
    return st.builds(HintBlock, _OPTIONAL_TEXT, _OPTIONAL_TEXT, _OPTIONAL_TEXT)


def tool_use_blocks() -> st.SearchStrategy[ToolUseBlock]:
    return st.builds(
        ToolUseBlock,
        _TOOL_IDS,
        _TOOL_NAMES,
        json_objects(),
        _OPTIONAL_TEXT,
        json_objects(),
        st.sampled_from(ToolCallState),
    ) | tool_calls_with_arguments_near_their_input()


@st.composite
def tool_calls_with_arguments_near_their_input(draw: st.DrawFn) -> ToolUseBlock:
    """A call whose ``content`` is its ``input`` as JSON, or JSON that Python's ``==`` cannot tell
    from it: keys in another order, ``true`` for ``1``, ``1.0`` for ``1``, ``-0.0`` for ``0.0``."""
    tool_input = draw(json_objects(surrogates=False))
    arguments = draw(st.sampled_from([tool_input, _loosely_equal(tool_input, draw)]))
    return ToolUseBlock(draw(_TOOL_IDS), draw(_TOOL_NAMES), tool_input, json.dumps(arguments))


def _loosely_equal(value: Any, draw: st.DrawFn) -> Any:
    if isinstance(value, dict):
        items = [(key, _loosely_equal(item, draw)) for key, item in value.items()]
        return dict(draw(st.permutations(items)))
    if isinstance(value, list):
        return [_loosely_equal(item, draw) for item in value]
    if type(value) is int and value in (0, 1):
        return draw(st.sampled_from([value, bool(value), float(value)]))
    if type(value) is int and abs(value) < 2**53:
        return draw(st.sampled_from([value, float(value)]))
    if type(value) is float and value == 0:
        return -value
    return value


def tool_result_blocks(depth: int = 1) -> st.SearchStrategy[ToolResultBlock]:
    """Tool results whose output holds any blocks, nested up to ``depth`` results deep."""
    output = st.lists(blocks(depth=depth - 1), max_size=3) if depth > 0 else st.lists(text_blocks(), max_size=2)
    return st.builds(
        ToolResultBlock,
        _TOOL_IDS,
        _TOOL_NAMES,
        output,
        json_objects(),
        st.sampled_from(ToolResultState),
    )


_LEAF_STRATEGIES = {
    TextBlock: text_blocks,
    ThinkingBlock: thinking_blocks,
    DataBlock: data_blocks,
    ImageBlock: image_blocks,
    AudioBlock: audio_blocks,
    VideoBlock: video_blocks,
    HintBlock: hint_blocks,
    ToolUseBlock: tool_use_blocks,
}


def blocks_of(cls: type[ContentBlock], depth: int = 1) -> st.SearchStrategy[ContentBlock]:
    """Blocks of exactly ``cls`` (one of :data:`BLOCK_CLASSES`)."""
    if cls is ToolResultBlock:
        return tool_result_blocks(depth)
    return _LEAF_STRATEGIES[cls]()


def blocks(role: MsgRole | None = None, depth: int = 1) -> st.SearchStrategy[ContentBlock]:
    """Any block ``role`` allows (every block for ``None``); tool results nest ``depth`` deep."""
    allowed = ALLOWED_BLOCKS[role] if role is not None else (ContentBlock,)
    classes = [cls for cls in BLOCK_CLASSES if issubclass(cls, allowed)]
    return st.one_of([blocks_of(cls, depth) for cls in classes])


# -- messages -----------------------------------------------------------------------


def msg_ids() -> st.SearchStrategy[str]:
    return st.uuids(version=4).map(str)


def msg_timestamps() -> st.SearchStrategy[str]:
    moments = st.datetimes(datetime.datetime(2000, 1, 1), datetime.datetime(2099, 12, 31))
    return moments.map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}")


_M = TypeVar("_M", bound=Msg[Any])
_NAMES = st.none() | st.sampled_from(["user", "assistant", "Friday", ""]) | json_text(max_size=10)
_IDS = msg_ids()
_METADATA = st.none() | message_metadata()
_TIMESTAMPS = msg_timestamps()
_USAGES = st.none() | chat_usages()


@st.composite
def _drawn_message(
    draw: st.DrawFn, cls: type[_M], role: MsgRole | None, content: st.SearchStrategy[list[ContentBlock]]
) -> _M:
    fields: dict[str, Any] = {
        "name": draw(_NAMES),
        "id": draw(_IDS),
        "metadata": draw(_METADATA),
        "timestamp": draw(_TIMESTAMPS),
        "usage": draw(_USAGES),
    }
    if cls is Msg:
        fields["role"] = role
    return cls(draw(content), **fields)


def _messages(cls: type[_M], role: MsgRole | None) -> st.SearchStrategy[_M]:
    # The field strategies are built once, outside the composite: building them per draw is slow.
    return _drawn_message(cls, role, st.lists(blocks(role), max_size=_MAX_ITEMS))


def messages(role: MsgRole | None = None) -> st.SearchStrategy[Msg[Any]]:
    """Valid messages: the role-pinned class of ``role``, or (``None``) any of them and plain
    ``Msg`` of any role (including no role at all), holding only blocks their role allows."""
    if role is not None:
        return _messages(MESSAGE_CLASSES[role], role)
    pinned = [_messages(cls, pinned_role) for pinned_role, cls in MESSAGE_CLASSES.items()]
    plain = [_messages(Msg, plain_role) for plain_role in (*MsgRole, None)]
    return st.one_of(*pinned, *plain)


def assistant_messages() -> st.SearchStrategy[AssistantMessage]:
    return _messages(AssistantMessage, MsgRole.ASSISTANT)


# -- documents as a Python program builds them --------------------------------------------


class _Text(str):
    """A str subclass, as an application's own string types are."""


class _Number(float):
    pass


class _Whole(int):
    pass


@st.composite
def as_built_in_python(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with any of its objects, arrays and scalars swapped for what a Python program may hold
    in their place: another mapping type, a tuple, a str, int or float subclass, or the read-only copy
    a message holds (taken from another message's metadata, say)."""
    if isinstance(value, dict):
        items = {key: draw(as_built_in_python(item)) for key, item in value.items()}
        objects: list[Callable[[dict[str, Any]], Any]] = [dict, OrderedDict, MappingProxyType, copy_json_value]
        return draw(st.sampled_from(objects))(items)
    if isinstance(value, list):
        items_list = [draw(as_built_in_python(item)) for item in value]
        arrays: list[Callable[[list[Any]], Any]] = [list, tuple, copy_json_value]
        return draw(st.sampled_from(arrays))(items_list)
    if type(value) is str:
        return draw(st.sampled_from([str, _Text]))(value)
    if type(value) is float and math.isfinite(value):
        return draw(st.sampled_from([float, _Number]))(value)
    if type(value) is int:
        return draw(st.sampled_from([int, _Whole]))(value)
    return value

"""The builders of blocks, sources and ChatUsage: one setter per field, same name as the field."""

from __future__ import annotations

import re
from collections import deque
from typing import Any

import attrs
import pytest

from agentscope_py import (
    ArgumentTypeError,
    ArgumentValueError,
    AudioBlock,
    Base64Source,
    ChatUsage,
    DataBlock,
    HintBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)
from agentscope_py._builder import Builder, FieldSetter

SOURCE = URLSource("https://example.com/a.png", "image/png")

# Every class with a builder, and a value for each of its fields (all differ from the defaults).
FULL_FIELDS: list[tuple[type[Any], dict[str, Any]]] = [
    (URLSource, {"url": "https://example.com/a.png", "mime_type": "image/png"}),
    (Base64Source, {"media_type": "image/png", "data": "AA=="}),
    (ChatUsage, {"input_tokens": 10, "output_tokens": 5, "cached_tokens": 2, "time": 1.5}),
    (TextBlock, {"text": "hi"}),
    (ThinkingBlock, {"thinking": "hm", "metadata": {"reasoningDetails": [1]}}),
    (DataBlock, {"source": SOURCE, "id": "d1", "name": "cat.png"}),
    (ImageBlock, {"source": SOURCE, "min_pixels": 1, "max_pixels": 2}),
    (AudioBlock, {"source": SOURCE}),
    (
        VideoBlock,
        {"source": SOURCE, "fps": 2.0, "max_frames": 3, "min_pixels": 4, "max_pixels": 5, "total_pixels": 6},
    ),
    (HintBlock, {"id": "h1", "hint": "be brief", "source": "supervisor"}),
    (
        ToolUseBlock,
        {
            "id": "call_1",
            "name": "search",
            "input": {"q": "x"},
            "content": '{"q":"x"}',
            "metadata": {"thoughtSignature": "s"},
            "state": ToolCallState.FINISHED,
        },
    ),
    (
        ToolResultBlock,
        {
            "id": "call_1",
            "name": "search",
            "output": (TextBlock("found"),),
            "metadata": {"agentscope_suspended": True},
            "state": ToolResultState.SUCCESS,
        },
    ),
]
IDS = [cls.__name__ for cls, _ in FULL_FIELDS]


def _build(cls: type[Any], fields: dict[str, Any]) -> Any:
    builder = cls.builder()
    for name, value in fields.items():
        assert getattr(builder, name)(value) is builder  # every setter returns the builder
    return builder.build()


@pytest.mark.parametrize(("cls", "fields"), FULL_FIELDS, ids=IDS)
def test_there_is_one_setter_per_field(cls: type[Any], fields: dict[str, Any]) -> None:
    assert set(fields) == {field.name for field in attrs.fields(cls)}
    assert isinstance(cls.builder(), Builder)


@pytest.mark.parametrize(("cls", "fields"), FULL_FIELDS, ids=IDS)
def test_every_setter_has_a_declared_type(cls: type[Any], fields: dict[str, Any]) -> None:
    # An assigned but undeclared class attribute is of unknown type to pyright's --verifytypes, and
    # with it the builder, and every class whose method returns one.
    builder_class = type(cls.builder())
    declared = {name: str(annotation) for name, annotation in builder_class.__annotations__.items()}
    for name in fields:
        assert isinstance(vars(builder_class)[name], FieldSetter)
        assert re.fullmatch(r"ClassVar\[FieldSetter\[.+\]\]", declared.get(name, "")), name


@pytest.mark.parametrize(("cls", "fields"), FULL_FIELDS, ids=IDS)
def test_a_builder_builds_what_the_constructor_does(cls: type[Any], fields: dict[str, Any]) -> None:
    built = _build(cls, fields)
    assert type(built) is cls
    assert built == cls(**fields)


@pytest.mark.parametrize(("cls", "fields"), FULL_FIELDS, ids=IDS)
def test_a_builder_can_be_reused(cls: type[Any], fields: dict[str, Any]) -> None:
    builder = cls.builder()
    for name, value in fields.items():
        getattr(builder, name)(value)
    first, second = builder.build(), builder.build()
    assert first == second == cls(**fields)


def test_a_builder_keeps_what_it_was_given_as_it_was() -> None:
    # Built again and again: a generator is not used up by the first build, and what the caller
    # changes afterwards in a dict or list it gave reaches no later build.
    results = ToolResultBlock.builder().output(block for block in [TextBlock("a")])
    assert results.build().output == results.build().output == (TextBlock("a"),)
    metadata: dict[str, Any] = {"k": [1]}
    thinking = ThinkingBlock.builder().thinking("t").metadata(metadata)
    metadata["k"].append(2)
    metadata["new"] = True
    assert thinking.build().metadata == {"k": [1]}
    with pytest.raises(TypeError, match=r"^ThinkingBlockBuilder\.thinking\(\) missing 1 required positional argument"):
        thinking.thinking()  # type: ignore[call-arg]


def test_a_list_inside_a_tuple_or_blocks_in_a_deque_stay_as_they_were_given() -> None:
    # A tuple is a JSON array to the constructor: the lists it holds are the caller's to change.
    inner = [1]
    call = ToolUseBlock.builder().id("c").name("f").input({"a": (inner,)})
    inner.append(2)
    assert call.build().input == {"a": [[1]]}
    blocks = deque([TextBlock("a")])
    results = ToolResultBlock.builder().output(blocks)
    blocks.append(TextBlock("b"))
    assert results.build().output == (TextBlock("a"),)


@pytest.mark.parametrize(
    ("builder", "expected"),
    [
        (TextBlock.builder(), TextBlock()),
        (ThinkingBlock.builder(), ThinkingBlock()),
        (VideoBlock.builder(), VideoBlock()),
        (ChatUsage.builder(), ChatUsage()),
        (HintBlock.builder(), HintBlock(None, None)),
        (ToolUseBlock.builder(), ToolUseBlock(None, None)),
        (ToolResultBlock.builder(), ToolResultBlock(None, None)),
    ],
    ids=lambda value: type(value).__name__,
)
def test_unset_fields_take_their_defaults(builder: Builder[Any], expected: object) -> None:
    assert builder.build() == expected


def test_ids_and_names_may_be_left_unset_on_tool_builders() -> None:
    assert ToolUseBlock.builder().name("search").build() == ToolUseBlock(None, "search")
    assert ToolResultBlock.builder().id("call_1").build() == ToolResultBlock("call_1", None)


def test_data_block_builder_generates_a_fresh_id_per_build() -> None:
    builder = DataBlock.builder().source(SOURCE)
    first, second = builder.build(), builder.build()
    assert re.fullmatch("[0-9a-f]{32}", first.id)
    assert first.id != second.id


def test_tool_result_builder_takes_one_block_as_output() -> None:
    assert ToolResultBlock.builder().output(TextBlock("x")).build().output == (TextBlock("x"),)


@pytest.mark.parametrize(
    ("builder", "words"),
    [
        (DataBlock.builder(), "DataBlock needs source: call .source(...) before .build()"),
        (ImageBlock.builder(), "ImageBlock needs source: call .source(...)"),
        (AudioBlock.builder(), "AudioBlock needs source: call .source(...)"),
        (URLSource.builder(), "URLSource needs url: call .url(...)"),
        (Base64Source.builder().data("AA=="), "Base64Source needs media_type: call .media_type(...)"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Builder) else "",
)
def test_a_missing_required_field_is_refused_at_build_saying_which_setter_to_call(
    builder: Builder[Any], words: str
) -> None:
    with pytest.raises(ArgumentTypeError, match=re.escape(words)):
        builder.build()


def test_builder_repr_lists_the_values_set() -> None:
    assert repr(ToolUseBlock.builder().name("search")) == "ToolUseBlockBuilder(id=None, name='search')"
    assert repr(TextBlock.builder().text("hi")) == "TextBlockBuilder(text='hi')"
    # Bounded, as the objects' own reprs are: an image as base64 is megabytes.
    image = Base64Source.builder().media_type("image/png").data("A" * 1_000_000)
    assert repr(image) == f"Base64SourceBuilder(media_type='image/png', data={'A' * 48!r}…(1,000,000 characters))"


@pytest.mark.parametrize("depth", [None, 2_000])  # None: a dict that contains itself
def test_a_setter_refuses_a_value_too_deep_to_copy(depth: int | None) -> None:
    value: dict[str, Any] = {}
    if depth is None:
        value["self"] = value
    else:
        inner = value
        for _ in range(depth):
            inner["x"] = inner = {}
    builder = ToolUseBlock.builder().id("c").name("n")
    with pytest.raises(ArgumentValueError, match=r"^ToolUseBlockBuilder\.input\(\) was given a value nested too deeply"):
        builder.input(value)
    assert builder.build().input == {}  # the refused call changed nothing

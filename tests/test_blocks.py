"""The content blocks: fields, defaults, immutability, read-only mappings and the ToolResultBlock factories."""

from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from strategies import BLOCK_CLASSES, EXAMPLE_BLOCKS

from agentscope_py import (
    ArgumentTypeError,
    ArgumentValueError,
    AudioBlock,
    Base64Source,
    ContentBlock,
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
    UserMessage,
    VideoBlock,
)
from agentscope_py._frozen import MAX_STORED_DEPTH, FrozenDict, FrozenList

SOURCE = URLSource("https://example.com/x.png")


@pytest.mark.parametrize(
    ("cls", "tag", "fields"),
    [
        (TextBlock, "text", ["text"]),
        (ThinkingBlock, "thinking", ["thinking", "metadata"]),
        (DataBlock, "data", ["source", "id", "name"]),
        (ImageBlock, "image", ["source", "min_pixels", "max_pixels"]),
        (AudioBlock, "audio", ["source"]),
        (VideoBlock, "video", ["source", "fps", "max_frames", "min_pixels", "max_pixels", "total_pixels"]),
        (HintBlock, "hint", ["id", "hint", "source"]),
        (ToolUseBlock, "tool_use", ["id", "name", "input", "content", "metadata", "state"]),
        (ToolResultBlock, "tool_result", ["id", "name", "output", "metadata", "state"]),
    ],
)
def test_wire_tag_and_positional_field_order(cls: type[ContentBlock], tag: str, fields: list[str]) -> None:
    assert issubclass(cls, ContentBlock)
    assert cls.type == tag
    assert EXAMPLE_BLOCKS[cls].type == tag
    assert [field.name for field in attrs.fields(cls)] == fields


def test_defaults() -> None:
    assert TextBlock() == TextBlock("")
    assert ThinkingBlock().thinking == "" and ThinkingBlock().metadata is None
    image = ImageBlock(SOURCE)
    assert (image.min_pixels, image.max_pixels) == (None, None)
    assert VideoBlock() == VideoBlock(None, None, None, None, None, None)
    assert HintBlock("h", "text").source is None
    tool_use = ToolUseBlock("call_1", "search")
    assert (tool_use.input, tool_use.content, tool_use.metadata) == ({}, None, {})
    assert tool_use.state is ToolCallState.PENDING
    result = ToolResultBlock("call_1", "search")
    assert (result.output, result.metadata, result.state) == ((), {}, ToolResultState.RUNNING)
    data = DataBlock(SOURCE)
    assert data.name is None


def test_none_means_empty_for_tool_mappings_and_output() -> None:
    call = ToolUseBlock("c", "n", None, None, None)
    assert (call.input, call.metadata) == ({}, {})
    result = ToolResultBlock("c", "n", None, None)
    assert (result.output, result.metadata) == ((), {})


def test_thinking_metadata_stays_none_unless_given() -> None:
    assert ThinkingBlock("t", None).metadata is None
    assert ThinkingBlock("t", {}).metadata == {}
    assert ThinkingBlock("t", {ThinkingBlock.METADATA_REASONING_DETAILS: [1]}).metadata == {"reasoningDetails": [1]}


def test_video_fps_given_as_int_is_stored_as_float() -> None:
    fps = VideoBlock(SOURCE, 24).fps
    assert fps == 24.0 and type(fps) is float


# Float.MAX_VALUE plus half its last step: Java reads this and more as infinity, and writes that
# back as the string "Infinity".
OVERFLOW = 2.0**128 - 2.0**103


@pytest.mark.parametrize("fps", [OVERFLOW, -OVERFLOW, 3.5e38, -1e39, 10**39, float("inf")])
def test_video_fps_must_fit_a_java_float(fps: float) -> None:
    with pytest.raises(ArgumentValueError, match=r"VideoBlock\.fps must be (a number a Java float holds|a finite number)"):
        VideoBlock(SOURCE, fps)
    with pytest.raises(ArgumentValueError, match=r"VideoBlock\.fps"):
        VideoBlock.builder().fps(fps).build()


@pytest.mark.parametrize("fps", [3.4028234663852886e38, 3.4028235e38, -3.4028235677973362e38])
def test_video_fps_that_java_rounds_to_its_largest_float_is_kept(fps: float) -> None:
    # Java writes Float.MAX_VALUE as 3.4028235E38, which is above it read as a double.
    assert VideoBlock(SOURCE, fps).fps == fps
    assert VideoBlock.from_dict({"type": "video", "fps": fps}).fps == fps


# -- DataBlock ids ---------------------------------------------------------------

HEX_ID = re.compile(r"^[0-9a-f]{32}$")


@pytest.mark.parametrize("given", [None, ""], ids=["None", "empty"])
def test_data_block_replaces_a_missing_id(given: str | None) -> None:
    block = DataBlock(SOURCE, given)
    assert HEX_ID.match(block.id)


def test_data_block_ids_are_generated_fresh_and_kept_when_given() -> None:
    first, second = DataBlock(SOURCE), DataBlock(SOURCE)
    assert HEX_ID.match(first.id) and HEX_ID.match(second.id)
    assert first.id != second.id
    assert first != second  # the id takes part in equality
    assert DataBlock(SOURCE, "my-id").id == "my-id"
    assert DataBlock(SOURCE, "my-id") == DataBlock(SOURCE, "my-id")


# -- value semantics ---------------------------------------------------------------


@pytest.mark.parametrize("cls", BLOCK_CLASSES)
def test_blocks_are_frozen(cls: type[ContentBlock]) -> None:
    block = EXAMPLE_BLOCKS[cls]
    field = attrs.fields(cls)[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(block, field, None)
    # Slotted: no new attributes either, past the frozen check too (which any frozen class has).
    assert not hasattr(block, "__dict__")
    with pytest.raises(AttributeError, match="unknown"):
        object.__setattr__(block, "unknown", 1)


@pytest.mark.parametrize("cls", BLOCK_CLASSES)
def test_blocks_compare_by_value(cls: type[ContentBlock]) -> None:
    block = EXAMPLE_BLOCKS[cls]
    same = attrs.evolve(block)
    assert same == block and same is not block
    assert hash(same) == hash(block)
    assert block != TextBlock("something else")


@pytest.mark.parametrize("cls", BLOCK_CLASSES)
def test_blocks_survive_pickle_copy_and_deepcopy(cls: type[ContentBlock]) -> None:
    block = EXAMPLE_BLOCKS[cls]
    for clone in (pickle.loads(pickle.dumps(block)), copy.copy(block), copy.deepcopy(block)):
        assert clone == block and type(clone) is cls


def test_reprs_are_readable() -> None:
    assert repr(TextBlock("hi")) == "TextBlock(text='hi')"
    assert repr(ToolUseBlock("c1", "search", {"q": "x"})) == (
        "ToolUseBlock(id='c1', name='search', input={'q': 'x'}, content=None, metadata={}, "
        "state=<ToolCallState.PENDING: 'pending'>)"
    )
    assert repr(AudioBlock(Base64Source("audio/wav", "AA=="))) == (
        "AudioBlock(source=Base64Source(media_type='audio/wav', data='AA=='))"
    )


# -- read-only mappings ----------------------------------------------------------------

MAPPING_HOLDERS: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
    ("ToolUseBlock.input", lambda m: ToolUseBlock("c", "n", m).input),
    ("ToolUseBlock.metadata", lambda m: ToolUseBlock("c", "n", metadata=m).metadata),
    ("ToolResultBlock.metadata", lambda m: ToolResultBlock("c", "n", metadata=m).metadata),
    ("ThinkingBlock.metadata", lambda m: ThinkingBlock("t", m).metadata),
]

MUTATIONS: list[tuple[str, Callable[[Any], object]]] = [
    ("setitem", lambda m: m.__setitem__("k", 1)),
    ("delitem", lambda m: m.__delitem__("flat")),
    ("update", lambda m: m.update(k=1)),
    ("pop", lambda m: m.pop("flat")),
    ("popitem", lambda m: m.popitem()),
    ("setdefault", lambda m: m.setdefault("k", 1)),
    ("clear", lambda m: m.clear()),
    ("ior", lambda m: m.__ior__({"k": 1})),
    ("nested setitem", lambda m: m["nested"].__setitem__("k", 1)),
]

# Every method by which a list changes in place, on a list inside the stored mapping.
LIST_MUTATIONS: list[tuple[str, Callable[[list[Any]], object]]] = [
    ("setitem", lambda items: items.__setitem__(0, 9)),
    ("setitem slice", lambda items: items.__setitem__(slice(0, 1), [9])),
    ("delitem", lambda items: items.__delitem__(0)),
    ("iadd", lambda items: items.__iadd__([9])),
    ("imul", lambda items: items.__imul__(2)),
    ("append", lambda items: items.append(9)),
    ("extend", lambda items: items.extend([9])),
    ("insert", lambda items: items.insert(0, 9)),
    ("pop", lambda items: items.pop()),
    ("remove", lambda items: items.remove(1)),
    ("clear", lambda items: items.clear()),
    ("sort", lambda items: items.sort()),
    ("reverse", lambda items: items.reverse()),
]


def _original() -> dict[str, Any]:
    return {"flat": "v", "nested": {"list": [1, {"deep": [2, 3]}]}, "items": [{"a": 1}]}


@pytest.mark.parametrize(("_holder", "store"), MAPPING_HOLDERS, ids=[name for name, _ in MAPPING_HOLDERS])
@pytest.mark.parametrize(("_kind", "mutate"), MUTATIONS, ids=[name for name, _ in MUTATIONS])
def test_stored_mappings_are_read_only(
    _holder: str, store: Callable[[dict[str, Any]], Any], _kind: str, mutate: Callable[[Any], object]
) -> None:
    stored = store(_original())
    with pytest.raises(TypeError, match="read-only"):
        mutate(stored)
    assert stored == _original()


@pytest.mark.parametrize(("_holder", "store"), MAPPING_HOLDERS, ids=[name for name, _ in MAPPING_HOLDERS])
def test_a_copy_of_a_stored_value_is_plain_all_the_way_down_and_changes_alone(
    _holder: str, store: Callable[[dict[str, Any]], Any]
) -> None:
    stored = store(_original())
    copied = stored.copy()
    listed = stored["items"].copy()
    assert copied == _original() and listed == _original()["items"]
    copied["k"] = 1
    copied["nested"]["list"][1]["deep"].append("more")
    listed.append("more")
    assert type(copied) is dict and type(copied["nested"]["list"]) is list and type(listed) is list
    assert stored == _original()


@pytest.mark.parametrize(("_holder", "store"), MAPPING_HOLDERS, ids=[name for name, _ in MAPPING_HOLDERS])
@pytest.mark.parametrize(("_kind", "mutate"), LIST_MUTATIONS, ids=[name for name, _ in LIST_MUTATIONS])
def test_stored_lists_are_read_only(
    _holder: str, store: Callable[[dict[str, Any]], Any], _kind: str, mutate: Callable[[list[Any]], object]
) -> None:
    stored = store(_original())
    for items in (stored["nested"]["list"], stored["nested"]["list"][1]["deep"], stored["items"]):
        with pytest.raises(TypeError, match="read-only"):
            mutate(items)
    assert stored == _original()


@pytest.mark.parametrize(("_holder", "store"), MAPPING_HOLDERS, ids=[name for name, _ in MAPPING_HOLDERS])
def test_the_callers_later_mutations_change_nothing(_holder: str, store: Callable[[dict[str, Any]], Any]) -> None:
    given = _original()
    stored = store(given)
    given["flat"] = "changed"
    given["nested"]["list"].append(99)
    given["nested"]["list"][1]["deep"].clear()
    given["items"][0]["a"] = 2
    del given["items"]
    assert stored == _original()


@pytest.mark.parametrize(("_holder", "store"), MAPPING_HOLDERS, ids=[name for name, _ in MAPPING_HOLDERS])
def test_stored_mappings_pickle_and_copy(_holder: str, store: Callable[[dict[str, Any]], Any]) -> None:
    stored = store(_original())
    for clone in (pickle.loads(pickle.dumps(stored)), copy.copy(stored), copy.deepcopy(stored)):
        assert clone == _original()
        with pytest.raises(TypeError, match="read-only"):
            clone["k"] = 1
        with pytest.raises(TypeError, match="read-only"):
            clone["nested"]["list"].append(1)


@pytest.mark.parametrize("container", [dict, list])
def test_a_value_stored_as_deep_as_allowed_pickles(container: type) -> None:
    # Reduced level by level, pickle would pass Python's recursion limit long before the depth a
    # message may store (MAX_STORED_DEPTH).
    value: Any = 1
    for _ in range(MAX_STORED_DEPTH):
        value = {"a": value} if container is dict else [value]
    message = UserMessage("x", metadata={"k": value})
    clone = pickle.loads(pickle.dumps(message))
    assert clone == message and hash(clone) == hash(message)
    call = ToolUseBlock("c", "f", {"k": value})
    assert pickle.loads(pickle.dumps(call)) == call
    inner = clone.metadata["k"]
    assert type(inner) is (FrozenDict if container is dict else FrozenList)  # read-only again, all the way down
    with pytest.raises(TypeError, match="read-only"):
        inner.clear()


def test_read_only_mappings_still_read_like_dicts() -> None:
    stored = ToolUseBlock("c", "n", {"b": 1, "a": [1]}).input
    assert isinstance(stored, dict)
    assert list(stored) == ["b", "a"]
    assert stored | {"c": 2} == {"b": 1, "a": [1], "c": 2}
    assert {**stored, "b": 5} == {"b": 5, "a": [1]}


def test_read_only_lists_still_read_like_lists() -> None:
    stored = ToolUseBlock("c", "n", {"ids": [3, 1, 2]}).input["ids"]
    assert isinstance(stored, list)
    assert stored == [3, 1, 2] and [3, 1, 2] == stored and stored != (3, 1, 2)  # type: ignore[comparison-overlap]
    assert repr(stored) == "[3, 1, 2]"
    assert sorted(stored) == [1, 2, 3] and stored[1:] == [1, 2] and stored + [4] == [3, 1, 2, 4]
    copied = list(stored)
    copied.append(4)  # a copy is an ordinary list
    assert copied == [3, 1, 2, 4] and stored == [3, 1, 2]
    assert hash(stored) == hash((3, 1, 2))
    assert hash(ToolUseBlock("c", "n", {"ids": [3, 1, 2]})) == hash(ToolUseBlock("c", "n", {"ids": [3, 1, 2]}))


def test_tuples_are_stored_as_the_json_arrays_they_are_written_as() -> None:
    block = ToolUseBlock("c", "n", {"point": (1, 2), "pairs": [(1, ({"a": 1},))]})
    assert block.input == {"point": [1, 2], "pairs": [[1, [{"a": 1}]]]}
    assert ContentBlock.from_json(block.to_json()) == block
    with pytest.raises(TypeError, match="read-only"):
        block.input["pairs"][0][1][0]["a"] = 2


def test_the_error_says_how_to_change_a_mapping() -> None:
    # The way it shows first type-checks: the fields are typed Mapping, which has no copy().
    with pytest.raises(TypeError, match=r"attrs\.evolve\(block, input=\{\*\*block\.input, key: value\}\); \.copy\(\) gives a plain dict"):
        ToolUseBlock("c", "n", {"a": 1}).input["a"] = 2  # type: ignore[index]
    with pytest.raises(TypeError, match=r"msg\.with_metadata\(\{\*\*msg\.metadata, key: \[\*items, item\]\}\); \.copy\(\) gives a plain list"):
        ToolUseBlock("c", "n", {"tags": ["a"]}).input["tags"].append("b")


# -- ToolUseBlock and ToolResultBlock ------------------------------------------------


def test_tool_use_with_state_returns_a_changed_copy() -> None:
    call = ToolUseBlock("call_1", "search", {"q": "x"}, '{"q":"x"}', {"thoughtSignature": "s"})
    allowed = call.with_state(ToolCallState.ALLOWED)
    assert allowed == attrs.evolve(call, state=ToolCallState.ALLOWED)
    assert call.state is ToolCallState.PENDING
    assert ToolUseBlock.METADATA_THOUGHT_SIGNATURE == "thoughtSignature"


@pytest.mark.parametrize(
    "output",
    [TextBlock("a"), [TextBlock("a")], (TextBlock("a"),), (block for block in [TextBlock("a")])],
    ids=["one block", "list", "tuple", "generator"],
)
def test_tool_result_output_is_stored_as_a_tuple(output: Any) -> None:
    assert ToolResultBlock("c", "n", output).output == (TextBlock("a"),)


def test_tool_result_output_keeps_any_blocks_in_order() -> None:
    output = [EXAMPLE_BLOCKS[cls] for cls in BLOCK_CLASSES]
    assert ToolResultBlock("c", "n", output).output == tuple(output)


def test_tool_result_text() -> None:
    assert ToolResultBlock.text("42") == ToolResultBlock(None, None, [TextBlock("42")], {}, ToolResultState.RUNNING)


def test_tool_result_error_with_message_only() -> None:
    assert ToolResultBlock.error("boom") == ToolResultBlock(
        None, None, [TextBlock("Error: boom")], state=ToolResultState.ERROR
    )


def test_tool_result_error_with_tool_id() -> None:
    assert ToolResultBlock.error("call_1", "boom") == ToolResultBlock(
        "call_1", None, [TextBlock("[ERROR] boom")], state=ToolResultState.ERROR
    )
    assert ToolResultBlock.error(None, "boom").output == (TextBlock("[ERROR] boom"),)


def _of(value: object) -> Any:
    """``value`` hidden from mypy, which refuses these calls: the tests are about untyped callers."""
    return value


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # The form is told by the number of arguments: a None message is not the one-argument form.
        (lambda: ToolResultBlock.error("call_1", _of(None)), r"ToolResultBlock.error message must be a str, got None"),
        (lambda: ToolResultBlock.error(_of(5)), r"ToolResultBlock.error message must be a str, got 5 \(int\)"),
        (lambda: ToolResultBlock.error(_of(5), "boom"), r"ToolResultBlock.error tool_id must be a str or None, got 5"),
        # The error names the factory's argument, not the TextBlock made from it.
        (lambda: ToolResultBlock.text(_of(None)), r"^ToolResultBlock.text text must be a str, got None"),
        (
            lambda: ToolResultBlock.suspended(ToolUseBlock("c", "n"), _of(5)),
            r"^ToolResultBlock.suspended reason must be a str, got 5 \(int\)$",
        ),
    ],
)
def test_tool_result_error_refuses_what_is_not_text(call: Any, message: str) -> None:
    with pytest.raises(ArgumentTypeError, match=message):
        call()


@pytest.mark.parametrize(
    ("reason", "text"), [(None, "[Awaiting external execution]"), ("needs approval", "needs approval")]
)
def test_tool_result_suspended(reason: str | None, text: str) -> None:
    call = ToolUseBlock("call_1", "deploy", {"env": "prod"})
    result = ToolResultBlock.suspended(call, reason)
    assert result == ToolResultBlock("call_1", "deploy", [TextBlock(text)], {"agentscope_suspended": True})
    assert result.is_suspended
    assert result.state is ToolResultState.RUNNING


def test_tool_result_suspended_needs_the_call() -> None:
    with pytest.raises(ArgumentTypeError, match="takes the ToolUseBlock that waits, got None"):
        ToolResultBlock.suspended(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("metadata", "suspended"),
    [({}, False), ({"agentscope_suspended": True}, True), ({"agentscope_suspended": "true"}, False),
     ({"agentscope_suspended": 1}, False), ({"agentscope_suspended": False}, False)],
)
def test_is_suspended_needs_exactly_true(metadata: dict[str, Any], suspended: bool) -> None:
    assert ToolResultBlock("c", "n", metadata=metadata).is_suspended is suspended
    assert ToolResultBlock.METADATA_SUSPENDED == "agentscope_suspended"


def test_a_tool_results_metadata_leaves_out_null_values_as_java_cannot_hold_them() -> None:
    # Java copies it with Map.copyOf, which throws on a null value: a result written with one could
    # not be read there.  Nested nulls are kept (Java keeps them), as in a message's metadata.
    made = ToolResultBlock("c", "n", metadata={"trace": None, "kept": {"inner": None}})
    assert made.metadata == {"kept": {"inner": None}}
    read = ContentBlock.from_json('{"type":"tool_result","id":"c","name":"n","metadata":{"trace":null,"kept":{"inner":null}}}')
    assert read == made and "trace" not in read.to_json()
    assert attrs.evolve(made, metadata={"x": None}).metadata == {}


def test_tool_result_with_state_and_with_id_and_name_keep_the_rest() -> None:
    original = ToolResultBlock.suspended(ToolUseBlock("call_1", "deploy"))
    done = original.with_state(ToolResultState.SUCCESS)
    assert done == attrs.evolve(original, state=ToolResultState.SUCCESS)
    renamed = original.with_id_and_name("call_2", "rollback")
    assert renamed == attrs.evolve(original, id="call_2", name="rollback")
    assert renamed.is_suspended
    assert (original.id, original.name, original.state) == ("call_1", "deploy", ToolResultState.RUNNING)


def test_help_shows_each_field_s_declared_type() -> None:
    # attrs takes __init__'s annotations from the converters, which check any value given.
    import inspect

    from agentscope_py import AudioBlock, Base64Source, ChatUsage, DataBlock, HintBlock, ImageBlock, URLSource, VideoBlock

    for cls in (TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, HintBlock, DataBlock, ImageBlock,
                AudioBlock, VideoBlock, URLSource, Base64Source, ChatUsage):
        for name, parameter in inspect.signature(cls).parameters.items():
            # The field's type, or what its own converter takes (an iterable for a tuple): never Any.
            assert parameter.annotation not in ("Any", inspect.Parameter.empty), (cls.__name__, name)
            if getattr(attrs.fields_dict(cls)[name].converter, "__name__", "") == "convert":  # the checks made from the type
                assert parameter.annotation == str(attrs.fields_dict(cls)[name].type), (cls.__name__, name)


def test_defaults_that_mean_not_given_are_shown_by_name() -> None:
    import inspect

    from agentscope_py import UserMessage

    assert "message: 'object' = <not given>" in str(inspect.signature(ToolResultBlock.error))
    assert "name: 'str | None' = <unchanged>" in str(inspect.signature(UserMessage.__replace__))

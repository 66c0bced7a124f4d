"""The decoder at the edges of its limits: depth counted level by level on every path (the generic
decoder, the inlined loop over a message's content, msgspec's typed reading) and the Java int and
float bounds."""

from __future__ import annotations

import inspect
import json
import pickle
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import blocks
from vectors import json_depth

from agentscope_py import (
    AgentEndEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    AnomalyKind,
    AssistantMessage,
    ChatUsage,
    ConfirmResult,
    ContentBlock,
    CustomEvent,
    DecodeLimits,
    ExternalExecutionResultEvent,
    MessageAssembler,
    ModelCallStartEvent,
    Msg,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    TextBlock,
    TextBlockDeltaEvent,
    ThinkingBlock,
    ToolResultBlock,
    StreamError,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultMessage,
    ToolResultStartEvent,
    ToolResultState,
    ToolResultTextDeltaEvent,
    ToolUseBlock,
    UserConfirmResultEvent,
    UserMessage,
    VideoBlock,
    events_from_message,
)
from agentscope_py._blocks import block_depth
from agentscope_py._checks import NestedTooDeeply
from agentscope_py._frozen import EVENT_STORED_DEPTH, MAX_STORED_DEPTH
from agentscope_py._serializable import DEPTH_CEILING, MAX_BLOCK_DEPTH
from agentscope_py.errors import ArgumentValueError, DecodeError
from agentscope_py.event import AgentEvent, AgentResultEvent, ModelCallEndEvent

JAVA_INT_MAX = 2**31 - 1
_DEEPEST = DecodeLimits(max_depth=DEPTH_CEILING)
JAVA_FLOAT_OVERFLOW = 2.0**128 - 2.0**103  # the least double a Java float reads as infinity


class _Count(int):
    """An int subclass, as a document built in Python may hold (an IntEnum member, say)."""


# -- the field kinds' decoders (``_codec._kinds``) ------------------------------------------------


def test_an_int_one_past_java_int_max_is_refused() -> None:
    assert ChatUsage.from_dict({"inputTokens": JAVA_INT_MAX}).input_tokens == JAVA_INT_MAX
    with pytest.raises(DecodeError, match="out of the range of a Java int") as caught:
        ChatUsage.from_dict({"inputTokens": JAVA_INT_MAX + 1})
    assert caught.value.path == "inputTokens"


def test_an_int_subclass_reads_as_its_int_up_to_java_int_max() -> None:
    usage = ChatUsage.from_dict({"inputTokens": _Count(JAVA_INT_MAX), "outputTokens": _Count(-(2**31))})
    assert (usage.input_tokens, usage.output_tokens) == (JAVA_INT_MAX, -(2**31))
    assert type(usage.input_tokens) is int
    with pytest.raises(DecodeError, match="out of the range of a Java int"):
        ChatUsage.from_dict({"inputTokens": _Count(JAVA_INT_MAX + 1)})


@pytest.mark.parametrize("fps", [JAVA_FLOAT_OVERFLOW, -JAVA_FLOAT_OVERFLOW])
def test_a_java_float_field_refuses_the_overflow_bound_itself(fps: float) -> None:
    video = {"type": "video", "source": {"type": "url", "url": "https://example.com/v.mp4"}}
    below = 3.4028235e38  # Float.MAX_VALUE as Java prints it: still a float
    read = ContentBlock.from_dict({**video, "fps": below})
    assert isinstance(read, VideoBlock) and read.fps == below
    with pytest.raises(DecodeError, match="more than a Java float holds") as caught:
        ContentBlock.from_dict({**video, "fps": fps})
    assert caught.value.path == "fps"


def test_an_empty_free_form_object_is_a_level_too() -> None:
    document = {"role": "USER", "metadata": {}}
    assert Msg.from_dict(document, limits=DecodeLimits(max_depth=2)).metadata == {}
    with pytest.raises(DecodeError, match="nested deeper than 1 levels") as caught:
        Msg.from_dict(document, limits=DecodeLimits(max_depth=1))
    assert caught.value.path == "metadata"


@pytest.mark.parametrize(
    ("event", "levels", "path"),
    [
        # A usage holding only numbers: the event is level 1, the usage level 2.
        (ModelCallEndEvent("r", ChatUsage(1, 2), id="e", created_at="c"), 2, "usage"),
        # The event 1, its result 2, result.content 3, the block 4: each nested object takes a level.
        (AgentResultEvent(AssistantMessage("hi", id="m", timestamp="t"), id="e", created_at="c"), 4, "result.content"),
    ],
)
def test_a_nested_object_needs_a_level_of_its_own(event: AgentEvent, levels: int, path: str) -> None:
    document = event.to_dict()
    assert AgentEvent.from_dict(document, limits=DecodeLimits(max_depth=levels)) == event
    with pytest.raises(DecodeError, match=f"nested deeper than {levels - 1} levels") as caught:
        AgentEvent.from_dict(document, limits=DecodeLimits(max_depth=levels - 1))
    assert caught.value.path == path


def test_content_holding_a_null_counts_levels_as_any_content() -> None:
    # A null item (dropped, as Java does) sends the items through the item-by-item loop.
    call = {"type": "tool_use", "id": "c", "name": "n", "input": {"k": {"j": 1}}}
    document = {"role": "ASSISTANT", "content": [None, call]}
    read = Msg.from_dict(document, limits=DecodeLimits(max_depth=5)).content[0]
    assert isinstance(read, ToolUseBlock) and read.input == {"k": {"j": 1}}
    with pytest.raises(DecodeError, match="nested deeper than 4 levels") as caught:
        Msg.from_dict(document, limits=DecodeLimits(max_depth=4))
    assert caught.value.path == "content[1].input.k"


# -- a message's content list, by the inlined item loop (``_compile._items_inline``) ---------------


def test_content_items_need_a_level_of_their_own_under_max_depth() -> None:
    # The message is level 1, the content array level 2, each block level 3: max_depth=2 leaves no room for the blocks.
    document = {"role": "USER", "content": [{"type": "text", "text": "a"}]}
    assert Msg.from_dict(document, limits=DecodeLimits(max_depth=3)).get_text_content() == "a"
    with pytest.raises(DecodeError, match="nested deeper than 2 levels") as caught:
        Msg.from_dict(document, limits=DecodeLimits(max_depth=2))
    assert caught.value.path == "content"


def test_a_blocks_free_form_input_counts_the_array_and_the_block_as_levels() -> None:
    # message 1, content 2, block 3, input 4, input.k 5.
    document = {"role": "ASSISTANT", "content": [{"type": "tool_use", "id": "c", "name": "n", "input": {"k": {"j": 1}}}]}
    read = Msg.from_dict(document, limits=DecodeLimits(max_depth=5)).content[0]
    assert isinstance(read, ToolUseBlock) and read.input == {"k": {"j": 1}}
    with pytest.raises(DecodeError, match="nested deeper than 4 levels") as caught:
        Msg.from_dict(document, limits=DecodeLimits(max_depth=4))
    assert caught.value.path == "content[0].input.k"


# -- from_json under each backend: msgspec's reads typed first (``_codec._typed``), and at every ---
# -- depth boundary must refuse what the generic decoder refuses, and accept what it accepts -------


def _refused(cls: type[Any], text: str, max_depth: int) -> DecodeError:
    with pytest.raises(DecodeError) as caught:
        cls.from_json(text, limits=DecodeLimits(max_depth=max_depth))
    return caught.value


def test_an_empty_free_form_object_needs_a_level(backend: str) -> None:
    text = '{"role": "USER", "metadata": {}}'
    assert Msg.from_json(text, limits=DecodeLimits(max_depth=2)).metadata == {}
    error = _refused(Msg, text, 1)
    assert error.path == "metadata" and "nested deeper than 1 levels" in error.reason


def test_a_nested_object_needs_a_level(backend: str) -> None:
    text = ModelCallEndEvent("r", ChatUsage(1, 2), id="e", created_at="c").to_json()
    read = AgentEvent.from_json(text, limits=DecodeLimits(max_depth=2))
    assert isinstance(read, ModelCallEndEvent) and read.usage == ChatUsage(1, 2)
    error = _refused(AgentEvent, text, 1)
    assert error.path == "usage" and "nested deeper than 1 levels" in error.reason


def test_a_nested_object_takes_a_level_from_what_it_holds_in_json(backend: str) -> None:
    event = AgentResultEvent(AssistantMessage("hi", id="m", timestamp="t"), id="e", created_at="c")
    text = event.to_json()
    assert AgentEvent.from_json(text, limits=DecodeLimits(max_depth=4)) == event
    error = _refused(AgentEvent, text, 3)
    assert error.path == "result.content" and "nested deeper than 3 levels" in error.reason


def test_an_empty_array_needs_a_level(backend: str) -> None:
    text = '{"role": "USER", "content": []}'
    assert Msg.from_json(text, limits=DecodeLimits(max_depth=2)).content == ()
    error = _refused(Msg, text, 1)
    assert error.path == "content" and "nested deeper than 1 levels" in error.reason


def test_an_array_of_nulls_is_one_level_as_an_empty_array_is(backend: str) -> None:
    # The nulls are dropped, and no null is a level: only an object in the array needs one more.
    text = '{"role": "USER", "content": [null, null]}'
    assert Msg.from_json(text, limits=DecodeLimits(max_depth=2)).content == ()
    error = _refused(Msg, '{"role": "USER", "content": [null, {"type": "text", "text": "a"}]}', 2)
    assert error.path == "content" and "nested deeper than 2 levels" in error.reason
    # An item of another kind needs no level either: it is refused for what it is.
    with pytest.raises(DecodeError, match=r"^content\[0\]: expected an object"):
        Msg.from_json('{"role": "USER", "content": ["x"]}', limits=DecodeLimits(max_depth=2))


def test_content_items_count_the_array_and_the_block_asjson_depth(backend: str) -> None:
    call = {"type": "tool_use", "id": "c", "name": "n", "input": {"k": {"j": 1}}}
    text = json.dumps({"role": "ASSISTANT", "content": [call]})
    read = Msg.from_json(text, limits=DecodeLimits(max_depth=5)).content[0]
    assert isinstance(read, ToolUseBlock) and read.input == {"k": {"j": 1}}
    error = _refused(Msg, text, 4)
    assert error.path == "content[0].input.k" and "nested deeper than 4 levels" in error.reason


def test_a_tool_results_output_counts_levels_as_message_content_does(backend: str) -> None:
    # A tool result's output is a list of blocks read by the non-inlined conversion.
    result = {"type": "tool_result", "id": "c", "name": "n", "output": [{"type": "tool_use", "id": "d", "name": "m", "input": {"k": 1}}]}
    text = json.dumps({"role": "TOOL", "content": [result]})
    # message 1, content 2, result 3, output 4, the call 5, its input 6.
    read = Msg.from_json(text, limits=DecodeLimits(max_depth=6)).content[0]
    assert isinstance(read, ToolResultBlock) and isinstance(read.output[0], ToolUseBlock)
    assert read.output[0].input == {"k": 1}
    error = _refused(Msg, text, 5)
    assert error.path == "content[0].output[0].input" and "nested deeper than 5 levels" in error.reason


@pytest.mark.parametrize("value", [-(2**31) - 1, 2**31])
def test_an_int_beyond_java_int_is_refused(backend: str, value: int) -> None:
    assert ChatUsage.from_json(json.dumps({"inputTokens": value - (1 if value > 0 else -1)})).input_tokens == value - (1 if value > 0 else -1)
    with pytest.raises(DecodeError, match="out of the range of a Java int") as caught:
        ChatUsage.from_json(json.dumps({"inputTokens": value}))
    assert caught.value.path == "inputTokens"


def test_a_caller_deep_in_the_stack_gets_a_decode_error_at_any_depth(backend: str) -> None:
    # The document is within max_depth, but the stack left to the decoder is not: whichever of the
    # parser and the decoder runs out first, the caller gets a DecodeError, never a RecursionError.
    nested: dict[str, Any] = {"type": "text", "text": "x"}
    for _ in range(60):
        nested = {"type": "tool_result", "id": "c", "name": "f", "output": [nested]}
    text = json.dumps({"role": "TOOL", "content": [nested]})
    limits = DecodeLimits(max_depth=400)

    def read_at(frames: int) -> object:
        return read_at(frames - 1) if frames else Msg.from_json(text, limits=limits)

    Msg.from_json(text, limits=limits)  # the codec imported now: imported down there, it would be what fails
    refused = 0
    # Every headroom from 30 frames up (with fewer, no code can run, not even to make the error): a
    # RecursionError may slip through a window of two or three frames only.
    for headroom in range(30, 400):
        frames = sys.getrecursionlimit() - len(inspect.stack()) - headroom
        try:
            read_at(frames)
        except DecodeError as error:
            assert "nested too deeply" in str(error)
            refused += 1
    assert refused  # the smallest headrooms leave too little stack for any path


# -- what the API builds reads back (``MAX_BLOCK_DEPTH``, ``MAX_STORED_DEPTH``) -------------------


def _deep_value(levels: int) -> Any:
    value: Any = "bottom"
    for level in range(levels):
        value = {"k": value} if level % 2 else [value]
    return value


def _deepest_results(bottom: ContentBlock) -> ToolResultBlock:
    """``bottom`` inside as many tool results as a block may hold."""
    result = ToolResultBlock("c", "f", [bottom])
    while True:
        try:
            result = ToolResultBlock("c", "f", [result])
        except NestedTooDeeply:
            return result


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(block=blocks(depth=3))
def test_the_depth_a_block_works_out_is_that_of_its_document(block: ContentBlock) -> None:
    assert block_depth(block) == json_depth(block.to_dict())


def test_a_stored_value_of_each_block_counts_in_its_depth() -> None:
    deep = _deep_value(7)
    for block in (
        ToolUseBlock("c", "f", {"k": deep}),
        ToolUseBlock("c", "f", metadata={"k": deep}),
        ThinkingBlock("x", {"k": deep}),
        ToolResultBlock("c", "f", metadata={"k": deep}),
        ToolResultBlock("c", "f", [ToolUseBlock("c", "f", {"k": deep})]),
    ):
        assert block_depth(block) == json_depth(block.to_dict())


def test_the_deepest_values_the_api_builds_read_back_and_so_do_the_events_streaming_them() -> None:
    deep = _deep_value(MAX_STORED_DEPTH)
    call = ToolUseBlock("c1", "f", {"k": deep}, metadata={"k": deep})
    blocks = [
        call,
        ThinkingBlock("x", {"k": deep}),
        ToolResultBlock("c1", "f", [TextBlock("ok")], metadata={"k": deep}),
        # A result whose own metadata holds what its end event wraps in an entry of its own.
        ToolResultBlock("c1", "f", metadata={"agentscope_block": {"state": "success", "k": _deep_value(MAX_STORED_DEPTH - 1)}}),
        _deepest_results(TextBlock("bottom")),
    ]
    results = _deepest_results(ToolUseBlock("c", "f", {"k": _deep_value(5)}))
    blocks.append(results)
    assert {block_depth(block) for block in blocks} == {MAX_BLOCK_DEPTH}
    messages = [
        AssistantMessage(*blocks, metadata={"k": deep}),
        UserMessage("x", metadata={"k": deep}),
        ToolResultMessage(results),
    ]
    events: list[AgentEvent] = [
        RequireUserConfirmEvent("r", [call]),
        RequireExternalExecutionEvent("r", [call]),
        AllToolsDeniedEvent([call]),
        UserConfirmResultEvent("r", [ConfirmResult(True, call)]),
        ExternalExecutionResultEvent("r", [results]),
        ToolResultDataDeltaEvent("r", "c1", "f", results),
        CustomEvent("n", {"k": _deep_value(EVENT_STORED_DEPTH)}),
        TextBlockDeltaEvent("r", "text", "x", metadata={"k": _deep_value(EVENT_STORED_DEPTH)}),
    ]
    for message in messages:
        assert Msg.from_json(message.to_json(), limits=_DEEPEST) == message
        if isinstance(message, AssistantMessage):
            events += events_from_message(message, with_result=True)
    deepest = 0
    for event in events:
        deepest = max(deepest, json_depth(event.to_dict()))
        assert AgentEvent.from_json(event.to_json(), limits=_DEEPEST) == event
    assert deepest == DEPTH_CEILING  # the limits leave no level unused: none could be higher


def test_a_result_past_the_deepest_block_is_refused_by_its_constructor_and_its_reader() -> None:
    deepest = _deepest_results(TextBlock("bottom"))
    assert hash(deepest) and repr(deepest) and pickle.loads(pickle.dumps(deepest)) == deepest
    with pytest.raises(ArgumentValueError, match=f"the block's JSON would be {MAX_BLOCK_DEPTH + 2} levels deep, past the {MAX_BLOCK_DEPTH}"):
        ToolResultBlock("c", "f", [deepest])
    too_deep = {"type": "tool_result", "output": [deepest.to_dict()]}
    with pytest.raises(DecodeError, match="ToolResultBlock.output is nested too deeply"):
        ContentBlock.from_dict(too_deep, limits=_DEEPEST)


def test_a_stored_mapping_goes_into_a_message_only_as_deep_as_a_message_stores() -> None:
    # An event stores values two levels deeper than a message (it wraps a message's in entries of
    # its own): its metadata, shared as it is, would take a message's events past what is read.
    event = CustomEvent("n", metadata={"k": _deep_value(EVENT_STORED_DEPTH)})
    assert event.metadata is not None
    with pytest.raises(ArgumentValueError, match=rf"UserMessage.metadata\['k'\] is nested too deeply to store \(deeper than {MAX_STORED_DEPTH} levels"):
        UserMessage("x", metadata=event.metadata)
    within = CustomEvent("n", metadata={"k": _deep_value(MAX_STORED_DEPTH)}).metadata
    assert UserMessage("x", metadata=within).metadata is within  # shared, not copied
    # Read from a document, a value deeper than a message stores is refused as the message's own.
    document = {"role": "USER", "metadata": {"k": _deep_value(MAX_STORED_DEPTH + 1)}}
    with pytest.raises(DecodeError, match=rf"nested too deeply to store \(a value deeper than {MAX_STORED_DEPTH} levels\)") as caught:
        Msg.from_dict(document, limits=_DEEPEST)
    assert caught.value.path == "metadata"


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (lambda value: {"type": "tool_use", "id": "c", "name": "f", "input": {"k": value}}, "input"),
        (lambda value: {"type": "tool_use", "id": "c", "name": "f", "metadata": {"k": value}}, "metadata"),
        (lambda value: {"type": "thinking", "thinking": "", "metadata": {"k": value}}, "metadata"),
    ],
    ids=["tool input", "tool call metadata", "thinking metadata"],
)
def test_a_stored_value_deeper_than_a_block_stores_is_refused_by_every_reader(
    backend: str, make: Any, path: str
) -> None:
    # The decoder skips the constructors' checks of a stored mapping (it checks the types itself), so
    # a document could make a block its constructor refuses: events_from_message then raised.
    fits = make(_deep_value(MAX_STORED_DEPTH))
    block = ContentBlock.from_json(json.dumps(fits), limits=_DEEPEST)
    assert block_depth(block) == MAX_BLOCK_DEPTH == json_depth(fits)
    with pytest.raises(DecodeError, match=rf"nested too deeply to store \(a value deeper than {MAX_STORED_DEPTH} levels\)") as caught:
        ContentBlock.from_json(json.dumps(make(_deep_value(MAX_STORED_DEPTH + 1))), limits=_DEEPEST)
    assert caught.value.path == path


def test_an_event_holding_values_as_deep_as_events_store_pickles() -> None:
    event = CustomEvent("n", {"k": _deep_value(EVENT_STORED_DEPTH)}, metadata={"k": _deep_value(EVENT_STORED_DEPTH)})
    assert pickle.loads(pickle.dumps(event)) == event


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_a_result_streamed_past_the_deepest_block_drops_the_part_that_takes_it_there(strict: bool) -> None:
    # The assembler built the result with the part and raised when the message was made, at the
    # reply's end and at every snapshot after: the reply never completed.
    deepest = _deepest_results(TextBlock("bottom"))
    too_deep_metadata = {"k": _deep_value(EVENT_STORED_DEPTH)}
    for part in (
        ToolResultDataDeltaEvent("M", "c1", "f", deepest),
        ToolResultStartEvent("M", "c1", "f", metadata=too_deep_metadata),
    ):
        events = [
            AgentStartEvent(None, "R", "agent"),
            ModelCallStartEvent("M"),
            *([] if isinstance(part, ToolResultStartEvent) else [ToolResultStartEvent("M", "c1", "f")]),
            part,
            ToolResultTextDeltaEvent("M", "c1", "f", "done"),
            ToolResultEndEvent("M", "c1", "f", state=ToolResultState.SUCCESS),
            AgentEndEvent("R"),
        ]
        assembler = MessageAssembler(strict=strict)
        if strict:
            with pytest.raises(StreamError, match="nested"):
                assembler.feed_all(events)
            continue
        [message] = assembler.feed_all(events)
        [anomaly] = assembler.anomalies
        assert anomaly.kind is AnomalyKind.MALFORMED_EVENT and anomaly.event is part
        [result] = message.get_content_blocks(ToolResultBlock)
        assert result.output == (TextBlock("done"),) and result.metadata == {}

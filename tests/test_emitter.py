"""events_from_message: the shape of the stream a server sends for an assistant message."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import tool_calls_with_arguments_near_their_input

from agentscope_py import (
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    ChatUsage,
    CustomEvent,
    GenerateReason,
    ImageBlock,
    MessageAssembler,
    ModelCallEndEvent,
    ModelCallStartEvent,
    Msg,
    RequestStopEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    TextBlock,
    TextBlockDeltaEvent,
    TextBlockStartEvent,
    ThinkingBlock,
    ThinkingBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    ToolCallState,
    ToolResultBlock,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultState,
    ToolResultTextDeltaEvent,
    ToolUseBlock,
    URLSource,
    UserMessage,
    assemble,
    events_from_message,
)


def types(events: list[AgentEvent]) -> list[str]:
    return [event.type.value for event in events]


def test_a_text_reply_streams_as_agentscope_does() -> None:
    msg = AssistantMessage("Hello, world", name="Friday", id="m1", usage=ChatUsage(3, 4))
    events = events_from_message(msg, chunk_size=5)
    assert types(events) == [
        "AGENT_START",
        "MODEL_CALL_START",
        "TEXT_BLOCK_START",
        "TEXT_BLOCK_DELTA",
        "TEXT_BLOCK_DELTA",
        "TEXT_BLOCK_DELTA",
        "TEXT_BLOCK_END",
        "MODEL_CALL_END",
        "AGENT_END",
    ]
    start, model_start, text_start, *deltas, _, model_end, end = events
    assert isinstance(start, AgentStartEvent) and (start.reply_id, start.name) == ("m1", "Friday")
    assert isinstance(end, AgentEndEvent) and end.reply_id == "m1"
    assert isinstance(model_start, ModelCallStartEvent) and model_start.reply_id != "m1"  # a model call id, as Java
    assert isinstance(text_start, TextBlockStartEvent) and text_start.block_id == "text"
    assert [d.delta for d in deltas if isinstance(d, TextBlockDeltaEvent)] == ["Hello", ", wor", "ld"]
    assert isinstance(model_end, ModelCallEndEvent) and model_end.usage == ChatUsage(3, 4)
    assert start.metadata == {"agentscope_message": {"timestamp": msg.timestamp}}
    assert assemble(events) == [msg]


def test_chunks_are_code_points_so_a_character_is_never_split() -> None:
    text = "👨‍👩‍👧 naïve 日本"
    events = events_from_message(AssistantMessage(text), chunk_size=1)
    deltas = [event.delta for event in events if isinstance(event, TextBlockDeltaEvent)]
    assert deltas == list(text)


def test_several_blocks_of_a_kind_get_ids_of_their_own() -> None:
    msg = AssistantMessage(ThinkingBlock("a"), "one", ThinkingBlock("b", {"k": 1}), "two", "")
    events = events_from_message(msg)
    starts = [
        (event.type.value, event.block_id)
        for event in events
        if isinstance(event, (TextBlockStartEvent, ThinkingBlockStartEvent))
    ]
    assert starts == [
        ("THINKING_BLOCK_START", "thinking"),
        ("TEXT_BLOCK_START", "text"),
        ("THINKING_BLOCK_START", "thinking-2"),
        ("TEXT_BLOCK_START", "text-2"),
        ("TEXT_BLOCK_START", "text-3"),
    ]
    assert assemble(events) == [msg]


def test_each_model_call_starts_its_text_as_text_as_java_does() -> None:
    call = ToolUseBlock("c1", "search", {})
    msg = AssistantMessage("looking", call, ToolResultBlock("c1", "search", [TextBlock("found")]), "done")
    events = events_from_message(msg)
    starts = [event for event in events if isinstance(event, TextBlockStartEvent)]
    model_calls = [event.reply_id for event in events if isinstance(event, ModelCallStartEvent)]
    assert [(start.reply_id, start.block_id) for start in starts] == [(model_calls[0], "text"), (model_calls[1], "text")]
    assert assemble(events) == [msg]


def test_tool_call_arguments_stream_as_json_fragments() -> None:
    call = ToolUseBlock("c1", "search", {"q": "kittens", "n": 3})  # content None: built, not streamed
    events = events_from_message(AssistantMessage(call), chunk_size=4)
    [start] = [event for event in events if isinstance(event, ToolCallStartEvent)]
    fragments = [event.delta for event in events if isinstance(event, ToolCallDeltaEvent)]
    assert json.loads("".join(f or "" for f in fragments)) == {"q": "kittens", "n": 3}
    assert all(len(f or "") <= 4 for f in fragments)
    assert start.metadata == {"agentscope_block": {"state": "pending", "content": None}}
    assert assemble(events)[0].content == (call,)


@pytest.mark.parametrize(
    "call",
    [
        ToolUseBlock("c1", "search", {"q": 1}, '{"q": 1}'),
        ToolUseBlock("c1", "search", {}, "not json at all"),
        ToolUseBlock("c1", "search", {"q": 1}, "raw text that does not match the input"),
        ToolUseBlock("c1", "search", {}, ""),
        ToolUseBlock(None, None, {"x": [1, {"y": None}]}, None, {"thoughtSignature": "abc"}, ToolCallState.FINISHED),
    ],
)
def test_every_tool_call_comes_back_exactly(call: ToolUseBlock) -> None:
    msg = AssistantMessage(call)
    result = assemble(events_from_message(msg, chunk_size=3))
    assert result == [msg]
    assert result[0].to_json() == msg.to_json()
    assert result.anomalies == ()  # the input travelled outright: nothing was guessed


@given(tool_calls_with_arguments_near_their_input(), st.integers(min_value=1, max_value=40))
def test_a_call_whose_arguments_are_its_input_only_to_python_equality_keeps_its_input(
    call: ToolUseBlock, chunk_size: int
) -> None:
    # {"flag": 1} and '{"flag": true}' are == in Python, but not the same JSON: the input travels.
    msg = AssistantMessage(call)
    [assembled] = assemble(events_from_message(msg, chunk_size=chunk_size))
    assert assembled.to_json() == msg.to_json()


def test_tool_results_stream_text_as_deltas_and_other_blocks_whole() -> None:
    image = ImageBlock(URLSource("https://e.com/a.png"))
    result_block = ToolResultBlock(
        "c1",
        "fetch",
        [TextBlock("ab"), TextBlock("cd"), image, TextBlock(""), ToolResultBlock.text("nested")],
        {"agentscope_suspended": True},
        ToolResultState.RUNNING,
    )
    msg = AssistantMessage(result_block)
    events = events_from_message(msg, chunk_size=1)
    streamed = [
        event.delta if isinstance(event, ToolResultTextDeltaEvent) else event.data
        for event in events
        if isinstance(event, (ToolResultTextDeltaEvent, ToolResultDataDeltaEvent))
    ]
    # "cd" right after "ab" would merge with it, so it goes whole; "" after a block is a delta.
    assert streamed == ["a", "b", TextBlock("cd"), image, "", ToolResultBlock.text("nested")]
    assert assemble(events) == [msg]


@pytest.mark.parametrize(
    ("result", "sent", "carried"),
    [
        # RUNNING until a tool says otherwise, as in Java, whose agent ends a finished result in the
        # state it works out: its clients read RUNNING as a suspended tool, and drop the output.
        (ToolResultBlock("c1", "f", TextBlock("sunny")), ToolResultState.SUCCESS, True),
        (ToolResultBlock("c1", "f", [ImageBlock(URLSource("https://e.com/a.png")), TextBlock("[ERROR] gone")]), ToolResultState.ERROR, True),
        (ToolResultBlock.suspended(ToolUseBlock("c1", "f", {})), ToolResultState.RUNNING, False),
        (ToolResultBlock("c1", "f", TextBlock("[ERROR] gone"), state=ToolResultState.SUCCESS), ToolResultState.SUCCESS, False),
        (ToolResultBlock("c1", "f", TextBlock("no"), state=ToolResultState.DENIED), ToolResultState.DENIED, False),
    ],
)
def test_a_result_ends_in_the_state_java_sends_and_comes_back_in_its_own(
    result: ToolResultBlock, sent: ToolResultState, carried: bool
) -> None:
    msg = AssistantMessage(ToolUseBlock("c1", "f", {}), result)
    events = events_from_message(msg)
    [end] = [event for event in events if isinstance(event, ToolResultEndEvent)]
    assert end.state is sent
    # The state the block holds travels beside it, where Java's clients do not look.
    assert (end.metadata or {}) == ({**result.metadata, "agentscope_block": {"state": "running"}} if carried else result.metadata)
    assert assemble(events, strict=True) == [msg]
    assert assemble(AgentEvent.from_json(event.to_json()) for event in events) == [msg]


@pytest.mark.parametrize("state", [ToolResultState.SUCCESS, ToolResultState.RUNNING])
@pytest.mark.parametrize("own", [{"note": 1}, "x", {"state": "RUNNING"}])
def test_a_results_own_entry_under_the_carried_key_stays_its_metadata(state: ToolResultState, own: object) -> None:
    # Only an entry holding a state alone is read as the one carried; anything else is the result's.
    result = ToolResultBlock("c1", "f", TextBlock("ok"), {"agentscope_block": own, "k": 1}, state)
    msg = AssistantMessage(ToolUseBlock("c1", "f", {}), result)
    events = events_from_message(msg)
    [end] = [event for event in events if isinstance(event, ToolResultEndEvent)]
    assert end.state is state  # nothing carried beside it: a RUNNING one goes as it is
    assembled = assemble(events, strict=True)
    assert assembled == [msg] and assembled.anomalies == ()


@pytest.mark.parametrize("state", [ToolResultState.SUCCESS, ToolResultState.RUNNING, ToolResultState.DENIED])
@pytest.mark.parametrize("own", [{"state": "error"}, {"state": "success", "metadata": {"k": 2}}])
def test_a_results_own_entry_shaped_as_the_carried_state_comes_back_as_it_was(
    state: ToolResultState, own: dict[str, Any]
) -> None:
    # Sent as it is, the assembler would read it as the state the result holds, and drop it.
    result = ToolResultBlock("c1", "f", TextBlock("ok"), {"agentscope_block": own, "k": 1}, state)
    msg = AssistantMessage(ToolUseBlock("c1", "f", {}), result)
    events = events_from_message(msg)
    assembled = assemble(AgentEvent.from_json(event.to_json()) for event in events)
    assert assembled == [msg] and assembled.anomalies == ()
    assert assembled[0].to_json() == msg.to_json()  # its entries in their order too
    assert assembled[0].get_content_blocks(ToolResultBlock)[0].state is state


def test_blocks_that_no_event_streams_travel_whole_in_a_custom_event() -> None:
    image = ImageBlock(URLSource("https://e.com/a.png"), 10, 20)
    events = events_from_message(AssistantMessage(image))
    [custom] = [event for event in events if isinstance(event, CustomEvent)]
    assert custom.name == "agentscope_content_block" and custom.value["block"] == image.to_dict()


def test_duplicate_tool_call_ids_go_to_separate_model_calls() -> None:
    msg = AssistantMessage(ToolUseBlock("same", "a", {}, "{}"), ToolUseBlock("same", "b", {}, "{}"))
    events = events_from_message(msg)
    assert types(events).count("MODEL_CALL_START") == 2
    assert assemble(events) == [msg]


@pytest.mark.parametrize(
    ("reason", "event_class"),
    [
        (GenerateReason.PERMISSION_ASKING, RequireUserConfirmEvent),
        (GenerateReason.TOOL_SUSPENDED, RequireExternalExecutionEvent),
        (GenerateReason.ALL_TOOLS_DENIED, AllToolsDeniedEvent),
        (GenerateReason.MAX_ITERATIONS, RequestStopEvent),
        (GenerateReason.TOOL_CALLS, RequestStopEvent),
        (GenerateReason.INTERRUPTED, RequestStopEvent),
    ],
)
def test_the_generate_reason_travels_in_the_event_that_states_it(
    reason: GenerateReason, event_class: type[AgentEvent]
) -> None:
    asking = ToolUseBlock("c1", "rm", {}, state=ToolCallState.ASKING)
    msg = AssistantMessage(asking, generate_reason=reason)
    events = events_from_message(msg)
    # The event that states the reason comes last before the end. Java follows a
    # RequireUserConfirmEvent with a RequestStopEvent of the same reason; the reasons Java's agent
    # streams no event for (it states them in AgentResultEvent's message) go in a RequestStopEvent.
    tail = [type(event) for event in events[-3:]]
    if reason is GenerateReason.PERMISSION_ASKING:
        assert tail == [event_class, RequestStopEvent, AgentEndEvent]
        assert cast(RequestStopEvent, events[-2]).generate_reason is reason
    else:
        assert tail[-2:] == [event_class, AgentEndEvent]
    assert assemble(events) == [msg]


@pytest.mark.parametrize(
    ("reason", "key", "event_class"),
    [
        (GenerateReason.PERMISSION_ASKING, Msg.METADATA_CONFIRM_REQUEST_REPLY_ID, RequireUserConfirmEvent),
        (GenerateReason.TOOL_SUSPENDED, Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID, RequireExternalExecutionEvent),
    ],
)
def test_a_request_to_the_client_goes_under_the_reply_id_the_message_records_for_it(
    reason: GenerateReason, key: str, event_class: type[AgentEvent]
) -> None:
    # Java's agent records the request's reply id in its message, and the resume answers under it
    # (UserConfirmResultEvent(id, ...)): the stream of such a message asks under that id.
    call = ToolUseBlock("c1", "deploy", {}, state=ToolCallState.ASKING)
    results = [ToolResultBlock.suspended(call)] if reason is GenerateReason.TOOL_SUSPENDED else []
    recorded = AssistantMessage(call, *results, metadata={key: "acting-7"}, generate_reason=reason)
    events = events_from_message(recorded)
    [request] = [event for event in events if isinstance(event, event_class)]
    assert request.reply_id == "acting-7"  # type: ignore[attr-defined]
    assert assemble(events) == [recorded]
    # A message that records none asks under an id of its own: for external execution, the acting
    # phase's whose results wait, as Java sends it.  The message states its metadata whole, so its
    # events assemble into a message that records none either.
    unrecorded = AssistantMessage(call, *results, generate_reason=reason)
    events = events_from_message(unrecorded)
    [request] = [event for event in events if isinstance(event, event_class)]
    asked_under: str = request.reply_id  # type: ignore[attr-defined]
    if reason is GenerateReason.TOOL_SUSPENDED:
        [result_start] = [event for event in events if isinstance(event, ToolResultStartEvent)]
        assert asked_under == result_start.reply_id
    assert asked_under and asked_under != "acting-7"
    assert assemble(events) == [unrecorded] and key not in unrecorded.metadata


def test_no_event_states_the_default_reason() -> None:
    events = events_from_message(AssistantMessage("done"))
    assert not any(isinstance(event, (RequestStopEvent, RequireUserConfirmEvent)) for event in events)


def test_a_message_without_id_or_timestamp_comes_back_without_them() -> None:
    msg = AssistantMessage._from_fields(None, None, AssistantMessage._ROLE, [TextBlock("x")], None, None, None)
    events = events_from_message(msg)
    assert isinstance(events[0], AgentStartEvent) and events[0].reply_id  # a reply still needs an id
    assert assemble(events) == [msg]
    assert assemble(events + events_from_message(msg)) == [msg, msg]  # two id-less replies stay apart


def test_source_tags_every_event_as_a_sub_agent_does() -> None:
    events = events_from_message(AssistantMessage("x"), source="main/researcher")
    assert {event.source for event in events} == {"main/researcher"}


def test_the_result_java_ends_a_reply_with_is_added_for_java_clients() -> None:
    msg = AssistantMessage("x", name="Friday", generate_reason=GenerateReason.INTERRUPTED)
    events = events_from_message(msg, with_result=True)
    assert types(events)[-3:] == ["REQUEST_STOP", "AGENT_RESULT", "AGENT_END"]
    result = events[-2]
    assert isinstance(result, AgentResultEvent) and result.result == msg  # what Java's call() reads
    assert assemble(events) == [msg]
    assert not any(isinstance(event, AgentResultEvent) for event in events_from_message(msg))  # by default
    with pytest.raises(ArgumentTypeError, match=r"with_result must be a bool, got 'no' \(str\)"):
        events_from_message(msg, with_result="no")  # type: ignore[arg-type]


def test_wrong_arguments_say_what_is_expected() -> None:
    with pytest.raises(ArgumentValueError, match="chunk_size must be a positive int"):
        events_from_message(AssistantMessage("x"), chunk_size=0)
    with pytest.raises(ArgumentValueError, match="streams assistant replies; got a USER message"):
        events_from_message(UserMessage("x"))
    with pytest.raises(ArgumentTypeError, match="needs an assistant message"):
        events_from_message("x")  # type: ignore[arg-type]


def test_the_default_chunk_size_is_32_characters() -> None:
    events = events_from_message(AssistantMessage("a" * 70))
    assert [len(event.delta or "") for event in events if isinstance(event, TextBlockDeltaEvent)] == [32, 32, 6]


def test_the_usage_is_sent_with_the_first_model_call_only() -> None:
    usage = ChatUsage(10, 20)
    message = AssistantMessage(
        [
            TextBlock("looking"),
            ToolUseBlock("c1", "search", {"q": "x"}),
            ToolResultBlock("c1", "search", [TextBlock("found")]),
            TextBlock("done"),  # a second model call, after the acting phase
        ],
        id="m",
        timestamp="2024-01-01 00:00:00.000",
        usage=usage,
    )
    events = events_from_message(message)
    ends = [event for event in events if type(event) is ModelCallEndEvent]
    assert len(ends) == 2
    assert [end.usage for end in ends] == [usage, None]
    assembler = MessageAssembler()
    assert assembler.feed_all(events) == [message]

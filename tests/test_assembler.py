"""MessageAssembler on the streams AgentScope Java sends: replies, model calls, acting phases,
sub-agents, generate reasons, bare model calls, tool arguments, replays and snapshots."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from read_only import assert_read_only

from agentscope_py import (
    AgentEndEvent,
    ArgumentTypeError,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    AnomalyKind,
    AssembledMessages,
    AssistantMessage,
    Base64Source,
    ChatUsage,
    CustomEvent,
    DataBlock,
    DataBlockDeltaEvent,
    DataBlockEndEvent,
    DataBlockStartEvent,
    ExceedMaxItersEvent,
    GenerateReason,
    HintBlock,
    HintBlockEvent,
    MessageAssembler,
    Msg,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    StreamError,
    TextBlock,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ThinkingBlock,
    ThinkingBlockDeltaEvent,
    ThinkingBlockEndEvent,
    ThinkingBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
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
    assemble,
    events_from_message,
)
from agentscope_py.event._reply_state import CompletedReplies


def text_call(model_call: str, *deltas: str, block_id: str = "text", source: str | None = None) -> list[AgentEvent]:
    """One text block of model call ``model_call``, as Java streams it."""
    return [
        TextBlockStartEvent(model_call, block_id, source=source),
        *(TextBlockDeltaEvent(model_call, block_id, delta, source=source) for delta in deltas),
        TextBlockEndEvent(model_call, block_id, source=source),
    ]


def tool_call(model_call: str, call_id: str, name: str, *fragments: str) -> list[AgentEvent]:
    return [
        ToolCallStartEvent(model_call, call_id, name),
        *(ToolCallDeltaEvent(model_call, call_id, name, fragment) for fragment in fragments),
        ToolCallEndEvent(model_call, call_id, name),
    ]


def react_reply() -> list[AgentEvent]:
    """A ReActAgent reply: think, call a tool, read its result, answer; ids as Java gives them."""
    return [
        AgentStartEvent(None, "R", "Friday"),
        ModelCallStartEvent("M1"),
        ThinkingBlockStartEvent("M1", "thinking"),
        ThinkingBlockDeltaEvent("M1", "thinking", "the user wants "),
        ThinkingBlockDeltaEvent("M1", "thinking", "the weather"),
        ThinkingBlockEndEvent("M1", "thinking"),
        *text_call("M1", "Let me ", "check."),
        *tool_call("M1", "call-1", "get_weather", '{"city":', ' "Paris"}'),
        ModelCallEndEvent("M1", ChatUsage(10, 5, 2, 0.5)),
        ToolResultStartEvent("A1", "call-1", "get_weather"),
        ToolResultTextDeltaEvent("A1", "call-1", "get_weather", "sunny, "),
        ToolResultTextDeltaEvent("A1", "call-1", "get_weather", "21°C"),
        ToolResultDataDeltaEvent("A1", "call-1", "get_weather", DataBlock(URLSource("https://e.com/map.png"), "d1")),
        ToolResultEndEvent("A1", "call-1", "get_weather", ToolResultState.SUCCESS, metadata={"cached": True}),
        ModelCallStartEvent("M2"),
        *text_call("M2", "It is sunny ", "in Paris."),
        ModelCallEndEvent("M2", ChatUsage(20, 7, 0, 0.25)),
        AgentEndEvent("R"),
    ]


def test_a_react_reply_condenses_into_exactly_one_message() -> None:
    messages = assemble(react_reply())
    assert len(messages) == 1
    message = messages[0]
    assert isinstance(message, AssistantMessage)
    assert (message.id, message.name) == ("R", "Friday")
    assert message.content == (
        ThinkingBlock("the user wants the weather"),
        TextBlock("Let me check."),
        ToolUseBlock("call-1", "get_weather", {"city": "Paris"}, '{"city": "Paris"}'),
        ToolResultBlock(
            "call-1",
            "get_weather",
            [TextBlock("sunny, 21°C"), DataBlock(URLSource("https://e.com/map.png"), "d1")],
            {"cached": True},
            ToolResultState.SUCCESS,
        ),
        TextBlock("It is sunny in Paris."),  # block id "text" again, but in another model call
    )
    assert message.usage == ChatUsage(30, 12, 2, 0.75)  # the sum of the model calls
    assert message.get_generate_reason() is GenerateReason.MODEL_STOP
    assert message.metadata == {}
    assert messages.anomalies == ()


def test_one_message_or_event_where_events_are_expected_says_what_to_do() -> None:
    assembler = MessageAssembler()
    assembler.feed(AgentStartEvent(None, "R", "bot"))
    with pytest.raises(ArgumentTypeError, match=r"feed_all takes an iterable of events, got AgentEndEvent.*feed\(event\)"):
        assembler.feed_all(AgentEndEvent("R"))  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"assemble takes an iterable of events, got AssistantMessage.*events_from_message"):
        assemble(AssistantMessage("hi"))  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"assemble takes an iterable of events, got 5 \(int\)$"):
        assemble(5)  # type: ignore[arg-type]
    # Text and documents are iterable, but by character and by key: said, not assembled as unknown events.
    stream = "event: AGENT_END\ndata: {}\n\n"
    for undecoded in (stream, stream.encode()):
        with pytest.raises(ArgumentTypeError, match=r"got .*; agentscope_py\.sse\.parse_events reads an event stream"):
            assemble(undecoded)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"feed_all takes .* got \{'type'.*AgentEvent\.from_dict reads one"):
        assembler.feed_all({"type": "AGENT_END", "replyId": "R"})  # type: ignore[dict-item]
    # A source is a sub-agent's path: anything else is refused, not looked up (a list) or quietly unknown (a number).
    for not_a_source in (["main"], 3):
        with pytest.raises(ArgumentTypeError, match=r"^MessageAssembler\.snapshot source must be a str or None, got "):
            assembler.snapshot(not_a_source)  # type: ignore[arg-type]
    [message] = assembler.feed(AgentEndEvent("R"))  # the refused call changed nothing
    assert message.id == "R"


def test_feed_returns_the_message_when_its_reply_ends() -> None:
    assembler = MessageAssembler()
    events = react_reply()
    *body, end = events
    assert all(assembler.feed(event) == [] for event in body)
    [message] = assembler.feed(end)
    assert message == assemble(events)[0]
    assert assembler.snapshot() is None
    assert assembler.close() == []


def test_text_reopened_in_the_same_model_call_continues_its_block() -> None:
    # Java closes "text" for a tool call and opens it again in the same model call: one text block.
    events = [
        AgentStartEvent(None, "R", "a"),
        *text_call("M1", "Before"),
        *tool_call("M1", "c1", "t", "{}"),
        *text_call("M1", " and after"),
        AgentEndEvent("R"),
    ]
    [message] = assemble(events)
    assert message.content == (TextBlock("Before and after"), ToolUseBlock("c1", "t", {}, "{}"))


def test_distinct_block_ids_give_distinct_blocks() -> None:
    events = [AgentStartEvent(None, "R", "a"), *text_call("M", "one"), *text_call("M", "two", block_id="t2"), AgentEndEvent("R")]
    assert assemble(events)[0].content == (TextBlock("one"), TextBlock("two"))


def test_a_text_and_a_data_block_with_the_same_id_stay_apart() -> None:
    events = [
        AgentStartEvent(None, "R", "a"),
        TextBlockStartEvent("M", "b"),
        DataBlockStartEvent("M", "b"),
        TextBlockDeltaEvent("M", "b", "hi"),
        DataBlockDeltaEvent("M", "b", "AAAA"),
        AgentEndEvent("R"),
    ]
    content = assemble(events)[0].content
    assert content == (TextBlock("hi"), DataBlock(Base64Source("application/octet-stream", "AAAA"), "b"))


def test_bare_model_calls_assemble_one_message_each() -> None:
    events = [
        ModelCallStartEvent("M1"),
        *text_call("M1", "first"),
        ModelCallEndEvent("M1", ChatUsage(1, 1)),
        ModelCallStartEvent("M2"),
        *tool_call("M2", "c", "search", '{"q": "x"}'),
        ModelCallEndEvent("M2", None),
    ]
    messages = assemble(events)
    assert [(m.id, m.name, m.usage) for m in messages] == [("M1", None, ChatUsage(1, 1)), ("M2", None, None)]
    assert messages[0].content == (TextBlock("first"),)
    assert messages[1].content == (ToolUseBlock("c", "search", {"q": "x"}, '{"q": "x"}'),)
    assert messages.anomalies == ()


def test_sub_agent_events_form_their_own_reply_and_never_leak() -> None:
    child = "main/researcher"
    events = [
        AgentStartEvent(None, "R", "main"),
        ModelCallStartEvent("M1"),
        TextBlockStartEvent("M1", "text"),
        AgentStartEvent(None, "S", "researcher", source=child),
        TextBlockDeltaEvent("M1", "text", "parent "),
        TextBlockStartEvent("M1", "text", source=child),  # same reply and block ids, other source
        TextBlockDeltaEvent("M1", "text", "child", source=child),
        TextBlockDeltaEvent("M1", "text", "text", source=None),
        ModelCallEndEvent("M1", ChatUsage(1, 1), source=child),
        AgentEndEvent("S", source=child),
        AgentEndEvent("R"),
    ]
    assembler = MessageAssembler()
    done = [message for event in events for message in assembler.feed(event)]
    assert [(m.id, m.name, m.get_text_content(), m.usage) for m in done] == [
        ("S", "researcher", "child", ChatUsage(1, 1)),
        ("R", "main", "parent text", None),
    ]
    assert assembler.anomalies == ()


def test_snapshot_follows_the_reply_of_the_source_asked_for() -> None:
    assembler = MessageAssembler()
    for event in [
        AgentStartEvent(None, "R", "main"),
        AgentStartEvent(None, "S", "child", source="main/child"),
        *text_call("M", "mine"),
        *text_call("M", "theirs", source="main/child"),
    ]:
        assembler.feed(event)
    parent, child = assembler.snapshot(), assembler.snapshot("main/child")
    assert parent is not None and parent.get_text_content() == "mine"
    assert child is not None and child.get_text_content() == "theirs"
    assert assembler.snapshot("nobody") is None


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (ExceedMaxItersEvent("", 10, 10), GenerateReason.MAX_ITERATIONS),
        (RequireUserConfirmEvent("A", []), GenerateReason.PERMISSION_ASKING),
        (RequireExternalExecutionEvent("A", []), GenerateReason.TOOL_SUSPENDED),
        (RequestStopEvent("budget"), GenerateReason.MIDDLEWARE_STOP_REQUESTED),
        (RequestStopEvent("hook", GenerateReason.REASONING_STOP_REQUESTED), GenerateReason.REASONING_STOP_REQUESTED),
        (AllToolsDeniedEvent([]), GenerateReason.ALL_TOOLS_DENIED),
    ],
)
def test_the_generate_reason_comes_from_the_event_that_states_it(event: AgentEvent, reason: GenerateReason) -> None:
    [message] = assemble([AgentStartEvent(None, "R", "a"), *text_call("M", "x"), event, AgentEndEvent("R")])
    assert message.get_generate_reason() is reason
    # A request to the client has its reply id recorded too, as Java's agent records it in the
    # message it returns, for the resume to answer under.
    requests = {
        GenerateReason.PERMISSION_ASKING: {Msg.METADATA_CONFIRM_REQUEST_REPLY_ID: "A"},
        GenerateReason.TOOL_SUSPENDED: {Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID: "A"},
    }
    assert message.metadata == {AssistantMessage.METADATA_GENERATE_REASON: reason.name, **requests.get(reason, {})}


def test_the_latest_request_of_a_kind_names_the_reply_id_the_message_records() -> None:
    asked = [AgentStartEvent(None, "R", "a"), *text_call("M", "x"), RequireUserConfirmEvent("A1", [])]
    again = [RequireUserConfirmEvent("A2", []), RequireExternalExecutionEvent("B", []), AgentEndEvent("R")]
    assembler = MessageAssembler()
    assembler.feed_all(asked)
    first = assembler.snapshot()
    assert first is not None and first.metadata[Msg.METADATA_CONFIRM_REQUEST_REPLY_ID] == "A1"
    assert assembler.feed(asked[-1]) == [] and assembler.snapshot() is first  # a replay changes nothing
    [message] = assembler.feed_all(again)
    assert message.metadata[Msg.METADATA_CONFIRM_REQUEST_REPLY_ID] == "A2"
    assert message.metadata[Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID] == "B"
    # "" names no request (Java's "no id"); and metadata the producer states (this package's emitters
    # do) is the message's metadata whole: it keeps its own entry, or none.
    *body, end = events_from_message(AssistantMessage("x", metadata={Msg.METADATA_CONFIRM_REQUEST_REPLY_ID: 7}))
    [kept] = assemble([*body, RequireUserConfirmEvent("A3", []), end])
    assert kept.metadata[Msg.METADATA_CONFIRM_REQUEST_REPLY_ID] == 7
    *body, end = events_from_message(AssistantMessage("x", metadata={"trace": "t1"}))
    assembler = MessageAssembler()
    assembler.feed_all([*body, RequireUserConfirmEvent("A4", [])])
    before = assembler.snapshot()
    assembler.feed(RequireUserConfirmEvent("A5", []))
    assert assembler.snapshot() is before  # a request of another id changes nothing the message shows
    [stated] = assembler.feed(end)
    assert Msg.METADATA_CONFIRM_REQUEST_REPLY_ID not in stated.metadata
    [unnamed] = assemble([AgentStartEvent(None, "R", "a"), RequireUserConfirmEvent("", []), AgentEndEvent("R")])
    assert Msg.METADATA_CONFIRM_REQUEST_REPLY_ID not in unnamed.metadata


def test_the_last_event_naming_a_reason_decides() -> None:
    events = [
        AgentStartEvent(None, "R", "a"),
        AllToolsDeniedEvent([]),
        RequestStopEvent("stop", GenerateReason.ACTING_STOP_REQUESTED),
        AgentEndEvent("R"),
    ]
    assert assemble(events)[0].get_generate_reason() is GenerateReason.ACTING_STOP_REQUESTED


@pytest.mark.parametrize("listed_as", [ToolCallState.PENDING, ToolCallState.ASKING])
def test_calls_waiting_for_confirmation_are_asking(listed_as: ToolCallState) -> None:
    # Java lists the calls as the model made them (PENDING) and marks them ASKING in its own final
    # message; a producer that lists them ASKING means the same.
    asking = ToolUseBlock("c1", "rm", {"path": "/"}, state=listed_as)
    events = [
        AgentStartEvent(None, "R", "a"),
        *tool_call("M", "c1", "rm", '{"path": "/"}'),
        *tool_call("M", "c2", "ls", "{}"),
        RequireUserConfirmEvent("A", [asking]),
        RequestStopEvent("permission asking", GenerateReason.PERMISSION_ASKING),
        AgentEndEvent("R"),
    ]
    [message] = assemble(events)
    assert [call.state for call in message.get_content_blocks(ToolUseBlock)] == [ToolCallState.ASKING, ToolCallState.PENDING]
    assert message.get_generate_reason() is GenerateReason.PERMISSION_ASKING


@pytest.mark.parametrize(
    ("fragments", "problem"),
    [(['{"q": ', '"unterminated'], "not valid JSON"), (["[1, ", "2]"], "JSON list, not an object"), (["nul", "l"], "JSON NoneType")],
)
@pytest.mark.parametrize("strict", [False, True])
def test_arguments_that_are_not_a_json_object_keep_their_text(fragments: list[str], problem: str, strict: bool) -> None:
    events = [AgentStartEvent(None, "R", "a"), *tool_call("M", "c1", "search", *fragments), AgentEndEvent("R")]
    result = assemble(events, strict=strict)  # the stream is well-formed: even strict mode gives the message
    [call] = result[0].get_content_blocks(ToolUseBlock)
    assert (call.content, call.input) == ("".join(fragments), {})
    [anomaly] = result.anomalies
    assert anomaly.kind is AnomalyKind.INVALID_TOOL_ARGUMENTS
    assert problem in anomaly.message and "'c1'" in anomaly.message
    assert (anomaly.source, anomaly.reply_id) == (None, "R")


def test_assembled_arguments_are_read_only() -> None:
    fragments = ['{"ids": [1, ', '{"tags": ["a"]}], "o": {"l": []}}']
    events = [AgentStartEvent(None, "R", "a"), *tool_call("M", "c1", "search", *fragments), AgentEndEvent("R")]
    [call] = assemble(events)[0].get_content_blocks(ToolUseBlock)
    assert call.input == {"ids": [1, {"tags": ["a"]}], "o": {"l": []}}
    assert_read_only(call.input)


def test_a_call_without_argument_events_has_no_content() -> None:
    events = [AgentStartEvent(None, "R", "a"), *tool_call("M", "c1", "now"), AgentEndEvent("R")]
    assert assemble(events)[0].content == (ToolUseBlock("c1", "now", {}, None),)


def test_data_block_media_type_comes_from_the_start_event_else_octet_stream() -> None:
    events = [
        AgentStartEvent(None, "R", "a"),
        DataBlockStartEvent("M", "d1", metadata={"agentscope_block": {"media_type": "image/png", "name": "cat.png"}}),
        DataBlockDeltaEvent("M", "d1", "iVBO"),
        DataBlockDeltaEvent("M", "d1", "Rw=="),
        DataBlockEndEvent("M", "d1"),
        DataBlockStartEvent("M", "d2", metadata={"mediaType": "audio/wav"}),  # the name AgentScope's docs use
        DataBlockEndEvent("M", "d2"),
        DataBlockStartEvent("M", "d3"),
        DataBlockEndEvent("M", "d3"),
        AgentEndEvent("R"),
    ]
    assert assemble(events)[0].content == (
        DataBlock(Base64Source("image/png", "iVBORw=="), "d1", "cat.png"),
        DataBlock(Base64Source("audio/wav", ""), "d2"),
        DataBlock(Base64Source("application/octet-stream", ""), "d3"),
    )


def test_hints_and_whole_blocks_take_their_place_in_arrival_order() -> None:
    image = DataBlock(URLSource("https://e.com/a.png", "image/png"), "img")
    events = [
        AgentStartEvent(None, "R", "a"),
        HintBlockEvent("M", "h1", "alice", "be brief"),
        *text_call("M", "ok"),
        CustomEvent("agentscope_content_block", {"replyId": "M", "block": image.to_dict()}),
        CustomEvent("state_updated", {"k": 1}),  # an application event: not content
        AgentResultEvent(None),
        AgentEndEvent("R"),
    ]
    result = assemble(events)
    assert result[0].content == (HintBlock("h1", "be brief", "alice"), TextBlock("ok"), image)
    assert result.anomalies == ()


def test_replaying_from_any_checkpoint_changes_nothing() -> None:
    events = react_reply()
    once = assemble(events)
    for received in range(1, len(events)):
        for checkpoint in range(received):
            # The client got events[:received]; the server replays everything from the checkpoint on.
            result = assemble(events[:received] + events[checkpoint:])
            assert result == once
            assert result.anomalies == ()


def test_events_of_a_completed_reply_are_late_and_dropped() -> None:
    events = react_reply()
    result = assemble(events + events[-4:])
    assert result == assemble(events)
    assert {anomaly.kind for anomaly in result.anomalies} == {AnomalyKind.LATE_EVENT}
    with pytest.raises(StreamError, match="after its reply completed"):
        assemble(events + events[-4:-3], strict=True)


def test_events_without_ids_are_never_taken_for_replays() -> None:
    delta = TextBlockDeltaEvent("M", "text", "ha", id=None)
    events = [AgentStartEvent(None, "R", "a"), TextBlockStartEvent("M", "text"), delta, delta, AgentEndEvent("R")]
    assert assemble(events)[0].get_text_content() == "haha"


def test_snapshot_shows_the_reply_so_far_and_is_cached() -> None:
    assembler = MessageAssembler()
    assert assembler.snapshot() is None
    texts = []
    events = react_reply()
    for event in events[:-1]:
        assembler.feed(event)
        snapshot = assembler.snapshot()
        assert snapshot is not None and snapshot is assembler.snapshot()  # unchanged: the same object
        texts.append(snapshot.get_text_content())
    assert texts[:3] == ["", "", ""]
    assert "Let me check." in texts and texts[-1] == "Let me check.\nIt is sunny in Paris."
    final = assembler.snapshot()
    assert assembler.feed(events[-1]) == [final]


@pytest.mark.parametrize("batched", [False, True], ids=["feed", "feed_all"])
def test_events_that_change_nothing_leave_the_snapshot_the_same_object(batched: bool) -> None:
    # Java sends RequireUserConfirmEvent, then RequestStopEvent with the same reason.
    call = ToolUseBlock("c1", "rm", {})
    assembler = MessageAssembler()
    feed = (lambda event: assembler.feed_all([event])) if batched else assembler.feed
    assembler.feed_all([AgentStartEvent(None, "R", "a"), TextBlockStartEvent("M", "text"), TextBlockDeltaEvent("M", "text", "Hi")])
    assembler.feed_all([ToolCallStartEvent("M", "c1", "rm"), ToolCallDeltaEvent("M", "c1", "rm", "{}")])
    assembler.feed(ToolResultStartEvent("A", "c1", "rm"))
    before = assembler.snapshot()
    for event in [
        TextBlockDeltaEvent("M", "text", ""),
        ToolCallDeltaEvent("M", "c1", "rm", None),
        ToolResultTextDeltaEvent("A", "c1", "rm", None),
        ToolResultDataDeltaEvent("A", "c1", "rm", None),
    ]:
        feed(event)
        assert assembler.snapshot() is before, event
    feed_twice: list[AgentEvent] = [TextBlockDeltaEvent("M", "text", None), TextBlockDeltaEvent("M", "text", "")]
    assembler.feed_all(feed_twice)  # a batch of them, read by the delta runs
    assert assembler.snapshot() is before
    assembler.feed(RequireUserConfirmEvent("A", [call]))
    asking = assembler.snapshot()
    assert asking is not before and asking is not None
    assert asking.get_generate_reason() is GenerateReason.PERMISSION_ASKING
    repeated: list[AgentEvent] = [
        RequestStopEvent("permission asking", GenerateReason.PERMISSION_ASKING),
        RequireUserConfirmEvent("A", [call]),
    ]
    for again in repeated:
        feed(again)
        assert assembler.snapshot() is asking, again
    assembler.feed(ToolCallDeltaEvent("M", "c1", "rm", " "))
    assert assembler.snapshot() is not asking


def test_snapshots_share_the_metadata_while_it_and_the_reason_are_unchanged() -> None:
    # Merged afresh, a reply's metadata and reason would be checked again, value by value, in every
    # snapshot: seconds per reply for a UI taking one per event of a reply with large metadata.
    start = AgentStartEvent(None, "R", "a", metadata={"agentscope_message": {"metadata": {"notes": [1, 2]}}})
    assembler = MessageAssembler()
    assembler.feed_all([start, RequestStopEvent("R", GenerateReason.MAX_ITERATIONS), TextBlockStartEvent("R", "text")])
    before = assembler.snapshot()
    assembler.feed(TextBlockDeltaEvent("R", "text", "hi"))
    after = assembler.snapshot()
    assert before is not None and after is not None and before is not after
    assert after.metadata is before.metadata
    assert after.metadata == {"notes": [1, 2], "agentscope_generate_reason": "MAX_ITERATIONS"}
    assembler.feed(RequestStopEvent("R", GenerateReason.INTERRUPTED))
    changed = assembler.snapshot()
    assert changed is not None and changed.get_generate_reason() is GenerateReason.INTERRUPTED


def test_the_end_event_may_carry_metadata_known_only_at_the_end() -> None:
    # A live reply learns its stop reason last: the end's entry overrides the start's, reason kept.
    start = AgentStartEvent(None, "R", "a", metadata={"agentscope_message": {"metadata": {"trace": "t-1"}}})
    final = {"trace": "t-1", "openai": {"finish_reason": "length"}}
    end = AgentEndEvent("R", metadata={"agentscope_message": {"metadata": final}})
    events = [start, RequestStopEvent("R", GenerateReason.MAX_ITERATIONS), end]
    assembler = MessageAssembler(strict=True)
    assembler.feed_all(events[:2])
    snapshot = assembler.snapshot()
    assert snapshot is not None and snapshot.metadata == {"trace": "t-1", "agentscope_generate_reason": "MAX_ITERATIONS"}
    [message] = assembler.feed(end)
    assert message.metadata == {**final, "agentscope_generate_reason": "MAX_ITERATIONS"}
    assert assemble([AgentEvent.from_json(event.to_json()) for event in events], strict=True) == [message]


def test_a_late_start_events_metadata_reaches_a_snapshot_taken_after_the_reason() -> None:
    # The reason stays the same while the metadata changes: the merged copy of the old must not be reused.
    late_start = AgentStartEvent(None, "R", "a", metadata={"agentscope_message": {"metadata": {"k": "v"}}})
    assembler = MessageAssembler()
    metadata = []
    for event in [
        TextBlockStartEvent("R", "t"),
        TextBlockDeltaEvent("R", "t", "hi"),
        RequestStopEvent("stop", GenerateReason.MAX_ITERATIONS),
        late_start,
    ]:
        assembler.feed(event)
        snapshot = assembler.snapshot()
        assert snapshot is not None
        metadata.append(dict(snapshot.metadata))
    assert metadata[2:] == [
        {"agentscope_generate_reason": "MAX_ITERATIONS"},
        {"k": "v", "agentscope_generate_reason": "MAX_ITERATIONS"},
    ]
    [message] = assembler.feed(AgentEndEvent("R"))
    assert message.metadata == {"k": "v", "agentscope_generate_reason": "MAX_ITERATIONS"}


def test_the_message_timestamp_is_the_start_events_time_in_local_time() -> None:
    start = AgentStartEvent(None, "R", "a", created_at="2026-01-02T03:04:05.678901234Z")
    [message] = assemble([start, AgentEndEvent("R")])
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(1767323045))
    assert message.timestamp == f"{local}.678"
    # The same instant written with an offset, as producers other than Java may.
    for same in ("2026-01-02T05:04:05.678+02:00", "2026-01-02T05:04:05.678+0200", "2026-01-01T22:04:05.678-05:00"):
        [message] = assemble([AgentStartEvent(None, "R", "a", created_at=same), AgentEndEvent("R")])
        assert message.timestamp == f"{local}.678", same
    # A day that does not exist is no instant: the message takes the time it was made, as when none is
    # given, rather than a rolled-over date (February 30th is not March 2nd).
    # Digits of other scripts are not ISO-8601 digits either.
    for no_instant in ("2025-02-30T00:00:00Z", "2026-01-02T24:00:00Z", "yesterday", "\u0662026-01-02T03:04:05Z"):
        [message] = assemble([AgentStartEvent(None, "R", "a", created_at=no_instant), AgentEndEvent("R")])
        made = time.mktime(time.strptime(str(message.timestamp)[:19], "%Y-%m-%d %H:%M:%S"))
        assert abs(made - time.time()) < 60, (no_instant, message.timestamp)


def test_a_year_before_1000_is_written_in_four_digits_as_java_does() -> None:
    start = AgentStartEvent(None, "R", "a", created_at="0999-06-15T12:00:00Z")
    [message] = assemble([start, AgentEndEvent("R")])
    assert re.fullmatch(r"0999-06-1[456] \d\d:\d\d:\d\d\.000", str(message.timestamp)), message.timestamp


def test_assembled_messages_is_a_list_with_anomalies() -> None:
    result = assemble([TextBlockDeltaEvent("M", "text", "orphan")])
    assert type(result) is AssembledMessages
    assert result == [result[0]] and result[0].get_text_content() == "orphan"
    assert [anomaly.kind for anomaly in result.anomalies] == [
        AnomalyKind.OUTSIDE_REPLY,
        AnomalyKind.DELTA_WITHOUT_START,
        AnomalyKind.UNFINISHED_REPLY,
    ]


def test_a_strict_batch_that_fails_keeps_the_messages_it_completed() -> None:
    finished = [AgentStartEvent(None, "R", "a"), *text_call("M", "do", "ne"), AgentEndEvent("R")]
    assembler = MessageAssembler(strict=True)
    with pytest.raises(StreamError, match=r"^AgentEndEvent\(id='[0-9a-f]{32}', reply_id='never-started'\): no such reply is open; dropped"):
        assembler.feed_all([*finished, AgentEndEvent("never-started")])
    [message] = assembler.close()  # or the next feed / feed_all
    assert message.get_text_content() == "done"
    assert assembler.close() == []


def test_feed_all_takes_any_iterable_and_matches_feed() -> None:
    events = react_reply()
    one_by_one = MessageAssembler()
    expected = [message for event in events for message in one_by_one.feed(event)]
    assert MessageAssembler().feed_all(event for event in events) == expected


def test_java_max_iterations_then_a_summary_call() -> None:
    # Java sends ExceedMaxItersEvent with the empty reply id, then a summary model call.
    events = [
        AgentStartEvent(None, "R", "a"),
        *tool_call("M1", "c1", "loop", "{}"),
        ExceedMaxItersEvent("", 3, 3),
        ModelCallStartEvent("M9"),
        *text_call("M9", "Summary."),
        ModelCallEndEvent("M9", ChatUsage(4, 2)),
        AgentEndEvent("R"),
    ]
    result = assemble(events)
    assert result[0].get_generate_reason() is GenerateReason.MAX_ITERATIONS
    assert result[0].get_text_content() == "Summary." and result.anomalies == ()


def test_completed_replies_are_remembered_within_a_bound() -> None:
    completed = CompletedReplies(limit=2)
    completed.add([(None, "R1"), (None, "M1")])
    completed.add([(None, "R2")])
    completed.add([(None, "R3"), (None, "M1")])  # reuses a key of the reply about to be forgotten
    assert (None, "R1") not in completed  # the oldest is forgotten...
    assert (None, "M1") in completed  # ...but not a key a newer reply still holds
    assert (None, "R2") in completed and (None, "R3") in completed


# -- replays in a feed_all run after a mid-run snapshot (``_reply_state``) ---------------------


def test_a_replay_in_a_run_after_a_mid_run_snapshot_keeps_the_text_exact() -> None:
    message = AssistantMessage("abcdef", id="m", timestamp="2024-01-01 00:00:00.000")
    events = events_from_message(message, chunk_size=1)
    deltas = [i for i, event in enumerate(events) if type(event) is TextBlockDeltaEvent]
    assert len(deltas) == 6
    assembler = MessageAssembler()
    seen_mid_run: list[str] = []

    def stream() -> Iterator[AgentEvent]:
        for index, event in enumerate(events):
            yield event
            if index == deltas[2]:  # a, b, c appended by the run: a UI renders it
                snapshot = assembler.snapshot()
                assert snapshot is not None
                seen_mid_run.append(snapshot.get_text_content())
                yield events[deltas[1]]  # "b" again: a replay, which changes nothing

    assert assembler.feed_all(stream()) == [message]
    assert seen_mid_run == ["abc"]
    assert assembler.anomalies == ()


def test_a_replayed_argument_fragment_seen_by_a_snapshot_does_not_leave_the_call_unfinished() -> None:
    call = ToolUseBlock("c1", "search", {"a": [1, 2]}, content='{"a": [1, 2]}')
    message = AssistantMessage([call], id="m", timestamp="2024-01-01 00:00:00.000")
    events = events_from_message(message, chunk_size=4)  # '{"a"', ': [1', ', 2]', '}'
    deltas = [i for i, event in enumerate(events) if type(event) is ToolCallDeltaEvent]
    assert [event.delta for event in events if type(event) is ToolCallDeltaEvent] == ['{"a"', ": [1", ", 2]", "}"]
    assembler = MessageAssembler()

    def stream() -> Iterator[AgentEvent]:
        for index in range(deltas[-1] + 1):  # up to the last fragment; the call is still open
            yield events[index]
            if index == deltas[1]:
                yield events[index]  # ": [1" again: a replay, which changes nothing
                assert assembler.snapshot() is not None  # read the fragments, the replay among them

    assert assembler.feed_all(stream()) == []
    snapshot = assembler.snapshot()
    assert snapshot is not None
    [streamed] = snapshot.get_content_blocks(ToolUseBlock)
    assert streamed.content == '{"a": [1, 2]}' and streamed.input == {"a": [1, 2]}
    assert assembler.feed_all(events[deltas[-1] + 1 :]) == [message]


def test_whitespace_before_the_arguments_does_not_settle_them_as_invalid() -> None:
    # A blank fragment opens nothing: the object after it is the arguments, snapshot after snapshot.
    assembler = MessageAssembler()
    inputs = []
    for event in [
        AgentStartEvent(None, "R", "a"),
        ToolCallStartEvent("R", "c1", "f"),
        ToolCallDeltaEvent("R", "c1", "f", " "),
        ToolCallDeltaEvent("R", "c1", "f", '{"a": 1}'),
    ]:
        assembler.feed(event)
        snapshot = assembler.snapshot()
        assert snapshot is not None
        inputs.append([call.input for call in snapshot.get_content_blocks(ToolUseBlock)])
    assert inputs == [[], [{}], [{}], [{"a": 1}]]


def test_a_replayed_closing_fragment_seen_by_a_snapshot_does_not_settle_the_arguments_as_invalid() -> None:
    # Seen by a snapshot, the replayed "}" made the text '{"a": 1}}', closed and invalid; taken back,
    # it must not leave that verdict behind for the text without it.
    assembler = MessageAssembler()

    def stream() -> Iterator[AgentEvent]:
        yield AgentStartEvent(None, "R", "a")
        yield ToolCallStartEvent("R", "c1", "f")
        yield ToolCallDeltaEvent("R", "c1", "f", '{"a": 1', id="d1")
        yield ToolCallDeltaEvent("R", "c1", "f", "}", id="d2")
        assert assembler.snapshot() is not None
        yield ToolCallDeltaEvent("R", "c1", "f", "}", id="d2")
        assert assembler.snapshot() is not None
        yield ToolCallDeltaEvent("R", "c1", "f", " ", id="d3")

    assert assembler.feed_all(stream()) == []
    snapshot = assembler.snapshot()
    assert snapshot is not None
    [streamed] = snapshot.get_content_blocks(ToolUseBlock)
    assert streamed.content == '{"a": 1} ' and streamed.input == {"a": 1}
    [message] = assembler.feed_all([ToolCallEndEvent("R", "c1", "f"), AgentEndEvent("R")])
    assert message.get_content_blocks(ToolUseBlock)[0].input == {"a": 1}
    assert assembler.anomalies == ()

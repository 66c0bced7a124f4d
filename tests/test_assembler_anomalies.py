"""Streams that break the rules: lenient mode keeps every byte and records what it saw;
strict mode raises StreamError naming the event."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from dataclasses import dataclass

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscope_py import (
    AssistantMessage,
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AnomalyKind,
    Base64Source,
    ChatUsage,
    CustomEvent,
    DataBlock,
    DataBlockDeltaEvent,
    DataBlockStartEvent,
    GenerateReason,
    MessageAssembler,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
    StreamError,
    TextBlock,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ThinkingBlock,
    ThinkingBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultBlock,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultState,
    ToolResultTextDeltaEvent,
    ToolUseBlock,
    assemble,
    events_from_message,
)
from agentscope_py._tool_arguments import parse_tool_arguments


class UnknownEvent(AgentEvent):
    """An event class the assembler has never heard of (a newer producer's, say)."""

    type = None  # type: ignore[assignment]  # concrete, but of no known type


START, END = AgentStartEvent(None, "R", "bot"), AgentEndEvent("R")


@dataclass(frozen=True)
class Case:
    name: str
    events: list[AgentEvent]
    kinds: list[AnomalyKind]  # what lenient mode records, in order
    content: tuple[object, ...]  # what the message holds in lenient mode
    culprit: str  # the event class the strict error names


CASES = [
    Case(
        "delta before its start: the block is created",
        [START, TextBlockDeltaEvent("M", "text", "kept"), END],
        [AnomalyKind.DELTA_WITHOUT_START],
        (TextBlock("kept"),),
        "TextBlockDeltaEvent",
    ),
    Case(
        "delta after its end: the block is reopened",
        [START, TextBlockStartEvent("M", "t"), TextBlockEndEvent("M", "t"), TextBlockDeltaEvent("M", "t", "late"), END],
        [AnomalyKind.DELTA_WITHOUT_START],
        (TextBlock("late"),),
        "TextBlockDeltaEvent",
    ),
    Case(
        "arguments of a call never started",
        [START, ToolCallDeltaEvent("M", "c1", "search", "{}"), END],
        [AnomalyKind.DELTA_WITHOUT_START],
        (ToolUseBlock("c1", "search", {}, "{}"),),
        "ToolCallDeltaEvent",
    ),
    Case(
        "a start after its block's first delta: its name and metadata still apply",
        [
            START,
            ToolResultTextDeltaEvent("A", "c1", None, "sunny"),
            ToolResultStartEvent("A", "c1", "get_weather", metadata={"k": "v"}),
            END,
        ],
        [AnomalyKind.DELTA_WITHOUT_START],
        (ToolResultBlock("c1", "get_weather", TextBlock("sunny"), {"k": "v"}),),
        "ToolResultTextDeltaEvent",
    ),
    Case(
        "a data block's start after its first delta: the media type still applies",
        [START, DataBlockDeltaEvent("M", "d", "QUJD"), DataBlockStartEvent("M", "d", metadata={"mediaType": "image/png"}), END],
        [AnomalyKind.DELTA_WITHOUT_START],
        (DataBlock(Base64Source("image/png", "QUJD"), "d"),),
        "DataBlockDeltaEvent",
    ),
    Case(
        "end of an unknown text block: nothing to keep",
        [START, TextBlockEndEvent("M", "text"), END],
        [AnomalyKind.END_WITHOUT_START],
        (),
        "TextBlockEndEvent",
    ),
    Case(
        "end of an unknown tool call: it carries the call, which is kept",
        [START, ToolCallEndEvent("M", "c1", "search"), END],
        [AnomalyKind.END_WITHOUT_START],
        (ToolUseBlock("c1", "search"),),
        "ToolCallEndEvent",
    ),
    Case(
        "end of an unknown tool result: its state is kept",
        [START, ToolResultEndEvent("A", "c1", "search", ToolResultState.ERROR), END],
        [AnomalyKind.END_WITHOUT_START],
        (ToolResultBlock("c1", "search", state=ToolResultState.ERROR),),
        "ToolResultEndEvent",
    ),
    Case(
        "a block started twice",
        [START, ThinkingBlockStartEvent("M", "thinking"), ThinkingBlockStartEvent("M", "thinking"), END],
        [AnomalyKind.DUPLICATE_START],
        (ThinkingBlock(""),),
        "ThinkingBlockStartEvent",
    ),
    Case(
        "an event of no known class",
        [START, UnknownEvent(), END],
        [AnomalyKind.UNKNOWN_EVENT],
        (),
        "UnknownEvent",
    ),
    Case(
        "a stop request while nothing is open",
        [RequestStopEvent("why"), START, END],
        [AnomalyKind.OUTSIDE_REPLY],
        (),
        "RequestStopEvent",
    ),
    Case(
        "an agent's result while nothing is open",
        [AgentResultEvent(AssistantMessage("done", generate_reason=GenerateReason.INTERRUPTED)), START, END],
        [AnomalyKind.OUTSIDE_REPLY],
        (),
        "AgentResultEvent",
    ),
    Case(
        "a malformed agentscope_block entry: the rest of the event applies",
        [START, DataBlockStartEvent("M", "d", metadata={"agentscope_block": {"media_type": 7}}), END],
        [AnomalyKind.MALFORMED_EVENT],
        (DataBlock(Base64Source("application/octet-stream", ""), "d"),),
        "DataBlockStartEvent",
    ),
    Case(
        "a malformed agentscope_message entry: the rest of the event applies",
        [
            AgentStartEvent(None, "R", "bot", metadata={"agentscope_message": {"id": 5, "timestamp": "2020-01-01 00:00:00.000"}}),
            TextBlockStartEvent("M", "text", metadata={"agentscope_block": "not a mapping"}),
            TextBlockDeltaEvent("M", "text", "kept"),
            END,
        ],
        [AnomalyKind.MALFORMED_EVENT, AnomalyKind.MALFORMED_EVENT],
        (TextBlock("kept"),),
        "AgentStartEvent",
    ),
    Case(
        "a malformed agentscope_message entry on the end: the reply ends all the same",
        [
            START,
            TextBlockStartEvent("M", "text"),
            TextBlockDeltaEvent("M", "text", "kept"),
            AgentEndEvent("R", metadata={"agentscope_message": {"metadata": 5}}),
        ],
        [AnomalyKind.MALFORMED_EVENT],
        (TextBlock("kept"),),
        "AgentEndEvent",
    ),
    Case(
        "an end for a reply that never started",
        [START, AgentEndEvent("other"), END],
        [AnomalyKind.END_WITHOUT_START],
        (),
        "AgentEndEvent",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_lenient_mode_keeps_the_content_and_records_the_anomaly(case: Case) -> None:
    result = assemble(case.events)
    assert [message.content for message in result] == [case.content]
    assert [anomaly.kind for anomaly in result.anomalies] == case.kinds
    assert case.culprit in result.anomalies[0].message
    assert result.anomalies[0].event is not None and type(result.anomalies[0].event).__name__ == case.culprit


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_strict_mode_raises_naming_the_event(case: Case) -> None:
    with pytest.raises(StreamError, match=case.culprit) as raised:
        assemble(case.events, strict=True)
    assert "strict=False" in str(raised.value)  # and says how to get the lenient behaviour


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_strict_mode_skips_the_event_it_raises_for_whole(case: Case) -> None:
    # After each event, strict mode is where lenient mode would be without the events it refused.
    strict, without_refused = MessageAssembler(strict=True), MessageAssembler()
    for event in case.events:
        try:
            done = strict.feed(event)
        except StreamError:
            continue
        assert done == without_refused.feed(event)
        assert strict.snapshot() == without_refused.snapshot()
    assert without_refused.anomalies == ()


def test_a_reply_that_never_ends_is_flushed_by_close() -> None:
    assembler = MessageAssembler()
    for event in [START, TextBlockStartEvent("M", "text"), TextBlockDeltaEvent("M", "text", "cut off")]:
        assert assembler.feed(event) == []
    [message] = assembler.close()
    assert message.content == (TextBlock("cut off"),)
    [anomaly] = assembler.anomalies
    assert anomaly.kind is AnomalyKind.UNFINISHED_REPLY and anomaly.event is None
    assert (anomaly.source, anomaly.reply_id) == (None, "R")
    assert assembler.close() == []  # nothing is open any more

    strict = MessageAssembler(strict=True)
    strict.feed(START)
    with pytest.raises(StreamError, match="reply 'R' of source None never ended"):
        strict.close()
    [message] = strict.close()  # completed all the same: the next call hands it out
    assert (message.id, message.content) == ("R", ())


def test_strict_close_loses_no_message_when_it_raises() -> None:
    def dropped() -> Iterator[AgentEvent]:
        yield from [START, TextBlockStartEvent("M", "text"), TextBlockDeltaEvent("M", "text", "done"), END]
        yield from [AgentStartEvent(None, "R2", "bot"), TextBlockStartEvent("M2", "text")]
        yield TextBlockDeltaEvent("M2", "text", "cut")
        raise ConnectionError("the connection dropped")

    strict = MessageAssembler(strict=True)
    with pytest.raises(ConnectionError):
        strict.feed_all(dropped())
    with pytest.raises(StreamError, match="reply 'R2' of source None never ended"):
        strict.close()
    assert [(m.id, m.get_text_content()) for m in strict.close()] == [("R", "done"), ("R2", "cut")]
    assert strict.close() == []


def test_a_new_start_completes_the_reply_that_never_ended() -> None:
    assembler = MessageAssembler()
    assembler.feed(START)
    assembler.feed(TextBlockDeltaEvent("M", "text", "first"))
    [first] = assembler.feed(AgentStartEvent(None, "R2", "bot"))
    assert first.get_text_content() == "first" and first.id == "R"
    assert [anomaly.kind for anomaly in assembler.anomalies] == [
        AnomalyKind.DELTA_WITHOUT_START,
        AnomalyKind.UNFINISHED_REPLY,
    ]
    [second] = assembler.feed(AgentEndEvent("R2"))
    assert second.id == "R2" and second.content == ()


@pytest.mark.parametrize("batched", [False, True], ids=["feed", "feed_all"])
def test_in_strict_mode_too_a_new_start_completes_the_reply_that_never_ended(batched: bool) -> None:
    # Skipping the start would pour the new reply's events into the old one; instead the start is
    # applied, the error says the old reply was cut, and the old reply comes out of the next call.
    assembler = MessageAssembler(strict=True)
    events = [START, TextBlockStartEvent("M", "text"), TextBlockDeltaEvent("M", "text", "first")]
    with pytest.raises(StreamError, match=r"reply 'R' never ended: AgentStartEvent.* started another one"):
        if batched:
            assembler.feed_all([*events, AgentStartEvent(None, "R2", "bot")])
        else:
            for event in events:
                assembler.feed(event)
            assembler.feed(AgentStartEvent(None, "R2", "bot"))
    [first] = assembler.feed(TextBlockStartEvent("M2", "text"))
    assert (first.id, first.get_text_content()) == ("R", "first")
    assembler.feed(TextBlockDeltaEvent("M2", "text", "second"))
    [second] = assembler.feed(AgentEndEvent("R2"))
    assert (second.id, second.get_text_content()) == ("R2", "second")


def test_an_event_strict_mode_refused_is_applied_when_replayed() -> None:
    # The start of a block is lost, its first delta refused; the server then replays from before
    # the start.  The refused delta must not count as seen: the text comes out whole.
    start, first, second = (
        TextBlockStartEvent("M", "text", id="e1"),
        TextBlockDeltaEvent("M", "text", "Hello ", id="e2"),
        TextBlockDeltaEvent("M", "text", "world", id="e3"),
    )
    for feed_all in (False, True):
        assembler = MessageAssembler(strict=True)
        assembler.feed(START)
        with pytest.raises(StreamError, match="never started; the event is skipped"):
            assembler.feed(first)
        replayed = [start, first, second, END]
        done = assembler.feed_all(replayed) if feed_all else [m for e in replayed for m in assembler.feed(e)]
        assert [m.get_text_content() for m in done] == ["Hello world"]


@pytest.mark.parametrize(
    "early",
    [
        TextBlockDeltaEvent("M2", "text", "second", id="d2"),
        TextBlockEndEvent("M2", "text", id="d2"),
        ToolResultTextDeltaEvent("M2", "c1", None, "sunny", id="d2"),
        CustomEvent("agentscope_content_block", {"replyId": "M2", "block": {"type": "nope"}}, id="d2"),
    ],
    ids=["delta", "end", "tool result delta", "unreadable block"],
)
def test_an_event_of_the_next_reply_strict_mode_refused_leaves_its_model_call_to_that_reply(early: AgentEvent) -> None:
    # It came while the last reply was open, naming a model call no event had named: the reply
    # took the call in, and once it completed, the call's own events in the next reply were late.
    def reply(reply_id: str, call: str, text: str) -> list[AgentEvent]:
        return [
            AgentStartEvent(None, reply_id, "Friday", id=f"{reply_id}-0"),
            ModelCallStartEvent(call, id=f"{reply_id}-1"),
            TextBlockStartEvent(call, "text", id=f"{reply_id}-2"),
            TextBlockDeltaEvent(call, "text", text, id=f"{reply_id}-3"),
            TextBlockEndEvent(call, "text", id=f"{reply_id}-4"),
            ModelCallEndEvent(call, ChatUsage(1, 1), id=f"{reply_id}-5"),
            AgentEndEvent(reply_id, id=f"{reply_id}-6"),
        ]

    first, second = reply("R1", "M1", "first"), reply("R2", "M2", "second")
    assembler, done = MessageAssembler(strict=True), []
    for event in [*first[:-1], early, *first[-1:], *second]:
        try:
            done += assembler.feed(event)
        except StreamError:
            assert event is early
    assert done == assemble(first + second, strict=True)
    assert [(m.get_text_content(), m.usage) for m in done] == [("first", ChatUsage(1, 1)), ("second", ChatUsage(1, 1))]


@pytest.mark.parametrize("batched", [False, True], ids=["feed", "feed_all"])
def test_a_replayed_malformed_event_is_reported_once(batched: bool) -> None:
    # Replaying changes nothing, the anomalies included: each problem is reported when its event first comes.
    events: list[AgentEvent] = [
        AgentStartEvent(None, "R", "bot", metadata={"agentscope_message": {"id": 5}}),
        TextBlockStartEvent("R", "text"),
        TextBlockDeltaEvent("R", "text", "a"),
        CustomEvent("agentscope_content_block", {"replyId": 7, "block": {"type": "text", "text": "x"}}),
    ]
    assembler = MessageAssembler()
    for _ in range(3):  # the stream, then two replays of it
        if batched:
            assembler.feed_all(events)
        else:
            for event in events:
                assembler.feed(event)
    assert [anomaly.kind for anomaly in assembler.anomalies] == [AnomalyKind.MALFORMED_EVENT] * 2
    [message] = assembler.feed(AgentEndEvent("R"))
    assert message.content == (TextBlock("a"), TextBlock("x"))
    # With no reply open, both problems are reported: the replyId, and that it belongs nowhere.
    stray = MessageAssembler()
    stray.feed(events[3])
    assert [anomaly.kind for anomaly in stray.anomalies] == [AnomalyKind.MALFORMED_EVENT, AnomalyKind.OUTSIDE_REPLY]
    with pytest.raises(StreamError, match="replyId must be a string"):
        MessageAssembler(strict=True).feed(events[3])
    # Strict mode skips such an event, so a replay of it is refused again, not dropped as seen.
    strict = MessageAssembler(strict=True)
    for _ in range(2):
        with pytest.raises(StreamError, match="agentscope_message"):
            strict.feed(events[0])


@pytest.mark.parametrize(
    ("events", "lenient", "strict"),
    [
        ([START, TextBlockDeltaEvent("M", "text", "x")], "it is created", "the event is skipped"),
        (
            [START, TextBlockStartEvent("M", "text"), TextBlockEndEvent("M", "text"), TextBlockDeltaEvent("M", "text", "x")],
            "it is reopened",
            "the event is skipped",
        ),
        ([START, ToolCallEndEvent("M", "c", "f")], "it is created", "the event is skipped"),
    ],
)
def test_an_anomaly_says_what_became_of_the_event_in_each_mode(events: list[AgentEvent], lenient: str, strict: str) -> None:
    assert assemble(events).anomalies[0].message.endswith(lenient)  # then the reply never ends
    with pytest.raises(StreamError, match=f"; {strict}; MessageAssembler"):
        assemble(events, strict=True)


@pytest.mark.parametrize("name", ["__internal_plan", None])
def test_a_hidden_tool_call_streamed_without_a_start_as_java_does_is_no_anomaly(name: str | None) -> None:
    # AgentScope Java sends no start or end for a call without a name or named "__...", only its deltas.
    stream = [START, ToolCallDeltaEvent("M", "h1", name, '{"step": 1}'), END]
    for strict in (False, True):
        result = assemble(stream, strict=strict)
        assert [m.content for m in result] == [(ToolUseBlock("h1", name, {"step": 1}, '{"step": 1}'),)]
        assert result.anomalies == ()
    # A visible tool's delta without its start is still out of place.
    assert [a.kind for a in assemble([START, ToolCallDeltaEvent("M", "c", "search", "{}"), END]).anomalies] == [
        AnomalyKind.DELTA_WITHOUT_START
    ]


def test_events_before_their_start_join_the_reply_when_it_starts() -> None:
    events = [TextBlockDeltaEvent("R", "text", "early "), START, TextBlockDeltaEvent("R", "text", "bird"), END]
    result = assemble(events)
    assert [(message.id, message.name, message.get_text_content()) for message in result] == [("R", "bot", "early bird")]
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.OUTSIDE_REPLY, AnomalyKind.DELTA_WITHOUT_START]


def test_a_reply_adopted_by_its_start_takes_the_starts_time() -> None:
    early = TextBlockDeltaEvent("R", "text", "early", created_at="2025-01-01T00:00:00.000Z")
    start = AgentStartEvent(None, "R", "bot", created_at="2025-06-01T12:00:00.000Z")
    (message,) = assemble([early, start, END])
    (started,) = assemble([start, END])
    assert message.timestamp == started.timestamp  # the timestamp is the start's, whatever came before it


def test_a_lonely_model_call_end_keeps_its_usage() -> None:
    result = assemble([ModelCallEndEvent("M", ChatUsage(3, 4))])
    assert [(message.id, message.usage) for message in result] == [("M", ChatUsage(3, 4))]
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.OUTSIDE_REPLY]


def test_feeding_something_that_is_not_an_event_is_an_unknown_event() -> None:
    assembler = MessageAssembler()
    assert assembler.feed("TEXT_BLOCK_DELTA") == []  # type: ignore[arg-type]
    [anomaly] = assembler.anomalies
    assert anomaly.kind is AnomalyKind.UNKNOWN_EVENT and anomaly.event is None
    assert anomaly.message == (
        "'TEXT_BLOCK_DELTA' (str) is not an event this assembler knows; dropped; "
        "decode it first with AgentEvent.from_dict or AgentEvent.from_json"
    )
    assembler.feed(None)  # type: ignore[arg-type]
    assert assembler.anomalies[-1].message == "None (NoneType) is not an event this assembler knows; dropped"


class _TooDeepToHash:
    """Stands for metadata nested too deeply for the stack left: hashing it takes a frame a level."""

    def __hash__(self) -> int:
        raise RecursionError("maximum recursion depth exceeded")


@pytest.mark.parametrize("notes", [["a"], _TooDeepToHash()], ids=["a list", "too deep"])
def test_an_event_that_cannot_be_hashed_is_applied_though_it_cannot_be_recognised_again(notes: object) -> None:
    @attrs.frozen
    class NotedStop(RequestStopEvent):
        notes: object = attrs.field(kw_only=True)

    stop = NotedStop("out of turns", GenerateReason.MAX_ITERATIONS, notes=notes)
    events = [START, stop, END]
    result = assemble(events + [stop])
    assert [m.get_generate_reason() for m in result] == [GenerateReason.MAX_ITERATIONS]
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.OUTSIDE_REPLY]  # not known as late


def test_values_of_classes_made_at_run_time_leave_no_trace_in_the_handler_table() -> None:
    from agentscope_py.event._assembler import _HANDLERS

    before = dict(_HANDLERS)
    assembler = MessageAssembler()
    for index in range(50):  # a mock, say, makes a class per instance
        assembler.feed(type(f"Made{index}", (), {})())
    assert dict(_HANDLERS) == before and len(assembler.anomalies) == 50


def test_an_anomaly_names_an_event_by_the_start_of_a_long_id() -> None:
    long_id = "e" * 1_000_000
    with pytest.raises(StreamError) as info:
        MessageAssembler(strict=True).feed(TextBlockDeltaEvent("M", "text", "x", id=long_id))
    assert f"id={'e' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 500


def test_anomalies_name_long_reply_ids_sources_call_ids_and_states_by_their_start() -> None:
    huge = "r" * 1_000_000
    result = assemble(
        [
            AgentStartEvent(None, huge, "assistant", source=huge),
            ToolCallStartEvent(huge, huge, huge, source=huge, metadata={"agentscope_block": {"state": huge}}),
            ToolCallDeltaEvent(huge, huge, huge, "{oops", source=huge),
            AgentStartEvent(None, "next", "assistant", source=huge),
        ]
    )
    kinds = [anomaly.kind for anomaly in result.anomalies]
    assert kinds == [AnomalyKind.MALFORMED_EVENT, AnomalyKind.INVALID_TOOL_ARGUMENTS, AnomalyKind.UNFINISHED_REPLY, AnomalyKind.UNFINISHED_REPLY]
    for anomaly in result.anomalies:
        assert f"{'r' * 48!r}…(1,000,000 characters)" in anomaly.message and len(anomaly.message) < 600


def test_a_message_fed_as_an_event_says_how_to_stream_it() -> None:
    assembler = MessageAssembler()
    assert assembler.feed(AssistantMessage("hi")) == []  # type: ignore[arg-type]
    [anomaly] = assembler.anomalies
    assert anomaly.kind is AnomalyKind.UNKNOWN_EVENT
    assert anomaly.message.endswith("; events_from_message(msg) gives the events that stream a message")


def test_a_document_fed_undecoded_is_refused_in_strict_mode_saying_how_to_decode_it() -> None:
    with pytest.raises(StreamError, match=r"dropped; decode it first with AgentEvent\.from_dict"):
        MessageAssembler(strict=True).feed({"type": "AGENT_START", "replyId": "r"})  # type: ignore[arg-type]


def test_after_a_strict_error_the_assembler_goes_on() -> None:
    assembler = MessageAssembler(strict=True)
    assembler.feed(START)
    with pytest.raises(StreamError, match=r"^TextBlockEndEvent\(id='[0-9a-f]{32}', reply_id='M', block_id='nope'\): the text block was never started; the end is dropped"):
        assembler.feed(TextBlockEndEvent("M", "nope"))
    assembler.feed(TextBlockStartEvent("M", "text"))
    assembler.feed(TextBlockDeltaEvent("M", "text", "fine"))
    [message] = assembler.feed(END)
    assert message.get_text_content() == "fine"
    assert assembler.anomalies == () and assembler.strict


def test_a_reply_adopted_by_its_start_shows_its_name_in_the_next_snapshot() -> None:
    assembler = MessageAssembler()
    assembler.feed(TextBlockDeltaEvent("R", "text", "early"))
    before = assembler.snapshot()
    assert before is not None and before.name is None
    assembler.feed(START)  # AgentStartEvent(None, "R", "bot"): this is the reply the delta opened
    after = assembler.snapshot()
    assert after is not None and (after.name, after.get_text_content()) == ("bot", "early")


@pytest.mark.parametrize(
    "events",
    [
        [START, ToolResultEndEvent("A", "c1", None, ToolResultState.SUCCESS), ToolResultStartEvent("A", "c1", "search"), END],
        [START, ToolCallEndEvent("M", "c1", None), ToolCallStartEvent("M", "c1", "search"), ToolCallEndEvent("M", "c1", "search"), END],
    ],
    ids=["tool result", "tool call"],
)
def test_a_name_given_by_a_late_start_is_in_the_message_however_often_it_was_rendered(events: list[AgentEvent]) -> None:
    # The end came first and created the block without a name; a snapshot then built it.
    rendered = MessageAssembler()
    messages = []
    for event in events:
        messages += rendered.feed(event)
        rendered.snapshot()
    assert messages == assemble(events)
    assert [block.name for block in messages[0].content] == ["search"]  # type: ignore[attr-defined]


def test_the_latest_open_reply_of_a_source_is_found_among_many() -> None:
    # Bare replies of several sources, interleaved: a source's snapshot is its own latest reply.
    assembler = MessageAssembler()
    for index in range(6):
        source = "a" if index % 2 else None
        assembler.feed(ModelCallStartEvent(f"M{index}", source=source))
        assembler.feed(TextBlockDeltaEvent(f"M{index}", "text", f"reply {index}", source=source))
    assert [assembler.snapshot(s).get_text_content() for s in (None, "a")] == ["reply 4", "reply 5"]  # type: ignore[union-attr]
    assert assembler.snapshot("b") is None
    assembler.feed(ModelCallEndEvent("M4"))
    assembler.feed(ModelCallEndEvent("M5", source="a"))
    assert [assembler.snapshot(s).get_text_content() for s in (None, "a")] == ["reply 2", "reply 3"]  # type: ignore[union-attr]
    assert len(assembler.close()) == 4 and assembler.snapshot() is None and assembler.snapshot("a") is None


def test_anomalies_are_a_snapshot_the_same_until_there_is_another() -> None:
    assembler = MessageAssembler()
    assert not assembler.anomalies and len(assembler.anomalies) == 0
    assembler.feed(TextBlockEndEvent("M", "text"))
    first = assembler.anomalies
    assert assembler.anomalies is first and len(first) == 2  # OUTSIDE_REPLY, END_WITHOUT_START
    assembler.feed(TextBlockEndEvent("M", "other"))
    later: Any = assembler.anomalies  # Any: the checks below are of its run-time behaviour
    # The earlier snapshot is unchanged by later anomalies; each reads as the tuple of its anomalies.
    assert len(first) == 2 and list(first) == list(later[:2]) and later[:2] == first and first == later[:2]
    assert later == tuple(later) and later != list(later) and later != first and later != ("a", "b", "c")
    assert not isinstance(later, tuple)  # a read-only Sequence: tuple(...) makes one
    assert later[-1] is later[2] and later[-3] is later[0] and later[::-1] == tuple(reversed(later))
    assert hash(first) == hash(tuple(first)) and repr(first) == repr(tuple(first))
    for outside in (2, -3):
        with pytest.raises(IndexError):
            first[outside]
    assert [a.kind for a in later] == [AnomalyKind.OUTSIDE_REPLY, AnomalyKind.END_WITHOUT_START, AnomalyKind.END_WITHOUT_START]


def test_a_tool_call_snapshot_shows_no_input_until_its_arguments_are_an_object() -> None:
    # Unfinished arguments are told without parsing them (a snapshot after each fragment must not
    # parse the whole text again); the message holds what they hold, also when the end never came.
    assembler = MessageAssembler()
    assembler.feed(START)
    assembler.feed(ToolCallDeltaEvent("M", "c1", "search", '{"q": "kit'))
    partial = assembler.snapshot()
    assert partial is not None and partial.content == (ToolUseBlock("c1", "search", {}, '{"q": "kit'),)
    assembler.feed(ToolCallDeltaEvent("M", "c1", "search", 'tens"}'))
    assembler.feed(ToolCallDeltaEvent("M", "c2", "search", '{"q": '))
    [message] = assembler.feed(END)
    assert message.content == (
        ToolUseBlock("c1", "search", {"q": "kittens"}, '{"q": "kittens"}'),
        ToolUseBlock("c2", "search", {}, '{"q": '),
    )
    assert [a.kind for a in assembler.anomalies][-1] is AnomalyKind.INVALID_TOOL_ARGUMENTS


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The argument texts the assembler parses, in order (the tests below count them)."""
    from agentscope_py.event import _accumulators

    texts: list[str] = []

    def counted(raw: str) -> Any:
        texts.append(raw)
        return parse_tool_arguments(raw)

    monkeypatch.setattr(_accumulators, "parse_tool_arguments", counted)
    return texts


def _call_streamed(fragments: list[str], ended: bool) -> list[AgentEvent]:
    events = [START, ToolCallStartEvent("M", "c1", "f"), *(ToolCallDeltaEvent("M", "c1", "f", piece) for piece in fragments)]
    return events + ([ToolCallEndEvent("M", "c1", "f"), END] if ended else [END])


def _snapshot_after_each(events: list[AgentEvent]) -> MessageAssembler:
    assembler = MessageAssembler()
    for event in events:
        assembler.feed(event)
        assembler.snapshot()
    return assembler


def test_a_snapshot_after_every_fragment_parses_the_arguments_only_when_they_can_be_whole(parsed: list[str]) -> None:
    # Fragments often end in '}' (an inner object closing): parsing the text so far at each one made
    # rendering a long call live take time quadratic in its arguments.
    call = ToolUseBlock("c1", "f", {"items": [{"i": i, "code": "if (x) { y(); }"} for i in range(200)]})
    assembler = MessageAssembler()
    for event in events_from_message(AssistantMessage(call), chunk_size=3):
        done = assembler.feed(event)
        assembler.snapshot()
    assert done[0].content == (call,)
    # Parsed once the text could be whole (its last fragment), and again at the call's end, which
    # builds it anew: never while something is still open.
    assert len(parsed) == 2 and all(json.loads(raw) == call.input for raw in parsed)


@pytest.mark.parametrize("ended", [True, False], ids=["call ended", "call never ended"])
def test_text_after_closed_arguments_is_parsed_once_while_streaming(parsed: list[str], ended: bool) -> None:
    # Each '}' after the object closed ended a fragment the way whole arguments end: the text so far
    # was parsed at each snapshot, time quadratic in it.  Nothing after a closed value can mend it.
    events = _call_streamed(["[1", "]", *["]"] * 300], ended)
    assembler = _snapshot_after_each(events)
    assert len(parsed) <= 4  # "[1]", "[1]]" (the fault settles), and the whole text once or twice at the end
    [anomaly] = assembler.anomalies
    # The fault as the whole text says it, not as "[1]" did ("a JSON list, not an object").
    assert anomaly.message == assemble(events).anomalies[0].message
    assert "Extra data" in anomaly.message or "trailing" in anomaly.message


@pytest.mark.parametrize("ended", [True, False], ids=["call ended", "call never ended"])
@pytest.mark.parametrize("then", [[], ["x"], ["}"]], ids=["only whitespace", "then a letter", "then a brace"])
def test_whitespace_after_closed_arguments_is_not_parsed_again_while_streaming(
    parsed: list[str], then: list[str], ended: bool
) -> None:
    # JSON whitespace after a closed object leaves the same object: the whole text, parsed and frozen
    # again at each snapshot, took time quadratic in it.  Anything else after it is a fault that settles.
    pieces = ['{"a": [1, 2', "]}", *[" ", "\n"] * 150, *then]
    events = _call_streamed(pieces, ended)
    call = _parsed_few_times_as_without_snapshots(parsed, events)
    assert dict(call.input) == ({} if then else {"a": [1, 2]})
    live = MessageAssembler()  # a snapshot amid the whitespace shows the object it follows
    live.feed_all(events[:100])
    shown = live.snapshot()
    assert shown is not None and shown.get_content_blocks(ToolUseBlock)[0].input == {"a": [1, 2]}


@pytest.mark.parametrize("ended", [True, False], ids=["call ended", "call never ended"])
@pytest.mark.parametrize(
    ("fragments", "then"),
    [([" "] * 300, ['{"a": 1}']), (["1"] * 300, []), (["1"] * 300, [" 2"]), ([" "] * 300, [])],
    ids=["blank, then an object", "a number", "a number, then more", "blank"],
)
def test_arguments_that_open_nothing_are_parsed_once_while_streaming(
    parsed: list[str], fragments: list[str], then: list[str], ended: bool
) -> None:
    # Text that opens no object, array or string ends every fragment the way whole arguments end: it
    # was parsed at each snapshot, time quadratic in it.  Blank text may still become an object, so it
    # is not parsed until it holds a value; text beginning with another value never becomes one.
    events = _call_streamed([*fragments, *then], ended)
    call = _parsed_few_times_as_without_snapshots(parsed, events)
    assert dict(call.input) == ({"a": 1} if then == ['{"a": 1}'] else {})


def _parsed_few_times_as_without_snapshots(parsed: list[str], events: list[AgentEvent]) -> ToolUseBlock:
    """The call ``events`` stream, once checked that a snapshot after each event parsed its arguments
    a few times only, and that the message and what is wrong with it are as without a snapshot: from
    the whole text."""
    assembler = _snapshot_after_each(events)
    assert len(parsed) <= 4
    whole = assemble(events)
    assert [anomaly.message for anomaly in assembler.anomalies] == [anomaly.message for anomaly in whole.anomalies]
    call = whole[0].content[0]
    assert isinstance(call, ToolUseBlock)
    assert call.content == "".join(event.delta or "" for event in events if isinstance(event, ToolCallDeltaEvent))
    return call


def test_what_is_wrong_with_arguments_does_not_depend_on_a_snapshot() -> None:
    # A call built while streaming is built again at its end, when its text is parsed for real.
    events = [START, ToolCallStartEvent("M", "c1", "search"), ToolCallDeltaEvent("M", "c1", "search", '{"q": ["kit"}'),
              ToolCallEndEvent("M", "c1", "search"), END]
    rendered = MessageAssembler()
    for event in events:
        rendered.feed(event)
        rendered.snapshot()
    [plain] = assemble(events).anomalies
    [seen] = rendered.anomalies
    assert seen.message == plain.message and "Expecting ','" in plain.message


# Pieces of argument text that open, close, escape or begin a value other than an object.
_ARGUMENT_PIECES = st.lists(st.sampled_from(["a", "[", "]", "{", "}", '"', "\\", "1", " ", ":", ",", '"k"', '{"a":1}']), min_size=1, max_size=6)


@pytest.mark.parametrize("text", ["[1]", " "], ids=["settled", "blank"])
def test_an_input_given_outright_after_a_snapshot_leaves_no_problem_of_the_text(text: str) -> None:
    # The call's input came whole with its start (after the text, which a snapshot had judged): the
    # block holds it, and nothing is wrong with it, with or without that snapshot.
    given_input = ToolCallStartEvent("M", "c1", "f", metadata={"agentscope_block": {"input": {"a": 1}}})
    events = [START, ToolCallDeltaEvent("M", "c1", "f", text), given_input, END]
    rendered = _snapshot_after_each(events)
    assert rendered.anomalies == assemble(events).anomalies
    assert [a.kind for a in rendered.anomalies] == [AnomalyKind.DELTA_WITHOUT_START]


@given(_ARGUMENT_PIECES, st.booleans())
def test_what_is_wrong_with_streamed_arguments_is_the_same_with_or_without_snapshots(pieces: list[str], ended: bool) -> None:
    # Text settled by an earlier snapshot ("a", a number, a closed list) was parsed again at the
    # reply's end even when what followed left something open: the problem then depended on
    # whether a UI had rendered the call on the way.
    events = _call_streamed(pieces, ended)
    rendered = _snapshot_after_each(events)
    rendered.close()
    assert [a.message for a in rendered.anomalies] == [a.message for a in assemble(events).anomalies]


def test_a_start_after_a_delta_that_reopened_its_block_still_applies() -> None:
    result = assemble([
        START,
        ToolCallStartEvent("M", "c", "search"),
        ToolCallDeltaEvent("M", "c", "search", "{}"),
        ToolCallEndEvent("M", "c", "search"),
        ToolCallDeltaEvent("M", "c", "search", ""),  # reopens the ended call
        ToolCallStartEvent("M", "c", "lookup", metadata={"agentscope_block": {"metadata": {"k": 1}}}),
        ToolCallEndEvent("M", "c", "lookup"),
        END,
    ])
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.DELTA_WITHOUT_START]
    assert result[0].content == (ToolUseBlock("c", "lookup", {}, "{}", metadata={"k": 1}),)


def test_usages_that_sum_past_a_java_int_are_an_anomaly_not_a_crash() -> None:
    usage = ChatUsage(2_000_000_000, 1)
    events = [AgentStartEvent(None, "r1", "bot"), ModelCallEndEvent("r1", usage), ModelCallEndEvent("r1", usage), AgentEndEvent("r1")]
    (message,) = result = assemble(events)
    assert message.usage == usage  # the reply keeps the usage it had
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.MALFORMED_EVENT]
    assert "its usage cannot be added" in result.anomalies[0].message
    with pytest.raises(StreamError, match="its usage cannot be added to the reply's .*the event is skipped"):
        assemble(events, strict=True)


def test_arguments_too_deep_to_store_are_kept_as_text_with_an_anomaly() -> None:
    arguments = '{"a":' * 450 + "1" + "}" * 450
    call = [ToolCallStartEvent("M", "c", "f"), ToolCallDeltaEvent("M", "c", "f", arguments), ToolCallEndEvent("M", "c", "f")]
    result = assemble([START, ModelCallStartEvent("M"), *call, ModelCallEndEvent("M"), END])
    [block] = result[0].content
    assert isinstance(block, ToolUseBlock) and block.content == arguments and block.input == {}
    assert [a.kind for a in result.anomalies] == [AnomalyKind.INVALID_TOOL_ARGUMENTS]
    assert "nested too deeply to store" in result.anomalies[-1].message


def test_a_tool_named_with_one_underscore_is_no_hidden_tool() -> None:
    start, end = AgentStartEvent(None, "R", "bot"), AgentEndEvent("R")
    result = assemble([start, ToolCallDeltaEvent("M", "c", "_private", "{}"), end])
    assert [anomaly.kind for anomaly in result.anomalies] == [AnomalyKind.DELTA_WITHOUT_START]

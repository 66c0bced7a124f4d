"""Properties: every assistant message survives the trip through its events, whatever the
chunking, the JSON wire, a replay from any checkpoint, or a sub-agent streaming alongside."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import assistant_messages

from agentscope_py import (
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AssistantMessage,
    ChatUsage,
    DataBlockDeltaEvent,
    DataBlockStartEvent,
    GenerateReason,
    HintBlockEvent,
    MessageAssembler,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
    RequireUserConfirmEvent,
    StreamError,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolCallState,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
    ToolUseBlock,
    assemble,
    events_from_message,
)

CHUNK_SIZES = st.integers(min_value=1, max_value=40)


@st.composite
def replies(draw: st.DrawFn) -> AssistantMessage:
    """Any assistant message, with any generate reason (or none stated)."""
    message = draw(assistant_messages())
    reason = draw(st.none() | st.sampled_from(GenerateReason))
    return message if reason is None else message.with_generate_reason(reason)


@given(replies(), CHUNK_SIZES, st.booleans())
def test_assembling_the_events_of_a_message_gives_it_back(message: AssistantMessage, chunk_size: int, with_result: bool) -> None:
    result = assemble(events_from_message(message, chunk_size=chunk_size, with_result=with_result))
    assert result == [message]
    assert result.anomalies == ()


@given(replies(), CHUNK_SIZES, st.booleans())
def test_the_events_survive_the_json_wire(message: AssistantMessage, chunk_size: int, with_result: bool) -> None:
    events = events_from_message(message, chunk_size=chunk_size, with_result=with_result)
    assert assemble([AgentEvent.from_json(event.to_json()) for event in events]) == [message]


@given(replies(), CHUNK_SIZES)
def test_the_last_snapshot_is_the_message(message: AssistantMessage, chunk_size: int) -> None:
    *body, end = events_from_message(message, chunk_size=chunk_size)
    assembler = MessageAssembler(strict=True)
    for event in body:
        assembler.feed(event)
        assert isinstance(assembler.snapshot(), AssistantMessage)
    assert assembler.snapshot() == message
    assert assembler.feed(end) == [message]


@given(replies(), CHUNK_SIZES, st.data())
def test_resuming_from_any_checkpoint_gives_the_same_message(
    message: AssistantMessage, chunk_size: int, data: st.DataObject
) -> None:
    events = events_from_message(message, chunk_size=chunk_size)
    received = data.draw(st.integers(min_value=1, max_value=len(events) - 1), label="received before the drop")
    checkpoint = data.draw(st.integers(min_value=0, max_value=received), label="replayed from")
    assert assemble(events[:received] + events[checkpoint:], strict=True) == [message]


@given(replies(), replies(), st.randoms(use_true_random=False))
def test_a_sub_agent_streaming_alongside_never_leaks(parent: AssistantMessage, child: AssistantMessage, random: Any) -> None:
    parent_events = events_from_message(parent, chunk_size=7)
    child_events = events_from_message(child, chunk_size=5, source="main/helper")
    # Interleave the two streams at random, each keeping its own order.
    picks = [0] * len(parent_events) + [1] * len(child_events)
    random.shuffle(picks)
    streams = [iter(parent_events), iter(child_events)]
    merged = [next(streams[pick]) for pick in picks]
    parent_first = merged.index(parent_events[-1]) < merged.index(child_events[-1])
    assert assemble(merged, strict=True) == ([parent, child] if parent_first else [child, parent])


# -- any soup of events: lenient mode never fails, strict mode fails only with StreamError --

_IDS = st.sampled_from(["R", "M", "A", "", "x"]) | st.none()
_DATA_IDS = st.sampled_from(["d1", "d2"])  # a data block without an id gets a fresh one: not comparable
_TEXT = st.text(max_size=4)
_NAMES = _TEXT | st.none()  # a tool's end or delta may name no tool; its start then names it
_SOURCES = st.sampled_from([None, "sub"])


def _event(cls: type[AgentEvent], *fields: st.SearchStrategy[Any]) -> st.SearchStrategy[AgentEvent]:
    return st.builds(lambda source, *values: cls(*values, source=source), _SOURCES, *fields)


_RESULTS = st.none() | st.builds(lambda reason: AssistantMessage("r", generate_reason=reason), st.sampled_from(GenerateReason))
_LISTED_CALLS = st.lists(
    st.builds(lambda call_id, state: ToolUseBlock(call_id, "f", {}, state=state), _IDS, st.sampled_from(ToolCallState)),
    max_size=2,
)


_SOUP = st.lists(
    st.one_of(
        _event(AgentStartEvent, st.none(), _IDS, _TEXT | st.none()),
        _event(AgentEndEvent, _IDS),
        _event(ModelCallStartEvent, _IDS),
        _event(ModelCallEndEvent, _IDS, st.none() | st.builds(ChatUsage, st.integers(0, 9))),
        _event(TextBlockStartEvent, _IDS, _IDS),
        _event(TextBlockDeltaEvent, _IDS, _IDS, _TEXT | st.none()),
        _event(TextBlockEndEvent, _IDS, _IDS),
        _event(DataBlockStartEvent, _IDS, _DATA_IDS),
        _event(DataBlockDeltaEvent, _IDS, _DATA_IDS, _TEXT),
        _event(ToolCallStartEvent, _IDS, _IDS, _NAMES),
        _event(ToolCallDeltaEvent, _IDS, _IDS, _NAMES, st.sampled_from(["{", "}", '"a"', ":1", "[", "x"])),
        _event(ToolCallEndEvent, _IDS, _IDS, _NAMES),
        _event(ToolResultStartEvent, _IDS, _IDS, _NAMES),
        _event(ToolResultTextDeltaEvent, _IDS, _IDS, _NAMES, _TEXT),
        _event(ToolResultEndEvent, _IDS, _IDS, _NAMES, st.none()),
        _event(RequestStopEvent, _TEXT, st.sampled_from(GenerateReason)),
        _event(HintBlockEvent, _IDS, _IDS, _NAMES, _TEXT),
        _event(AgentResultEvent, _RESULTS),
        _event(RequireUserConfirmEvent, _IDS, _LISTED_CALLS),
    ),
    max_size=30,
)


@given(_SOUP.flatmap(lambda events: st.lists(st.sampled_from(events), max_size=40) if events else st.just(events)))
def test_any_stream_assembles_leniently_and_fails_strictly_only_with_stream_error(events: list[AgentEvent]) -> None:
    result = assemble(events)
    assert all(isinstance(message, AssistantMessage) for message in result)
    try:
        strict = assemble(events, strict=True)
    except StreamError:
        return
    assert strict == result


def _feed_strictly(events: list[AgentEvent]) -> tuple[list[AssistantMessage], list[AgentEvent]]:
    """The messages a strict assembler gives for ``events``, and the events it did not skip."""
    assembler, messages, applied = MessageAssembler(strict=True), [], []
    for event in events:
        try:
            messages += assembler.feed(event)
            applied.append(event)
        except StreamError as error:
            if "never ended" in str(error):  # about the reply it completed: the event was applied
                applied.append(event)
    try:
        messages += assembler.close()
    except StreamError:  # the replies that never ended, completed all the same
        messages += assembler.close()
    return messages, applied


@given(_SOUP.flatmap(lambda events: st.lists(st.sampled_from(events), max_size=40) if events else st.just(events)))
def test_an_event_strict_mode_skips_leaves_no_trace(events: list[AgentEvent]) -> None:
    # Feeding only the events strict mode applied gives the same messages: a skipped event changed nothing.
    messages, applied = _feed_strictly(events)
    assert _feed_strictly(applied)[0] == messages


@given(
    _SOUP.flatmap(lambda events: st.lists(st.sampled_from(events), max_size=60) if events else st.just(events)),
    st.integers(min_value=0, max_value=60),
)
def test_feed_all_cut_off_then_replayed_is_feed_in_a_loop(events: list[AgentEvent], cut: int) -> None:
    # A live stream that raises partway (a dropped connection), then replayed whole on resuming:
    # nothing applied twice, no completed message lost.
    one_by_one = MessageAssembler()
    expected = [message for event in [*events[:cut], *events] for message in one_by_one.feed(event)]
    expected += one_by_one.close()

    def dropped() -> Iterator[AgentEvent]:
        yield from events[:cut]
        raise ConnectionError("the connection dropped")

    resumed = MessageAssembler()
    with pytest.raises(ConnectionError):
        resumed.feed_all(dropped())
    assert resumed.feed_all(events) + resumed.close() == expected
    assert resumed.anomalies == one_by_one.anomalies


@given(_SOUP.flatmap(lambda events: st.lists(st.sampled_from(events), max_size=60) if events else st.just(events)))
def test_feed_all_is_feed_in_a_loop(events: list[AgentEvent]) -> None:
    # feed_all appends runs of deltas in one loop; replays inside a run must still change nothing.
    one_by_one = MessageAssembler()
    expected = [message for event in events for message in one_by_one.feed(event)]
    at_once = MessageAssembler()
    assert at_once.feed_all(events) == expected
    assert at_once.anomalies == one_by_one.anomalies
    assert at_once.snapshot() == one_by_one.snapshot()
    assert at_once.close() == one_by_one.close()


@given(_SOUP.flatmap(lambda events: st.lists(st.sampled_from(events), max_size=60) if events else st.just(events)))
def test_snapshots_taken_inside_feed_all_change_nothing(events: list[AgentEvent]) -> None:
    # A UI rendering from the iterator feed_all reads: the snapshots it takes in the middle of a run
    # of deltas must not leave a stale block behind, even when the run holds replays.
    one_by_one = MessageAssembler()
    expected = [message for event in events for message in one_by_one.feed(event)]
    rendering = MessageAssembler()

    def live() -> Iterator[AgentEvent]:
        for event in events:
            yield event
            rendering.snapshot()

    assert rendering.feed_all(live()) == expected
    assert rendering.snapshot() == one_by_one.snapshot()
    assert rendering.close() == one_by_one.close()


@given(replies(), CHUNK_SIZES)
def test_a_snapshot_inside_feed_all_is_the_reply_so_far(message: AssistantMessage, chunk_size: int) -> None:
    events = events_from_message(message, chunk_size=chunk_size)
    one_by_one = MessageAssembler()
    expected = []
    for event in events:
        one_by_one.feed(event)
        expected.append(one_by_one.snapshot())
    rendering = MessageAssembler()
    screens = []

    def live() -> Iterator[AgentEvent]:
        for event in events:
            yield event
            screens.append(rendering.snapshot())

    assert rendering.feed_all(live()) == [message]
    # The iterator resumes once the event it yielded is applied: each screen shows the events so far.
    assert screens == expected

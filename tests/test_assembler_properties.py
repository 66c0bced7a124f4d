"""Properties: every assistant message survives the trip through its events, whatever the
chunking, the JSON wire, a replay from any checkpoint, or a sub-agent streaming alongside."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from event_strategies import EventStream, event_soups, event_streams, replies
from hypothesis import event, given
from hypothesis import strategies as st

from agentscope_py import (
    AgentEvent,
    AnomalyKind,
    AssistantMessage,
    MessageAssembler,
    StreamError,
    assemble,
    events_from_message,
)

CHUNK_SIZES = st.integers(min_value=1, max_value=40)


@given(replies(), CHUNK_SIZES, st.booleans())
def test_assembling_the_events_of_a_message_gives_it_back(message: AssistantMessage, chunk_size: int, with_result: bool) -> None:
    result = assemble(events_from_message(message, chunk_size=chunk_size, with_result=with_result))
    assert result == [message]
    assert [assembled.to_json() for assembled in result] == [message.to_json()]  # == takes 1 for true
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


# -- any stream: lenient mode never fails, strict mode fails only with StreamError, and only on an anomaly --


def _label(stream: EventStream) -> None:
    """What the stream is made of, for ``--hypothesis-show-statistics``."""
    if stream.well_formed:
        event(f"stream: well-formed, {len(stream.parts)} message(s), {len(stream.mutations)} change(s)")
    else:
        event("stream: soup")
    for part in sorted(set(stream.parts) - {"soup"}):
        event(f"holds: {part}")
    for mutation in sorted(set(stream.mutations)):
        event(f"changed: {mutation}")


@given(event_streams())
def test_any_stream_assembles_leniently_and_fails_strictly_only_with_stream_error(stream: EventStream) -> None:
    events = stream.events
    _label(stream)
    result = assemble(events)
    assert all(isinstance(message, AssistantMessage) for message in result)
    if stream.messages is not None:  # well formed, perhaps with replays: every message, no anomaly
        assert result == stream.messages
        assert result.anomalies == ()
    # Strict mode raises on every anomaly but invalid tool arguments (docs/events.md).
    breaks_the_rules = any(anomaly.kind is not AnomalyKind.INVALID_TOOL_ARGUMENTS for anomaly in result.anomalies)
    try:
        strict = assemble(events, strict=True)
    except StreamError:
        event("outcome: strict mode raised")
        assert breaks_the_rules, result.anomalies
        return
    assert not breaks_the_rules, result.anomalies
    event("outcome: strict mode accepted " + ("no events" if not events else "no message" if not strict else "messages"))
    assert strict == result
    if stream.messages is not None:
        assert strict == stream.messages


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


@given(event_streams(anomalous=True))
def test_an_event_strict_mode_skips_leaves_no_trace(stream: EventStream) -> None:
    # Feeding only the events strict mode applied gives the same messages: a skipped event changed
    # nothing. And strict mode skips none of them then.
    _label(stream)
    messages, applied = _feed_strictly(stream.events)
    skipped = len(stream.events) - len(applied)
    event("outcome: " + ("skipped events" if skipped else "skipped none") + (", messages" if messages else ", no message"))
    assert _feed_strictly(applied) == (messages, applied)


@given(
    event_soups(max_size=60),
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


@given(event_soups(max_size=60))
def test_feed_all_is_feed_in_a_loop(events: list[AgentEvent]) -> None:
    # feed_all appends runs of deltas in one loop; replays inside a run must still change nothing.
    one_by_one = MessageAssembler()
    expected = [message for event in events for message in one_by_one.feed(event)]
    at_once = MessageAssembler()
    assert at_once.feed_all(events) == expected
    assert at_once.anomalies == one_by_one.anomalies
    assert at_once.snapshot() == one_by_one.snapshot()
    assert at_once.close() == one_by_one.close()


@given(event_soups(max_size=60))
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

"""Replay detection in long replies: a set first, then rising ids, and back to a set when ids stop rising.

Every case is checked against the one rule: an id recorded before is a replay, any other id is new.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from agentscope_py import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    AssistantMessage,
    MessageAssembler,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    assemble,
    events_from_message,
)
from agentscope_py.event._seen_ids import RISING_AFTER, SeenIds

LONG = RISING_AFTER * 3


def mode(seen: SeenIds) -> str:
    """Whether ``seen`` keeps every id in one set, or takes rising ids without a lookup."""
    return "set" if seen._rising is None else "rising"


def rising_ids(count: int, start: int = 1_000) -> list[str]:
    return [f"id{number:012d}" for number in range(start, start + count)]


def test_single_ids_past_the_set_size_still_recognise_every_replay() -> None:
    seen, ids = SeenIds(), rising_ids(LONG)
    assert all(seen.first_sight(event_id) for event_id in ids)
    assert len(seen._table) == RISING_AFTER + 1 and seen._rising == ids[RISING_AFTER + 1 :]  # the two parts
    # Replays from the set part, the rising part, and the last id: all recognised, none recorded twice.
    for event_id in (ids[0], ids[RISING_AFTER // 2], ids[RISING_AFTER + 5], ids[-2], ids[-1]):
        assert not seen.first_sight(event_id)
    assert seen.first_sight(rising_ids(1, start=10**9)[0])


def test_in_tells_a_recorded_id_without_recording_one() -> None:
    seen, ids = SeenIds(), rising_ids(LONG)
    for event_id in ids[: LONG // 2]:
        seen.first_sight(event_id)
    assert mode(seen) == "rising" and ids[RISING_AFTER + 5] in (seen._rising or []) and ids[0] in seen._table
    # Recorded in the set (before ids rose) and in the rising list after: both found; the rest not, and not recorded.
    assert ids[0] in seen and ids[RISING_AFTER + 5] in seen and ids[LONG // 2 - 1] in seen
    assert ids[LONG // 2] not in seen and "id" not in seen and ids[-1] not in seen
    assert all(seen.first_sight(event_id) for event_id in ids[LONG // 2 :])


def test_a_new_id_below_the_highest_goes_back_to_one_set_and_loses_nothing() -> None:
    seen, ids = SeenIds(), rising_ids(LONG, start=2_000)
    for event_id in ids:
        seen.first_sight(event_id)
    assert mode(seen) == "rising"
    low = rising_ids(1, start=5)[0]  # new, but below every id so far
    assert seen.first_sight(low)
    assert mode(seen) == "set" and seen._table == {*ids, low}  # one set again, holding every id
    assert not seen.first_sight(low)
    assert not any(seen.first_sight(event_id) for event_id in ids)
    assert seen.first_sight(rising_ids(1, start=10**9)[0])


def test_runs_are_taken_whole_only_when_every_id_is_new() -> None:
    seen, ids = SeenIds(), rising_ids(LONG)
    assert seen.take_run(list(ids[:10]))  # a set: small
    assert seen.take_run(list(ids[10:LONG - 10]))  # long: rising from here on
    assert seen.take_run([])
    assert not seen.take_run([ids[LONG - 10], ids[LONG - 9], ids[LONG - 9]])  # a repeat within the run
    assert not seen.take_run([ids[LONG - 10], ids[5]])  # one seen before (the set part)
    assert not seen.take_run([ids[LONG - 10], ids[20]])  # one seen before (the rising part)
    assert not seen.take_run([ids[LONG - 10], None])  # an event without an id
    assert not seen.take_run([ids[LONG - 11], ids[LONG - 10]])  # one seen before leads: a replay
    # Nothing above was recorded: the ten are still new, one at a time.
    assert all(seen.first_sight(event_id) for event_id in ids[LONG - 10 : LONG - 4])
    assert not seen.first_sight(ids[LONG - 10])
    # New ids out of rising order (random ones) are taken at once all the same, in the set.
    assert seen.take_run([ids[LONG - 1], ids[LONG - 3], ids[LONG - 4]])
    assert not seen.first_sight(ids[LONG - 3]) and not seen.first_sight(ids[0]) and not seen.first_sight(ids[500])
    assert seen.first_sight(ids[LONG - 2]) and not seen.take_run([ids[LONG - 2]])


@pytest.mark.parametrize("kind", ["rising", "random"])
def test_matches_a_plain_set_on_long_mixed_sequences(kind: str) -> None:
    rng = random.Random(7)
    pool = rising_ids(LONG) if kind == "rising" else [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(LONG)]
    seen, reference = SeenIds(), set[str]()
    position = 0
    while position < len(pool):
        size = rng.choice([1, 1, 5, 200, 3000])
        run: list[str | None] = list(pool[position : position + size])
        position += size
        if rng.random() < 0.2 and reference:  # a replay of a few ids already recorded
            run[rng.randrange(len(run)) :] = rng.sample(sorted(reference), min(3, len(reference)))
        if size == 1:
            event_id = run[0]
            assert event_id is not None
            assert seen.first_sight(event_id) == (event_id not in reference)
            reference.add(event_id)
        elif seen.take_run(run):
            assert len(set(run)) == len(run) and reference.isdisjoint(run)
            reference.update(event_id for event_id in run if event_id is not None)
        else:
            for event_id in run:
                assert event_id is not None
                assert seen.first_sight(event_id) == (event_id not in reference)
                reference.add(event_id)


def long_reply(ids: list[str]) -> list[AgentEvent]:
    return [
        AgentStartEvent(None, "R", "a"),
        TextBlockStartEvent("M", "text"),
        *(TextBlockDeltaEvent("M", "text", f"{index},", id=event_id) for index, event_id in enumerate(ids)),
        TextBlockEndEvent("M", "text"),
        AgentEndEvent("R"),
    ]


@pytest.mark.parametrize("kind", ["rising", "random"])
def test_a_long_reply_replayed_from_checkpoints_assembles_the_same_message(kind: str) -> None:
    rng = random.Random(11)
    ids = rising_ids(LONG) if kind == "rising" else [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(LONG)]
    events = long_reply(ids)
    once = assemble(events)
    assert once[0].get_text_content() == "".join(f"{index}," for index in range(LONG))
    for received, checkpoint in ((LONG // 2, 3), (LONG - 5, RISING_AFTER + 7), (LONG, LONG - 1)):
        replayed = assemble(events[:received] + events[checkpoint:])
        assert replayed == once and replayed.anomalies == ()


@pytest.mark.parametrize("count", [3, RISING_AFTER + 5, LONG], ids=["set", "just rising", "long rising"])
def test_forget_unrecords_the_id_recorded_last(count: int) -> None:
    # An event refused in strict mode is forgotten, so that its replay is applied.
    seen = SeenIds()
    ids = rising_ids(count)
    for event_id in ids:
        assert seen.first_sight(event_id)
    assert mode(seen) == ("rising" if count > RISING_AFTER + 1 else "set")
    seen.forget(ids[-1])
    assert ids[-1] not in seen
    assert seen.first_sight(ids[-1])  # new again
    assert not seen.first_sight(ids[-1]) and not seen.first_sight(ids[0])
    assert seen.first_sight(rising_ids(1, start=10_000_000)[0])  # and ids still rise after it


def test_forget_the_only_rising_id_goes_back_to_the_highest_in_the_set() -> None:
    seen = SeenIds()
    before = rising_ids(RISING_AFTER + 1)
    assert seen.take_run([*before])  # the set, then rising ids from here on
    after = rising_ids(1, start=5_000)[0]
    assert seen.first_sight(after)
    seen.forget(after)
    assert not seen.first_sight(before[-1])
    assert seen.first_sight(after)
    assert not seen.first_sight(after)


def test_a_replay_among_rising_ids_keeps_the_rising_ids_fast_path() -> None:
    seen, ids = SeenIds(), rising_ids(LONG)
    assert seen.take_run(list(ids[: RISING_AFTER * 2]))
    # A new id above the highest, then one seen before: a replay, not ids that stopped rising.
    assert not seen.take_run([ids[RISING_AFTER * 2], ids[5]])
    assert seen._rising is not None  # still taken without a table lookup
    assert seen.take_run(list(ids[RISING_AFTER * 2 :])) and not seen.first_sight(ids[-1])


class _Unwalkable(list[str]):
    def __iter__(self) -> Any:
        raise AssertionError("walked every id since the ids began to rise")


def test_a_short_run_holding_a_replay_is_checked_without_walking_every_rising_id() -> None:
    # Walking them for each such run (at-least-once delivery of rising ids) made a stream quadratic.
    seen, ids = SeenIds(), rising_ids(LONG)
    assert seen.take_run(list(ids[: RISING_AFTER * 2]))
    seen._rising = _Unwalkable(seen._rising or [])
    replayed = ids[RISING_AFTER + 500]  # among the rising ids, not in the set from before
    for new in ids[RISING_AFTER * 2 : RISING_AFTER * 2 + 50]:
        assert not seen.take_run([new, replayed])  # the caller then goes event by event
        assert seen.first_sight(new) and not seen.first_sight(replayed)
    assert isinstance(seen._rising, _Unwalkable)  # still rising


def test_a_long_run_of_random_ids_leaves_rising_ids_at_once() -> None:
    seen = SeenIds()
    assert seen.take_run(list(rising_ids(RISING_AFTER + 10)))
    randoms = [uuid.UUID(int=random.getrandbits(128)).hex for _ in range(5_000)]
    assert seen.take_run(list(randoms)) and seen._rising is None
    assert not any(map(seen.first_sight, randoms[::97])) and seen.first_sight("zz-new")


def test_forget_the_only_rising_id_after_single_ids_keeps_the_highest_of_the_set() -> None:
    seen = SeenIds()
    ids = rising_ids(RISING_AFTER + 1)
    assert all(seen.first_sight(event_id) for event_id in ids)
    after = rising_ids(1, start=10**9)[0]
    assert seen.first_sight(after) and seen._rising == [after]
    seen.forget(after)
    assert seen._rising == [] and seen._highest == ids[-1]
    assert not seen.first_sight(ids[-1])  # a replay of the highest id in the set
    assert seen.first_sight(after)


def test_a_replay_right_after_the_switch_to_rising_ids_is_dropped() -> None:
    # A reply keeps its first 1024 ids in a set, then takes rising ids without a lookup.  Whichever
    # event crosses that size, a replay of an earlier event right after it must change nothing.
    message = AssistantMessage("x" * 1100, id="m", timestamp="2024-01-01 00:00:00.000")
    events = events_from_message(message, chunk_size=1)
    first_delta = next(event for event in events if type(event) is TextBlockDeltaEvent)
    modes = set()
    for cut in range(1015, 1035):
        assembler = MessageAssembler()
        for event in events[:cut]:
            assembler.feed(event)
        modes.add(mode(assembler._agent_replies[None].seen))
        assert assembler.feed(first_delta) == []  # replayed
        done: list[AssistantMessage] = []
        for event in events[cut:]:
            done += assembler.feed(event)
        assert done == [message], f"replay after {cut} events"
        assert assembler.anomalies == ()
    assert modes == {"set", "rising"}  # the cuts fall on both sides of the switch

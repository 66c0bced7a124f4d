"""EventLog: a stream being produced, followed by clients that come, go and come back."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time

import attrs
import pytest
from sse_server import EVENTS, LogServer, serve_log

from agentscope_py import AgentEvent, ArgumentTypeError, ArgumentValueError, StreamError
from agentscope_py.event import ReplyEmitter, assemble
from agentscope_py.sse import AsyncResumableEventStream, EventLog, ResumableEventStream, encode_events

TIMEOUT = 5.0
PART = EVENTS[:50]


def _log(events: list[AgentEvent], *, closed: bool = True) -> EventLog:
    log = EventLog()
    log.add(events)
    if closed:
        log.close()
    return log


@pytest.mark.parametrize("resume_at", [None, 0, 10, 49, "unknown"])
def test_a_follower_gets_the_events_after_its_last_one(resume_at: int | str | None) -> None:
    last = PART[resume_at].id if isinstance(resume_at, int) else resume_at
    expected = PART[resume_at + 1 :] if isinstance(resume_at, int) else PART  # an id never logged: everything
    log = _log(PART)
    assert list(log.follow(last)) == expected

    async def followed() -> list[AgentEvent]:
        return [event async for event in log.afollow(last)]

    assert asyncio.run(followed()) == expected
    assert log.events == tuple(PART) and log.closed


def test_blocking_followers_get_each_event_as_it_is_added_from_another_thread() -> None:
    log = EventLog()
    received: list[list[AgentEvent]] = [[], [], []]

    def follow(into: list[AgentEvent], last: str | None) -> None:
        into.extend(log.follow(last))

    log.add(PART[:5])
    readers = [threading.Thread(target=follow, args=(into, last), daemon=True)
               for into, last in zip(received, [None, PART[2].id, PART[4].id])]
    for reader in readers:
        reader.start()
    for event in PART[5:]:
        log.add([event])
    log.close()
    for reader in readers:
        reader.join(TIMEOUT)
    assert not any(reader.is_alive() for reader in readers)
    assert received == [PART, PART[3:], PART[5:]]


def test_asyncio_followers_wake_for_events_added_in_the_loop_and_from_threads() -> None:
    log = _log(PART[:1], closed=False)

    async def produce_in_the_loop() -> None:
        for event in PART[1:25]:
            await asyncio.sleep(0)
            log.add([event])

    def produce_in_a_thread() -> None:
        for event in PART[25:]:
            time.sleep(0.001)
            log.add([event])
        log.close()

    async def main() -> list[list[AgentEvent]]:
        followers = [asyncio.create_task(_collect(log, last)) for last in (None, None, PART[0].id)]
        await produce_in_the_loop()
        await asyncio.to_thread(produce_in_a_thread)
        return await asyncio.wait_for(asyncio.gather(*followers), TIMEOUT)

    assert asyncio.run(main()) == [PART, PART, PART[1:]]


async def _collect(log: EventLog, last: str | None) -> list[AgentEvent]:
    return [event async for event in log.afollow(last)]


def test_a_cancelled_asyncio_follower_leaves_no_waiter_behind() -> None:
    log = _log(PART[:3], closed=False)

    async def main() -> None:
        follower = asyncio.create_task(_collect(log, PART[2].id))
        await asyncio.sleep(0.01)  # it waits for an event
        follower.cancel()
        with pytest.raises(asyncio.CancelledError):
            await follower
        assert log._waiters == {}
        log.add(PART[3:4])  # nothing to wake, nothing raised
        log.close()

    asyncio.run(main())


def test_a_reply_being_produced_is_resumed_by_a_client_through_its_log() -> None:
    # A producer thread adds a ReplyEmitter's events while a client reads them over SSE, is cut
    # off twice and comes back with its Last-Event-ID; the server follows the log from there.
    log = EventLog()
    reply = ReplyEmitter("Friday")
    words = [f"word{n} " for n in range(300)]

    def produce() -> None:
        try:
            for word in words:
                log.add(reply.text(word))
                time.sleep(0.0005)
            log.add(reply.finish())
        finally:
            log.close()

    state = LogServer(log, cut_after=[40, 120])
    with serve_log(state):
        producer = threading.Thread(target=produce, daemon=True)
        producer.start()
        client = ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001)
        received = list(client)
        producer.join(TIMEOUT)
    assert received == list(log.events) and client.reconnects == 2
    assert assemble(received) == [reply.message] and reply.message.get_text_content() == "".join(words)
    ids = [event.id for event in received]
    assert [ids.index(last) for last in state.last_event_ids[1:] if last] == [38, 157]  # each drop in the middle of a message


def test_add_and_follow_check_their_arguments() -> None:
    log = EventLog()
    with pytest.raises(ArgumentTypeError, match=r"takes an iterable of events, got one event; add\(\[event\]\)"):
        log.add(PART[0])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"EventLog.add takes AgentEvents, got 'data: x' \(str\) at \[1\]"):
        log.add([PART[0], "data: x"])  # type: ignore[list-item]
    assert log.events == ()  # a refused batch adds nothing
    # An id read from JSON may hold what an SSE id field cannot: refused to the producer, not to
    # each follower in the middle of its response.
    for id, why in [("e2\nretry: 1", "a line break"), ("e\0", "NUL"), ("e\ud800", "a lone surrogate")]:
        unsendable = attrs.evolve(PART[1], id=id)
        with pytest.raises(ArgumentValueError, match=rf"^EventLog.add: the event at \[1\] cannot be sent: an SSE id cannot contain {why}"):
            log.add([PART[0], unsendable])
    # One a client cannot send back as it is: the log would never find where that client stopped.
    for id in [" e2", "e2\t", "e\x01", ""]:
        unreturnable = attrs.evolve(PART[1], id=id)
        with pytest.raises(ArgumentValueError, match=r"^EventLog.add: the event at \[1\] has the id .*, which a client cannot send back"):
            log.add([PART[0], unreturnable])
    assert log.events == ()
    with pytest.raises(ArgumentTypeError, match="EventLog.follow last_event_id must be a str or None"):
        log.follow(5)  # type: ignore[arg-type]
    log.close()
    log.close()  # again: nothing
    with pytest.raises(StreamError, match="this EventLog is closed: start a new one"):
        log.add(PART[:1])


def test_a_follower_whose_event_loop_closed_does_not_trouble_the_producer() -> None:
    log = _log(PART[:1], closed=False)
    loop = asyncio.new_event_loop()
    task = loop.create_task(_collect(log, PART[0].id))
    task._log_destroy_pending = False  # type: ignore[attr-defined]  # left pending on purpose: no warning
    loop.run_until_complete(asyncio.sleep(0.01))  # it waits for an event
    assert sum(map(len, log._waiters.values())) == 1
    loop.close()  # abandoned, as a crashed server thread leaves it
    log.add(PART[1:2])  # no RuntimeError from the closed loop
    log.close()
    assert list(log.follow()) == PART[:2] and log._waiters == {}


def test_the_log_writes_a_clients_stream_with_keep_alives_while_it_waits() -> None:
    log = _log(PART[:3], closed=False)
    written: list[str] = []

    def serve() -> None:
        written.extend(log.encode_events(PART[0].id, retry=10, keep_alive=0.02))

    request = threading.Thread(target=serve, daemon=True)
    request.start()
    time.sleep(0.15)  # the producer thinks: the client gets keep-alives, not a closed stream
    log.add(PART[3:5])
    log.close()
    request.join(TIMEOUT)
    keep_alives = written.count(": keep-alive\n\n")
    assert keep_alives >= 2
    assert [text for text in written if text != ": keep-alive\n\n"] == list(encode_events(PART[:5], last_event_id=PART[0].id, retry=10))


def test_asyncio_requests_get_the_same_text_and_keep_alives() -> None:
    log = _log(PART[:3], closed=False)

    async def main() -> list[str]:
        async def later() -> None:
            await asyncio.sleep(0.15)
            log.add(PART[3:5])
            log.close()

        producer = asyncio.create_task(later())
        written = [text async for text in log.aencode_events(PART[0].id, retry=10, keep_alive=0.02)]
        await producer
        return written

    written = asyncio.run(main())
    assert written.count(": keep-alive\n\n") >= 2
    assert [text for text in written if text != ": keep-alive\n\n"] == list(encode_events(PART[:5], last_event_id=PART[0].id, retry=10))
    assert log._waiters == {}


def test_has_more_says_when_a_client_should_be_answered_204() -> None:
    log = _log(PART[:3], closed=False)
    assert log.has_more(PART[2].id) and log.has_more(None)  # open: more may come
    log.close()
    assert log.has_more(PART[1].id) and log.has_more("unknown") and log.has_more(None)
    assert not log.has_more(PART[2].id)  # it has everything: 204 No Content
    empty = EventLog()
    empty.close()
    assert not empty.has_more(None)  # nothing at all, and nothing to come


def test_a_repeated_id_resumes_after_its_first_time() -> None:
    repeated = [PART[0], PART[1], PART[0], PART[2]]  # a producer that sent an event twice
    log = _log(repeated)
    assert list(log.follow(PART[0].id)) == repeated[1:]


def test_under_trio_afollow_reads_a_closed_log_and_says_why_it_cannot_wait() -> None:
    import trio

    closed = _log(PART[:3])

    async def read(log: EventLog) -> list[AgentEvent]:
        return [event async for event in log.afollow()]

    assert trio.run(read, closed) == PART[:3]
    with pytest.raises(RuntimeError, match=r"wait for events with asyncio.*\(trio\?\): follow the log in a worker thread"):
        trio.run(read, _log(PART[:3], closed=False))


def test_a_silent_stream_is_kept_alive_within_the_clients_patience_by_default() -> None:
    # A tool or model quiet for longer than a client's timeout would otherwise end each of its
    # connections, and then the client, on a server that is well.
    defaults = {inspect.signature(encode).parameters["keep_alive"].default for encode in (EventLog.encode_events, EventLog.aencode_events)}
    (keep_alive,) = defaults
    for client in (ResumableEventStream, AsyncResumableEventStream):
        assert 0 < keep_alive <= inspect.signature(client).parameters["timeout"].default / 2


def test_keep_alive_is_checked_when_asked_for() -> None:
    log = EventLog()
    for keep_alive in (0.0, -1.0, 1e10):
        with pytest.raises(ArgumentValueError, match="keep_alive must be > 0 and at most 1e9 seconds, or None"):
            log.encode_events(keep_alive=keep_alive)
    with pytest.raises(ArgumentTypeError, match="keep_alive must be a number"):
        log.aencode_events(keep_alive="15")  # type: ignore[arg-type]

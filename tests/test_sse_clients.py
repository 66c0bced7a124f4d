"""The resumable clients end to end: agent events served over HTTP on 127.0.0.1, cut and resumed.

Each behaviour is tested on both clients through the ``client`` fixture:
``ResumableEventStream`` (http.client) and ``AsyncResumableEventStream`` (httpx),
the latter run with asyncio and with trio.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import http.client
import itertools
import socket
import subprocess
import sys
import threading
import warnings
from collections.abc import AsyncIterable, Awaitable, Callable
from typing import Any

import attrs
import httpx
import pytest
import trio
from sse_server import (
    EVENTS,
    MESSAGE,
    SOCKET_TIMEOUT,
    SYSTEM_CALLING,
    StreamServer,
    keep_alive_preamble,
    serve_bodies,
    serve_events,
    serve_once_then_hang_up,
    serve_raw,
)

from agentscope_py import (
    AgentEvent,
    AssistantMessage,
    ArgumentTypeError,
    ArgumentValueError,
    DecodeError,
    RoleContentError,
    StreamConnectionError,
)
from agentscope_py.event import AgentEndEvent, AgentStartEvent, assemble, events_from_message
from agentscope_py.sse import AsyncResumableEventStream, ResumableEventStream, SSEParser, encode_event

TIMEOUT = 5.0
AnyStream = ResumableEventStream | AsyncResumableEventStream


@attrs.frozen
class Reader:
    """One of the clients, made and read the same way whichever it is: ``run`` runs an async
    function for the async client (with asyncio or trio), ``None`` for the standard-library one."""

    make: type[ResumableEventStream] | type[AsyncResumableEventStream]
    run: Callable[[Callable[[], Awaitable[None]]], object] | None = None

    def read(self, stream: AnyStream) -> list[AgentEvent]:
        received: list[AgentEvent] = []
        self.read_into(stream, received)
        return received

    def read_first(self, stream: AnyStream, count: int) -> list[AgentEvent]:
        """The first ``count`` events, as a reader that stops early reads them: a blocking loop left
        with ``break``, an async one closed with ``aclosing`` (trio's rule for async generators)."""
        if isinstance(stream, ResumableEventStream):
            return list(itertools.islice(stream, count))
        assert self.run is not None
        received: list[AgentEvent] = []
        self.run(functools.partial(_take_then_break, stream, count, received))
        return received

    def read_into(self, stream: AnyStream, received: list[AgentEvent]) -> None:
        """Appends each event as it comes, so that what came before an error is there after it."""
        if isinstance(stream, ResumableEventStream):
            received.extend(stream)  # extend appends as it iterates
        else:
            assert self.run is not None
            self.run(functools.partial(_append_each, stream, received))


async def _append_each(stream: AsyncIterable[AgentEvent], received: list[AgentEvent]) -> None:
    async for event in stream:
        received.append(event)


async def _take_then_break(stream: AsyncResumableEventStream, count: int, received: list[AgentEvent]) -> None:
    async with contextlib.aclosing(aiter(stream)) as events:
        async for event in events:
            received.append(event)
            if len(received) == count:
                break


def _run_in_asyncio(function: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        await function()

    asyncio.run(main())


def _run_in_trio(function: Callable[[], Awaitable[None]]) -> None:
    with warnings.catch_warnings():
        # httpx's and httpcore's own async generators, left when a response closes before its end
        # (a drop, or the stop event), warn under trio: theirs to close (encode/httpx#3686).
        warnings.filterwarnings("ignore", r"Async generator '(httpx|httpcore)\.", ResourceWarning)
        trio.run(function)


@pytest.fixture(
    params=[
        Reader(ResumableEventStream),
        Reader(AsyncResumableEventStream, _run_in_asyncio),
        Reader(AsyncResumableEventStream, _run_in_trio),
    ],
    ids=["sync", "asyncio", "trio"],
)
def client(request: pytest.FixtureRequest) -> Reader:
    return request.param  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_client_resumes_after_every_cut_and_gets_every_event_once(client: Reader, seed: int) -> None:
    state = StreamServer(EVENTS, cuts=6, seed=seed)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, max_retries=3, retry_delay=0.001)
        received = client.read(stream)
    assert len(EVENTS) > 2000
    assert received == EVENTS
    assert assemble(received) == [MESSAGE]
    assert stream.reconnects == 6
    assert stream.last_event_id == EVENTS[-1].id
    # Every reconnection named the last event it had: never an event it had not received.
    assert state.last_event_ids[0] is None
    ids = [event.id for event in EVENTS]
    resumed_at = [ids.index(last) for last in state.last_event_ids[1:] if last]
    assert resumed_at == sorted(resumed_at)


def test_a_stalled_connection_times_out_and_is_resumed(client: Reader) -> None:
    state = StreamServer(EVENTS, cuts=2, seed=4, stall=True)
    with serve_events(state):
        stream = client.make(state.url, timeout=0.5, retry_delay=0.001)
        received = client.read(stream)
    assert received == EVENTS
    # Each stall times out and is resumed; a machine busy enough to pause the server as long adds one.
    assert stream.reconnects >= 2


def test_without_last_event_id_support_the_client_drops_the_replayed_events(client: Reader) -> None:
    state = StreamServer(EVENTS, cuts=4, seed=7, honour_last_event_id=False)
    with serve_events(state):
        received = client.read(client.make(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert received == EVENTS


def test_long_event_ids_are_remembered_by_a_digest_and_their_replays_still_dropped(client: Reader) -> None:
    # A server's ids of megabytes, kept whole, would fill the client's memory event by event.  (Of 1,000
    # characters here: the test server refuses a longer Last-Event-ID header, as servers may.)
    prefix = "x" * 1_000  # the ids differ at their very end only
    events = [attrs.evolve(event, id=f"{prefix}{index}") for index, event in enumerate(EVENTS)]
    state = StreamServer(events, cuts=3, seed=5, honour_last_event_id=False)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, retry_delay=0.001)
        assert client.read(stream) == events  # each once, the replays dropped
    assert stream.reconnects == 3 and max(map(len, stream._yielded)) <= 64


def test_an_iteration_after_a_break_drops_the_events_an_earlier_one_yielded(client: Reader) -> None:
    # A server that starts over (it ignores Last-Event-ID, or restarted) replays them to the next one too.
    state = StreamServer(EVENTS, honour_last_event_id=False)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, retry_delay=0.001)
        first = client.read_first(stream, 2)
        rest = client.read(stream)
    assert first == EVENTS[:2]
    assert rest == EVENTS[2:]
    assert state.last_event_ids == [None, EVENTS[1].id]


def test_a_stream_without_an_end_event_ends_when_the_server_answers_204(client: Reader) -> None:
    events = EVENTS[1:-1]  # no AgentStart/AgentEnd: the client cannot know where the reply ends
    state = StreamServer(events, cuts=2, seed=3)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, retry_delay=0.001, stop=None)
        received = client.read(stream)
    assert received == events
    assert state.last_event_ids[-1] == events[-1].id  # the final request, answered with 204


def test_resuming_from_a_known_last_event_id(client: Reader) -> None:
    state = StreamServer(EVENTS)
    with serve_events(state):
        received = client.read(client.make(state.url, last_event_id=EVENTS[99].id, timeout=TIMEOUT))
    assert received == EVENTS[100:]
    assert state.last_event_ids == [EVENTS[99].id]


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_a_last_event_id_header_of_the_caller_is_where_the_stream_starts_and_is_sent_once(client: Reader, as_bytes: bool) -> None:
    state = StreamServer(EVENTS, cuts=2, seed=5, cut_before=len("".join(map(encode_event, EVENTS[100:200]))))
    given = EVENTS[99].id or ""
    headers: dict[str, str | bytes] = {"last-event-id": given.encode() if as_bytes else given, "accept": "text/event-stream"}
    with serve_events(state):
        stream = client.make(state.url, headers=headers, timeout=TIMEOUT, retry_delay=0.001)
        received = client.read(stream)
    assert received == EVENTS[100:] and stream.reconnects == 2
    # Each request carried one Last-Event-ID, the latest: never the caller's stale one beside it.
    assert state.last_event_ids[0] == EVENTS[99].id
    assert all(sent is not None and "," not in sent for sent in state.last_event_ids)
    assert state.last_event_ids[1] != EVENTS[99].id


def test_comments_messages_of_other_kinds_and_sub_agent_events_pass_as_they_should(client: Reader) -> None:
    # A sub-agent's reply interleaved with the parent's: its AgentEndEvent does not end the stream.
    sub_agent = events_from_message(AssistantMessage("from the researcher"), source="main/researcher")
    events = EVENTS[:3] + sub_agent + EVENTS[3:]
    state = StreamServer(events, cuts=2, seed=11, preamble=keep_alive_preamble())
    with serve_events(state):
        received = client.read(client.make(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert received == events


def test_a_server_that_keeps_dropping_without_progress_makes_the_client_give_up(client: Reader) -> None:
    # Each connection is cut inside a long comment, before any event: no progress, ever.
    state = StreamServer(EVENTS, cuts=100, seed=5, preamble=": " + "x" * 5000 + "\n\n", cut_before=5000)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, max_retries=3, retry_delay=0.001)
        with pytest.raises(StreamConnectionError, match="4 connections in a row brought no new event"):
            client.read(stream)
    assert len(state.last_event_ids) == 4
    assert stream.reconnects == 3


def test_a_server_gone_after_sending_events_makes_the_client_give_up(client: Reader) -> None:
    # Connections that fail before any response count as bringing nothing new, after one that did.
    body = "".join(map(encode_event, EVENTS[:3])).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    with serve_once_then_hang_up(head + body) as server:
        stream = client.make(server.url, timeout=TIMEOUT, max_retries=2, retry_delay=0.001)
        received: list[AgentEvent] = []
        with pytest.raises(StreamConnectionError, match="3 connections in a row brought no new event"):
            client.read_into(stream, received)
    assert received == list(EVENTS[:3])
    assert server.connections == 4
    assert stream.reconnects == 3


@pytest.mark.parametrize(
    ("making", "sent"),
    [
        # A header's value has no space or tab at its ends (a server strips them): they are left out.
        (lambda index: f" e{index} ", lambda index: f"e{index}"),
        # No control character but tab: such an id is not sent, and the server starts over.
        (lambda index: f"e\x0b{index}", lambda index: None),
        (lambda index: f"e\t{index}", lambda index: f"e\t{index}"),
    ],
    ids=["spaces around", "vertical tab", "tab inside"],
)
def test_an_id_a_header_cannot_carry_as_it_is_resumes_all_the_same(
    client: Reader, making: Callable[[int], str], sent: Callable[[int], str | None]
) -> None:
    events = [attrs.evolve(event, id=making(index)) for index, event in enumerate(EVENTS)]
    state = StreamServer(events, cuts=3, seed=2)
    with serve_events(state):
        received = client.read(client.make(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert received == events  # the events replayed are skipped
    assert len(state.last_event_ids) == 4
    by_id = {event.id: index for index, event in enumerate(events)}
    # What each reconnection sent: the id of the last event the client had, as a header carries it.
    assert all(seen is None or seen in {sent(index) for index in by_id.values()} for seen in state.last_event_ids)
    assert state.last_event_ids[0] is None


def test_a_response_that_is_not_an_event_stream_is_not_retried(client: Reader) -> None:
    state = StreamServer(EVENTS, content_type="application/json")
    with serve_events(state):
        with pytest.raises(StreamConnectionError, match="text/event-stream"):
            client.read(client.make(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert len(state.last_event_ids) == 1


@pytest.mark.parametrize(
    "interim",
    [b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" * 2, b"HTTP/1.1 102 Processing\r\n\r\n"],
    ids=["103-twice", "102"],
)
def test_interim_answers_before_the_stream_are_read_past(client: Reader, interim: bytes) -> None:
    # RFC 9110, 15.2: a client reads past any 1xx answer to the one that follows (a CDN sends 103).
    events = [*EVENTS[:5], EVENTS[-1]]
    body = "".join(map(encode_event, events)).encode()
    with serve_raw(interim + b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + body) as server:
        stream = client.make(server.url, timeout=TIMEOUT, max_retries=0)
        assert client.read(stream) == events
    assert stream.reconnects == 0


@pytest.mark.parametrize(
    ("head", "said", "status"),
    [
        # Headers, then silence: the read times out, and the client gives up.
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", "brought no new event", None),
        (b"HTTP/1.0 500 Oops\r\nContent-Type: text/plain\r\n\r\n", "got 500 Oops", 500),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n\r\n", "encoded as 'gzip'", 200),
        # An interim answer, then silence before the answer it announces.
        (b"HTTP/1.1 103 Early Hints\r\n\r\n", "brought no new event", None),
    ],
    ids=["stalled", "refused", "compressed", "interim-then-stalled"],
)
def test_a_connection_given_up_is_closed_at_once_not_when_garbage_is_collected(
    client: Reader, head: bytes, said: str, status: int | None
) -> None:
    # http.client hands a body without length to the response: closing the connection alone leaves
    # the socket open for as long as the error (which holds the frame that holds it) is kept.
    with serve_raw(head) as server:
        gc.disable()
        try:
            with pytest.raises(StreamConnectionError, match=said) as raised:
                client.read(client.make(server.url, timeout=0.2, retry_delay=0.001, max_retries=0))
            assert server.client_closed.wait(SOCKET_TIMEOUT)
            assert raised.value.status == status  # the answer refused, for a caller to act on (None: no answer)
        finally:
            gc.enable()


def test_a_read_that_timed_out_is_said_to_be_one_not_a_cancellation(client: Reader) -> None:
    # anyio ends httpx's read with a cancellation of its own: the message named it, as if the
    # caller's task had been cancelled.
    with serve_raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n") as server:
        with pytest.raises(StreamConnectionError) as raised:
            client.read(client.make(server.url, timeout=0.2, max_retries=0))
    said = str(raised.value)
    assert ("ReadTimeout('')" in said or "TimeoutError('timed out')" in said) and "Cancel" not in said, said


@pytest.mark.parametrize("codings", ["identity, chunked", "gzip, chunked", "chunked "])
def test_a_transfer_coding_other_than_chunked_is_refused_not_read_as_the_stream(client: Reader, codings: str) -> None:
    # http.client takes the framing apart for "chunked" alone: the chunk sizes were read as lines of the
    # stream, and a chunk that ended inside an "event:" line lost that event without a word.
    events = [*EVENTS[:5], EVENTS[-1]]
    text = "".join(map(encode_event, events)).encode()
    cut = text.index(b"event: ", text.index(b"event: ") + 1) + len(b"event: ") + 4  # in the second event's type
    body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in (text[:cut], text[cut:])) + b"0\r\n\r\n"
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: {codings}\r\n\r\n".encode()
    with serve_raw(head + body) as server:
        stream = client.make(server.url, timeout=TIMEOUT, retry_delay=0.001, max_retries=0)
        if codings == "chunked " and client.run is not None:  # httpx strips the space, and reads it whole
            assert client.read(stream) == events
            return
        # The blocking client refuses the answer at once (http.client de-chunks exactly "chunked" alone);
        # httpx refuses a list of codings too, as a connection that failed.
        with pytest.raises(StreamConnectionError):
            client.read(stream)


def test_nothing_listening_is_a_connection_error_after_bounded_retries(client: Reader) -> None:
    # A port bound and never listened on refuses connections, and no other process can take it meanwhile.
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/events"
        stream = client.make(url, timeout=TIMEOUT, max_retries=2, retry_delay=0.001)
        with pytest.raises(StreamConnectionError) as info:
            client.read(stream)
    # The cause as each client's HTTP says it.
    assert isinstance(info.value.__cause__, (ConnectionRefusedError, httpx.ConnectError))
    assert "ConnectionRefusedError" in str(info.value) or "ConnectError" in str(info.value)
    assert stream.reconnects == 2


def test_the_wait_doubles_with_each_connection_in_a_row_that_brings_nothing(
    client: Reader, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server restarting is down for seconds: nine waits of 0.25 s would give up on it after 2.25 s.
    waits: list[float] = []

    async def async_wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("agentscope_py._sse_client.time.sleep", waits.append)
    monkeypatch.setattr("agentscope_py._sse_async.anyio.sleep", async_wait)
    with socket.socket() as bound:  # refuses every connection
        bound.bind(("127.0.0.1", 0))
        stream = client.make(f"http://127.0.0.1:{bound.getsockname()[1]}/e", timeout=TIMEOUT, max_retries=9, retry_delay=0.25)
        with pytest.raises(StreamConnectionError, match="10 connections in a row"):
            client.read(stream)
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0]  # up to a minute


def test_a_server_sending_an_oversized_message_is_an_error_not_a_drop(client: Reader) -> None:
    state = StreamServer(EVENTS, preamble="data: " + "x" * 2000 + "\n\n")
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, max_message_size=1000)
        with pytest.raises(DecodeError, match="beyond 1000 characters"):
            client.read(stream)
    assert len(state.last_event_ids) == 1


def test_a_server_sending_a_result_that_breaks_a_role_rule_is_an_error_that_says_which_message(client: Reader) -> None:
    with serve_bodies(["".join(map(encode_event, EVENTS[:2])) + "id: r9\n" + SYSTEM_CALLING]) as server:
        stream = client.make(server.url, timeout=TIMEOUT, retry_delay=0.001)
        read: list[AgentEvent] = []
        with pytest.raises(RoleContentError, match=r"got ToolUseBlock at content\[0\] \(in an unnamed SSE message with last event id 'r9'\)$"):
            client.read_into(stream, read)
    assert read == EVENTS[:2]
    assert stream.last_event_id == "r9"  # resuming starts after the message that could not be read
    assert server.last_event_ids == [None]


def test_event_ids_beyond_latin_1_are_sent_back_as_utf_8(client: Reader) -> None:
    events = [attrs.evolve(event, id=f"事件-{index:05d}") for index, event in enumerate(EVENTS)]
    state = StreamServer(events, cuts=3, seed=4)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT, retry_delay=0.001)
        assert client.read(stream) == events
    assert stream.reconnects == 3
    assert all(sent is None or sent.startswith("事件-") for sent in state.last_event_ids)
    assert assemble(events) == [MESSAGE]


@pytest.mark.parametrize("header", ["Last-Event-ID", "last-event-id"])
def test_a_last_event_id_header_beyond_latin_1_is_taken_as_last_event_id_is(client: Reader, header: str) -> None:
    # Other header values go as Latin-1, so a str beyond it is refused; this one the client sends itself.
    events = [attrs.evolve(event, id=f"事件-{index:05d}") for index, event in enumerate(EVENTS)]
    state = StreamServer(events)
    with serve_events(state):
        stream = client.make(state.url, headers={header: events[99].id or ""}, timeout=TIMEOUT)
        assert client.read(stream) == events[100:]
    assert state.last_event_ids == [events[99].id]
    with pytest.raises(ArgumentValueError, match=rf"^headers\['{header}'\] cannot contain a control character other than tab"):
        client.make(state.url, headers={header: "事件\n"})


def test_an_id_without_data_moves_the_last_event_id_as_in_a_browser(client: Reader) -> None:
    # A server's checkpoint: "id: ..." and a blank line.  The reconnection sends it back.
    first, *rest = EVENTS[:3]
    with serve_bodies([encode_event(first) + "id: checkpoint-7\n\n", "".join(map(encode_event, rest))]) as server:
        stream = client.make(server.url, timeout=TIMEOUT, retry_delay=0.001, stop=lambda e: e.id == rest[-1].id)
        assert client.read(stream) == EVENTS[:3]
    assert server.last_event_ids == [None, "checkpoint-7"]


def test_events_without_ids_are_not_progress_so_the_client_gives_up(client: Reader) -> None:
    # Without an id a replayed event cannot be recognised: it comes again on each connection, and
    # connections that bring nothing else count as bringing nothing new.
    event = attrs.evolve(EVENTS[1], id=None)
    with serve_bodies([encode_event(event)]) as server:
        stream = client.make(server.url, timeout=TIMEOUT, max_retries=2, retry_delay=0.001)
        received: list[AgentEvent] = []
        with pytest.raises(
            StreamConnectionError, match=r"3 connections in a row brought no new event \(the server closed the last\)"
        ):
            client.read_into(stream, received)
    assert received == [event] * 3 and len(server.last_event_ids) == 3


def test_giving_up_after_one_connection_says_it_in_the_singular(client: Reader) -> None:
    with serve_bodies([""]) as server:
        with pytest.raises(StreamConnectionError, match=r": 1 connection brought no new event \(the server closed it\); "):
            client.read(client.make(server.url, timeout=TIMEOUT, max_retries=0))


def test_a_stream_that_never_sends_the_stop_event_says_how_to_end_it(client: Reader) -> None:
    # A bare model call's stream ends with its ModelCallEndEvent: no AgentEndEvent, which the client
    # waits for by default.  Served whole once, then nothing: the client must say why it gave up.
    bare = [event for event in EVENTS if not isinstance(event, (AgentStartEvent, AgentEndEvent))]
    with serve_bodies(["".join(map(encode_event, bare)), ""]) as server:
        received: list[AgentEvent] = []
        with pytest.raises(StreamConnectionError, match=r"closed without the one stop= ends on .* 204 No Content"):
            client.read_into(client.make(server.url, timeout=TIMEOUT, max_retries=1, retry_delay=0.001), received)
        assert received == bare
    with serve_bodies(["".join(map(encode_event, bare))]) as server:  # the hint's remedy
        last = bare[-1].id
        assert client.read(client.make(server.url, timeout=TIMEOUT, stop=lambda event: event.id == last)) == bare


def test_the_client_checks_its_arguments(client: Reader) -> None:
    with pytest.raises(ArgumentValueError, match="http"):
        client.make("ftp://127.0.0.1/x")
    with pytest.raises(ArgumentValueError, match="Last|header"):
        client.make("http://127.0.0.1/x", last_event_id="a\nb")
    with pytest.raises(ArgumentValueError, match="max_retries"):
        client.make("http://127.0.0.1/x", max_retries=-1)
    with pytest.raises(ArgumentValueError, match="retry_delay"):
        client.make("http://127.0.0.1/x", retry_delay=-1.0)
    url = "http://127.0.0.1/x"
    for arguments, message in [
        ({"url": 5}, "url must be a str"),
        ({"url": url, "last_event_id": 5}, "last_event_id must be a str or None"),
        ({"url": url, "timeout": "5"}, "timeout must be a number"),
        ({"url": url, "max_retries": 2.0}, "max_retries must be an int"),
        ({"url": url, "headers": [("A", "b")]}, "headers must be a mapping"),
        ({"url": url, "headers": {b"Accept": "x"}}, r"header names must be str, got b'Accept' \(bytes\)"),
        ({"url": url, "stop": 5}, "stop must be a function of an event, or None"),
        ({"url": url, "max_message_size": "big"}, "max_message_size must be an int"),
        ({"url": url, "limits": 200}, "limits must be a DecodeLimits"),
    ]:
        with pytest.raises(ArgumentTypeError, match=message):
            client.make(**arguments)  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="max_message_size must be at least 1"):
        client.make(url, max_message_size=0)
    with pytest.raises(ArgumentValueError, match=r"^timeout must be a finite number, got inf$"):
        client.make(url, timeout=float("inf"))
    with pytest.raises(ArgumentTypeError, match=r"headers\['last-event-id'\] must be a str"):
        client.make(url, headers={"last-event-id": 5})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "arguments",
    [
        # Past these the socket or the sleep between connections raises OverflowError: at the first
        # connection or retry, not here.
        {"timeout": 1e10},
        {"retry_delay": 1e10},
        {"timeout": 1e300},
        # An id read from JSON may hold one; no header can carry it.
        {"last_event_id": "evt-\ud800"},
        {"headers": {"Last-Event-ID": "evt-\ud800"}},
    ],
    ids=["timeout", "retry delay", "timeout far past", "lone surrogate", "lone surrogate in a header"],
)
def test_what_the_client_could_not_use_is_refused_when_it_is_made(client: Reader, arguments: dict[str, Any]) -> None:
    with pytest.raises(ArgumentValueError, match="at most 1e[+]09 seconds|lone surrogate"):
        client.make("http://127.0.0.1/x", **arguments)


def test_the_client_takes_the_longest_wait_and_settings_beyond_a_java_int(client: Reader) -> None:
    # Settings of this process, not fields Java reads: a Java int is no bound for them.
    stream = client.make("http://127.0.0.1/x", timeout=1e9, retry_delay=1e9, max_retries=2**40, max_message_size=2**40)
    assert stream.last_event_id == ""
    assert SSEParser(max_message_size=2**40).max_message_size == 2**40


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        # Refused where they are given, not by http.client at the first connection.
        ({"url": "http://127.0.0.1:99999/x"}, ArgumentValueError, "port from 1 to 65535"),
        ({"url": "http://127.0.0.1:abc/x"}, ArgumentValueError, "port from 1 to 65535"),
        ({"url": "http://127.0.0.1:0/x"}, ArgumentValueError, "port from 1 to 65535"),
        ({"url": "http://ann:secret@127.0.0.1/x"}, ArgumentValueError, r"credentials .* pass them as a header"),
        ({"url": "http://h/x", "headers": {"Authorization": None}}, ArgumentTypeError, r"headers\['Authorization'\] must be a str or bytes"),
        ({"url": "http://h/x", "headers": {"X-Id": "a\nb"}}, ArgumentValueError, "cannot contain a control character other than tab"),
        ({"url": "http://h/x", "headers": {"X-Id": b"a\r\n b"}}, ArgumentValueError, "cannot contain a control character"),
        # RFC 9110 allows none but tab: http.client would send these, httpx (h11) would refuse them.
        ({"url": "http://h/x", "headers": {"X-Id": "a\x0bb"}}, ArgumentValueError, r"control character other than tab, got b'a\\x0bb'"),
        ({"url": "http://h/x", "headers": {"X-Id": b"a\x7f"}}, ArgumentValueError, "control character"),
        ({"url": "http://h/x", "last_event_id": "e\x0c1"}, ArgumentValueError, r"^last_event_id cannot contain a control character"),
        ({"url": "http://h/x", "headers": {"last-event-id": "e\x0b1"}}, ArgumentValueError, r"last-event-id'\] cannot contain a control"),
        ({"url": "http://h/x", "headers": {"X-Name": "事件"}}, ArgumentValueError, r"Latin-1 text.*'事件'\.encode\(\)"),
        ({"url": "http://h/x", "headers": {"Last-Event-ID": b"\xff"}}, ArgumentValueError, r"Last-Event-ID'\] must be UTF-8"),
        ({"url": "http://h/x", "headers": {"X Id": "a"}}, ArgumentValueError, "'X Id' is no HTTP token"),
        ({"url": "http://h/x", "headers": {"X:Id": "a"}}, ArgumentValueError, "is no HTTP token"),
        ({"url": "http://h/x", "headers": {"X(Id)": "a"}}, ArgumentValueError, "is no HTTP token"),
        # What no request can carry, even percent-encoded as a browser does.
        ({"url": "http://h/a\x01b"}, ArgumentValueError, r"control characters .* found '\\x01'.*percent-encode"),
        ({"url": "http://h/a\nb"}, ArgumentValueError, r"control characters .* found '\\n'"),
        ({"url": "http://h/x\x7f"}, ArgumentValueError, r"control characters .* found '\\x7f'"),
        ({"url": "http://h/\ud800"}, ArgumentValueError, r"lone surrogates, found '\\ud800'"),
        ({"url": "http://[::1/x"}, ArgumentValueError, r"cannot be parsed: Invalid IPv6 URL"),
        ({"url": "http://a b/x"}, ArgumentValueError, r"host 'a b' cannot contain a space"),
        ({"url": "http://ex%61mple.com/x"}, ArgumentValueError, r"host 'ex%61mple.com' cannot contain"),
        ({"url": "http://ä..example/x"}, ArgumentValueError, r"host 'ä..example' is no internationalized domain name"),
        ({"url": "http://faß.de/x"}, ArgumentValueError, r"host 'faß.de' holds ß.*xn--"),
        ({"url": "http://ς.example/x"}, ArgumentValueError, r"host 'ς.example' holds ß, ς"),
        ({"url": "http://a<b.example/x"}, ArgumentValueError, r"host 'a<b.example' cannot contain"),
        ({"url": "http://[fe80::1%25a b]/x"}, ArgumentValueError, r"no IPv6 zone the client can send: write it as %25"),
        ({"url": "http://[fe80::1%lo]/x"}, ArgumentValueError, r"host 'fe80::1%lo' has no IPv6 zone"),
    ],
)
def test_the_client_refuses_a_url_or_header_it_could_not_send(client: Reader, arguments: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        client.make(**arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("a b", "/a%20b"),
        ("x ", "/x"),  # spaces around a URL are no part of it, as to a browser
        ("café/事件", "/caf%C3%A9/%E4%BA%8B%E4%BB%B6"),
        # Escapes and reserved characters stay as given; what no URI holds raw is escaped; no fragment.
        ("x?q=été x&r=%2F&s={a|b}&t=[1]:@!$'()*+,;=~#frag ment", "/x?q=%C3%A9t%C3%A9%20x&r=%2F&s=%7Ba%7Cb%7D&t=[1]:@!$'()*+,;=~"),
    ],
)
def test_a_url_is_sent_percent_encoded_as_in_a_browser(client: Reader, given: str, sent: str) -> None:
    with serve_bodies(["".join(map(encode_event, EVENTS[:3]))]) as server:
        stream = client.make(server.url + given, timeout=TIMEOUT, stop=lambda e: e.id == EVENTS[2].id)
        assert client.read(stream) == EVENTS[:3]
    assert server.paths == [sent]


def test_a_reader_that_stops_early_lets_the_stream_be_read_on_at_once(client: Reader) -> None:
    state = StreamServer(EVENTS)
    with serve_events(state):
        stream = client.make(state.url, timeout=TIMEOUT)
        assert client.read_first(stream, 100) == EVENTS[:100]
        assert client.read(stream) == EVENTS[100:]
    assert state.last_event_ids == [None, EVENTS[99].id]


def test_header_values_go_as_latin_1_text_or_as_the_bytes_given(client: Reader) -> None:
    headers: dict[str, str | bytes] = {"X-Place": "café", "X-Name": "事件".encode(), "X-Empty": "", "X-Tab": "a\tb"}
    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server:
        stream = client.make(server.url, headers=headers, timeout=TIMEOUT)
        assert client.read(stream) == EVENTS
    # http.server reads header bytes as Latin-1.
    received = server.headers[0]
    assert (received["X-Place"], received["X-Name"].encode("latin-1").decode()) == ("café", "事件")
    assert (received["X-Empty"], received["X-Tab"]) == ("", "a\tb")


def test_an_os_error_of_the_stop_function_is_raised_as_it_is_not_taken_for_a_drop(client: Reader) -> None:
    def stop(event: AgentEvent) -> bool:
        raise PermissionError("the caller's own")

    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server, pytest.raises(PermissionError, match="own"):
        client.read(client.make(server.url, timeout=TIMEOUT, max_retries=1, retry_delay=0.001, stop=stop))
    assert len(server.last_event_ids) == 1  # no reconnection


# -- the standard-library client: its sockets, http.client and threads


def test_a_non_ascii_host_is_sent_in_its_idna_form(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    connect = socket.create_connection

    def to_loopback(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        asked.append(address[0])  # what DNS would be asked
        return connect(("127.0.0.1", address[1]), *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", to_loopback)
    with serve_bodies(["".join(map(encode_event, EVENTS[:3]))]) as server:
        url = server.url.replace("127.0.0.1", "Bücher.example")
        stream = ResumableEventStream(url, timeout=TIMEOUT, stop=lambda e: e.id == EVENTS[2].id)
        assert list(stream) == EVENTS[:3]
    port = url.rsplit(":", 1)[1].strip("/")
    assert asked == ["xn--bcher-kva.example"]
    assert server.headers[0]["Host"] == f"xn--bcher-kva.example:{port}"


@pytest.mark.parametrize(
    ("netloc", "asked"),
    [
        ("[::1]:8080", ("::1", 8080)),
        ("[::1]", ("::1", 80)),
        # A URL writes the zone's "%" as "%25" (RFC 6874); the resolver takes "fe80::1%eth0".
        ("[fe80::1%25eth0]:8080", ("fe80::1%eth0", 8080)),
        ("[fe80::1%25eth0.100]", ("fe80::1%eth0.100", 80)),  # a VLAN interface
    ],
)
def test_an_ipv6_host_is_sent_to_the_resolver_with_its_zone_unescaped_and_its_port_or_the_default(
    monkeypatch: pytest.MonkeyPatch, netloc: str, asked: tuple[str, int]
) -> None:
    addresses: list[tuple[str, int]] = []
    connect = socket.create_connection

    def to_loopback(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        addresses.append(address)
        return connect(("127.0.0.1", server_port), *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", to_loopback)
    with serve_bodies(["".join(map(encode_event, EVENTS[:3]))]) as server:
        server_port = int(server.url.rsplit(":", 1)[1].strip("/"))
        stream = ResumableEventStream(f"http://{netloc}/events", timeout=TIMEOUT, stop=lambda e: e.id == EVENTS[2].id)
        assert list(stream) == EVENTS[:3]
    assert addresses == [asked]
    assert server.paths == ["/events"]


def test_a_url_http_client_refuses_is_an_argument_error_not_a_dropped_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    # The client's checks leave http.client nothing to refuse; should it refuse something still,
    # that is the request's fault, and sending it again would not help.
    attempts: list[str] = []

    def refuse(self: http.client.HTTPConnection, method: str, url: str, *args: Any, **kwargs: Any) -> None:
        attempts.append(url)
        raise http.client.InvalidURL(f"URL can't contain control characters. {url!r}")

    monkeypatch.setattr(http.client.HTTPConnection, "request", refuse)
    stream = ResumableEventStream("http://127.0.0.1:9/x", timeout=TIMEOUT, max_retries=3, retry_delay=0.001)
    with pytest.raises(ArgumentValueError, match=r"the request to 'http://127.0.0.1:9/x' cannot be sent: URL can't contain") as info:
        list(stream)
    assert isinstance(info.value.__cause__, http.client.InvalidURL)
    assert attempts == ["/x"] and stream.reconnects == 0


def test_a_client_has_one_reader_at_a_time() -> None:
    state = StreamServer(EVENTS, cuts=3, seed=8)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001)
        first = iter(stream)
        received = [next(first)]
        # A second reader, here or in another thread, would move last_event_id under the first.
        with pytest.raises(ArgumentValueError, match=r"already being iterated.*last_event_id=other\.last_event_id"):
            next(iter(stream))
        refused: list[ArgumentValueError] = []

        def second_reader() -> None:
            try:
                list(stream)
            except ArgumentValueError as error:
                refused.append(error)

        worker = threading.Thread(target=second_reader, daemon=True)
        worker.start()
        worker.join(TIMEOUT)
        assert not worker.is_alive() and len(refused) == 1
        received += first
    assert received == EVENTS and stream.reconnects == 3


def test_a_client_is_read_again_from_where_its_last_iteration_stopped() -> None:
    state = StreamServer(EVENTS)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT)
        first = iter(stream)
        # Started in one thread and closed in another, as asyncio.to_thread may do.
        worker = threading.Thread(target=lambda: list(itertools.islice(first, 100)), daemon=True)
        worker.start()
        worker.join(TIMEOUT)
        assert not worker.is_alive()
        first.close()  # lets go of the client, in another thread than the one that took it
        assert list(stream) == EVENTS[100:]
        assert list(stream) == []  # the iteration that ended let go too; after the last event the server answers 204
    assert state.last_event_ids == [None, EVENTS[99].id, EVENTS[-1].id]


def test_in_asyncio_a_client_is_read_in_worker_threads() -> None:
    async def read(stream: ResumableEventStream) -> list[AgentEvent]:
        iterator = iter(stream)
        received = []
        while (event := await asyncio.to_thread(next, iterator, None)) is not None:
            received.append(event)
        return received

    state = StreamServer(EVENTS, cuts=2, seed=9)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001)
        assert asyncio.run(read(stream)) == EVENTS
        assert asyncio.run(read(stream)) == []  # the reader let go of the client: it can be read again
    assert stream.reconnects == 2


# -- the async client: the httpx client it is given, breaking off, cancellation


def _mock_client(body: str, requests: list[httpx.Request]) -> httpx.AsyncClient:
    """An httpx client answering every request with ``body`` as an event stream, and keeping the requests."""

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, stream=httpx.ByteStream(body.encode()))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


def test_the_async_client_sends_the_host_and_target_as_checked_with_its_headers() -> None:
    requests: list[httpx.Request] = []

    async def read(url: str) -> list[AgentEvent]:
        async with _mock_client("".join(map(encode_event, EVENTS[:3])), requests) as http:
            stream = AsyncResumableEventStream(
                url, client=http, last_event_id="事件-1", timeout=7.5, stop=lambda e: e.id == EVENTS[2].id
            )
            return [event async for event in stream]

    assert asyncio.run(read("http://Bücher.example:8080/a b?q=été")) == EVENTS[:3]
    assert asyncio.run(read("http://[fe80::1%25eth0]/events")) == EVENTS[:3]
    idna, zoned = requests
    assert (idna.url.raw_host, idna.url.port, idna.url.raw_path) == (b"xn--bcher-kva.example", 8080, b"/a%20b?q=%C3%A9t%C3%A9")
    assert idna.headers["Host"] == "xn--bcher-kva.example:8080"
    # The same headers as the standard-library client's; the id as UTF-8, as a browser sends it.
    assert (idna.headers["Accept"], idna.headers["Accept-Encoding"]) == ("text/event-stream", "identity")
    assert [value for name, value in idna.headers.raw if name.lower() == b"last-event-id"] == ["事件-1".encode()]
    # A wait for a connection of the client's pool is no connection: it has no limit.
    assert idna.extensions["timeout"] == {"connect": 7.5, "read": 7.5, "write": 7.5, "pool": None}
    assert (zoned.url.host, zoned.url.port, zoned.url.raw_path) == ("fe80::1%eth0", None, b"/events")


def test_the_async_client_sends_with_the_httpx_client_given_and_leaves_it_open() -> None:
    half = len(EVENTS) // 2
    with serve_bodies(["".join(map(encode_event, EVENTS[:half])), "".join(map(encode_event, EVENTS[half:]))]) as server:

        async def read() -> tuple[list[AgentEvent], bool]:
            async with httpx.AsyncClient(headers={"Authorization": "Bearer t0ken"}) as http:
                stream = AsyncResumableEventStream(server.url, client=http, timeout=TIMEOUT, retry_delay=0.001)
                return [event async for event in stream], http.is_closed

        received, closed = asyncio.run(read())
    assert received == EVENTS and not closed
    assert [headers["Authorization"] for headers in server.headers] == ["Bearer t0ken"] * 2
    assert server.last_event_ids == [None, EVENTS[half - 1].id]


def test_the_async_client_it_makes_is_made_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Making one loads the CA certificates, which blocks: not in the thread running the event loop.
    made_in: list[threading.Thread] = []
    make = httpx.AsyncClient

    def recorded(*args: Any, **kwargs: Any) -> httpx.AsyncClient:
        made_in.append(threading.current_thread())
        return make(*args, **kwargs)

    monkeypatch.setattr(httpx, "AsyncClient", recorded)
    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server:

        async def read() -> tuple[list[AgentEvent], threading.Thread]:
            stream = AsyncResumableEventStream(server.url, timeout=TIMEOUT)
            return [event async for event in stream], threading.current_thread()

        received, loop_thread = asyncio.run(read())
    assert received == EVENTS
    assert len(made_in) == 1 and made_in[0] is not loop_thread


def test_the_async_client_takes_only_an_httpx_async_client() -> None:
    with httpx.Client() as blocking, pytest.raises(
        ArgumentTypeError, match=r"client must be an httpx.AsyncClient or None, got .*; ResumableEventStream reads .* without one"
    ):
        AsyncResumableEventStream("http://127.0.0.1/x", client=blocking)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"client must be an httpx.AsyncClient or None, got 'http://proxy' \(str\)$"):
        AsyncResumableEventStream("http://127.0.0.1/x", client="http://proxy")  # type: ignore[arg-type]


def test_a_cancelled_asyncio_reader_closes_its_connection_at_once() -> None:
    with serve_raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n") as server:
        stream = AsyncResumableEventStream(server.url, timeout=TIMEOUT)
        with pytest.raises(asyncio.TimeoutError):
            asyncio.run(asyncio.wait_for(_append_each(stream, []), 0.3))  # headers, then silence: it waits
        assert server.client_closed.wait(SOCKET_TIMEOUT)
        assert stream.reconnects == 0


def test_an_async_client_has_one_reader_and_is_read_again_from_where_it_stopped() -> None:
    state = StreamServer(EVENTS)

    async def read(stream: AsyncResumableEventStream) -> None:
        async with contextlib.aclosing(aiter(stream)) as first:
            received = [await anext(first) for _ in range(100)]
            with pytest.raises(
                ArgumentValueError,
                match=r"this AsyncResumableEventStream is already being iterated.*AsyncResumableEventStream\(url, last_event_id=other\.last_event_id\)",
            ):
                await anext(aiter(stream))
        assert received == EVENTS[:100]
        assert [event async for event in stream] == EVENTS[100:]  # the closed reader let go of the client
        assert [event async for event in stream] == []  # after the last event the server answers 204

    with serve_events(state):
        asyncio.run(read(AsyncResumableEventStream(state.url, timeout=TIMEOUT)))
    assert state.last_event_ids == [None, EVENTS[99].id, EVENTS[-1].id]


def test_a_url_httpx_refuses_is_an_argument_error_not_a_dropped_connection() -> None:
    attempts: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts.append(request)
        raise httpx.UnsupportedProtocol("Request URL has an unsupported protocol 'gopher://'.")

    async def read() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as http:
            stream = AsyncResumableEventStream("http://127.0.0.1:9/x", client=http, max_retries=3, retry_delay=0.001)
            with pytest.raises(ArgumentValueError, match=r"the request to 'http://127.0.0.1:9/x' cannot be sent: Request URL has") as info:
                [event async for event in stream]
            assert isinstance(info.value.__cause__, httpx.UnsupportedProtocol) and stream.reconnects == 0

    asyncio.run(read())
    assert len(attempts) == 1


def test_an_async_loop_left_with_break_lets_the_stream_go_at_once_as_a_blocking_one_does() -> None:
    # Without aclosing: the iteration dropped lets go of the stream then, not when the event loop
    # gets round to closing it.
    state = StreamServer(EVENTS)

    async def read_twice(stream: AsyncResumableEventStream) -> list[AgentEvent]:
        received: list[AgentEvent] = []
        async for event in stream:
            received.append(event)
            if len(received) == 100:
                break
        return received + [event async for event in stream]

    with serve_events(state):
        assert asyncio.run(read_twice(AsyncResumableEventStream(state.url, timeout=TIMEOUT))) == EVENTS
    assert state.last_event_ids == [None, EVENTS[99].id]


def test_streams_that_wait_for_a_connection_of_the_clients_pool_are_not_dropped() -> None:
    # Two connections for four streams of a slow server: two wait for the first two to end, longer
    # than their timeout, which is for a connection's silence, not for a turn in the pool.
    state = StreamServer(EVENTS[:40], cuts=0)

    async def collect(stream: AsyncResumableEventStream) -> list[AgentEvent]:
        received = []
        async for event in stream:
            received.append(event)
            await asyncio.sleep(0.01)  # a slow reader holds its connection about 0.4 s
        return received

    async def read_all() -> list[list[AgentEvent]]:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=2)) as http:
            streams = [AsyncResumableEventStream(state.url, client=http, timeout=0.2, max_retries=0) for _ in range(4)]
            return list(await asyncio.gather(*(collect(stream) for stream in streams)))

    with serve_events(state):
        assert asyncio.run(read_all()) == [EVENTS[:40]] * 4


def test_what_the_httpx_client_cannot_send_or_follow_is_not_retried() -> None:
    requests: list[httpx.Request] = []

    def moved(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(307, headers={"Location": str(request.url)})

    async def read(http: httpx.AsyncClient) -> None:
        async with http:
            stream = AsyncResumableEventStream("http://127.0.0.1:9/x", client=http, retry_delay=0.001)
            [event async for event in stream]

    # A header the caller's client carries that HTTP cannot: the request's fault, raised at once.
    with serve_bodies([""]) as server:

        async def read_with_bad_header(params: dict[str, str]) -> None:
            async with httpx.AsyncClient(headers={"X Bad": "1"}, params=params) as http:
                [event async for event in AsyncResumableEventStream(server.url, client=http, retry_delay=0.001)]

        # With the client's own params too, which change the URL it sends: no redirect for that.
        for params in ({}, {"k": "v"}):
            with pytest.raises(ArgumentValueError, match=r"the request to '.*' cannot be sent: Illegal header name"):
                asyncio.run(read_with_bad_header(params))
    assert server.last_event_ids == []
    # Redirects followed in a loop: an answer, not a dropped connection.
    with pytest.raises(StreamConnectionError, match=r"^http://127.0.0.1:9/x: Exceeded maximum allowed redirects"):
        asyncio.run(read(httpx.AsyncClient(transport=httpx.MockTransport(moved), follow_redirects=True)))
    assert len(requests) == 21

    # A redirect to where httpx cannot go: the server's answer too, not the caller's request.
    with serve_raw(b"HTTP/1.1 302 Found\r\nLocation: ftp://example.invalid/x\r\nContent-Length: 0\r\n\r\n") as moved_away:

        async def read_redirected() -> None:
            async with httpx.AsyncClient(follow_redirects=True) as http:
                [event async for event in AsyncResumableEventStream(moved_away.url, client=http, retry_delay=0.001)]

        with pytest.raises(
            StreamConnectionError,
            match=r"^http://127.0.0.1:\d+/: the server redirected the request to ftp://example.invalid/x, which cannot be followed",
        ):
            asyncio.run(read_redirected())


def test_a_closed_httpx_client_is_refused_when_the_stream_is_read() -> None:
    async def read() -> None:
        http = httpx.AsyncClient()
        await http.aclose()
        [event async for event in AsyncResumableEventStream("http://127.0.0.1:9/x", client=http)]

    with pytest.raises(ArgumentValueError, match=r"the httpx.AsyncClient given as client= is closed"):
        asyncio.run(read())


def test_an_httpx_client_closed_before_a_reconnection_is_refused_then() -> None:
    # The server ends the body after one event: the stream reconnects, with a client its owner closed.
    with serve_raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + encode_event(EVENTS[0]).encode()) as server:

        async def read() -> list[AgentEvent]:
            http = httpx.AsyncClient()
            received = []
            async for event in AsyncResumableEventStream(server.url, client=http, retry_delay=0.001, timeout=TIMEOUT):
                received.append(event)
                await http.aclose()
            return received

        with pytest.raises(ArgumentValueError, match=r"^the httpx.AsyncClient given as client= was closed while the stream read from it"):
            asyncio.run(read())


def test_giving_up_names_what_an_error_that_says_nothing_stands_for() -> None:
    def reset(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("") from ConnectionResetError(104, "Connection reset by peer")

    async def read() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(reset)) as http:
            stream = AsyncResumableEventStream("http://127.0.0.1:9/x", client=http, max_retries=0)
            [event async for event in stream]

    with pytest.raises(StreamConnectionError, match=r"failed with ReadError\(''\) \(ConnectionResetError\(104, 'Connection reset by peer'\)\)"):
        asyncio.run(read())


def test_leaving_an_async_loop_with_break_ends_the_program_cleanly() -> None:
    # The event loop closes the dropped iteration at its end: nothing may be left running then.
    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server:
        code = (
            "import asyncio\n"
            "from agentscope_py.sse import AsyncResumableEventStream\n"
            "async def main():\n"
            f"    async for event in AsyncResumableEventStream({server.url!r}, stop=None):\n"
            "        break\n"
            "asyncio.run(main())\n"
        )
        ran = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stderr) == (0, "")


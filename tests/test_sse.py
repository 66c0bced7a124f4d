"""SSE end to end: agent events encoded, served over HTTP on 127.0.0.1, cut and resumed."""

from __future__ import annotations

import asyncio
import gc
import http.client
import itertools
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest
from sse_server import SOCKET_TIMEOUT, StreamServer, keep_alive_preamble, serve_bodies, serve_events, serve_raw

from agentscope_py import (
    AgentEvent,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    Base64Source,
    ChatUsage,
    DataBlock,
    DecodeError,
    DecodeLimits,
    GenerateReason,
    RoleContentError,
    StreamConnectionError,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
)
from agentscope_py.event import (
    AgentEndEvent,
    AgentResultEvent,
    AgentStartEvent,
    TextBlockDeltaEvent,
    assemble,
    events_from_message,
)
from agentscope_py.sse import (
    ResumableEventStream,
    SSEParser,
    encode_comment,
    encode_event,
    encode_events,
    encode_sse,
    parse_events,
    parse_messages,
)

TIMEOUT = 5.0


def big_reply() -> AssistantMessage:
    """A reply worth streaming: reasoning, a long text, a tool call and its result, an image."""
    return AssistantMessage(
        ThinkingBlock("Let me look that up. " * 40),
        TextBlock("".join(f"word{i} é🌍\u2028 " for i in range(6000))),
        ToolUseBlock("call-1", "search", {"q": "kittens", "n": 3}, '{"q": "kittens", "n": 3}'),
        ToolResultBlock("call-1", "search", [TextBlock("3 hits\nline two")], state=ToolResultState.SUCCESS),
        DataBlock(Base64Source("image/png", "iVBORw0KGgo=" * 20), "data-9", "chart.png"),
        name="Friday",
        usage=ChatUsage(120, 45, 7, 1.25),
        generate_reason=GenerateReason.TOOL_CALLS,
    )


MESSAGE = big_reply()
EVENTS = events_from_message(MESSAGE, chunk_size=32)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_client_resumes_after_every_cut_and_gets_every_event_once(seed: int) -> None:
    state = StreamServer(EVENTS, cuts=6, seed=seed)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, max_retries=3, retry_delay=0.001)
        received = list(stream)
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


def test_a_stalled_connection_times_out_and_is_resumed() -> None:
    state = StreamServer(EVENTS, cuts=2, seed=4, stall=True)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=0.5, retry_delay=0.001)
        received = list(stream)
    assert received == EVENTS
    # Each stall times out and is resumed; a machine busy enough to pause the server as long adds one.
    assert stream.reconnects >= 2


def test_without_last_event_id_support_the_client_drops_the_replayed_events() -> None:
    state = StreamServer(EVENTS, cuts=4, seed=7, honour_last_event_id=False)
    with serve_events(state):
        received = list(ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert received == EVENTS


def test_a_stream_without_an_end_event_ends_when_the_server_answers_204() -> None:
    events = EVENTS[1:-1]  # no AgentStart/AgentEnd: the client cannot know where the reply ends
    state = StreamServer(events, cuts=2, seed=3)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001, stop=None)
        received = list(stream)
    assert received == events
    assert state.last_event_ids[-1] == events[-1].id  # the final request, answered with 204


def test_resuming_from_a_known_last_event_id() -> None:
    state = StreamServer(EVENTS)
    with serve_events(state):
        received = list(ResumableEventStream(state.url, last_event_id=EVENTS[99].id, timeout=TIMEOUT))
    assert received == EVENTS[100:]
    assert state.last_event_ids == [EVENTS[99].id]


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_a_last_event_id_header_of_the_caller_is_where_the_stream_starts_and_is_sent_once(as_bytes: bool) -> None:
    state = StreamServer(EVENTS, cuts=2, seed=5, cut_before=len("".join(map(encode_event, EVENTS[100:200]))))
    given = EVENTS[99].id or ""
    headers: dict[str, str | bytes] = {"last-event-id": given.encode() if as_bytes else given, "accept": "text/event-stream"}
    with serve_events(state):
        stream = ResumableEventStream(state.url, headers=headers, timeout=TIMEOUT, retry_delay=0.001)
        received = list(stream)
    assert received == EVENTS[100:] and stream.reconnects == 2
    # Each request carried one Last-Event-ID, the latest: never the caller's stale one beside it.
    assert state.last_event_ids[0] == EVENTS[99].id
    assert all(sent is not None and "," not in sent for sent in state.last_event_ids)
    assert state.last_event_ids[1] != EVENTS[99].id


def test_comments_messages_of_other_kinds_and_sub_agent_events_pass_as_they_should() -> None:
    # A sub-agent's reply interleaved with the parent's: its AgentEndEvent does not end the stream.
    sub_agent = events_from_message(AssistantMessage("from the researcher"), source="main/researcher")
    events = EVENTS[:3] + sub_agent + EVENTS[3:]
    state = StreamServer(events, cuts=2, seed=11, preamble=keep_alive_preamble())
    with serve_events(state):
        received = list(ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert received == events


def test_a_server_that_keeps_dropping_without_progress_makes_the_client_give_up() -> None:
    # Each connection is cut inside a long comment, before any event: no progress, ever.
    state = StreamServer(EVENTS, cuts=100, seed=5, preamble=": " + "x" * 5000 + "\n\n", cut_before=5000)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, max_retries=3, retry_delay=0.001)
        with pytest.raises(StreamConnectionError, match="4 connections in a row brought no new event"):
            list(stream)
    assert len(state.last_event_ids) == 4
    assert stream.reconnects == 3


def test_a_response_that_is_not_an_event_stream_is_not_retried() -> None:
    state = StreamServer(EVENTS, content_type="application/json")
    with serve_events(state):
        with pytest.raises(StreamConnectionError, match="text/event-stream"):
            list(ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001))
    assert len(state.last_event_ids) == 1


@pytest.mark.parametrize(
    ("head", "said"),
    [
        # Headers, then silence: the read times out, and the client gives up.
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", "brought no new event"),
        (b"HTTP/1.0 500 Oops\r\nContent-Type: text/plain\r\n\r\n", "got 500 Oops"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n\r\n", "encoded as 'gzip'"),
    ],
    ids=["stalled", "refused", "compressed"],
)
def test_a_connection_given_up_is_closed_at_once_not_when_garbage_is_collected(head: bytes, said: str) -> None:
    # http.client hands a body without length to the response: closing the connection alone leaves
    # the socket open for as long as the error (which holds the frame that holds it) is kept.
    with serve_raw(head) as server:
        gc.disable()
        try:
            with pytest.raises(StreamConnectionError, match=said) as raised:
                list(ResumableEventStream(server.url, timeout=0.2, retry_delay=0.001, max_retries=0))
            assert server.client_closed.wait(SOCKET_TIMEOUT)
            assert raised.value is not None  # kept all along
        finally:
            gc.enable()


def test_nothing_listening_is_a_connection_error_after_bounded_retries() -> None:
    # A port bound and never listened on refuses connections, and no other process can take it meanwhile.
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/events"
        stream = ResumableEventStream(url, timeout=TIMEOUT, max_retries=2, retry_delay=0.001)
        with pytest.raises(StreamConnectionError) as info:
            list(stream)
    assert isinstance(info.value.__cause__, ConnectionRefusedError)
    assert stream.reconnects == 2


def test_a_server_sending_an_oversized_message_is_an_error_not_a_drop() -> None:
    state = StreamServer(EVENTS, preamble="data: " + "x" * 2000 + "\n\n")
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, max_message_size=1000)
        with pytest.raises(DecodeError, match="beyond 1000 characters"):
            list(stream)
    assert len(state.last_event_ids) == 1


# A result whose message breaks its role's rules: decoding it raises RoleContentError, as for any JSON.
SYSTEM_CALLING = 'data: {"type":"AGENT_RESULT","result":{"role":"SYSTEM","content":[{"type":"tool_use","id":"c","name":"n"}]}}\n\n'


def test_a_server_sending_a_result_that_breaks_a_role_rule_is_an_error_that_says_which_message() -> None:
    with serve_bodies(["".join(map(encode_event, EVENTS[:2])) + "id: r9\n" + SYSTEM_CALLING]) as server:
        stream = ResumableEventStream(server.url, timeout=TIMEOUT, retry_delay=0.001)
        read = []
        with pytest.raises(RoleContentError, match=r"got ToolUseBlock at content\[0\] \(in an unnamed SSE message with last event id 'r9'\)$"):
            for event in stream:
                read.append(event)
    assert read == EVENTS[:2]
    assert stream.last_event_id == "r9"  # resuming starts after the message that could not be read
    assert server.last_event_ids == [None]


def test_event_ids_beyond_latin_1_are_sent_back_as_utf_8() -> None:
    events = [attrs.evolve(event, id=f"事件-{index:05d}") for index, event in enumerate(EVENTS)]
    state = StreamServer(events, cuts=3, seed=4)
    with serve_events(state):
        stream = ResumableEventStream(state.url, timeout=TIMEOUT, retry_delay=0.001)
        assert list(stream) == events
    assert stream.reconnects == 3
    assert all(sent is None or sent.startswith("事件-") for sent in state.last_event_ids)
    assert assemble(events) == [MESSAGE]


@pytest.mark.parametrize("header", ["Last-Event-ID", "last-event-id"])
def test_a_last_event_id_header_beyond_latin_1_is_taken_as_last_event_id_is(header: str) -> None:
    # Other header values go as Latin-1, so a str beyond it is refused; this one the client sends itself.
    events = [attrs.evolve(event, id=f"事件-{index:05d}") for index, event in enumerate(EVENTS)]
    state = StreamServer(events)
    with serve_events(state):
        stream = ResumableEventStream(state.url, headers={header: events[99].id or ""}, timeout=TIMEOUT)
        assert list(stream) == events[100:]
    assert state.last_event_ids == [events[99].id]
    with pytest.raises(ArgumentValueError, match=rf"^headers\['{header}'\] cannot contain CR, LF or NUL$"):
        ResumableEventStream(state.url, headers={header: "事件\n"})


def test_an_id_without_data_moves_the_last_event_id_as_in_a_browser() -> None:
    # A server's checkpoint: "id: ..." and a blank line.  The reconnection sends it back.
    first, *rest = EVENTS[:3]
    with serve_bodies([encode_event(first) + "id: checkpoint-7\n\n", "".join(map(encode_event, rest))]) as server:
        stream = ResumableEventStream(server.url, timeout=TIMEOUT, retry_delay=0.001, stop=lambda e: e.id == rest[-1].id)
        assert list(stream) == EVENTS[:3]
    assert server.last_event_ids == [None, "checkpoint-7"]


def test_events_without_ids_are_not_progress_so_the_client_gives_up() -> None:
    # Without an id a replayed event cannot be recognised: it comes again on each connection, and
    # connections that bring nothing else count as bringing nothing new.
    event = attrs.evolve(EVENTS[1], id=None)
    with serve_bodies([encode_event(event)]) as server:
        stream = ResumableEventStream(server.url, timeout=TIMEOUT, max_retries=2, retry_delay=0.001)
        received = []
        with pytest.raises(
            StreamConnectionError, match=r"3 connections in a row brought no new event \(the server closed the last\)"
        ):
            for item in stream:
                received.append(item)
    assert received == [event] * 3 and len(server.last_event_ids) == 3


def test_giving_up_after_one_connection_says_it_in_the_singular() -> None:
    with serve_bodies([""]) as server:
        with pytest.raises(StreamConnectionError, match=r": 1 connection brought no new event \(the server closed it\); "):
            list(ResumableEventStream(server.url, timeout=TIMEOUT, max_retries=0))


def test_a_stream_that_never_sends_the_stop_event_says_how_to_end_it() -> None:
    # A bare model call's stream ends with its ModelCallEndEvent: no AgentEndEvent, which the client
    # waits for by default.  Served whole once, then nothing: the client must say why it gave up.
    bare = [event for event in EVENTS if not isinstance(event, (AgentStartEvent, AgentEndEvent))]
    with serve_bodies(["".join(map(encode_event, bare)), ""]) as server:
        received: list[AgentEvent] = []
        with pytest.raises(StreamConnectionError, match=r"closed without the one stop= ends on .* 204 No Content"):
            for event in ResumableEventStream(server.url, timeout=TIMEOUT, max_retries=1, retry_delay=0.001):
                received.append(event)
        assert received == bare
    with serve_bodies(["".join(map(encode_event, bare))]) as server:  # the hint's remedy
        last = bare[-1].id
        assert list(ResumableEventStream(server.url, timeout=TIMEOUT, stop=lambda event: event.id == last)) == bare


def test_the_client_checks_its_arguments() -> None:
    with pytest.raises(ArgumentValueError, match="http"):
        ResumableEventStream("ftp://127.0.0.1/x")
    with pytest.raises(ArgumentValueError, match="Last|header"):
        ResumableEventStream("http://127.0.0.1/x", last_event_id="a\nb")
    with pytest.raises(ArgumentValueError, match="max_retries"):
        ResumableEventStream("http://127.0.0.1/x", max_retries=-1)
    with pytest.raises(ArgumentValueError, match="retry_delay"):
        ResumableEventStream("http://127.0.0.1/x", retry_delay=-1.0)
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
            ResumableEventStream(**arguments)  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="max_message_size must be at least 1"):
        ResumableEventStream(url, max_message_size=0)
    with pytest.raises(ArgumentValueError, match=r"^timeout must be a finite number, got inf$"):
        ResumableEventStream(url, timeout=float("inf"))
    with pytest.raises(ArgumentTypeError, match=r"headers\['last-event-id'\] must be a str"):
        ResumableEventStream(url, headers={"last-event-id": 5})  # type: ignore[dict-item]


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
    ],
    ids=["timeout", "retry delay", "timeout far past", "lone surrogate"],
)
def test_what_the_client_could_not_use_is_refused_when_it_is_made(arguments: dict[str, Any]) -> None:
    with pytest.raises(ArgumentValueError, match="at most 1e[+]09 seconds|lone surrogate"):
        ResumableEventStream("http://127.0.0.1/x", **arguments)


def test_the_client_takes_the_longest_wait_and_settings_beyond_a_java_int() -> None:
    # Settings of this process, not fields Java reads: a Java int is no bound for them.
    client = ResumableEventStream(
        "http://127.0.0.1/x", timeout=1e9, retry_delay=1e9, max_retries=2**40, max_message_size=2**40
    )
    assert client.last_event_id == ""
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
        ({"url": "http://h/x", "headers": {"X-Id": "a\nb"}}, ArgumentValueError, "cannot contain CR, LF or NUL"),
        ({"url": "http://h/x", "headers": {"X-Id": b"a\r\n b"}}, ArgumentValueError, "cannot contain CR, LF or NUL"),
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
def test_the_client_refuses_a_url_or_header_it_could_not_send(arguments: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        ResumableEventStream(**arguments)  # type: ignore[arg-type]


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
def test_a_url_is_sent_percent_encoded_as_in_a_browser(given: str, sent: str) -> None:
    with serve_bodies(["".join(map(encode_event, EVENTS[:3]))]) as server:
        stream = ResumableEventStream(server.url + given, timeout=TIMEOUT, stop=lambda e: e.id == EVENTS[2].id)
        assert list(stream) == EVENTS[:3]
    assert server.paths == [sent]


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
    with pytest.raises(ArgumentValueError, match=r"url 'http://127.0.0.1:9/x' cannot be sent: URL can't contain") as info:
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


def test_header_values_go_as_latin_1_text_or_as_the_bytes_given() -> None:
    headers: dict[str, str | bytes] = {"X-Place": "café", "X-Name": "事件".encode(), "X-Empty": "", "X-Tab": "a\tb"}
    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server:
        stream = ResumableEventStream(server.url, headers=headers, timeout=TIMEOUT)
        assert list(stream) == EVENTS
    # http.server reads header bytes as Latin-1.
    received = server.headers[0]
    assert (received["X-Place"], received["X-Name"].encode("latin-1").decode()) == ("café", "事件")
    assert (received["X-Empty"], received["X-Tab"]) == ("", "a\tb")


def test_an_os_error_of_the_stop_function_is_raised_as_it_is_not_taken_for_a_drop() -> None:
    def stop(event: AgentEvent) -> bool:
        raise PermissionError("the caller's own")

    with serve_bodies(["".join(map(encode_event, EVENTS))]) as server, pytest.raises(PermissionError, match="own"):
        list(ResumableEventStream(server.url, timeout=TIMEOUT, max_retries=1, retry_delay=0.001, stop=stop))
    assert len(server.last_event_ids) == 1  # no reconnection


def test_the_encoders_and_parsers_check_their_arguments() -> None:
    with pytest.raises(ArgumentTypeError, match="encode_sse data must be a str"):
        encode_sse(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="encode_sse id must be a str or None"):
        encode_sse("x", id=5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="encode_sse event must be a str or None"):
        encode_sse("x", event=b"ping")  # type: ignore[arg-type]
    # Checked at the call, not when the first message is asked for: the mistake is on this line.
    with pytest.raises(ArgumentTypeError, match="an event stream is text, bytes or an iterable of chunks"):
        parse_messages(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="max_message_size must be at least 1"):
        parse_messages([], max_message_size=0)
    with pytest.raises(ArgumentTypeError, match="an event stream is text, bytes or an iterable of chunks"):
        parse_events(5)  # type: ignore[arg-type]
    # They iterate, but as keys, or in no order: read as chunks, they made no message and said nothing.
    with pytest.raises(ArgumentTypeError, match=r"iterable of chunks in order, got \{'data': 'x'\} \(dict\)"):
        parse_messages({"data": "x"})
    with pytest.raises(ArgumentTypeError, match=r"iterable of chunks in order, got \{'data: x'\} \(set\)"):
        parse_events({"data: x"})
    with pytest.raises(ArgumentTypeError, match="limits must be a DecodeLimits"):
        parse_events("", limits={"max_depth": 200})  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="encode_events takes an iterable of events, got 5 \\(int\\)"):
        encode_events(5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="got one AgentEndEvent; give it to encode_event"):
        encode_events(AgentEndEvent("r"))  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="retry must be an int"):
        encode_events([], retry="1")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="encode_events last_event_id must be a str or None, got 7"):
        encode_events([], last_event_id=7)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="SSEParser last_event_id must be a str"):
        SSEParser(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="SSEParser max_message_size must be an int"):
        SSEParser(max_message_size=None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="encode_comment text must be a str, got 5"):
        encode_comment(5)  # type: ignore[arg-type]


# -- encoding and parsing events without a network ---------------------------------------


def test_encode_event_writes_id_type_and_json() -> None:
    event = TextBlockDeltaEvent("r1", "text", "line one\nline two", id="e1", created_at="t")
    assert encode_event(event) == (
        'id: e1\nevent: TEXT_BLOCK_DELTA\ndata: {"type":"TEXT_BLOCK_DELTA","id":"e1","createdAt":"t",'
        '"replyId":"r1","blockId":"text","delta":"line one\\nline two"}\n\n'
    )
    assert SSEParser().feed(encode_event(event))[0].last_event_id == "e1"


def test_an_event_without_id_has_no_id_field() -> None:
    event = AgentEndEvent("r1", id=None, created_at=None)
    assert encode_event(event) == 'event: AGENT_END\ndata: {"type":"AGENT_END","replyId":"r1"}\n\n'


@pytest.mark.parametrize(
    ("encode", "field"),
    [
        (lambda: encode_event(AgentEvent.from_json('{"type":"AGENT_END","id":"\\ud800","replyId":"r"}')), "id"),
        (lambda: encode_sse("x", id="a\ud800"), "id"),
        (lambda: encode_sse("x", event="\udfff"), "event name"),
        (lambda: encode_sse("x\udc00y"), "data field"),
        (lambda: encode_comment("\ud800"), "comment"),
    ],
)
def test_text_utf_8_cannot_encode_is_refused_rather_than_written(encode: Callable[[], str], field: str) -> None:
    # A lone surrogate, which an event read from JSON may hold: the stream could not be sent as UTF-8.
    with pytest.raises(ArgumentValueError, match=f"an SSE {field} cannot contain a lone surrogate"):
        encode()


def test_a_lone_surrogate_in_an_events_data_goes_escaped_as_in_its_json() -> None:
    escaped_in_json = AgentEvent.from_json('{"type":"TEXT_BLOCK_DELTA","id":"e1","delta":"\\ud800"}')
    assert encode_event(escaped_in_json).encode() == b'id: e1\nevent: TEXT_BLOCK_DELTA\ndata: {"type":"TEXT_BLOCK_DELTA","id":"e1","delta":"\\ud800"}\n\n'


def test_encode_event_takes_only_events() -> None:
    with pytest.raises(ArgumentTypeError, match=r"encode_event takes AgentEvents, got 'hello' \(str\); use encode_sse"):
        encode_event("hello")  # type: ignore[arg-type]
    # Resuming reads each event's id: a stray value is named there too, not an AttributeError.
    for last_event_id in (None, "e3"):
        with pytest.raises(ArgumentTypeError, match=r"encode_events takes AgentEvents, got 1 \(int\)"):
            list(encode_events([1, 2], last_event_id=last_event_id))  # type: ignore[list-item]


def test_encode_events_resumes_after_a_last_event_id() -> None:
    assert "".join(encode_events(EVENTS[:5], last_event_id=EVENTS[2].id)) == "".join(map(encode_event, EVENTS[3:5]))
    # A live reply: each event is sent as it comes once the client's last one has passed.
    made: list[str | None] = []

    def live() -> Iterator[AgentEvent]:
        for event in EVENTS[:5]:
            made.append(event.id)
            yield event

    resumed = encode_events(live(), last_event_id=EVENTS[2].id)
    assert next(resumed) == encode_event(EVENTS[3]) and made == [event.id for event in EVENTS[:4]]
    assert "".join(encode_events(EVENTS[:5], last_event_id="unknown")) == "".join(map(encode_event, EVENTS[:5]))
    assert next(encode_events(EVENTS, retry=250)) == "retry: 250\n\n"


def test_parse_events_reads_a_stream_in_any_chunking() -> None:
    stream = "".join(encode_events(EVENTS, retry=10)).encode()
    assert list(parse_events([stream])) == EVENTS
    assert list(parse_events(stream[i : i + 7] for i in range(0, len(stream), 7))) == EVENTS


def test_parse_events_names_bad_data() -> None:
    with pytest.raises(DecodeError, match="type"):
        list(parse_events(["event: AGENT_END\ndata: {}\n\n"]))
    # The path inside the event, and which message of the stream held it.
    bad = 'id: e5\nevent: TEXT_BLOCK_DELTA\ndata: {"type":"TEXT_BLOCK_DELTA","delta":5}\n\n'
    with pytest.raises(DecodeError) as caught:
        list(parse_events("".join(encode_events(EVENTS[:3])) + bad))
    assert caught.value.path == "delta"
    assert str(caught.value) == (
        "delta: expected a string, got number (in the SSE message 'TEXT_BLOCK_DELTA' with last event id 'e5')"
    )
    unnamed = 'data: {"type":"TEXT_BLOCK_DELTA","delta":5}\n\n'
    with pytest.raises(DecodeError, match=r"\(in an unnamed SSE message\)$"):
        list(parse_events(unnamed))
    with pytest.raises(DecodeError, match=r"with last event id 'eeee.*'…\(1,000,000 characters\)\)$"):
        list(parse_events(bad.replace("e5", "e" * 1_000_000)))
    with pytest.raises(RoleContentError, match=r"^result: SYSTEM message .* \(in an unnamed SSE message\)$"):
        list(parse_events(SYSTEM_CALLING))


def test_parse_events_takes_the_decoders_limits() -> None:
    # A result nesting tool results 60 deep: past the default depth, within a raised one.
    nested = ToolResultBlock("c0", "f", [TextBlock("leaf")])
    for depth in range(1, 60):
        nested = ToolResultBlock(f"c{depth}", "f", [nested])
    stream = encode_event(AgentResultEvent(AssistantMessage(nested)))
    with pytest.raises(DecodeError, match="nested deeper than 100 levels"):
        list(parse_events(stream))
    (event,) = parse_events(stream, limits=DecodeLimits(max_depth=200))
    assert isinstance(event, AgentResultEvent) and event.result is not None
    assert event.result.content == (nested,)

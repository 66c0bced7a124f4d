"""SSE: agent events encoded as Server-Sent Events and parsed back (the clients: test_sse_clients.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from sse_server import EVENTS, SYSTEM_CALLING

from agentscope_py import (
    AgentEvent,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    DecodeError,
    DecodeLimits,
    RoleContentError,
    TextBlock,
    ToolResultBlock,
)
from agentscope_py.event import AgentEndEvent, AgentResultEvent, TextBlockDeltaEvent
from agentscope_py.sse import (
    SSEParser,
    aencode_events,
    encode_comment,
    encode_event,
    encode_events,
    encode_sse,
    parse_events,
    parse_messages,
)


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


async def _live(events: list[AgentEvent], made: list[str | None]) -> AsyncIterator[AgentEvent]:
    for event in events:
        await asyncio.sleep(0)  # as a model makes them
        made.append(event.id)
        yield event


@pytest.mark.parametrize("resume_at", [None, 0, 2, 4, "unknown"])
@pytest.mark.parametrize("retry", [None, 250])
def test_aencode_events_writes_what_encode_events_writes(resume_at: int | str | None, retry: int | None) -> None:
    events = EVENTS[:5]
    last_event_id = events[resume_at].id if isinstance(resume_at, int) else resume_at

    async def written() -> list[str]:
        return [text async for text in aencode_events(_live(events, []), last_event_id=last_event_id, retry=retry)]

    assert asyncio.run(written()) == list(encode_events(events, last_event_id=last_event_id, retry=retry))


def test_aencode_events_sends_each_event_as_it_comes_once_the_clients_last_has_passed() -> None:
    made: list[str | None] = []

    async def first() -> str:
        return await anext(aiter(aencode_events(_live(EVENTS[:5], made), last_event_id=EVENTS[2].id)))

    assert asyncio.run(first()) == encode_event(EVENTS[3])
    assert made == [event.id for event in EVENTS[:4]]


def test_aencode_events_checks_its_arguments_when_called_and_the_events_as_they_come() -> None:
    with pytest.raises(ArgumentTypeError, match=r"aencode_events takes an async iterable of events, got .*list.*; encode_events takes"):
        aencode_events(EVENTS[:2])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="aencode_events last_event_id must be a str or None"):
        aencode_events(_live([], []), last_event_id=5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentValueError, match="retry must be a non-negative int"):
        aencode_events(_live([], []), retry=-1)

    async def not_events() -> AsyncIterator[object]:
        yield "data: x"

    async def written() -> list[str]:
        return [text async for text in aencode_events(not_events())]  # type: ignore[arg-type]

    with pytest.raises(ArgumentTypeError, match="aencode_events takes AgentEvents, got 'data: x' .*; use encode_sse for text"):
        asyncio.run(written())


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
    with pytest.raises(RoleContentError, match=r"^result: SYSTEM message .* \(in an unnamed SSE message\)$") as role_error:
        list(parse_events(SYSTEM_CALLING))
    assert role_error.value.path == "result.content[0]"


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

"""Agent events as Server-Sent Events: encoding, parsing, and a resumable client.

Each event is one SSE message: ``id:`` is the event id (what a client sends
back as ``Last-Event-ID`` to resume), ``event:`` the event type, ``data:`` the
event's JSON::

    id: 3f2a…
    event: TEXT_BLOCK_DELTA
    data: {"type":"TEXT_BLOCK_DELTA","id":"3f2a…","createdAt":"…","replyId":"r1","blockId":"text","delta":"Hel"}

Server side, :func:`encode_events` writes a stream and resumes it after a
client's ``Last-Event-ID`` (:func:`aencode_events` in async code), and an
:class:`EventLog` keeps a stream being produced for every client that follows
it.  Client side, :class:`SSEParser` parses any event stream incrementally,
:func:`parse_events` turns one into agent events, and
:class:`ResumableEventStream` reads one over HTTP, reconnecting when the
connection drops (:class:`AsyncResumableEventStream` in async code, with httpx).
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping, Set
from typing import TYPE_CHECKING, Any

from ._sse_client import ResumableEventStream
from ._sse_log import EventLog
from ._sse_write import check_event, encode_comment, encode_event, encode_sse, encoded_event, retry_field
from ._sse_parse import DEFAULT_MAX_MESSAGE_SIZE, MAX_RETRY, Chunk, SSEMessage, SSEParser
from ._sse_resume import decode_event, is_agent_event_message, is_reply_end
from ._checks import check_optional_str, describe
from .errors import ArgumentTypeError
from ._serializable import DEFAULT_LIMITS, DecodeLimits, check_limits
from .event import AgentEvent

__all__ = [
    "MAX_RETRY",
    "AsyncResumableEventStream",
    "Chunk",
    "EventLog",
    "ResumableEventStream",
    "SSEMessage",
    "SSEParser",
    "aencode_events",
    "encode_comment",
    "encode_event",
    "encode_events",
    "encode_sse",
    "is_reply_end",
    "parse_events",
    "parse_messages",
]

if not TYPE_CHECKING and importlib.util.find_spec("httpx") is None:  # a star import or help() would raise
    __all__ = [name for name in __all__ if name != "AsyncResumableEventStream"]

if TYPE_CHECKING:
    from ._sse_async import AsyncResumableEventStream
else:

    def __getattr__(name: str) -> Any:
        # Loaded on first use: it needs httpx (the async extra), which the rest of the module does not.
        if name != "AsyncResumableEventStream":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        try:
            module = importlib.import_module("._sse_async", __package__)
        except ModuleNotFoundError as error:
            if error.name not in ("httpx", "anyio"):
                raise
            raise ModuleNotFoundError(
                "AsyncResumableEventStream reads with httpx, which is not installed: pip install httpx "
                "(or this package's async extra: pip install '.[async]' from a checkout)",
                name=error.name,
            ) from error
        globals()[name] = value = module.AsyncResumableEventStream
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


_PIECE_SIZE = 64 * 1024  # characters or bytes of a stream given whole, parsed at a time


def encode_events(
    events: Iterable[AgentEvent], *, last_event_id: str | None = None, retry: int | None = None
) -> Iterator[str]:
    """The SSE messages of ``events``, resuming after ``last_event_id`` when a client sent one.

    With ``last_event_id``, the events up to and including the one with that id
    are skipped, and the rest sent as they come (``events`` may be a live
    generator); if no event has it, everything is sent again, at its end (a
    :class:`ResumableEventStream` drops the events it has already seen).
    ``retry`` (milliseconds) is sent first to set the client's reconnection delay.
    The arguments are checked when it is called; the events are encoded as they come.
    """
    first = [retry_field(retry) + "\n\n"] if retry is not None else []  # no data: clients take the field only
    last_event_id = check_optional_str(last_event_id, "encode_events last_event_id")
    _check_events(events)
    return _encoded(first, _after(events, last_event_id) if last_event_id else events)


def aencode_events(
    events: AsyncIterable[AgentEvent], *, last_event_id: str | None = None, retry: int | None = None
) -> AsyncIterator[str]:
    """:func:`encode_events` for events that come in async code (a reply a model is producing):
    the same messages, as an async iterator, which an ASGI framework's streaming response takes."""
    first = [retry_field(retry) + "\n\n"] if retry is not None else []
    last_event_id = check_optional_str(last_event_id, "aencode_events last_event_id")
    given: object = events  # whatever the annotation says: this is the check that it holds
    if not isinstance(given, AsyncIterable):
        hint = "; encode_events takes a plain iterable" if isinstance(given, Iterable) else ""
        raise ArgumentTypeError(f"aencode_events takes an async iterable of events, got {describe(given)}{hint}")
    return _aencoded(first, events, last_event_id)


async def _aencoded(
    first: list[str], events: AsyncIterable[AgentEvent], last_event_id: str | None
) -> AsyncIterator[str]:
    # _after's skipping, in one loop: the events before the one with the id are held back until it
    # comes (then dropped: the client has them), or sent at the end if it never does.
    for text in first:
        yield text
    held: list[AgentEvent] | None = [] if last_event_id else None
    async for event in events:
        check_event(event, "aencode_events")
        if held is None:
            yield encoded_event(event)
        elif event.id == last_event_id:
            held = None
        else:
            held.append(event)
    for event in held or ():
        yield encoded_event(event)


def _check_events(events: object) -> None:
    if isinstance(events, AgentEvent):
        raise ArgumentTypeError(
            f"encode_events takes an iterable of events, got one {type(events).__name__}; "
            "give it to encode_event, or a list of it"
        )
    if not isinstance(events, Iterable):
        raise ArgumentTypeError(f"encode_events takes an iterable of events, got {describe(events)}")


def _encoded(first: list[str], events: Iterable[AgentEvent]) -> Iterator[str]:
    yield from first
    for event in events:
        check_event(event, "encode_events")
        yield encoded_event(event)


def _after(events: Iterable[AgentEvent], last_event_id: str) -> Iterator[AgentEvent]:
    # Each event as soon as it comes once the one with the id has passed, so a live stream stays
    # live; those before it are held back only until then (all of them, if no event has the id).
    held: list[AgentEvent] = []
    rest = iter(events)
    for event in rest:
        check_event(event, "encode_events")  # now, not once the id is found: it may never be
        if event.id == last_event_id:
            yield from rest
            return
        held.append(event)
    yield from held


def parse_messages(
    chunks: Iterable[Chunk] | Chunk, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
) -> Iterator[SSEMessage]:
    """The messages of an event stream given as chunks (an HTTP body, a file's lines …), or whole.

    The arguments are checked when it is called; the stream is read as the messages are asked for.
    """
    parser = SSEParser(max_message_size=max_message_size)
    if isinstance(chunks, (str, bytes, bytearray, memoryview)):  # the whole stream in one piece
        return _parsed(parser, _pieces(chunks))
    # A mapping or a set iterates, but not as a stream: its keys, or its items in no order.
    given: object = chunks  # typed as chunks, but callers without mypy may pass anything
    if not isinstance(given, Iterable) or isinstance(given, (Mapping, Set)):
        raise ArgumentTypeError(
            f"an event stream is text, bytes or an iterable of chunks in order, got {describe(chunks)}"
        )
    return _parsed(parser, chunks)


def _pieces(whole: Chunk) -> Iterator[Chunk]:
    # Fed a piece at a time, so that a stream given whole is read as its messages are asked for,
    # as one arriving in chunks is, not parsed into a list of them all first.
    for start in range(0, len(whole), _PIECE_SIZE):
        yield whole[start : start + _PIECE_SIZE]


def _parsed(parser: SSEParser, chunks: Iterable[Chunk]) -> Iterator[SSEMessage]:
    for chunk in chunks:
        yield from parser.feed(chunk)
    parser.close()


def parse_events(
    chunks: Iterable[Chunk] | Chunk,
    *,
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    limits: DecodeLimits = DEFAULT_LIMITS,
) -> Iterator[AgentEvent]:
    """The agent events of an event stream; messages of other kinds (``event: ping``) are skipped.

    A message whose data is not an agent event raises :class:`~agentscope_py.DecodeError`
    (:class:`~agentscope_py.RoleContentError` for a result breaking its role's rules, as
    ``AgentEvent.from_json`` raises it; catch both, as for any JSON from outside);
    ``limits`` are those of ``AgentEvent.from_json`` (a deeper result: ``DecodeLimits(max_depth=...)``).
    The arguments are checked when it is called, as by :func:`parse_messages`.
    """
    check_limits(limits)
    return _agent_events(parse_messages(chunks, max_message_size=max_message_size), limits)


def _agent_events(messages: Iterator[SSEMessage], limits: DecodeLimits) -> Iterator[AgentEvent]:
    for message in messages:
        if is_agent_event_message(message.event):
            yield decode_event(message, limits)

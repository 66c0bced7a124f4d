"""What the resumable clients share: their arguments, the request they send, the events a
response's bytes bring, and when to stop reconnecting.

The HTTP is each client's own: ``_sse_client`` reads with the standard library's
``http.client``, ``_sse_async`` with httpx.  Everything that decides what the
reader sees is here, once, so the two cannot drift apart.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Mapping

from ._checks import check_float, check_optional_str, check_str, describe
from ._serializable import DEFAULT_LIMITS, DecodeLimits, check_limits
from ._shown import elided
from ._sse_parse import DEFAULT_MAX_MESSAGE_SIZE, SSEMessage, SSEParser, check_size
from ._sse_request import check_last_event_id, header_event_id, parse_url, request_headers
from .errors import ArgumentTypeError, ArgumentValueError, DecodeError, RoleContentError, StreamConnectionError
from .event import AgentEndEvent, AgentEvent
from .event._types import AgentEventType

__all__ = ["Reading", "ResumableClient", "decode_event", "is_agent_event_message", "is_reply_end"]

# About 31 years: "forever" for a wait.  Socket timeouts and sleeps past a few times this raise
# OverflowError or OSError, which a caller would meet only at the first connection or retry.
_LONGEST_WAIT = 1e9
#: The longest a doubled reconnection delay grows to (a delay asked for that is longer stays as it is).
_LONGEST_BACKOFF = 60.0


def is_reply_end(event: AgentEvent) -> bool:
    """True for the top-level agent's ``AgentEndEvent``: the end of the reply being streamed."""
    return type(event) is AgentEndEvent and event.source is None


def is_agent_event_message(event_name: str) -> bool:
    """Whether an SSE message named ``event_name`` carries an agent event.

    Unnamed messages (``"message"``) and the event type names (legacy aliases
    included) do; anything else (``"ping"``, ``"heartbeat"`` …) is the server's
    own business and is skipped.
    """
    if event_name == "message":
        return True
    try:
        AgentEventType.from_value(event_name)
    except ValueError:
        return False
    return True


def decode_event(message: SSEMessage, limits: DecodeLimits) -> AgentEvent:
    """The agent event ``message`` carries.  What ``AgentEvent.from_json`` raises for its data (a
    :class:`DecodeError`, or a :class:`RoleContentError` for a result that breaks its role's rules)
    also says which message it was."""
    try:
        return AgentEvent.from_json(message.data, limits=limits)
    except (DecodeError, RoleContentError) as error:
        # "message" is SSE's name for an unnamed message: saying it would read as a name the server chose.
        where = "an unnamed SSE message" if message.event == "message" else f"the SSE message {elided(message.event)}"
        if message.last_event_id:
            where += f" with last event id {elided(message.last_event_id)}"
        if isinstance(error, RoleContentError):
            raise RoleContentError(f"{error} (in {where})", error.path) from None
        raise DecodeError(f"{error.reason} (in {where})", error.path) from None


class ResumableClient:
    """The arguments and the state of a resumable client, checked where it is made (the
    clients' docstrings say what each means)."""

    def __init__(
        self,
        url: str,
        *,
        last_event_id: str | None = None,
        headers: Mapping[str, str | bytes] | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_delay: float = 1.0,
        stop: Callable[[AgentEvent], bool] | None = is_reply_end,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        limits: DecodeLimits = DEFAULT_LIMITS,
    ) -> None:
        self._https, self._host, self._port, self._target = parse_url(check_str(url, "url"))
        self._headers, given = request_headers(headers)
        last_event_id = check_optional_str(last_event_id, "last_event_id")
        if last_event_id is None:  # the argument wins over a header
            last_event_id = given
        else:
            # Checked, unlike an id the server sends: the client skips a replay only of events it yielded.
            check_last_event_id(last_event_id, "last_event_id")
        retries: object = max_retries  # typed as an int, but callers without mypy may pass anything
        if not isinstance(retries, int) or isinstance(retries, bool):
            raise ArgumentTypeError(f"max_retries must be an int, got {describe(max_retries)}")
        if max_retries < 0:
            raise ArgumentValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        timeout = check_float(timeout, "timeout", stored=False)
        retry_delay = check_float(retry_delay, "retry_delay", stored=False)
        if not 0 < timeout <= _LONGEST_WAIT or not 0 <= retry_delay <= _LONGEST_WAIT:
            raise ArgumentValueError(
                f"timeout must be > 0 and retry_delay >= 0, both at most {_LONGEST_WAIT:.0e} seconds, "
                f"got {timeout!r} and {retry_delay!r}"
            )
        if stop is not None and not callable(stop):
            raise ArgumentTypeError(f"stop must be a function of an event, or None, got {describe(stop)}")
        check_size(max_message_size, "max_message_size")
        check_limits(limits)
        self.url = url
        self.last_event_id: str = last_event_id or ""
        self.reconnects: int = 0
        # The ids of the events yielded, by every iteration: a server that starts over (it ignores
        # Last-Event-ID, or restarted) replays them to the next iteration too.
        self._yielded: set[str | bytes] = set()
        self._timeout = timeout
        self._max_retries = max_retries
        self._delay = retry_delay
        self._stop = stop
        self._max_message_size = max_message_size
        self._limits = limits
        # Held while an iteration runs: a second reader would move last_event_id and the retry delay
        # under the first, which would then resume from the wrong place and miss events.  A Lock, not
        # an RLock: iterated with asyncio.to_thread, the next event may be asked for from another thread.
        self._reader_lock = threading.Lock()

    def _start_reading(self) -> Reading:
        if not self._reader_lock.acquire(blocking=False):
            name = type(self).__name__
            raise ArgumentValueError(
                f"{self.url}: this {name} is already being iterated, and a client has one reader; give each "
                f"reader a client of its own ({name}(url, last_event_id=other.last_event_id) follows from the "
                "same point), or close the first iterator before iterating again"
            )
        return Reading(self)

    def _request_headers(self) -> dict[str, bytes]:
        sent = header_event_id(self.last_event_id)
        return self._headers if sent is None else {**self._headers, "Last-Event-ID": sent}

    def _refusal(
        self, status: int, reason: str, content_type: str, encoding: str, transfer_encoding: str
    ) -> StreamConnectionError | None:
        """Why a response (not 204) is no event stream to read, or ``None`` when it is one.  As in
        ``EventSource``, such an answer is not a dropped connection: it is not retried."""
        if status != 200 or content_type.split(";")[0].strip().lower() != "text/event-stream":
            return StreamConnectionError(
                f"{self.url}: expected 200 with a text/event-stream body, got "
                f"{status} {reason} ({content_type or 'no Content-Type'})",
                status,
            )
        encoding = encoding.strip().lower() or "identity"
        if encoding != "identity":
            # Asked for identity: compressed bytes would parse as no event.
            return StreamConnectionError(
                f"{self.url}: the server sent the stream encoded as {encoding!r}, which the client did not ask for "
                "and cannot read",
                status,
            )
        if transfer_encoding and transfer_encoding.lower() != "chunked":
            # A list of codings ("gzip, chunked"), or "chunked " with a space: http.client takes the
            # framing apart for exactly "chunked" (in any case) alone, and the chunk sizes would be read
            # as lines of the stream, losing events silently.
            return StreamConnectionError(
                f"{self.url}: the server sent the stream with Transfer-Encoding {transfer_encoding!r}, which the "
                "client cannot read (only 'chunked')",
                status,
            )
        return None


def _remembered(event_id: str) -> str | bytes:
    """What a client keeps of an event id to know its replay: the id, or a digest of a long one, so
    that a server sending ids of megabytes cannot fill the memory with them (the ids of this package
    and of Java have 32 and 36 characters)."""
    if len(event_id) <= 64:
        return event_id
    return hashlib.blake2b(event_id.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class Reading:
    """One iteration of a client: how its connections went."""

    def __init__(self, client: ResumableClient) -> None:
        self._client = client
        self._fruitless = 0  # connections in a row that brought no new event
        self._delivered = False  # whether any connection brought an event: the stream works, but never stops
        self._progressed = False  # whether this connection brought a new event
        self._parser = SSEParser()  # each connection's own, from connected()
        self._in_stop = False  # an OSError raised meanwhile is the caller's stop's, not a dropped connection
        self._closed = False

    def close(self) -> None:
        """Lets go of the client, which another iteration may then read; once, however often called
        (an async iteration dropped lets go at once, and its generator again when it is closed)."""
        if not self._closed:
            self._closed = True
            self._client._reader_lock.release()

    def connected(self) -> None:
        """A response with a body to read has begun."""
        client = self._client
        self._parser = SSEParser(client.last_event_id, max_message_size=client._max_message_size)

    def new_events(self, chunk: bytes) -> Iterator[AgentEvent]:
        """The agent events ``chunk`` completes that were not yielded before; keeps the client's
        ``last_event_id`` and reconnection delay up to date as the messages arrive."""
        client, parser = self._client, self._parser
        for message in parser.feed(chunk):
            client.last_event_id = message.last_event_id
            if not is_agent_event_message(message.event):
                continue
            event = decode_event(message, client._limits)
            if event.id is not None:
                seen = _remembered(event.id)
                if seen in client._yielded:
                    continue
                client._yielded.add(seen)
                # An event without an id cannot be told from its replay: it is yielded, but only an
                # event never seen before shows the stream moving on.
                self._progressed = True
            self._delivered = True
            yield event
        # A message with an id and no data moves the id too (a server's checkpoint), as in a browser.
        client.last_event_id = parser.last_event_id
        if parser.retry is not None:
            client._delay = parser.retry / 1000

    def ended(self) -> None:
        """The response's body ended without a fault."""
        self._parser.close()

    def stops(self, event: AgentEvent) -> bool:
        """Whether ``event`` is the last to read."""
        stop = self._client._stop
        if stop is None:
            return False
        self._in_stop = True
        stopped = stop(event)
        self._in_stop = False  # not in a finally: dropped() must see that what stop raised is its own
        return stopped

    def dropped(self, error: Exception, unsendable: bool) -> Exception:
        """``error``, which ended a connection, as the cause to reconnect after; raised instead when
        it is not the network's: the caller's ``stop`` raised it, or the request cannot be sent
        (``unsendable``: sending it again would fail again)."""
        if self._in_stop:
            raise error
        if unsendable:
            raise ArgumentValueError(f"the request to {self._client.url!r} cannot be sent: {error}") from error
        return error

    def retry_delay(self, cause: BaseException | None) -> float:
        """The connection is over (with ``cause``, or closed by the server): the seconds to wait
        before the next one, or :class:`StreamConnectionError` when it is time to give up."""
        client = self._client
        # Counted per connection tried, whether or not it got as far as a response.
        self._fruitless = 0 if self._progressed else self._fruitless + 1
        self._progressed = False
        if self._fruitless > client._max_retries:
            raise self._given_up(cause) from cause
        client.reconnects += 1
        delay = client._delay
        # Doubled for each connection in a row that brought nothing (WHATWG allows a user agent to
        # back off): a server restarting takes seconds, which the waits grow toward, where the same
        # short wait repeated would give up on it after max_retries of them.
        if self._fruitless > 1 and delay < _LONGEST_BACKOFF:
            delay = min(delay * 2.0 ** min(self._fruitless - 1, 64), _LONGEST_BACKOFF)
        return delay

    def _given_up(self, cause: BaseException | None) -> StreamConnectionError:
        client, fruitless = self._client, self._fruitless
        if fruitless == 1:
            connections, last = "1 connection", "it"
        else:
            connections, last = f"{fruitless} connections in a row", "the last"
        ended = f"{last} failed with {_said(cause)}" if cause else f"the server closed {last}"
        hint = ""
        if cause is None and self._delivered and client._stop is not None:
            # Events came, then clean closes: most likely the stream is over, and its last event is
            # not the one stop waits for (a bare model call sends no AgentEndEvent).
            hint = (
                "; the server sent events, then closed without the one stop= ends on (by default the top-level "
                "AgentEndEvent, which a bare model call's stream has none of): pass a stop= that ends on the "
                "stream's last event, or have the server answer 204 No Content once it has sent everything"
            )
        return StreamConnectionError(
            f"{client.url}: {connections} brought no new event ({ended}); giving up after "
            f"max_retries={client._max_retries} reconnections: check the server, or raise max_retries{hint}"
        )


def _said(error: BaseException) -> str:
    """``error`` as a message shows it, with what caused it when it says nothing itself (httpx's
    ``ReadError('')`` over the ``ConnectionResetError`` it stands for); not a cancellation, which
    is how anyio ends a read that timed out (``ReadTimeout('')``), not the caller's task."""
    inner: BaseException | None = error
    for _ in range(8):  # a chain of causes can loop
        if inner is None or str(inner):
            break
        inner = inner.__cause__ or inner.__context__
    if inner is None or inner is error or not isinstance(inner, Exception):
        return repr(error)
    return f"{error!r} ({inner!r})"


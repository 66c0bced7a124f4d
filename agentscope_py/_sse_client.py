"""A resumable client for an HTTP event stream (standard library only).

When the connection drops, the client reconnects after the delay the server
asked for (``retry:``), sending ``Last-Event-ID`` so the server can continue
after the last event received, and skips any event it has already yielded.
"""

from __future__ import annotations

import http.client
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Generator, Iterator, Mapping

from ._checks import check_float, check_optional_str, check_str, describe
from ._json import has_lone_surrogate
from ._serializable import DEFAULT_LIMITS, DecodeLimits, check_limits
from ._shown import elided
from ._sse_parse import DEFAULT_MAX_MESSAGE_SIZE, SSEMessage, SSEParser, check_size
from .errors import ArgumentTypeError, ArgumentValueError, DecodeError, RoleContentError, StreamConnectionError
from .event import AgentEndEvent, AgentEvent
from .event._types import AgentEventType

__all__ = ["ResumableEventStream", "decode_event", "is_agent_event_message", "is_reply_end"]

_READ_SIZE = 64 * 1024
_OWN_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
# What counts as the connection dropping: socket errors and timeouts (OSError) and
# truncated or malformed HTTP (a chunked body cut short raises IncompleteRead).
_DROPPED = (OSError, http.client.HTTPException)
# About 31 years: "forever" for a wait.  Socket timeouts and sleeps past a few times this raise
# OverflowError or OSError, which a caller would meet only at the first connection or retry.
_LONGEST_WAIT = 1e9
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110's token: what a header name may be
# Characters no request can carry (http.client refuses controls, and a lone surrogate has no UTF-8).
_UNSENDABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
# What goes into the request line as it is, besides the unreserved characters quote() always keeps:
# RFC 3986's reserved ones, whose escaping could change what the URL means, and "%", so the escapes
# already there stay.  The rest is percent-encoded as UTF-8, as in a browser: spaces, non-ASCII, and
# what no URI holds raw ({, |, " ...), which some servers answer with 400 (Tomcat, say).
_AS_IS = ":/?#[]@!$&'()*+,;=%"
# The WHATWG URL standard's forbidden domain code points that urlsplit leaves in a host.
_NOT_IN_HOST = re.compile(r"[ %<>\\^|]")
# ß, ς, ZWNJ and ZWJ: Python's IDNA 2003 codec maps them away, a browser's IDNA keeps them (faß.de
# is fass.de to one, xn--fa-hia.de to the other): the client would reach another host than a browser.
_IDNA_DEVIATIONS = re.compile("[\u00df\u03c2\u200c\u200d]")
_ZONE = re.compile(r"[A-Za-z0-9._~-]+")  # an IPv6 zone (an interface name, RFC 6874), unescaped


def _parse_url(url: str) -> tuple[bool, str, int, str]:
    """Whether ``url`` is https, its host as sent (ASCII), its port and the request target
    (path and query, percent-encoded where HTTP cannot carry them as they are)."""
    unsendable = _UNSENDABLE.search(url)
    if unsendable:
        raise ArgumentValueError(
            f"url cannot contain control characters or lone surrogates, found {unsendable[0]!r} in {url!r}: "
            "remove it, or percent-encode what the server should receive (%0A for a line feed)"
        )
    try:
        parts = urllib.parse.urlsplit(url.strip(" "))  # as the WHATWG parser, which drops spaces around a URL
    except ValueError as error:  # brackets around no IPv6 address, say
        raise ArgumentValueError(f"url {url!r} cannot be parsed: {error}") from None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise ArgumentValueError(f"url must be an http:// or https:// URL with a host, got {url!r}")
    if parts.username is not None:
        # Not sent (http.client does no authentication), and every error would show them.
        raise ArgumentValueError(
            "url must not hold credentials (user:password@); pass them as a header, "
            "e.g. headers={'Authorization': 'Bearer ...'}"
        )
    try:
        port = parts.port
    except ValueError:  # out of range, or not a number
        port = 0
    if port == 0:  # None when the url gives none
        raise ArgumentValueError(f"url must have a port from 1 to 65535, got {url!r}")
    host = _ascii_host(host) if ":" not in host else _ipv6_host(host)
    target = urllib.parse.quote(parts.path or "/", safe=_AS_IS)
    if parts.query:
        target += "?" + urllib.parse.quote(parts.query, safe=_AS_IS)
    https = parts.scheme == "https"
    # Explicit: given None, http.client would read the end of an IPv6 address ("::1") as a port.
    return https, host, port or (443 if https else 80), target


def _ipv6_host(host: str) -> str:
    """An IPv6 address as the resolver takes it: a zone (``fe80::1%25eth0`` in a URL, RFC 6874) with
    its ``%`` unescaped.  urlsplit has checked the address, not the zone."""
    if "%" not in host:
        return host
    address, escape, zone = host.partition("%25")
    if not escape or not _ZONE.fullmatch(zone):
        raise ArgumentValueError(
            f"url host {host!r} has no IPv6 zone the client can send: write it as %25 and an interface name "
            "of letters, digits and ._~- ([fe80::1%25eth0])"
        )
    return f"{address}%{zone}"


def _ascii_host(host: str) -> str:
    """``host`` as DNS and the ``Host`` header take it: an internationalized name in its IDNA form."""
    if not host.isascii():
        if _IDNA_DEVIATIONS.search(host):
            raise ArgumentValueError(
                f"url host {host!r} holds ß, ς or a zero-width (non-)joiner, which Python's IDNA codec and a "
                "browser encode as different hosts; give the host in the ASCII (xn--) form you mean"
            )
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as error:
            raise ArgumentValueError(
                f"url host {host!r} is no internationalized domain name ({error}); give it in its ASCII (xn--) form"
            ) from None
    if _NOT_IN_HOST.search(host):
        raise ArgumentValueError(f"url host {host!r} cannot contain a space, nor any of %<>\\^|")
    return host


def _header_text(value: object, name: str) -> str:
    """A ``Last-Event-ID`` given in ``headers``, as the text the client sends (UTF-8) from then on: a
    str need not be Latin-1, as other header values must, any more than ``last_event_id=`` need."""
    if isinstance(value, bytes):
        try:
            value = value.decode()
        except UnicodeDecodeError:
            raise ArgumentValueError(f"{name} must be UTF-8, as the client sends the event id, got {value!r}") from None
    elif not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a str or bytes, got {describe(value)}")
    if any(c in value for c in "\r\n\0"):
        raise ArgumentValueError(f"{name} cannot contain CR, LF or NUL")
    return value


def _check_header_value(value: object, arg: str) -> None:
    # http.client finds these at the first connection, with exceptions of its own, or sends them.
    if isinstance(value, str):
        try:
            data = value.encode("latin-1")  # how http.client sends a str
        except UnicodeEncodeError:
            raise ArgumentValueError(
                f"{arg} must be Latin-1 text, as HTTP sends a str; give bytes in the encoding the server reads, "
                f"such as {value!r}.encode()"
            ) from None
    elif isinstance(value, bytes):
        data = value
    else:
        raise ArgumentTypeError(f"{arg} must be a str or bytes, got {describe(value)}")
    if any(c in data for c in (b"\r", b"\n", b"\0")):
        raise ArgumentValueError(f"{arg} cannot contain CR, LF or NUL")


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
            raise RoleContentError(f"{error} (in {where})") from None
        raise DecodeError(f"{error.reason} (in {where})", error.path) from None


class ResumableEventStream:
    """The agent events served at ``url``, as an iterable that survives dropped connections.

    ::

        for event in ResumableEventStream("http://127.0.0.1:8000/reply"):
            ...

    Iteration ends after the event for which ``stop`` returns true (by default
    the top-level ``AgentEndEvent``), or when the server answers a request (the
    first too) with ``204 No Content`` (it has nothing more).  A dropped
    connection, a stalled one (no byte for ``timeout`` seconds) or a clean close
    before the end is followed by a reconnection; ``max_retries`` reconnections
    in a row that bring no new event raise :class:`StreamConnectionError`, as
    does any status other than 200 and 204, a body that is not
    ``text/event-stream``, or one compressed (``Content-Encoding``).

    ``last_event_id`` resumes a stream a previous client read part of;
    ``reconnects`` counts the reconnections so far.  A message that is not an
    agent event (read with ``limits``, as ``AgentEvent.from_json`` reads), or larger
    than ``max_message_size`` characters, raises
    :class:`~agentscope_py.DecodeError`: a broken server, not a broken connection
    (:class:`~agentscope_py.RoleContentError` for a result breaking its role's rules).

    A client has one reader: iterating it while another iteration of it is under
    way raises :class:`~agentscope_py.ArgumentValueError`; once that one has ended
    or been closed, a new iteration continues after ``last_event_id``.
    """

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
        self._https, self._host, self._port, self._target = _parse_url(check_str(url, "url"))
        if headers is not None and not isinstance(headers, Mapping):
            raise ArgumentTypeError(f"headers must be a mapping of names to values, got {describe(headers)}")
        headers = dict(headers or {})
        for name, value in headers.items():
            if not isinstance(name, str):  # compared without regard to case, below and at each request
                raise ArgumentTypeError(f"header names must be str, got {describe(name)}")
            if not _TOKEN.fullmatch(name):
                raise ArgumentValueError(f"header name {name!r} is no HTTP token (letters, digits and !#$%&'*+-.^_`|~)")
            if name.lower() != "last-event-id":
                _check_header_value(value, f"headers[{name!r}]")
        for name in [name for name in headers if name.lower() == "last-event-id"]:
            # The client sends the header itself, updated on every reconnection: a second copy in
            # another case would go too, and a server reading the first would replay everything.
            given = _header_text(headers.pop(name), f"headers[{name!r}]")
            if last_event_id is None:
                last_event_id = given
        last_event_id = check_optional_str(last_event_id, "last_event_id")
        if last_event_id is not None:
            if any(c in last_event_id for c in "\r\n\0"):
                raise ArgumentValueError("last_event_id cannot contain CR, LF or NUL (it is sent as a header)")
            if has_lone_surrogate(last_event_id):  # an id read from JSON may hold one: it has no UTF-8
                raise ArgumentValueError(
                    f"last_event_id {last_event_id!r} holds a lone surrogate, which cannot be sent as UTF-8"
                )
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
        self._headers = headers
        self._timeout = timeout
        self._max_retries = max_retries
        self._delay = retry_delay
        self._stop = stop
        self._max_message_size = max_message_size
        self._limits = limits
        # Held while an iteration runs: a second reader would move last_event_id and the retry delay
        # under the first, which would then resume from the wrong place and miss events.  A Lock, not
        # an RLock: iterated with asyncio.to_thread, the next event may be asked for from another thread.
        self._reading = threading.Lock()

    # A Generator, not an Iterator: close() is how a reader lets go of the client before the end.
    def __iter__(self) -> Generator[AgentEvent, None, None]:
        if not self._reading.acquire(blocking=False):
            raise ArgumentValueError(
                f"{self.url}: this ResumableEventStream is already being iterated, and a client has one reader; "
                "give each reader a client of its own (ResumableEventStream(url, last_event_id=other.last_event_id) "
                "follows from the same point), or close the first iterator before iterating again"
            )
        try:
            yield from self._read()
        finally:
            self._reading.release()

    def _read(self) -> Iterator[AgentEvent]:
        seen: set[str] = set()  # ids already yielded: a server may replay them after a reconnection
        fruitless = 0  # connections in a row that brought no new event
        delivered = False  # whether any connection brought an event: the stream works, but never stops
        while True:
            progressed = False
            in_stop = False  # an OSError from the caller's stop() is theirs, not a dropped connection
            cause: BaseException | None = None
            connection = self._open_connection()
            response = None
            try:
                response = self._request(connection)
                if response.status == 204:  # the server has nothing more to send
                    return
                for event in self._new_events(response, seen):
                    # An event without an id cannot be told from its replay: it is yielded, but only
                    # an event never seen before shows the stream moving on.
                    progressed = progressed or event.id is not None
                    delivered = True
                    yield event
                    if self._stop is not None:
                        in_stop = True
                        if self._stop(event):
                            return
                        in_stop = False
            except StreamConnectionError:
                raise  # a ConnectionError, but an answer, not a drop: retrying would not help
            except _DROPPED as error:
                if in_stop:
                    raise
                if isinstance(error, http.client.InvalidURL):
                    # The request's fault, not the network's: sending it again would fail again.
                    raise ArgumentValueError(f"url {self.url!r} cannot be sent: {error}") from error
                cause = error
            finally:
                # The response, not only the connection: a body read to the end of the stream (no
                # length, as an event stream has) holds the socket, which the connection has let go.
                if response is not None:
                    response.close()
                connection.close()
            fruitless = 0 if progressed else fruitless + 1
            if fruitless > self._max_retries:
                connections, last = (
                    ("1 connection", "it") if fruitless == 1 else (f"{fruitless} connections in a row", "the last")
                )
                ended = f"{last} failed with {cause!r}" if cause else f"the server closed {last}"
                hint = ""
                if cause is None and delivered and self._stop is not None:
                    # Events came, then clean closes: most likely the stream is over, and its last event
                    # is not the one stop waits for (a bare model call sends no AgentEndEvent).
                    hint = (
                        "; the server sent events, then closed without the one stop= ends on (by default the "
                        "top-level AgentEndEvent, which a bare model call's stream has none of): pass a stop= "
                        "that ends on the stream's last event, or have the server answer 204 No Content once it "
                        "has sent everything"
                    )
                raise StreamConnectionError(
                    f"{self.url}: {connections} brought no new event ({ended}); giving up after "
                    f"max_retries={self._max_retries} reconnections: check the server, or raise max_retries{hint}"
                ) from cause
            self.reconnects += 1
            time.sleep(self._delay)

    def _new_events(self, response: http.client.HTTPResponse, seen: set[str]) -> Iterator[AgentEvent]:
        """The agent events of one response not yielded before; keeps ``last_event_id`` and the
        reconnection delay up to date as the messages arrive."""
        parser = SSEParser(self.last_event_id, max_message_size=self._max_message_size)
        while chunk := response.read1(_READ_SIZE):
            for message in parser.feed(chunk):
                self.last_event_id = message.last_event_id
                if not is_agent_event_message(message.event):
                    continue
                event = decode_event(message, self._limits)
                if event.id is not None:
                    if event.id in seen:
                        continue
                    seen.add(event.id)
                yield event
            # A message with an id and no data moves the id too (a server's checkpoint), as in a browser.
            self.last_event_id = parser.last_event_id
            if parser.retry is not None:
                self._delay = parser.retry / 1000
        parser.close()

    def _open_connection(self) -> http.client.HTTPConnection:
        connection_class = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return connection_class(self._host, self._port, timeout=self._timeout)

    def _request(self, connection: http.client.HTTPConnection) -> http.client.HTTPResponse:
        """Send the GET; the response to read (204: the server says the stream is over)."""
        given = {name.lower() for name in self._headers}  # the caller's replace ours, whatever their case
        headers: dict[str, str | bytes] = {name: value for name, value in _OWN_HEADERS.items() if name.lower() not in given}
        headers.update(self._headers)
        if self.last_event_id:
            # UTF-8, as browsers send it: http.client would encode a str as Latin-1, and fail on "事件-3".
            headers["Last-Event-ID"] = self.last_event_id.encode()
        connection.request("GET", self._target, headers=headers)
        response = connection.getresponse()
        if response.status == 204:
            return response
        content_type = response.getheader("Content-Type", "")
        encoding = response.getheader("Content-Encoding", "identity").strip().lower()
        problem = None
        if response.status != 200 or content_type.split(";")[0].strip().lower() != "text/event-stream":
            problem = (
                f"expected 200 with a text/event-stream body, got "
                f"{response.status} {response.reason} ({content_type or 'no Content-Type'})"
            )
        elif encoding != "identity":
            # The request asks for none (no Accept-Encoding): compressed bytes would parse as no event.
            problem = f"the server sent the stream encoded as {encoding!r}, which the client did not ask for and cannot read"
        if problem is not None:
            response.close()
            # As EventSource does: a wrong answer is not a dropped connection, so no retry.
            raise StreamConnectionError(f"{self.url}: {problem}")
        return response

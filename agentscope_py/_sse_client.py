"""A resumable client for an HTTP event stream, on the standard library's ``http.client``.

When the connection drops, the client reconnects after the delay the server
asked for (``retry:``), sending ``Last-Event-ID`` so the server can continue
after the last event received, and skips any event it has already yielded.
What it sends and yields is decided in ``_sse_resume``, which the async
client shares.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Generator, Iterator
from typing import BinaryIO

from ._sse_resume import Reading, ResumableClient
from .errors import StreamConnectionError
from .event import AgentEvent

__all__ = ["ResumableEventStream"]

_READ_SIZE = 64 * 1024
# What counts as the connection dropping: socket errors and timeouts (OSError) and
# truncated or malformed HTTP (a chunked body cut short raises IncompleteRead).
_DROPPED = (OSError, http.client.HTTPException)


class ResumableEventStream(ResumableClient):
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
    ``text/event-stream``, or one compressed (``Content-Encoding``) or framed
    otherwise than ``chunked`` (``Transfer-Encoding``).

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

    # A Generator, not an Iterator: close() is how a reader lets go of the client before the end.
    def __iter__(self) -> Generator[AgentEvent, None, None]:
        reading = self._start_reading()
        try:
            yield from self._read(reading)
        finally:
            reading.close()

    def _read(self, reading: Reading) -> Iterator[AgentEvent]:
        while True:
            cause: BaseException | None = None
            connection = self._open_connection()
            response = None
            try:
                response = self._request(connection)
                if response.status == 204:  # the server has nothing more to send
                    return
                reading.connected()
                while chunk := response.read1(_READ_SIZE):
                    for event in reading.new_events(chunk):
                        yield event
                        if reading.stops(event):
                            return
                reading.ended()
            except StreamConnectionError:
                raise  # a ConnectionError, but an answer, not a drop: retrying would not help
            except _DROPPED as error:
                cause = reading.dropped(error, isinstance(error, http.client.InvalidURL))
            finally:
                # The response, not only the connection: a body read to the end of the stream (no
                # length, as an event stream has) holds the socket, which the connection has let go.
                if response is not None:
                    response.close()
                connection.close()
            time.sleep(reading.retry_delay(cause))

    def _open_connection(self) -> http.client.HTTPConnection:
        connection_class = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return connection_class(self._host, self._port, timeout=self._timeout)

    def _request(self, connection: http.client.HTTPConnection) -> http.client.HTTPResponse:
        """Send the GET; the response to read (204: the server says the stream is over)."""
        connection.request("GET", self._target, headers=self._request_headers())
        response = connection.getresponse()
        # http.client skips 100 Continue only.  Any other interim answer (103 Early Hints, from a CDN)
        # comes before the answer on the same connection, and a client reads on to it (RFC 9110, 15.2).
        while 100 < response.status < 200 and response.status != 101:
            response = _answer_after(response)
        if response.status == 204:
            return response
        refusal = self._refusal(
            response.status,
            response.reason,
            response.getheader("Content-Type", ""),
            response.getheader("Content-Encoding", ""),
            response.headers.get("Transfer-Encoding", ""),  # the first, which http.client reads
        )
        if refusal is not None:
            response.close()
            raise refusal
        return response


class _Buffered:
    """What an ``HTTPResponse`` reads from (``makefile``): the reader an interim answer was read
    with, which holds what it has buffered of the answer after it."""

    def __init__(self, reader: BinaryIO) -> None:
        self._reader = reader

    def makefile(self, mode: str) -> BinaryIO:
        return self._reader


def _answer_after(interim: http.client.HTTPResponse) -> http.client.HTTPResponse:
    reader = interim.fp
    interim.fp = None  # type: ignore[assignment]  # the answer's now: the interim one, collected, would close it
    answer = http.client.HTTPResponse(_Buffered(reader), method="GET")  # type: ignore[arg-type]
    try:
        answer.begin()
    except BaseException:
        # Its reader, and the socket with it, now (the connection that made it let go of it); by the
        # response, which would otherwise flush that closed reader when it is collected.
        answer.close()
        raise
    return answer

"""The resumable event stream client for ``async`` code, on httpx (the ``async`` extra).

It reads, resumes and gives up exactly as the standard-library client does
(``_sse_resume`` decides all of that for both); only the HTTP is httpx's, so a
caller can hand it the ``httpx.AsyncClient`` that carries their proxies, TLS
settings, authentication or an in-process transport.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import cast

import anyio
import httpx

from ._checks import describe
from ._serializable import DEFAULT_LIMITS, DecodeLimits
from ._sse_parse import DEFAULT_MAX_MESSAGE_SIZE
from ._sse_resume import Reading, ResumableClient, is_reply_end
from .errors import ArgumentTypeError, ArgumentValueError, StreamConnectionError
from .event import AgentEvent

__all__ = ["AsyncEventIteration", "AsyncResumableEventStream"]


class AsyncResumableEventStream(ResumableClient):
    """The agent events served at ``url``, as an async iterable that survives dropped connections.

    ::

        async for event in AsyncResumableEventStream("http://127.0.0.1:8000/reply"):
            ...

    The twin of :class:`~agentscope_py.sse.ResumableEventStream` for asyncio and
    trio: the same arguments, the same reconnections, the same errors.
    ``client`` is the ``httpx.AsyncClient`` to send the requests with: its own
    settings apply, but for the timeout, which is ``timeout`` (and none for a
    turn in its connection pool).  Without one, each iteration makes a client of
    its own and closes it when it ends.

    A loop left with ``break`` lets go of the stream at once; to close the
    connection at once too (under trio, always), close the iteration:
    ``async with contextlib.aclosing(aiter(stream)) as events:``.
    """

    def __init__(
        self,
        url: str,
        *,
        client: httpx.AsyncClient | None = None,
        last_event_id: str | None = None,
        headers: Mapping[str, str | bytes] | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_delay: float = 1.0,
        stop: Callable[[AgentEvent], bool] | None = is_reply_end,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        limits: DecodeLimits = DEFAULT_LIMITS,
    ) -> None:
        super().__init__(
            url,
            last_event_id=last_event_id,
            headers=headers,
            timeout=timeout,
            max_retries=max_retries,
            retry_delay=retry_delay,
            stop=stop,
            max_message_size=max_message_size,
            limits=limits,
        )
        given: object = client  # typed, but callers without mypy may pass anything
        if given is not None and not isinstance(given, httpx.AsyncClient):
            blocking = isinstance(given, httpx.Client)
            hint = "; ResumableEventStream reads with the standard library, without one" if blocking else ""
            raise ArgumentTypeError(f"client must be an httpx.AsyncClient or None, got {describe(given)}{hint}")
        self._client = client
        # Built once from what the URL was checked into, so httpx sends the target as given.
        scheme = "https" if self._https else "http"
        self._url = httpx.URL(scheme=scheme, host=self._host, port=self._port, raw_path=self._target.encode())

    def __aiter__(self) -> AsyncEventIteration:
        return AsyncEventIteration(self)

    async def _read(self, reading: Reading) -> AsyncGenerator[AgentEvent, None]:
        try:
            async with contextlib.AsyncExitStack() as own:
                client = self._client
                if client is None:
                    # Made in a worker thread: it loads the CA certificates, which blocks for a tenth of
                    # a second the first time (a few hundredths after), too long for the event loop.
                    made = await anyio.to_thread.run_sync(httpx.AsyncClient)
                    client = await own.enter_async_context(made)
                elif client.is_closed:
                    raise ArgumentValueError(
                        "the httpx.AsyncClient given as client= is closed: give one that is open, or none"
                    )
                # A wait for a free connection of the client's pool is no connection: it has no limit.
                timeout = httpx.Timeout(self._timeout, pool=None)
                while True:
                    if client.is_closed:  # by its owner, while the stream waited to reconnect
                        raise ArgumentValueError(
                            "the httpx.AsyncClient given as client= was closed while the stream read from it: "
                            "keep it open until the stream is done, or give none"
                        )
                    cause: BaseException | None = None
                    headers = [(name.encode(), value) for name, value in self._request_headers().items()]
                    try:
                        async with client.stream("GET", self._url, headers=headers, timeout=timeout) as response:
                            if response.status_code == 204:  # the server has nothing more to send
                                return
                            refusal = self._refusal(
                                response.status_code,
                                response.reason_phrase,
                                response.headers.get("Content-Type", ""),
                                response.headers.get("Content-Encoding", ""),
                                response.headers.get("Transfer-Encoding", ""),
                            )
                            if refusal is not None:
                                raise refusal
                            reading.connected()
                            # Closed as soon as the response is, not left to the garbage collector (trio
                            # warns of that).  httpx types it an iterator; it is a generator.
                            raw = cast("AsyncGenerator[bytes, None]", response.aiter_raw())  # as sent: identity
                            async with contextlib.aclosing(raw) as chunks:
                                async for chunk in chunks:
                                    for event in reading.new_events(chunk):
                                        yield event
                                        if reading.stops(event):
                                            return
                            reading.ended()
                    except StreamConnectionError:
                        raise  # a ConnectionError, but an answer, not a drop: retrying would not help
                    except httpx.TooManyRedirects as error:  # an answer too: the client follows redirects
                        raise StreamConnectionError(f"{self.url}: {error}") from error
                    except (httpx.TransportError, OSError) as error:
                        request_fault = isinstance(error, (httpx.UnsupportedProtocol, httpx.LocalProtocolError))
                        target = _redirect_target(error, self._url)
                        if target is not None:  # the server's answer, as a loop of redirects is
                            raise StreamConnectionError(
                                f"{self.url}: the server redirected the request to {target}, which cannot be "
                                f"followed: {error}"
                            ) from error
                        cause = reading.dropped(error, request_fault)
                    await anyio.sleep(reading.retry_delay(cause))
        finally:
            reading.close()


def _redirect_target(error: httpx.TransportError | OSError, sent: httpx.URL) -> httpx.URL | None:
    """Where a redirect the client followed led, when ``error`` says httpx cannot go there; ``None``
    for any other error.  The URL sent is http or https (checked when the stream was made), so a
    scheme httpx does not support is a redirect's; the URL alone would not tell, as the client's
    own ``params`` change it."""
    if not isinstance(error, httpx.UnsupportedProtocol):
        return None
    try:
        url = error.request.url
    except RuntimeError:  # raised without its request
        return None
    return None if url.scheme == sent.scheme else url


class AsyncEventIteration:
    """One ``async for`` over an :class:`AsyncResumableEventStream` (what ``aiter(stream)`` gives).

    It lets go of the stream as soon as it is dropped, as a loop left with ``break`` drops it, so
    that the stream can be read on at once, as a blocking one can; the event loop closes its
    connection soon after.  ``aclose()`` closes the connection at once.
    """

    __slots__ = ("_events", "_reading", "_stream")

    def __init__(self, stream: AsyncResumableEventStream) -> None:
        self._stream = stream
        self._reading: Reading | None = None
        self._events: AsyncGenerator[AgentEvent, None] | None = None

    def __aiter__(self) -> AsyncEventIteration:
        return self

    async def __anext__(self) -> AgentEvent:
        if self._events is None:  # the stream is taken at the first event asked for, as a blocking one is
            self._reading = self._stream._start_reading()
            self._events = self._stream._read(self._reading)
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """Close the connection and let go of the stream (an iteration never begun has neither)."""
        if self._events is not None:
            await self._events.aclose()

    def __del__(self) -> None:
        if self._reading is not None:
            self._reading.close()

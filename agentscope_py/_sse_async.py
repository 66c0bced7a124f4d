"""The resumable event stream client for ``async`` code, on httpx (the ``async`` extra).

It reads, resumes and gives up exactly as the standard-library client does
(``_sse_resume`` decides all of that for both); only the HTTP is httpx's, so a
caller can hand it the ``httpx.AsyncClient`` that carries their proxies, TLS
settings, authentication or an in-process transport.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from typing import cast

import anyio
import httpx

from ._checks import describe
from ._serializable import DEFAULT_LIMITS, DecodeLimits
from ._sse_parse import DEFAULT_MAX_MESSAGE_SIZE
from ._sse_resume import ResumableClient, is_reply_end
from .errors import ArgumentTypeError, ArgumentValueError, StreamConnectionError
from .event import AgentEvent

__all__ = ["AsyncResumableEventStream"]


class AsyncResumableEventStream(ResumableClient):
    """The agent events served at ``url``, as an async iterable that survives dropped connections.

    ::

        async for event in AsyncResumableEventStream("http://127.0.0.1:8000/reply"):
            ...

    The asyncio (and trio, through anyio) twin of
    :class:`~agentscope_py.sse.ResumableEventStream`: the same arguments, the
    same reconnections, the same errors; ``client`` is the ``httpx.AsyncClient``
    to send the requests with (its own settings apply, but for the timeout, which
    is ``timeout``).  Without one, each iteration makes a client of its own and
    closes it when it ends.

    A reader that may stop before the end closes the iteration, so that the
    connection closes at once: ``async with contextlib.aclosing(aiter(stream)) as events:``.
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

    async def __aiter__(self) -> AsyncGenerator[AgentEvent, None]:
        reading = self._start_reading()
        try:
            async with contextlib.AsyncExitStack() as own:
                client = self._client
                if client is None:
                    client = await own.enter_async_context(httpx.AsyncClient())
                while True:
                    cause: BaseException | None = None
                    try:
                        async with self._response(client) as response:
                            if response is None:  # the server has nothing more to send
                                return
                            reading.connected()
                            # Closed as soon as the response is, not left to the garbage collector
                            # (trio warns of that).  httpx types it an iterator; it is a generator.
                            raw = cast("AsyncGenerator[bytes, None]", response.aiter_raw())
                            async with contextlib.aclosing(raw) as chunks:
                                async for chunk in chunks:
                                    for event in reading.new_events(chunk):
                                        yield event
                                        if reading.stops(event):
                                            return
                            reading.ended()
                    except StreamConnectionError:
                        raise  # a ConnectionError, but an answer, not a drop: retrying would not help
                    except (httpx.TransportError, OSError) as error:
                        if reading.in_stop:
                            raise
                        if isinstance(error, httpx.UnsupportedProtocol):
                            # The request's fault, not the network's: sending it again would fail again.
                            raise ArgumentValueError(f"url {self.url!r} cannot be sent: {error}") from error
                        cause = error
                    await anyio.sleep(reading.retry_delay(cause))
        finally:
            reading.close()

    @contextlib.asynccontextmanager
    async def _response(self, client: httpx.AsyncClient) -> AsyncIterator[httpx.Response | None]:
        """The response whose body to read (as sent: the identity was asked for), or ``None`` when
        the server answers 204, saying the stream is over."""
        headers = [(name.encode(), value) for name, value in self._request_headers().items()]
        async with client.stream("GET", self._url, headers=headers, timeout=httpx.Timeout(self._timeout)) as response:
            if response.status_code == 204:
                yield None
                return
            refusal = self._refusal(
                response.status_code,
                response.reason_phrase,
                response.headers.get("Content-Type", ""),
                response.headers.get("Content-Encoding", ""),
            )
            if refusal is not None:
                raise refusal
            yield response

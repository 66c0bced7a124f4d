"""``EventLog``: the events of a stream still being produced, for every client that follows it.

A server that streams a reply as it is made has two kinds of reader the events
must reach: a client connected now, and one that reconnects later with its
``Last-Event-ID``, or a second client (another tab).  The log keeps the events
in order and hands each follower those after the one it had, then each new one
as it is added, until the log is closed; the producer adds from any thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncGenerator, Generator, Iterable, Iterator

from ._checks import check_float, check_optional_str, describe
from ._shown import elided
from ._sse_request import sent_back_as_is
from ._sse_write import check_sse_id, encode_comment, encoded_event, retry_field
from .errors import ArgumentTypeError, ArgumentValueError, StreamError
from .event import AgentEvent

__all__ = ["EventLog"]


#: The default seconds between keep-alives: half the default ``timeout`` of the resumable clients.
KEEP_ALIVE = 15.0


class EventLog:
    """The events of a stream being produced, kept for every client that follows it.

    The producer calls ``add(events)`` as it makes them (the lists a
    :class:`~agentscope_py.event.ReplyEmitter`'s methods return, say), from any
    thread, and ``close()`` at the end, also when it fails: a follower waits for
    events until the log is closed.

    A request answers with ``encode_events(last_event_id, keep_alive=...)`` (the
    SSE text, for a threaded server) or ``aencode_events(...)`` (asyncio): the
    events after the one with the client's ``Last-Event-ID`` (all of them for
    ``None``, or an id the log never had: a resumable client drops what it has
    seen), then each new one as it is added, and a keep-alive comment whenever
    none came for ``keep_alive`` seconds, which keeps proxies from closing an idle
    stream and ends the request of a client that has gone.  ``follow`` and
    ``afollow`` give the events themselves.  ``has_more(last_event_id)`` says
    whether that client has anything left to get (else answer ``204 No Content``).

    The log keeps every event: make one per reply, and let it go once no client
    can come back for it.
    """

    __slots__ = ("__weakref__", "_changed", "_closed", "_events", "_positions", "_waiters")

    def __init__(self) -> None:
        self._events: list[AgentEvent] = []
        self._positions: dict[str, int] = {}  # an event id -> where it stands (its first time)
        self._closed = False
        self._changed = threading.Condition()  # guards everything here; blocking followers wait on it
        # The futures asyncio followers await, by their loop: set from whatever thread adds.
        self._waiters: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}

    @property
    def events(self) -> tuple[AgentEvent, ...]:
        """The events added so far."""
        with self._changed:
            return tuple(self._events)

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called: no event will be added."""
        return self._closed

    def add(self, events: Iterable[AgentEvent]) -> None:
        """Add ``events`` (an iterable, such as the list a ``ReplyEmitter`` method returns) and wake
        the followers.  Raises :class:`~agentscope_py.StreamError` once the log is closed."""
        if isinstance(events, AgentEvent):
            raise ArgumentTypeError("EventLog.add takes an iterable of events, got one event; add([event])")
        if not isinstance(events, Iterable):
            raise ArgumentTypeError(f"EventLog.add takes an iterable of events, got {describe(events)}")
        added = list(events)
        for index, event in enumerate(added):
            if not isinstance(event, AgentEvent):
                raise ArgumentTypeError(f"EventLog.add takes AgentEvents, got {describe(event)} at [{index}]")
            if event.id is not None:
                # Refused here, where the producer hears of it, not in each follower's response.
                try:
                    check_sse_id(event.id)
                except ArgumentValueError as error:
                    raise ArgumentValueError(f"EventLog.add: the event at [{index}] cannot be sent: {error}") from None
                if not sent_back_as_is(event.id):
                    # The log would never find the id a client resumes with, and would send it everything again.
                    raise ArgumentValueError(
                        f"EventLog.add: the event at [{index}] has the id {elided(event.id)}, which a client cannot "
                        "send back to resume after it (a client sends no id holding a control character, and drops "
                        "the spaces and tabs around one); give the event an id without them"
                    )
        with self._changed:
            if self._closed:
                raise StreamError("this EventLog is closed: start a new one for the next stream")
            if not added:
                return
            for event in added:
                if event.id is not None:
                    self._positions.setdefault(event.id, len(self._events))
                self._events.append(event)
            self._wake()

    def close(self) -> None:
        """No more events: each follower ends once it has the last one.  Closing again does nothing."""
        with self._changed:
            self._closed = True
            self._wake()

    def has_more(self, last_event_id: str | None) -> bool:
        """Whether a client that had the event ``last_event_id`` has more to get: events after it, or
        a log still open.  A server answers a client that has not ``204 No Content``, which ends
        its resumable client."""
        check_optional_str(last_event_id, "EventLog.has_more last_event_id")
        with self._changed:
            return not self._closed or self._after(last_event_id) < len(self._events)

    def follow(self, last_event_id: str | None = None) -> Generator[AgentEvent, None, None]:
        """The events after the one with ``last_event_id``, then each as it is added, until the log
        is closed; blocks while it waits for the next.  (Handed to the module's ``encode_events``,
        give that no ``last_event_id``: this skipped to it already.)"""
        check_optional_str(last_event_id, "EventLog.follow last_event_id")
        return _events_only(self._follow(last_event_id, None))

    def afollow(self, last_event_id: str | None = None) -> AsyncGenerator[AgentEvent, None]:
        """:meth:`follow` for asyncio: awaits the next event instead of blocking."""
        check_optional_str(last_event_id, "EventLog.afollow last_event_id")
        return _aevents_only(self._afollow(last_event_id, None))

    def encode_events(
        self, last_event_id: str | None = None, *, retry: int | None = None, keep_alive: float | None = KEEP_ALIVE
    ) -> Generator[str, None, None]:
        """The SSE text for a client that had ``last_event_id``: ``retry`` first when given, then the
        events :meth:`follow` gives, and ``": keep-alive"`` after every ``keep_alive`` seconds
        without one (``None``: never; by default half a resumable client's timeout, so that a
        silent tool or model does not end its patience)."""
        check_optional_str(last_event_id, "EventLog.encode_events last_event_id")
        first = [] if retry is None else [retry_field(retry) + "\n\n"]
        return _encoded(first, self._follow(last_event_id, _wait(keep_alive)))

    def aencode_events(
        self, last_event_id: str | None = None, *, retry: int | None = None, keep_alive: float | None = KEEP_ALIVE
    ) -> AsyncGenerator[str, None]:
        """:meth:`encode_events` for asyncio (the body of an ASGI streaming response)."""
        check_optional_str(last_event_id, "EventLog.aencode_events last_event_id")
        first = [] if retry is None else [retry_field(retry) + "\n\n"]
        return _aencoded(first, self._afollow(last_event_id, _wait(keep_alive)))

    def _wake(self) -> None:
        # Called holding the lock; one callback for each loop that has followers waiting.
        self._changed.notify_all()
        for loop, futures in self._waiters.items():
            try:
                loop.call_soon_threadsafe(_resolve, futures)
            except RuntimeError:  # its loop is closed: no one is left to wake, and the producer goes on
                pass
        self._waiters = {}

    def _after(self, last_event_id: str | None) -> int:
        position = None if last_event_id is None else self._positions.get(last_event_id)
        return 0 if position is None else position + 1

    def _follow(self, last_event_id: str | None, keep_alive: float | None) -> Iterator[AgentEvent | None]:
        """The events, and ``None`` after each ``keep_alive`` seconds without one."""
        with self._changed:
            index = self._after(last_event_id)
        while True:
            with self._changed:
                idle = index == len(self._events) and not self._closed
                if idle:
                    self._changed.wait(keep_alive)
                batch, done = self._events[index:], self._closed
            if idle and not batch and not done:
                yield None
                continue
            index += len(batch)
            yield from batch  # outside the lock: a slow client holds up no one
            if done:  # nothing is added after the close: the batch held the rest
                return

    async def _afollow(
        self, last_event_id: str | None, keep_alive: float | None
    ) -> AsyncGenerator[AgentEvent | None, None]:
        with self._changed:
            index = self._after(last_event_id)
        while True:
            with self._changed:
                batch, done = self._events[index:], self._closed
                if not batch and not done:
                    loop = _running_loop()
                    future: asyncio.Future[None] = loop.create_future()
                    self._waiters.setdefault(loop, []).append(future)
            if batch or done:
                index += len(batch)
                for event in batch:
                    yield event
                if done:
                    return
                continue
            idle = False
            try:
                await asyncio.wait_for(future, keep_alive)
            except asyncio.TimeoutError:
                idle = True
            finally:
                with self._changed:  # woken, timed out or cancelled: no one need wake it any more
                    waiting = self._waiters.get(loop, [])
                    if future in waiting:
                        waiting.remove(future)
                        if not waiting:  # nor keep the loop
                            del self._waiters[loop]
            if idle:
                yield None


_KEEP_ALIVE = encode_comment("keep-alive")


def _events_only(followed: Iterator[AgentEvent | None]) -> Generator[AgentEvent, None, None]:
    for event in followed:
        if event is not None:
            yield event


async def _aevents_only(followed: AsyncGenerator[AgentEvent | None, None]) -> AsyncGenerator[AgentEvent, None]:
    async with contextlib.aclosing(followed) as events:
        async for event in events:
            if event is not None:
                yield event


def _encoded(first: list[str], followed: Iterator[AgentEvent | None]) -> Generator[str, None, None]:
    yield from first
    for event in followed:
        yield _KEEP_ALIVE if event is None else encoded_event(event)


async def _aencoded(first: list[str], followed: AsyncGenerator[AgentEvent | None, None]) -> AsyncGenerator[str, None]:
    for text in first:
        yield text
    async with contextlib.aclosing(followed) as events:
        async for event in events:
            yield _KEEP_ALIVE if event is None else encoded_event(event)


def _wait(keep_alive: float | None) -> float | None:
    if keep_alive is None:
        return None
    seconds = check_float(keep_alive, "keep_alive", stored=False)
    if not 0 < seconds <= 1e9:
        raise ArgumentValueError(f"keep_alive must be > 0 and at most 1e9 seconds, or None, got {keep_alive!r}")
    return seconds


def _running_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            "EventLog.afollow and aencode_events wait for events with asyncio, and no asyncio loop runs here "
            "(trio?): follow the log in a worker thread instead (EventLog.follow, EventLog.encode_events)"
        ) from None


def _resolve(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():  # a follower cancelled meanwhile
            future.set_result(None)

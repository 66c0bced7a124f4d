"""``EventLog``: the events of a stream still being produced, for every client that follows it.

A server that streams a reply as it is made has two kinds of reader the events
must reach: a client connected now, and one that reconnects later with its
``Last-Event-ID``, or a second client (another tab).  The log keeps the events
in order and hands each follower those after the one it had, then each new one
as it is added, until the log is closed; the producer adds from any thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable, Iterator

from ._checks import check_optional_str, describe
from .errors import ArgumentTypeError, StreamError
from .event import AgentEvent

__all__ = ["EventLog"]


class EventLog:
    """The events of a stream being produced, kept for every client that follows it.

    The producer calls ``add(events)`` as it makes them (the lists a
    :class:`~agentscope_py.event.ReplyEmitter`'s methods return, say) and
    ``close()`` at the end, also when it fails: a follower waits for events until
    the log is closed.  ``follow(last_event_id)`` (blocking, for a threaded
    server) and ``afollow(last_event_id)`` (asyncio) give a client the events
    after the one with that id (all of them for ``None``, or an id the log never
    had: a resumable client drops what it has already seen), then each new one as
    it is added.  Hand either to :func:`encode_events` or :func:`aencode_events`.

    Thread-safe: add from one thread while clients follow in others, or in an
    event loop.  The log keeps every event: make one per reply, and let it go
    once no client can come back for it.
    """

    __slots__ = ("__weakref__", "_changed", "_closed", "_events", "_positions", "_waiters")

    def __init__(self) -> None:
        self._events: list[AgentEvent] = []
        self._positions: dict[str, int] = {}  # an event id -> where it stands (its first time)
        self._closed = False
        self._changed = threading.Condition()  # guards everything here; blocking followers wait on it
        # The futures that asyncio followers await, each with its loop: set from whatever thread adds.
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

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
        with self._changed:
            if self._closed:
                raise StreamError("this EventLog is closed: start a new one for the next stream")
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

    def follow(self, last_event_id: str | None = None) -> Iterator[AgentEvent]:
        """The events after the one with ``last_event_id``, then each as it is added, until the log
        is closed; blocks while it waits for the next."""
        return self._follow(check_optional_str(last_event_id, "EventLog.follow last_event_id"))

    def afollow(self, last_event_id: str | None = None) -> AsyncIterator[AgentEvent]:
        """:meth:`follow` for asyncio: awaits the next event instead of blocking."""
        return self._afollow(check_optional_str(last_event_id, "EventLog.afollow last_event_id"))

    def _wake(self) -> None:
        # Called holding the lock.
        self._changed.notify_all()
        for loop, future in self._waiters:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # its loop is closed: no one is left to wake, and the producer goes on
                pass
        self._waiters.clear()

    def _after(self, last_event_id: str | None) -> int:
        position = None if last_event_id is None else self._positions.get(last_event_id)
        return 0 if position is None else position + 1

    def _follow(self, last_event_id: str | None) -> Iterator[AgentEvent]:
        with self._changed:
            index = self._after(last_event_id)
        while True:
            with self._changed:
                while index == len(self._events) and not self._closed:
                    self._changed.wait()
                batch, done = self._events[index:], self._closed
            index += len(batch)
            yield from batch  # outside the lock: a slow client holds up no one
            if done:  # nothing is added after the close: the batch held the rest
                return

    async def _afollow(self, last_event_id: str | None) -> AsyncIterator[AgentEvent]:
        loop = asyncio.get_running_loop()
        with self._changed:
            index = self._after(last_event_id)
        while True:
            with self._changed:
                batch, done = self._events[index:], self._closed
                waiter = None
                if not batch and not done:
                    waiter = (loop, loop.create_future())
                    self._waiters.append(waiter)
            if waiter is not None:
                try:
                    await waiter[1]
                finally:
                    with self._changed:  # cancelled: no one need wake it any more
                        if waiter in self._waiters:
                            self._waiters.remove(waiter)
                continue
            index += len(batch)
            for event in batch:
                yield event
            if done:
                return


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():  # a follower cancelled meanwhile
        future.set_result(None)

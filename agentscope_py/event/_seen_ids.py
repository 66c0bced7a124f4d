"""The ids of the events a reply has applied, so that a replayed event changes nothing.

A plain set does the job, but once it holds a few hundred thousand ids every
insert lands somewhere in a table larger than the CPU caches, and assembling a
long stream slows down per delta as it grows.  Event ids that rise (in string
order) need no table: agentscope_py's emitter makes them so (a per-process
prefix and a counter), and any producer of time-ordered ids does too.  So once a
reply has seen enough ids for the difference to matter, and the ids keep
rising, a new id is simply one above the highest so far; the ones below it are
looked up in the set kept until then or, by bisection, in the sorted list
since.  The first new id that does not rise (a producer of random ids, such as
Java's UUIDs) puts every id back in one set for good.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import islice
from operator import ge

__all__ = ["SeenIds"]

#: How many ids a reply keeps in a plain set before it tries rising ids: a short reply is served
#: well by a small set, and the one look for the highest id among this many costs little.
RISING_AFTER = 1024


class SeenIds:
    """Records event ids; says whether each was recorded before."""

    __slots__ = ("_highest", "_rising", "_table", "_tried")

    def __init__(self) -> None:
        self._table: set[str] = set()  # every id; once ids rise, the ids from before they did
        self._rising: list[str] | None = None  # once ids rise: the ids since, in increasing order
        self._highest = ""
        self._tried = False

    def first_sight(self, event_id: str) -> bool:
        """Record ``event_id``; ``False`` when it was recorded before (the event is a replay)."""
        rising = self._rising
        if rising is not None:
            if event_id > self._highest:
                self._highest = event_id
                rising.append(event_id)
                return True
            return self._below_highest(event_id)
        table = self._table
        if event_id in table:
            return False
        table.add(event_id)
        if len(table) > RISING_AFTER and not self._tried:
            self._try_rising()
        return True

    def __contains__(self, event_id: str) -> bool:
        """Whether ``event_id`` was recorded (recording nothing)."""
        return event_id in self._table or self._among_rising(event_id)

    def _among_rising(self, event_id: str) -> bool:
        rising = self._rising
        if not rising:
            return False
        index = bisect_left(rising, event_id)
        return index < len(rising) and rising[index] == event_id

    def take_run(self, ids: list[str | None]) -> bool:
        """Record the ids of a run of events at once, when each is new and none is ``None``; else
        record nothing and return ``False`` (the caller then goes event by event with
        :meth:`first_sight`)."""
        if not ids:
            return True
        table = self._table
        if self._rising is None and not self._tried and len(table) + len(ids) > RISING_AFTER:
            self._try_rising()  # before the run goes in the set: it may be long, and rise
        rising = self._rising
        if rising is not None:
            try:
                # Each id above the one before: one pass in C that stops at the first that is not,
                # and hashes nothing (hashing fresh ids costs more than comparing them).
                fits = ids[0] > self._highest and not any(map(ge, ids, islice(ids, 1, None)))  # type: ignore[operator, arg-type]
            except TypeError:  # an event without an id
                return False
            if fits:
                rising += ids  # type: ignore[arg-type]  # no None: the comparisons above would have raised
                self._highest = rising[-1]
                return True
            # A replay, of rising ids most likely: the caller goes event by event.
            if ids[0] in self:  # type: ignore[operator]  # not None: compared above
                return False
        fresh = set(ids)
        if len(fresh) != len(ids) or None in fresh or not fresh.isdisjoint(table):
            return False
        known: set[str] = fresh  # type: ignore[assignment]  # no None: checked above
        if rising is not None:
            # New ids that do not rise (random ones, as Java's) put every id back in one set for
            # good, and the run is taken there at once rather than event by event; unless one of
            # them is among the ids since (a replay after all, which leaves the modes as they are).
            # The shorter side is walked: a long run of random ids, just after the ids since began,
            # against those few, in C; a short run holding a replay, among many rising ids, by
            # bisection.  Walking the ids since for every such run made a stream of them quadratic.
            if len(rising) <= len(known):
                if not known.isdisjoint(rising):
                    return False
            elif any(map(self._among_rising, known)):
                return False
            table.update(rising)
            self._rising = None
        if len(known) > len(table):  # the smaller set goes into the larger: merging is cheap
            known |= table
            self._table = known
        else:
            table |= known
        return True

    def add_to(self, ids: set[str]) -> None:
        """Add every id recorded to ``ids``."""
        ids |= self._table
        if self._rising:
            ids.update(self._rising)

    def forget(self, event_id: str) -> None:
        """Unrecord ``event_id``, the id recorded last: its event was refused after all."""
        rising = self._rising
        if rising and rising[-1] == event_id:
            rising.pop()
            self._highest = rising[-1] if rising else max(self._table, default="")
        else:
            self._table.discard(event_id)

    def _try_rising(self) -> None:
        # Once per reply: from here on, an id above every id so far is new without a lookup.
        self._tried = True
        self._highest = max(self._table, default="")
        self._rising = []

    def _below_highest(self, event_id: str) -> bool:
        if event_id in self:
            return False
        rising = self._rising
        assert rising is not None
        # New, but below an id already seen: ids no longer rise, so all of them go in the set.
        self._table.update(rising)
        self._table.add(event_id)
        self._rising = None
        return True

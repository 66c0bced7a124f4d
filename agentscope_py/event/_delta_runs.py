"""The fast path of ``MessageAssembler.feed_all``: a run of deltas to one open block, appended in one loop.

Most events of a stream are deltas, and most deltas follow another to the same
block.  Routing each one (``_routing``) finds the same reply and block every
time; a run finds them once, then only checks that each next event still
belongs to it.  What a run does not cover (a delta to a block that is not open,
any other event) goes through the assembler's handlers, one event at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._accumulators import (
    BlockAccumulator,
    DataAccumulator,
    TextAccumulator,
    ThinkingAccumulator,
    ToolCallAccumulator,
)
from ._block_events import (
    DataBlockDeltaEvent,
    TextBlockDeltaEvent,
    ThinkingBlockDeltaEvent,
)
from ._reply_state import Reply
from ._routing import ReplyRouter
from ._tool_events import ToolCallDeltaEvent

__all__ = ["END", "RUNS", "DeltaRuns"]

END: Any = object()  # what a run returns when the events ran out


class DeltaRuns(ReplyRouter):
    """The run loops; ``MessageAssembler`` inherits them and ``feed_all`` calls them through ``RUNS``."""

    def _run_target(self, first: Any, cls: type[BlockAccumulator], block_id: str | None) -> tuple[Reply, Any] | None:
        """The reply and the open block that a run of deltas beginning with ``first`` extends, with
        ``first`` applied (so the run loops over the rest without chaining it back in front).
        ``None``, with ``first`` not applied, when there is no such block: the handlers then apply
        it (routing and anomalies), and the next delta finds the block it opened."""
        delta = first.delta
        # A delta of nothing is the handlers' (it changes nothing, and a snapshot stays the same
        # object); but for a tool call "" is content: arguments "" are not arguments absent.
        if delta is None or (not delta and cls is not ToolCallAccumulator):
            return None
        reply = self._routes.get((first.source, first.reply_id))
        block = None if reply is None else reply.known.get((cls.kind, first.reply_id, block_id))
        if reply is None or block is None or not block.open:
            return None
        if self._first_sight(reply, first):
            block.parts.append(delta)
            block.built = reply.cached = None  # the rest of the run clears them again when it ends
        return reply, block

    # The two loops below differ only in the attribute that names the block: read directly, it
    # costs a quarter less than through a getter, in the loop most events go through.  Each
    # appends every delta and collects the ids; ``Reply.remember_run`` then checks them for replays.

    def _feed_block_run(self, first: Any, rest: Iterator[Any]) -> Any:
        """Apply the run of text, thinking or data deltas to one block that begins with ``first``
        and goes on in ``rest``; returns the event after the run (``END`` when ``rest`` ran out),
        or ``None`` when ``first`` begins no run and is still to be applied."""
        event_type, source, reply_id, block_id = type(first), first.source, first.reply_id, first.block_id
        target = self._run_target(first, _BLOCK_ACCUMULATORS[event_type], block_id)
        if target is None:
            return None
        reply, block = target
        parts = block.parts
        start, ids = len(parts), []
        self._run = target
        try:
            for event in rest:
                # Attributes compared one by one: cheaper than building a key tuple per event.  A delta
                # without text ends the run too: it begins the next one, which ``_run_target`` leaves to
                # the handler.  (An empty one inside a run is appended: the run changes the text anyway.)
                if (
                    type(event) is not event_type
                    or event.block_id != block_id
                    or event.reply_id != reply_id
                    or (event.source is not source and event.source != source)  # most often both None
                    or event.delta is None
                ):
                    break
                ids.append(event.id)
                parts.append(event.delta)
            else:
                event = END
        finally:  # also when ``rest`` raises (a dropped connection): the deltas applied are recorded
            self._run = None
            reply.remember_run(ids, block, start)
        return event

    def _feed_tool_call_run(self, first: Any, rest: Iterator[Any]) -> Any:
        """``_feed_block_run`` for the argument fragments of one tool call."""
        source, reply_id, call_id = first.source, first.reply_id, first.tool_call_id
        target = self._run_target(first, ToolCallAccumulator, call_id)
        if target is None:
            return None
        reply, block = target
        parts = block.parts
        start, ids = len(parts), []
        self._run = target
        try:
            for event in rest:
                if (
                    type(event) is not ToolCallDeltaEvent
                    or event.tool_call_id != call_id
                    or event.reply_id != reply_id
                    or (event.source is not source and event.source != source)
                    or event.delta is None
                ):
                    break
                ids.append(event.id)
                parts.append(event.delta)
            else:
                event = END
        finally:  # also when ``rest`` raises (a dropped connection): the deltas applied are recorded
            self._run = None
            reply.remember_run(ids, block, start)
        return event


_Run = Callable[[DeltaRuns, Any, Iterator[Any]], Any]

_BLOCK_ACCUMULATORS: dict[type, type[BlockAccumulator]] = {
    TextBlockDeltaEvent: TextAccumulator,
    ThinkingBlockDeltaEvent: ThinkingAccumulator,
    DataBlockDeltaEvent: DataAccumulator,
}
#: The deltas that begin a run, and the loop that applies it.
RUNS: dict[type, _Run] = {
    **dict.fromkeys(_BLOCK_ACCUMULATORS, DeltaRuns._feed_block_run),
    ToolCallDeltaEvent: DeltaRuns._feed_tool_call_run,
}

"""Where an event of a stream goes: the open reply that owns it, the block it extends, whether it
was seen before; and what the assembler does with what does not fit (anomalies).

A reply is ``AgentStartEvent(R) … AgentEndEvent(R)`` of one ``source``; inside
it AgentScope gives every model call and every acting phase a reply id of its
own, so an event is routed by ``(source, reply id)`` to the open reply that owns
it, and a block is keyed by ``(kind, reply id, block id)``.  A model call
outside any ``AgentStartEvent`` is a reply of its own, ended by its
``ModelCallEndEvent``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._checks import check_bool
from .._role_messages import AssistantMessage
from .._shown import shown
from ..errors import StreamError
from ._accumulators import BlockAccumulator, ToolCallAccumulator
from ._agent_replies import NOBODY, AgentReplies
from ._anomalies import AnomalyKind, AnomalySnapshot, StreamAnomaly, describe_event
from ._lifecycle import ModelCallStartEvent
from ._reply_state import CompletedReplies, ReplayMark, Reply, replay_mark

__all__ = ["REMEMBERED_REPLIES", "ReplyRouter"]

#: How many completed replies an assembler remembers, to recognise their late events.
REMEMBERED_REPLIES = 1024


def _is_hidden_tool(name: str | None) -> bool:
    # AgentScope Java streams no start (and no end) for a call without a name or whose name begins
    # with "__" (a hidden or placeholder tool), only its argument deltas: they create the call.
    return name is None or name.startswith("__")


_STRICT_HINT = "; MessageAssembler(strict=False) keeps what it can and records the problem in .anomalies"


class ReplyRouter:
    """The open replies of a stream and the bookkeeping every event handler shares."""

    # Defaults kept on the class until an instance sets its own: an assembler is made per stream.
    _anomalies_seen: AnomalySnapshot = AnomalySnapshot([])  # the last snapshot ``anomalies`` gave
    _run: tuple[Reply, Any] | None = None  # the reply and block a ``feed_all`` run is appending to
    _route_made_by: object = None  # strict mode: the event that gave an open reply its latest route key

    def __init__(self, strict: bool = False) -> None:
        self._strict = check_bool(strict, "strict")
        self._anomalies: list[StreamAnomaly] = []
        self._routes: dict[tuple[str | None, str | None], Reply] = {}  # (source, reply id) -> open reply
        self._agent_replies = AgentReplies()  # source -> its open AgentStartEvent reply
        self._open: dict[Reply, None] = {}  # every open reply, in the order they opened
        self._bare: dict[str | None, dict[Reply, None]] = {}  # source -> its open bare replies, in order
        self._completed = CompletedReplies(REMEMBERED_REPLIES)
        # Source -> the event ids of its replies that completed inside the open top-level reply (a
        # sub-agent's runs): a resume from a checkpoint inside that reply replays them.  By source,
        # so that a sub-agent's ids never stand for the top-level reply's own.
        self._inner_ids: dict[str | None, set[str]] = {}
        # Source of an open reply -> the sources in ``_inner_ids`` it is the outermost encloser of:
        # what its end may leave enclosed by no open reply (found without walking every source kept).
        self._inner_of: dict[str | None, set[str | None]] = {}
        # Messages a ``feed_all`` completed before its events raised: the next call hands them out.
        self._undelivered: list[AssistantMessage] = []

    @property
    def strict(self) -> bool:
        """Whether an anomaly raises :class:`~agentscope_py.StreamError` instead of being recorded."""
        return self._strict

    @property
    def anomalies(self) -> Sequence[StreamAnomaly]:
        """What this assembler noticed so far, oldest first: a read-only sequence that later
        anomalies do not change, equal to the tuple of them (``tuple(...)`` makes one)."""
        if len(self._anomalies_seen) != len(self._anomalies):  # the same object until there is another
            self._anomalies_seen = AnomalySnapshot(self._anomalies)
        return self._anomalies_seen

    # -- bookkeeping ----------------------------------------------------------------

    def _report(self, kind: AnomalyKind, message: str, event: Any, reply: Reply | None = None) -> None:
        if self._strict and kind is not AnomalyKind.INVALID_TOOL_ARGUMENTS:
            raise StreamError(message + _STRICT_HINT)
        source = reply.source if reply is not None else getattr(event, "source", None)
        reply_id = reply.reply_id if reply is not None else getattr(event, "reply_id", None)
        self._anomalies.append(StreamAnomaly(kind, message, event, source, reply_id))

    def _outcome(self, lenient: str) -> str:
        """What becomes of an event out of place, for its anomaly's message: what lenient mode does
        with it, or in strict mode, nothing."""
        return "the event is skipped" if self._strict else lenient

    def _refuse(self, kind: AnomalyKind, message: str, event: Any, reply: Reply) -> None:
        """Report an anomaly of ``event`` once ``reply`` has recorded its id.  In strict mode the
        event is skipped, so it leaves no trace: its id is forgotten (replayed later, it is applied,
        not dropped), and so is a model call or acting phase it alone named (once the reply
        completed, that would be a completed one, and the call's own events, arriving in the next
        reply, late)."""
        if self._strict:
            if event.id is not None:
                reply.seen.forget(event.id)
            if self._route_made_by is event:
                self._route_made_by = None
                del self._routes[reply.route_keys.pop()]
        self._report(kind, message, event)

    def _route(self, event: Any, reply_id: str | None) -> Reply | None:
        """The open reply ``event`` belongs to, or ``None`` when it must be dropped (seen before, late)."""
        reply = self._routes.get((event.source, reply_id))
        if reply is None:
            reply = self._route_new(event, reply_id)
            if reply is None:
                return None
        event_id = event.id
        if event_id is not None and not reply.seen.first_sight(event_id):
            return None
        return reply

    def _route_new(self, event: Any, reply_id: str | None) -> Reply | None:
        if self._replayed_inside_open_reply(event):
            return None
        source = event.source
        key = (source, reply_id)
        if key in self._completed:
            self._report(AnomalyKind.LATE_EVENT, f"{describe_event(event)} arrived after its reply completed", event)
            return None
        reply = self._agent_replies.get(source)
        if reply is not None:  # a new model call or acting phase of the agent's reply
            reply.route_keys.append(key)
            self._routes[key] = reply
            if self._strict:
                self._route_made_by = event
            return reply
        if not isinstance(event, ModelCallStartEvent):
            self._report(
                AnomalyKind.OUTSIDE_REPLY,
                f"{describe_event(event)} arrived outside any reply (no AgentStartEvent of its source, "
                "no ModelCallStartEvent of its reply id)",
                event,
            )
        return self._open_reply(source, reply_id, None, True, event.created_at)

    def _route_by_source(self, event: Any) -> Reply | None:
        """The reply of an event that names no model call: the open reply of its source."""
        if self._replayed_inside_open_reply(event):  # not the next reply's, if the source has one open
            return None
        mark = replay_mark(event)
        if self._completed_before(event, mark):
            return None
        reply = self._agent_replies.get(event.source) or self._latest_bare_reply(event.source)
        if reply is None:
            self._report(
                AnomalyKind.OUTSIDE_REPLY, f"{describe_event(event)} arrived while its source had no open reply", event
            )
            return None
        if not self._first_sight(reply, event):
            return None
        if mark is not None:
            reply.replay_marks.append(mark)
        return reply

    def _completed_before(self, event: Any, mark: ReplayMark | None) -> bool:
        """Whether ``event`` (its ``replay_mark``) came in a reply that completed: then reported late."""
        if mark is None or mark not in self._completed:
            return False
        self._report(AnomalyKind.LATE_EVENT, f"{describe_event(event)} arrived after its reply completed", event)
        return True

    def _framed_before(self, event: Any) -> bool:
        """Whether ``event``, the start or end of a sub-agent's run (reply id ``None``), framed a run
        that completed outside any open reply.  Inside one, ``_replayed_inside_open_reply`` says it:
        a producer numbering each top-level reply's events anew sends the same start and end again,
        in the same millisecond, for a run of the next reply."""
        if self._agent_replies.encloses(event.source):
            return False
        mark = replay_mark(event)
        return mark is not None and mark in self._completed

    def _replayed_inside_open_reply(self, event: Any) -> bool:
        """Whether ``event`` is a replay of a reply that completed inside the open top-level reply
        (a sub-agent's run): a resume from a checkpoint inside that reply replays it, harmlessly."""
        ids = self._inner_ids.get(event.source)
        return ids is not None and event.id in ids

    @staticmethod
    def _first_sight(reply: Reply, event: Any) -> bool:
        event_id = event.id
        # A document without an id has nothing to recognise it by.
        return event_id is None or reply.seen.first_sight(event_id)

    def _latest_bare_reply(self, source: str | None) -> Reply | None:
        # By source, not a walk of every open reply: a stream may hold thousands that never end.
        replies = self._bare.get(source)
        return next(reversed(replies)) if replies else None

    def _not_bare(self, reply: Reply) -> None:
        """Take ``reply`` out of its source's bare replies (it completed, or its start adopted it)."""
        same_source = self._bare[reply.source]
        del same_source[reply]
        if not same_source:
            del self._bare[reply.source]

    def _open_reply(
        self, source: str | None, reply_id: str | None, name: str | None, bare: bool, created_at: str | None
    ) -> Reply:
        reply = Reply(source, reply_id, name, bare, created_at)
        self._routes[(source, reply_id)] = reply
        self._open[reply] = None
        if bare:
            self._bare.setdefault(source, {})[reply] = None
        else:
            self._agent_replies[source] = reply
        return reply

    def _complete(self, reply: Reply, end: Any = None) -> AssistantMessage:
        """Take ``reply`` out of the open ones (``end``: the event that ended it) and return its message."""
        message = reply.message()  # builds every block, so each call's ``problem`` is current
        for block in reply.blocks:
            if isinstance(block, ToolCallAccumulator):
                problem = block.final_problem()
                if problem is not None:
                    self._report(
                        AnomalyKind.INVALID_TOOL_ARGUMENTS,
                        f"the arguments of tool call {shown(block.block_id)} ({shown(block.name)}) are {problem}; "
                        "the block's content keeps the text and its input is empty",
                        None,
                        reply,
                    )
        for key in reply.route_keys:
            del self._routes[key]
        marks = reply.replay_marks
        if reply.reply_id is None and end is not None:
            # A sub-agent's runs all have the reply id None: only the events that framed a run tell
            # its start or end, replayed, from the next run's.
            end_mark = replay_mark(end)
            if end_mark is not None:
                marks.append(end_mark)
        self._completed.add([*reply.route_keys, *marks] if marks else reply.route_keys)
        del self._open[reply]
        if reply.bare:
            self._not_bare(reply)
        agent_reply = self._agent_replies.get(reply.source) is reply
        if agent_reply:
            del self._agent_replies[reply.source]
        encloser = self._agent_replies.encloser(reply.source)
        if encloser is not NOBODY:
            inner = self._inner_ids.setdefault(reply.source, set())
            reply.seen.add_to(inner)  # its start's id among them
            if end is not None and end.id is not None:
                inner.add(end.id)
            self._inner_of.setdefault(encloser, set()).add(reply.source)
            if agent_reply and reply.source in self._inner_of:  # what it enclosed, its encloser does
                self._inner_of[encloser] |= self._inner_of.pop(reply.source)
        elif agent_reply and reply.source in self._inner_of:
            # The replies it enclosed are done with, unless another open reply encloses them still.
            for source in self._inner_of.pop(reply.source):
                still = self._agent_replies.encloser(source)
                if still is NOBODY:
                    del self._inner_ids[source]
                else:
                    self._inner_of.setdefault(still, set()).add(source)
        return message

    def _take_metadata(self, reply: Reply, block: BlockAccumulator, event: Any) -> None:
        # Called only for an event with metadata: most start and end events carry none.
        for problem in block.take_metadata(event.metadata):
            self._report(AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: {problem}", event, reply)

    def _check_metadata(self, event: Any, cls: type[BlockAccumulator], block_id: str | None, name: str | None) -> None:
        """For strict mode: raise for malformed block metadata before the event changes anything,
        so that it is skipped whole; the metadata is tried on a block of its own."""
        for problem in cls(block_id, name).take_metadata(event.metadata):
            self._report(AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: {problem}", event)

    # -- blocks ---------------------------------------------------------------------

    def _start(self, event: Any, cls: type[BlockAccumulator], block_id: str | None, name: str | None) -> Any:
        if self._strict and event.metadata is not None:
            self._check_metadata(event, cls, block_id, name)
        reply = self._route(event, event.reply_id)
        if reply is None:
            return None
        key = (cls.kind, event.reply_id, block_id)
        block = reply.known.get(key)
        if block is None:
            block = cls(block_id, name)
            reply.add_block(key, block)
        elif block.open and block.started:
            self._refuse(
                AnomalyKind.DUPLICATE_START, f"{describe_event(event)}: the {cls.kind} block is already open", event, reply
            )
            return None
        else:
            # Java restarts its "text" block after a tool call: the model call's text goes on.  Or
            # the block's deltas came before its start, which still says what they cannot (a name,
            # metadata): applied as it would have been in its place.
            block.open, block.built = True, None
        block.started = True
        if event.metadata is not None:
            self._take_metadata(reply, block, event)
        reply.cached = None
        return block

    def _delta(
        self, event: Any, cls: type[BlockAccumulator], block_id: str | None, name: str | None, payload: object
    ) -> Any:
        reply = self._route(event, event.reply_id)
        if reply is None:
            return None
        block = reply.known.get((cls.kind, event.reply_id, block_id))
        if block is None or not block.open:
            block = self._reopen(reply, event, cls, block_id, name, block)
        if payload is not None:  # a delta of nothing changes nothing: a snapshot stays the same object
            block.built = reply.cached = None
        return block

    def _reopen(
        self,
        reply: Reply,
        event: Any,
        cls: type[BlockAccumulator],
        block_id: str | None,
        name: str | None,
        block: BlockAccumulator | None,
    ) -> BlockAccumulator:
        if block is not None:
            self._refuse(
                AnomalyKind.DELTA_WITHOUT_START,
                f"{describe_event(event)}: the {cls.kind} block had ended; {self._outcome('it is reopened')}",
                event,
                reply,
            )
            # A start that comes after this delta still applies, as it would have in its place.
            block.open, block.started, block.built = True, False, None
            reply.cached = None
            return block
        if not (cls is ToolCallAccumulator and _is_hidden_tool(name)):
            self._refuse(
                AnomalyKind.DELTA_WITHOUT_START,
                f"{describe_event(event)}: the {cls.kind} block was never started; {self._outcome('it is created')}",
                event,
                reply,
            )
        block = cls(block_id, name)
        reply.add_block((cls.kind, event.reply_id, block_id), block)
        return block

    def _end(self, event: Any, cls: type[BlockAccumulator], block_id: str | None, name: str | None) -> Any:
        if self._strict and event.metadata is not None:
            self._check_metadata(event, cls, block_id, name)
        reply = self._route(event, event.reply_id)
        if reply is None:
            return None
        key = (cls.kind, event.reply_id, block_id)
        block = reply.known.get(key)
        if block is None:
            kept = cls.end_creates
            self._refuse(
                AnomalyKind.END_WITHOUT_START,
                f"{describe_event(event)}: the {cls.kind} block was never started; "
                + (self._outcome("it is created") if kept else "the end is dropped"),
                event,
                reply,
            )
            if not kept:
                return None
            block = cls(block_id, name)
            reply.add_block(key, block)
        block.open, block.built = False, None  # a call's arguments built while open are parsed now
        if event.metadata is not None:
            self._take_metadata(reply, block, event)
        reply.cached = None
        return block

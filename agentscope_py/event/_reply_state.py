"""What an assembler knows about a reply in progress: its blocks (``_accumulators``), usage,
generate reason and the ids of the events it applied; and the replies completed lately."""

from __future__ import annotations

from bisect import insort
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from itertools import compress
from operator import attrgetter, is_not
from typing import Any

from .._blocks import ToolUseBlock
from .._checks import check_mapping
from .._enums import GenerateReason, MsgRole
from .._frozen import EMPTY
from .._messages import Msg
from .._role_messages import AssistantMessage
from .._usage import ChatUsage
from ._accumulators import BlockAccumulator, StreamedText, ToolCallAccumulator
from ._instants import local_timestamp
from ._seen_ids import SeenIds

__all__ = ["CompletedReplies", "ReplayMark", "Reply", "RouteKey", "replay_mark"]

#: (source, reply id): the events of one model call or acting phase of one agent.
RouteKey = tuple[str | None, str | None]

#: (event id, hash of the event): an event a completed reply remembers, when its reply id does not
#: tell it, arriving again, from an event of the next reply.  The id alone would not do: ids need
#: differ only within a top-level reply, so the next may use them again (numbering its events anew).
ReplayMark = tuple[str, int]


def replay_mark(event: Any) -> ReplayMark | None:
    """The mark of ``event``; ``None`` for an event without an id, which nothing recognises, or one
    that cannot be hashed: of a class of the caller's holding a list, or with metadata nested too
    deeply for the stack left (hashing takes a frame per level)."""
    event_id = event.id
    if event_id is None:
        return None
    try:
        return (event_id, hash(event))
    except (TypeError, RecursionError):
        return None


class Reply:
    """An open reply: ``AgentStartEvent … AgentEndEvent`` of one source, or one bare model call."""

    __slots__ = (
        "bare",
        "blocks",
        "cached",
        "call_index",
        "calls",
        "known",
        "merged",
        "message_id",
        "metadata",
        "metadata_stated",
        "name",
        "reason",
        "reason_from_result",
        "reason_lapses",
        "requests",
        "reply_id",
        "replay_marks",
        "route_keys",
        "seen",
        "source",
        "timestamp",
        "usage",
    )

    def __init__(self, source: str | None, reply_id: str | None, name: str | None, bare: bool, created_at: str | None) -> None:
        self.source = source
        self.reply_id = reply_id
        self.bare = bare  # a model call outside any AgentStartEvent: it ends with its ModelCallEndEvent
        self.name = name
        self.message_id = reply_id
        self.timestamp = local_timestamp(created_at)  # fixed now, so every snapshot agrees
        self.metadata: Mapping[str, Any] = EMPTY  # frozen already: the message takes it as it is
        self.metadata_stated = False  # by the producer, whole (take_info): the events add no entry to it
        self.blocks: list[BlockAccumulator] = []  # in the order their first events arrived
        # (kind, reply id, block id) -> the block; Any, as the kind in the key fixes the accumulator class
        self.known: dict[tuple[str, str | None, str | None], Any] = {}
        self.calls: dict[str | None, list[ToolCallAccumulator]] = {}  # tool call id -> its calls, in order
        self.call_index: dict[str | None, _CallIndex] = {}  # tool call id -> its calls sorted for named_calls
        self.seen = SeenIds()  # ids of the events applied, so a replayed one changes nothing
        self.route_keys: list[RouteKey] = [(source, reply_id)]
        # The marks of its events that only their value tells from the next reply's, once it completed:
        # those routed by source, and for a reply id None (every sub-agent run's) its start.
        self.replay_marks: list[ReplayMark] = []
        self.usage: ChatUsage | None = None
        self.reason: GenerateReason | None = None
        self.reason_from_result = False  # stated by an AgentResultEvent: no event changes it then
        # Java's agent goes on after all tools were denied unless a middleware stops it: the reason
        # AllToolsDeniedEvent gave lapses when another model call of the reply starts.
        self.reason_lapses = False
        # The reply ids of the requests to the client (RequireUserConfirmEvent…) by the metadata key
        # Java's agent records each under in its message; replaced on a change, never changed.  Not
        # added to metadata the producer stated: that is the message's metadata as it is.
        self.requests: Mapping[str, str] = EMPTY
        self.cached: AssistantMessage | None = None  # cleared by every change
        # (metadata, reason, requests, the three as the message's metadata), for as long as none changes
        self.merged: tuple[Mapping[str, Any], GenerateReason | None, Mapping[str, str], Mapping[str, Any]] | None = None

    def add_block(self, key: tuple[str, str | None, str | None], block: BlockAccumulator) -> None:
        self.known[key] = block
        self.blocks.append(block)
        if isinstance(block, ToolCallAccumulator):
            self.calls.setdefault(block.block_id, []).append(block)
        self.cached = None

    def named_calls(self, listed: Sequence[ToolUseBlock]) -> list[tuple[ToolUseBlock, ToolCallAccumulator]]:
        """Each call of ``listed`` (by an event that names calls of this reply) with the reply's call
        it names, in the order listed: from the last listed back, each names, of the calls with its id
        not named yet, the latest with its name and input that can be it (its stream gave the listed
        state, or none), else the latest.
        An id alone is not enough: providers number their calls anew in each answer (``call_0``
        again), and the events list the calls as the model made them: the last listed is the latest
        made, whether they are the latest model call's (a request for confirmation) or all the reply's
        (its result), so named from the end they name the calls in the order they were made."""
        named: list[tuple[ToolUseBlock, ToolCallAccumulator]] = []
        naming: dict[str | None, _Naming] = {}  # by id, made when a listed call first names it
        for call in reversed(listed):
            calls = naming.get(call.id)
            if calls is None:
                own_calls = self.calls.get(call.id)
                if not own_calls:
                    continue  # names none: the reply has no call of its id
                index = self.call_index.get(call.id)
                if index is None:
                    index = self.call_index[call.id] = _CallIndex()
                calls = naming[call.id] = _Naming(index, own_calls)
            own = calls.take(call)
            if own is not None:
                named.append((call, own))
        named.reverse()
        return named

    def remember_run(self, ids: list[str | None], block: StreamedText, start: int) -> None:
        """Record the event ``ids`` of a run of deltas appended to ``block.parts`` from ``start`` on.

        Recorded at once when every id is new (a set built in C per run costs about half of a lookup
        and an insert per event).  When the run repeats an id (a replay) or holds an event without
        one, its deltas are taken back and applied one by one, as ``feed`` would: an event whose id
        was seen before changes nothing.  Either way the block and the message are built again: a
        snapshot taken while the run went on (by the iterator ``feed_all`` reads) is out of date."""
        if not ids:
            return  # nothing after the first delta, which ``DeltaRuns._run_target`` applied
        block.built = self.cached = None
        seen = self.seen
        if seen.take_run(ids):
            return
        parts = block.parts
        for event_id, delta in zip(ids, block.take_back(start), strict=True):
            if event_id is None or seen.first_sight(event_id):
                parts.append(delta)

    def add_usage(self, usage: ChatUsage) -> None:
        self.usage = usage if self.usage is None else self.usage + usage
        self.cached = None

    def message(self) -> AssistantMessage:
        message = self.cached
        if message is None:
            metadata = self.metadata
            if self.reason is not None or (self.requests and not self.metadata_stated):
                metadata = self._merged_metadata(metadata)
            # Each block's own cache read directly: a snapshot after every event reads every block.
            content = [block.built or block.block() for block in self.blocks]
            # ``_from_decoded``: every item is a block this reply built, so the per-item instance check
            # is skipped; the role and field checks still run.
            message = self.cached = AssistantMessage._from_decoded(
                self.message_id, self.name, MsgRole.ASSISTANT, content, metadata, self.timestamp, self.usage
            )
        return message

    def take_info(self, info: Mapping[str, Any]) -> None:
        """Apply the message fields an ``AgentStartEvent`` or ``AgentEndEvent`` states (``message_info``)."""
        for field, value in info.items():
            if field == "id":
                self.message_id = value
            elif field == "timestamp":
                self.timestamp = value
            else:
                self.metadata, self.metadata_stated = value, True
        self.cached = None

    def add_request(self, key: str, reply_id: str) -> None:
        """Record ``reply_id`` under ``key`` in the message's metadata, as Java's agent does when it
        asks the client for something; the last request of a kind wins."""
        if self.requests.get(key) != reply_id:
            self.requests = {**self.requests, key: reply_id}
            if not self.metadata_stated:  # else not in the message: a snapshot stays the same object
                self.cached = None

    def _merged_metadata(self, metadata: Mapping[str, Any]) -> Mapping[str, Any]:
        # Kept while none of the three changes: merged afresh, the metadata would be checked value by
        # value in every snapshot, however large and however unchanged.
        reason, merged = self.reason, self.merged
        requests = EMPTY if self.metadata_stated else self.requests
        if merged is None or merged[0] is not metadata or merged[1] is not reason or merged[2] is not requests:
            own = {**metadata, **requests}
            if reason is not None:
                own[Msg.METADATA_GENERATE_REASON] = reason.name
            merged = self.merged = (metadata, reason, requests, check_mapping(own, "metadata"))
        return merged[3]


#: The keys ``_CallIndex`` sorts every call under, beside those of its name and input: the calls
#: whose state their stream did not give, and all.
_OPEN, _EVERY = object(), object()
_BUILT = attrgetter("built")


class _CallIndex:
    """The calls of one id of a reply, sorted by what a listed call names them by (see ``_Naming``).

    Kept between listings and brought up to date at each: only the calls added or changed since are
    sorted again, so a reply listing its ``call_0`` once per model call, naming an early one each
    time, does not sort every call again for each listing.  Which calls changed is found in one pass
    in C (each change of a call clears its block); a notice from each change would cost every
    stream of tool calls a property on its hottest attribute.  Under each key, the positions of its
    calls, oldest first."""

    __slots__ = ("_built", "_keys", "_kinds", "_lists")

    def __init__(self) -> None:
        self._built: list[object] = []  # by position: the block the call was sorted as
        self._keys: list[tuple[object, ...]] = []  # by position: the keys it is sorted under
        # (name, input) -> a number of its own: an input (a dict hashed afresh each time) is hashed
        # once per sorting of a call, not once per key it is sorted under.
        self._kinds: dict[tuple[str | None, Mapping[str, Any]], int] = {}
        self._lists: dict[object, list[int]] = {}

    def update(self, calls: Sequence[ToolCallAccumulator]) -> None:
        """Sort the calls added or changed since the last update (``calls``: the id's, oldest first)."""
        built, sorted_count = self._built, len(self._built)
        changed = compress(range(sorted_count), map(is_not, map(_BUILT, calls), built))
        for position in [*changed, *range(sorted_count, len(calls))]:
            call = calls[position]
            like = self._kind(call.name, call.built_input())
            keys = ((like, call.state), like, _EVERY) if call.state_given else ((like, None), like, _OPEN, _EVERY)
            if position < sorted_count:
                built[position] = call.built
                if keys == self._keys[position]:
                    continue
                for key in self._keys[position]:
                    self._lists[key].remove(position)
                self._keys[position] = keys
            else:
                built.append(call.built)
                self._keys.append(keys)
            for key in keys:
                insort(self._lists.setdefault(key, []), position)

    def kind(self, name: str | None, given_input: Mapping[str, Any]) -> int | None:
        """The number of a name and input, ``None`` when no call has them."""
        return self._kinds.get((name, given_input))

    def _kind(self, name: str | None, given_input: Mapping[str, Any]) -> int:
        kinds = self._kinds
        return kinds.setdefault((name, given_input), len(kinds))  # an input is frozen, so hashable

    def positions(self, key: object) -> list[int]:
        return self._lists.get(key) or []


class _Naming:
    """The calls of one id not named yet by a listing: each listed call names the latest of them
    with its name and input that can be it (its stream gave the listed state, or none), else the
    latest with its name and input, else the latest whose state its stream did not give, else the
    latest.  (A call whose state its stream gave takes no listed state: of calls like the listed
    one, a later one stating another state is not it.)"""

    __slots__ = ("_calls", "_ends", "_index", "_named")

    def __init__(self, index: _CallIndex, calls: Sequence[ToolCallAccumulator]) -> None:
        index.update(calls)
        self._index = index
        self._calls = calls
        self._named: set[int] = set()
        # Key -> how many of its positions, from the first, may be unnamed: a listing names calls from
        # the latest back, so each key's list is walked back once over the listing, not once per call.
        self._ends: dict[object, int] = {}

    def take(self, listed: ToolUseBlock) -> ToolCallAccumulator | None:
        """Name the call for ``listed``; ``None`` when none is left."""
        like = self._index.kind(listed.name, listed.input)
        position = None
        if like is not None:
            position = self._latest((like, listed.state), (like, None))
            if position is None:
                position = self._latest(like)
        if position is None:
            position = self._latest(_OPEN)
        if position is None:
            position = self._latest(_EVERY)
        if position is None:
            return None
        self._named.add(position)
        return self._calls[position]

    def _latest(self, *keys: object) -> int | None:
        """The position of the latest call not named yet under any of ``keys``."""
        latest = None
        for key in keys:
            positions = self._index.positions(key)
            end = self._ends.get(key, len(positions))
            while end and positions[end - 1] in self._named:
                end -= 1
            self._ends[key] = end
            if end and (latest is None or positions[end - 1] > latest):
                latest = positions[end - 1]
        return latest


_KEYS_PER_REPLY = 16  # keys (route keys, replay marks) remembered per remembered reply, on average


class CompletedReplies(dict[RouteKey | ReplayMark, int]):
    """The route keys of the last ``limit`` completed replies, and their events' replay marks, so that
    their late events are recognised (and dropped) instead of opening a reply of their own or going
    into the next.

    A dict of route key or replay mark -> the number of the reply that holds it: ``key in completed``,
    asked at every reply's start and every new model call, is then a lookup in C, not a method call.
    """

    __slots__ = ("_key_limit", "_limit", "_next", "_replies")

    def __init__(self, limit: int) -> None:  # starts empty: no ``dict.__init__`` call needed
        self._limit = limit
        # Bounded in keys too: a reply holds one per model call, and a stream may make any number.
        self._key_limit = limit * _KEYS_PER_REPLY
        self._replies: OrderedDict[int, Sequence[RouteKey | ReplayMark]] = OrderedDict()
        self._next = 0

    def add(self, keys: Sequence[RouteKey | ReplayMark]) -> None:
        number = self._next
        self._next += 1
        self._replies[number] = keys
        for key in keys:
            self[key] = number
        replies = self._replies
        while (len(replies) > self._limit or len(self) > self._key_limit) and len(replies) > 1:
            oldest, forgotten = replies.popitem(last=False)
            for key in forgotten:
                if self.get(key) == oldest:  # a later reply may have reused the key
                    del self[key]

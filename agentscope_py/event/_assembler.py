"""``MessageAssembler`` and ``assemble``: events back into the assistant messages they stream.

What each streamed block's events mean for the message lives here (one handler per event
class), what the events that stream no block mean in ``_whole_events``; where an event goes,
and what happens to one that does not fit, in ``_routing``; ``feed_all``'s loop over a run of
deltas to one block, in ``_delta_runs``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .._enums import GenerateReason
from .._checks import check_optional_str, describe
from .._messages import Msg
from .._role_messages import AssistantMessage
from .._shown import shown
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, ArgumentValueError, StreamError
from ._anomalies import AnomalyKind, StreamAnomaly, describe_event
from ._instants import local_timestamp
from ._base import AgentEvent
from ._block_events import (
    DataBlockDeltaEvent,
    DataBlockEndEvent,
    DataBlockStartEvent,
    HintBlockEvent,
    TextBlockDeltaEvent,
    TextBlockEndEvent,
    TextBlockStartEvent,
    ThinkingBlockDeltaEvent,
    ThinkingBlockEndEvent,
    ThinkingBlockStartEvent,
)
from ._hitl_events import (
    AllToolsDeniedEvent,
    ExternalExecutionResultEvent,
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
    UserConfirmResultEvent,
)
from ._lifecycle import (
    AgentEndEvent,
    AgentResultEvent,
    AgentStartEvent,
    CustomEvent,
    ExceedMaxItersEvent,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
    SubagentExposedEvent,
)
from ._accumulators import (
    BlockAccumulator,
    DataAccumulator,
    TextAccumulator,
    ThinkingAccumulator,
    ToolCallAccumulator,
    ToolResultAccumulator,
)
from ._delta_runs import END, RUNS
from ._reply_state import replay_mark
from ._stream_keys import message_info
from ._tool_events import (
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
)
from ._whole_events import WholeEventHandlers

__all__ = ["AssembledMessages", "MessageAssembler", "assemble"]


class AssembledMessages(list[AssistantMessage]):
    """The messages :func:`assemble` rebuilt, in the order they completed, plus the
    :class:`StreamAnomaly` records of what it noticed on the way (``anomalies``).

    It is a ``list``, so it compares equal to a plain list of the same messages.
    """

    __slots__ = ("anomalies",)

    def __init__(self, messages: Iterable[AssistantMessage], anomalies: Iterable[StreamAnomaly]) -> None:
        list.__init__(self, messages)  # by name: cheaper than a zero-argument super() on 3.11
        self.anomalies: tuple[StreamAnomaly, ...] = tuple(anomalies)


class MessageAssembler(WholeEventHandlers):
    """Feeds on streamed events and gives back the assistant messages they make up.

    ``feed(event)`` returns the messages that event completed (usually none);
    ``snapshot()`` is the reply in progress, for live rendering; ``close()`` ends
    the stream and returns the replies that never ended.  An event seen before
    (same ``id``) in an open reply changes nothing, so a stream can be replayed
    from any checkpoint inside the reply in progress.

    Lenient by default: an event out of place is kept if it carries content and
    recorded in ``anomalies``.  With ``strict=True`` it raises
    :class:`~agentscope_py.StreamError` instead, and that event is skipped.
    Not thread-safe: feed one assembler from one thread at a time.
    """

    def feed(self, event: AgentEvent) -> list[AssistantMessage]:
        """Apply ``event``; returns the messages it completed (usually none, one at a reply's end)."""
        handler, argument = _HANDLERS[type(event)]
        done = handler(self, event, argument)
        if self._undelivered:
            done = self._take_undelivered() + done
        return done

    def feed_all(self, events: Iterable[AgentEvent]) -> list[AssistantMessage]:
        """Apply every event of ``events``; returns the messages they completed.

        The same as ``feed`` in a loop, but a run of deltas to one block is
        appended in one tight loop: use it for whatever arrived at once.  When
        ``events`` raises partway (a dropped connection), or an event does
        (``StreamError`` in strict mode), what came before it stays applied, and
        the messages it completed are returned by the next call to ``feed``,
        ``feed_all`` or ``close``.
        """
        rest = _iterate(events, "feed_all")
        done = self._take_undelivered() if self._undelivered else []
        try:
            for event in rest:  # cheaper than ``next(rest)`` per event; a run reads on from ``rest`` itself
                run = RUNS.get(type(event))
                while run is not None:  # a run returns the event after it, which may begin another run
                    after = run(self, event, rest)
                    if after is None:  # no open block to extend: the handler applies the delta
                        break
                    if after is END:
                        return done
                    event, run = after, RUNS.get(type(after))
                handler, argument = _HANDLERS[type(event)]  # ``feed``, written out: most events of a batch
                finished = handler(self, event, argument)
                if finished:
                    done += finished
        except BaseException:
            # After what this call completed: the messages the raising event completed (strict mode).
            self._undelivered = done + self._undelivered
            raise
        return done

    def _take_undelivered(self) -> list[AssistantMessage]:
        done, self._undelivered = self._undelivered, []
        return done

    def snapshot(self, source: str | None = None) -> AssistantMessage | None:
        """The reply of ``source`` (``None``: the top-level agent) in progress, as a message, or
        ``None`` when it has none open.  Cached: calling it after every event builds again only
        the blocks that changed since the previous call (and makes a new message of them all)."""
        if source is not None and type(source) is not str:
            check_optional_str(source, "MessageAssembler.snapshot source")
        if self._run is not None:  # asked by the iterator feed_all reads, while it appends a run
            running_reply, block = self._run
            block.built = running_reply.cached = None
        reply = self._agent_replies.get(source) or self._latest_bare_reply(source)
        return None if reply is None else reply.message()

    def _usage_so_far(self, source: str | None) -> ChatUsage | None:
        """``snapshot(source).usage``, without building the message (for ``ReplyEmitter``'s check of
        each model call's usage, which would otherwise build it once per model call)."""
        reply = self._agent_replies.get(source) or self._latest_bare_reply(source)
        return None if reply is None else reply.usage

    def close(self) -> list[AssistantMessage]:
        """End of stream: complete the replies that never ended (an ``UNFINISHED_REPLY`` anomaly
        each) and return their messages.  The assembler can go on being fed afterwards."""
        done = self._take_undelivered() if self._undelivered else []
        try:
            for reply in list(self._open):
                self._report(
                    AnomalyKind.UNFINISHED_REPLY,
                    f"reply {shown(reply.reply_id)} of source {shown(reply.source)} never ended "
                    f"({'ModelCallEndEvent' if reply.bare else 'AgentEndEvent'} missing)",
                    None,
                    reply,
                )
                done.append(self._complete(reply))
        except StreamError:  # strict: the replies are completed all the same; the next call returns them
            done += [self._complete(reply) for reply in list(self._open)]
            self._undelivered = done
            raise
        return done

    # -- handlers: (assembler, event, argument) -> completed messages ------------------

    def _on_agent_start(self, event: AgentStartEvent, _: None) -> list[AssistantMessage]:
        if self._replayed_inside_open_reply(event):
            return []
        source, reply_id = event.source, event.reply_id
        # AgentScope Java starts every run of a sub-agent with the reply id None: a start of a new id
        # is the next run, not a late event of the last.
        if (source, reply_id) in self._completed if reply_id is not None else self._framed_before(event):
            self._report(AnomalyKind.LATE_EVENT, f"{describe_event(event)}: this reply already completed", event)
            return []
        current = self._agent_replies.get(source)
        info, problems = message_info(event.metadata)
        replayed = current is not None and current.reply_id == reply_id and event.id is not None and event.id in current.seen
        if problems and replayed:
            return []  # its problems were reported when it first came
        for problem in problems:  # before anything changes: in strict mode the event is skipped whole
            self._report(AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: {problem}", event)
        done = []
        if current is not None and current.reply_id == reply_id:
            if self._first_sight(current, event):
                self._refuse(AnomalyKind.DUPLICATE_START, f"{describe_event(event)}: the reply is already open", event, current)
            return []
        if current is not None:
            # Completed first, also in strict mode: the new reply's events must not land in this one.
            done.append(self._complete(current))
        reply = self._routes.get((source, reply_id))
        if reply is None:
            reply = self._open_reply(source, reply_id, event.name, False, event.created_at)
        else:  # events that came before their start opened a reply implicitly: this is it
            if reply.bare:
                self._not_bare(reply)
            reply.bare, reply.name = False, event.name
            # The start's time, not that of the event that came before it: the message's timestamp.
            reply.timestamp = local_timestamp(event.created_at)
            reply.cached = None  # a snapshot taken before showed it without its name
            self._agent_replies[source] = reply
        if self._first_sight(reply, event) and reply_id is None:
            mark = replay_mark(event)
            if mark is not None:
                reply.replay_marks.append(mark)
        if info:
            reply.take_info(info)
        if current is not None:
            try:
                self._report(
                    AnomalyKind.UNFINISHED_REPLY,
                    f"reply {shown(current.reply_id)} never ended: {describe_event(event)} started another one",
                    event,
                    current,
                )
            except StreamError:  # strict: the event is applied all the same, see above
                self._undelivered += done
                raise
        return done

    def _on_agent_end(self, event: AgentEndEvent, _: None) -> list[AssistantMessage]:
        if self._replayed_inside_open_reply(event):
            return []
        key = (event.source, event.reply_id)
        reply = self._routes.get(key)
        # A start or end of a sub-agent's finished run, replayed, names the key of its next run.
        ended = event.reply_id is None and self._framed_before(event)
        if reply is None or reply.reply_id != event.reply_id or ended:
            if key in self._completed or ended:
                self._report(AnomalyKind.LATE_EVENT, f"{describe_event(event)}: this reply already completed", event)
            else:
                self._report(
                    AnomalyKind.END_WITHOUT_START, f"{describe_event(event)}: no such reply is open; dropped", event
                )
            return []
        # What was known only at the end (a live reply's stop reason, say): it overrides the start's.
        info, problems = message_info(event.metadata)
        for problem in problems:  # before anything changes: in strict mode the event is skipped whole
            self._report(AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: {problem}", event, reply)
        if info:
            reply.take_info(info)
        return [self._complete(reply, event)]

    def _on_model_call_start(self, event: ModelCallStartEvent, _: None) -> list[AssistantMessage]:
        reply = self._route(event, event.reply_id)
        if reply is not None and reply.reason_lapses:  # the run went on after all tools were denied
            reply.reason, reply.reason_lapses, reply.cached = None, False, None
        return []

    def _on_model_call_end(self, event: ModelCallEndEvent, _: None) -> list[AssistantMessage]:
        reply = self._route(event, event.reply_id)
        if reply is None:
            return []
        if event.usage is not None:
            try:
                reply.add_usage(event.usage)
            except ArgumentValueError as error:  # a sum past what a usage holds (a Java int)
                self._refuse(
                    AnomalyKind.MALFORMED_EVENT,
                    f"{describe_event(event)}: its usage cannot be added to the reply's ({error}); "
                    + self._outcome("the reply keeps the usage it had"),
                    event,
                    reply,
                )
        if reply.bare and reply.reply_id == event.reply_id:
            return [self._complete(reply)]
        return []

    def _on_block_start(self, event: Any, cls: type[BlockAccumulator]) -> list[AssistantMessage]:
        self._start(event, cls, event.block_id, None)
        return []

    def _on_block_delta(self, event: Any, cls: type[BlockAccumulator]) -> list[AssistantMessage]:
        # The hottest handler: ``_delta`` written out (text, thinking and data deltas are most events).
        reply_id = event.reply_id
        reply = self._route(event, reply_id)
        if reply is None:
            return []
        block: Any = reply.known.get((cls.kind, reply_id, event.block_id))
        if block is None or not block.open:
            block = self._reopen(reply, event, cls, event.block_id, None, block)
        delta = event.delta
        if delta:  # an empty one adds nothing to the text: a snapshot stays the same object
            block.parts.append(delta)
            block.built = reply.cached = None
        return []

    def _on_block_end(self, event: Any, cls: type[BlockAccumulator]) -> list[AssistantMessage]:
        self._end(event, cls, event.block_id, None)
        return []

    def _on_tool_start(self, event: Any, cls: type[BlockAccumulator]) -> list[AssistantMessage]:
        block = self._start(event, cls, event.tool_call_id, event.tool_call_name)
        if block is not None and event.tool_call_name is not None:
            block.name = event.tool_call_name
            block.built = None  # an end before the start may have built it without the name
        return []

    def _on_tool_end(self, event: Any, cls: type[BlockAccumulator]) -> list[AssistantMessage]:
        block = self._end(event, cls, event.tool_call_id, event.tool_call_name)
        if isinstance(block, ToolResultAccumulator) and event.state is not None:
            block.state = event.state
            block.built = None
        return []

    def _on_tool_call_delta(self, event: ToolCallDeltaEvent, _: None) -> list[AssistantMessage]:
        block = self._delta(event, ToolCallAccumulator, event.tool_call_id, event.tool_call_name, event.delta)
        if block is not None and event.delta is not None:
            block.parts.append(event.delta)
        return []

    def _on_tool_result_text(self, event: ToolResultTextDeltaEvent, _: None) -> list[AssistantMessage]:
        block = self._delta(event, ToolResultAccumulator, event.tool_call_id, event.tool_call_name, event.delta)
        if block is not None and event.delta is not None:
            block.add_text(event.delta)
        return []

    def _on_tool_result_data(self, event: ToolResultDataDeltaEvent, _: None) -> list[AssistantMessage]:
        if event.data is not None:
            # Before anything changes: in strict mode the event is skipped whole.
            refused = ToolResultAccumulator.refused_output(event.data)
            if refused is not None:
                self._report(AnomalyKind.MALFORMED_EVENT, f"{describe_event(event)}: {refused}; dropped", event)
                return []
        block = self._delta(event, ToolResultAccumulator, event.tool_call_id, event.tool_call_name, event.data)
        if block is not None and event.data is not None:
            block.add_block(event.data)
        return []


_Handler = Callable[[MessageAssembler, Any, Any], list[AssistantMessage]]


class _Handlers(dict[type, tuple[_Handler, Any]]):
    """Event class -> (handler, its argument): one lookup per event.  A class first seen is
    handled as the known event it derives from, an answer kept; or as unknown, an answer not kept:
    classes made at run time (a mock makes one per instance) would fill the table for good."""

    __slots__ = ("_known",)

    def __init__(self, handlers: dict[type, tuple[_Handler, Any]]) -> None:
        super().__init__(handlers)
        self._known = frozenset(handlers)

    def __missing__(self, cls: type) -> tuple[_Handler, Any]:
        known = next((base for base in cls.__mro__ if base in self._known), None)
        if known is None:
            return (MessageAssembler._on_unknown, None)
        entry = self[cls] = self[known]
        return entry


_A = MessageAssembler
_HANDLERS = _Handlers(
    {
        AgentStartEvent: (_A._on_agent_start, None),
        AgentEndEvent: (_A._on_agent_end, None),
        ModelCallStartEvent: (_A._on_model_call_start, None),
        ModelCallEndEvent: (_A._on_model_call_end, None),
        TextBlockStartEvent: (_A._on_block_start, TextAccumulator),
        TextBlockDeltaEvent: (_A._on_block_delta, TextAccumulator),
        TextBlockEndEvent: (_A._on_block_end, TextAccumulator),
        ThinkingBlockStartEvent: (_A._on_block_start, ThinkingAccumulator),
        ThinkingBlockDeltaEvent: (_A._on_block_delta, ThinkingAccumulator),
        ThinkingBlockEndEvent: (_A._on_block_end, ThinkingAccumulator),
        DataBlockStartEvent: (_A._on_block_start, DataAccumulator),
        DataBlockDeltaEvent: (_A._on_block_delta, DataAccumulator),
        DataBlockEndEvent: (_A._on_block_end, DataAccumulator),
        ToolCallStartEvent: (_A._on_tool_start, ToolCallAccumulator),
        ToolCallDeltaEvent: (_A._on_tool_call_delta, None),
        ToolCallEndEvent: (_A._on_tool_end, ToolCallAccumulator),
        ToolResultStartEvent: (_A._on_tool_start, ToolResultAccumulator),
        ToolResultTextDeltaEvent: (_A._on_tool_result_text, None),
        ToolResultDataDeltaEvent: (_A._on_tool_result_data, None),
        ToolResultEndEvent: (_A._on_tool_end, ToolResultAccumulator),
        HintBlockEvent: (_A._on_hint, None),
        CustomEvent: (_A._on_custom, None),
        ExceedMaxItersEvent: (_A._on_generate_reason, GenerateReason.MAX_ITERATIONS),
        RequireUserConfirmEvent: (_A._on_generate_reason, GenerateReason.PERMISSION_ASKING),
        RequireExternalExecutionEvent: (_A._on_generate_reason, GenerateReason.TOOL_SUSPENDED),
        AllToolsDeniedEvent: (_A._on_generate_reason, GenerateReason.ALL_TOOLS_DENIED),
        RequestStopEvent: (_A._on_generate_reason, None),  # carries its own reason
        AgentResultEvent: (_A._on_agent_result, None),
        UserConfirmResultEvent: (_A._on_other, None),
        ExternalExecutionResultEvent: (_A._on_other, None),
        SubagentExposedEvent: (_A._on_other, None),
    }
)
del _A


def assemble(events: Iterable[AgentEvent], *, strict: bool = False) -> AssembledMessages:
    """The assistant messages ``events`` make up, in the order they completed (replies that never
    ended come last); ``.anomalies`` on the result says what was out of place."""
    assembler = MessageAssembler(strict)
    messages = assembler.feed_all(_iterate(events, "assemble"))
    messages += assembler.close()
    return AssembledMessages(messages, assembler._anomalies)  # the list: AssembledMessages makes the tuple


def _iterate(events: Iterable[AgentEvent], caller: str) -> Iterator[AgentEvent]:
    try:
        iterator = iter(events)
    except TypeError:
        if isinstance(events, AgentEvent):
            hint = "; give one event to feed(event), or a list of it"
        elif isinstance(events, Msg):
            hint = "; events_from_message(msg) gives the events that stream a message"
        else:
            hint = ""
        raise ArgumentTypeError(f"{caller} takes an iterable of events, got {describe(events)}{hint}") from None
    # Text and documents iterate too, by character or key: each would be an unknown event.  Asked
    # last, and not of a list or an iterator: the abstract Mapping check costs more than the rest.
    given: object = events  # whatever the annotation says: this is the check that it holds
    if (
        iterator is not given
        and type(given) is not list
        and isinstance(given, (str, bytes, bytearray, Mapping))
    ):
        hint = (
            "; AgentEvent.from_dict reads one event's document"
            if isinstance(given, Mapping)
            else "; agentscope_py.sse.parse_events reads an event stream, AgentEvent.from_json one event"
        )
        raise ArgumentTypeError(f"{caller} takes an iterable of events, got {describe(given)}{hint}")
    return iterator

"""The event stream a server sends for an assistant reply, written by one ``Emitter``:
``events_from_message`` (``_message_events``) drives it for a finished message, and a
:class:`~agentscope_py.event.ReplyEmitter` as a reply is produced.

The stream has AgentScope's shape (``AgentStartEvent``, model calls streaming
their blocks start → deltas → end, acting phases streaming tool results, the
event that states the generate reason, ``AgentEndEvent``), and carries what
those events have no field for under the keys of ``_stream_keys``, so that
``assemble(events_from_message(m)) == [m]``.  Both ways of making a stream go
through one ``Emitter``, so a live reply follows the same rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from .._blocks import (
    ContentBlock,
    DataBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from .._enums import GenerateReason, ToolCallState, ToolResultState
from .._fields import unchecked_init
from .._ids import new_hex_id
from .._messages import Msg
from .._sources import Base64Source
from .._tool_arguments import says_input
from .._usage import ChatUsage
from ..errors import ArgumentValueError
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
    RequireExternalExecutionEvent,
    RequireUserConfirmEvent,
)
from ._lifecycle import (
    AgentEndEvent,
    AgentResultEvent,
    AgentStartEvent,
    CustomEvent,
    ModelCallEndEvent,
    ModelCallStartEvent,
    RequestStopEvent,
)
from ._stream_keys import BLOCK_KEY, CONTENT_BLOCK_EVENT, MESSAGE_KEY, REQUEST_KEYS, result_end_metadata
from ._tool_events import (
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
)

__all__ = ["ACTING", "MODEL_CALL", "Emitter"]

#: The kinds of segment a reply is split into, each under a reply id of its own.
MODEL_CALL, ACTING = "model call", "acting"


def _chunks(text: str, size: int | None) -> list[str]:
    if size is None:
        return [text] if text else []
    return [text[start : start + size] for start in range(0, len(text), size)]


def _listed(ids: Mapping[str | None, Any]) -> str:
    return ", ".join(map(repr, ids))


_TEXT_EVENTS: dict[str, tuple[type[AgentEvent], type[AgentEvent], type[AgentEvent]]] = {
    "text": (TextBlockStartEvent, TextBlockDeltaEvent, TextBlockEndEvent),
    "thinking": (ThinkingBlockStartEvent, ThinkingBlockDeltaEvent, ThinkingBlockEndEvent),
}


class _OpenBlock:
    """A block whose deltas are being sent: ``args`` open each of its delta and end events."""

    __slots__ = ("args", "delta", "end", "kind", "metadata")

    def __init__(self, kind: str, args: tuple[Any, ...], delta: type[AgentEvent], end: type[AgentEvent]) -> None:
        self.kind = kind
        self.args = args
        self.delta = delta
        self.end = end
        self.metadata: Mapping[str, Any] | None = None  # a thinking block's or a call's, sent on its end event


class Emitter:
    """Writes one reply as events, into ``events``: whole blocks, or deltas as they come.

    A reply is split into model-call and acting segments, each under a reply id of
    its own.  Streamed blocks stay open (their end event unsent) until a block of
    another kind begins, their segment ends, or the reply finishes: one text or
    thinking block at a time, and any number of tool calls; in an acting segment,
    any number of tool results, until each is ended or the segment is.
    """

    def __init__(self, chunk_size: int | None, source: str | None, *, live: bool = False) -> None:
        self.chunk_size = chunk_size  # characters per delta of a whole block; None: one delta
        self.source = source
        # A reply being produced (``ReplyEmitter``), rather than a finished message: a tool call given
        # whole may still be waiting for the user, whom the reply's end asks.
        self.live = live
        self.events: list[AgentEvent] = []
        self.segment_kind = ""
        self.segment_id: str | None = None
        self.acting_id: str | None = None  # the last acting segment's reply id
        self.used: set[tuple[str, str | None]] = set()  # identities of the current segment's blocks
        self.usage: ChatUsage | None = None  # sent with the next model call's end
        self.counters: dict[str, int] = {}  # text and thinking blocks of the current model call, by kind
        self.open: _OpenBlock | None = None  # the text or thinking block being streamed
        self.open_calls: dict[str | None, _OpenBlock] = {}  # the tool calls being streamed, by id
        self.open_results: dict[str | None, _OpenBlock] = {}  # the tool results being streamed, by call id
        self.call_names: dict[str | None, str | None] = {}  # the id of every tool call sent -> its latest call's name
        # The ids of the results left RUNNING because their acting phase ended, until a call
        # of that id is made again: output for one then would be a second result of that call.
        self.left_running: set[str | None] = set()

    def add(self, cls: type[AgentEvent], *args: Any, metadata: Mapping[str, Any] | None = None) -> None:
        # Built without the type checks of the class's __init__: every value here was checked on its
        # way in (by ReplyEmitter's methods, or as a message's), and a third of an event's cost went to them.
        build = _BUILDERS.get(cls) or _BUILDERS.setdefault(cls, unchecked_init(cls))
        self.events.append(build(*args, source=self.source, metadata=metadata))

    def add_text(self, cls: type[AgentEvent], args: tuple[Any, ...], text: str) -> None:
        """A delta of ``text`` given live, in pieces of ``chunk_size`` characters when it is longer: one
        event of megabytes would be an SSE message larger than a client reads."""
        size = self.chunk_size
        if size is None or len(text) <= size:
            self.add(cls, *args, text)
        else:
            for piece in _chunks(text, size):
                self.add(cls, *args, piece)

    # -- the reply -----------------------------------------------------------------------

    def start(self, reply_id: str, name: str | None, info: Mapping[str, Any] | None) -> None:
        self.add(AgentStartEvent, None, reply_id, name, metadata=None if info is None else {MESSAGE_KEY: info})

    def end(self, reply_id: str, result: Msg[Any] | None, info: Mapping[str, Any] | None = None) -> None:
        """End the reply, after an ``AgentResultEvent`` holding ``result`` when it is given; ``info``:
        message fields known only now, which override the start's."""
        self.end_segment()
        if result is not None:  # as Java ends a reply that did not fail: call() and its AG-UI bridge read it there
            self.add(AgentResultEvent, result)
        self.add(AgentEndEvent, reply_id, metadata=None if info is None else {MESSAGE_KEY: info})

    # -- segments ----------------------------------------------------------------------

    def segment(self, kind: str, identity: tuple[str, str | None] | None) -> str | None:
        """The reply id to stream a block under: the current segment's, unless the block needs
        another kind of segment or its identity is taken in this one (two blocks with one id)."""
        if kind != self.segment_kind or (identity is not None and identity in self.used):
            self.end_segment()
            self.segment_kind, self.segment_id, self.used = kind, new_hex_id(), set()
            if kind == ACTING:
                self.acting_id = self.segment_id
            if kind == MODEL_CALL:
                self.add(ModelCallStartEvent, self.segment_id)
                self.counters.clear()  # as in Java, each model call's blocks are "text" and "thinking" again
        if identity is not None:
            self.used.add(identity)
        return self.segment_id

    def end_segment(self) -> None:
        self.close_blocks()
        if self.segment_kind == MODEL_CALL:
            self.add(ModelCallEndEvent, self.segment_id, self.usage)
            self.usage = None
        self.segment_kind = ""

    def end_model_call(self, usage: ChatUsage | None) -> None:
        """End the model call under way with ``usage``; with none under way, ``usage`` needs one
        of its own (an empty model call), and no usage needs nothing."""
        if self.segment_kind != MODEL_CALL:
            if usage is None:
                return
            if self.open_results:
                raise ArgumentValueError(
                    f"the tool results {_listed(self.open_results)} are being streamed: the model call has ended, "
                    "and a usage now would need a model call of its own, which ends their acting phase; give a "
                    "model call's usage before its first tool_result, or end the results first (end_tool_result)"
                )
            self.segment(MODEL_CALL, None)
        self.usage = usage
        self.end_segment()

    # -- deltas, as a live reply sends them ------------------------------------------------

    def text_delta(self, kind: str, delta: str, metadata: Mapping[str, Any] | None = None, new_block: bool = False) -> None:
        """``delta`` for the open block of ``kind`` ("text" or "thinking"), opening one if needed;
        ``new_block``: a block of its own, even when one of ``kind`` is open."""
        block = self.open
        if new_block and block is not None and block.kind == kind:
            self.close_text()
            block = None
        if block is None or block.kind != kind:
            if not delta and metadata is None:
                return  # nothing to send (a model's first chunk often holds "")
            self.close_blocks()
            block = self.open = self.open_text(kind, None)
        if metadata is not None:
            block.metadata = metadata
        if delta:
            self.add_text(block.delta, block.args, delta)

    def call_delta(self, call_id: str, name: str | None, fragment: str, metadata: Mapping[str, Any] | None = None) -> None:
        """An arguments ``fragment`` of the tool call ``call_id``, opening it if it is not open;
        ``metadata``: the call's, sent when it closes."""
        block = self.open_calls.get(call_id)
        if block is None:
            self.check_call_opens(call_id, name)
            self.close_text()  # calls stay open beside each other: some providers interleave their fragments
            reply_id = self.segment(MODEL_CALL, ("call", call_id))
            self.add(ToolCallStartEvent, reply_id, call_id, name)
            block = _OpenBlock("call", (reply_id, call_id, name), ToolCallDeltaEvent, ToolCallEndEvent)
            self.open_calls[call_id] = block
            self.made_call(call_id, name)
        elif name and name != block.args[2]:  # a provider may send the name again, or "" after the first
            raise ArgumentValueError(f"the tool call {call_id!r} is named {block.args[2]!r}, not {name!r}")
        if metadata is not None:
            block.metadata = metadata
        if fragment:
            self.add_text(ToolCallDeltaEvent, block.args, fragment)

    def check_call_opens(self, call_id: str, name: str | None) -> None:
        """Raise what :meth:`call_delta` raises for a call ``call_id`` that is not open and cannot
        open (closed already, or given no ``name``), changing nothing."""
        if call_id in self.open_calls:
            return
        if self.segment_kind == MODEL_CALL and ("call", call_id) in self.used:
            raise ArgumentValueError(
                f"the tool call {call_id!r} was closed when another block began (a text or thinking block, or "
                "one given whole with block()); a call's argument fragments must come before that (or give the "
                "call whole, with block(ToolUseBlock(...)))"
            )
        if not name:
            if call_id in self.call_names:
                raise ArgumentValueError(
                    f"the tool call {call_id!r} was closed when its model call ended (end_model_call, a tool "
                    "result or the end of the reply): a call's fragments must come before that"
                )
            raise ArgumentValueError(f"the tool call {call_id!r} opens here: give its name with its first fragment")

    def result_output(self, call_id: str, name: str | None, output: str | ContentBlock) -> None:
        """``output`` of the tool result answering ``call_id``, opening it if it is not open: text
        (no delta for ``""``), or a whole block."""
        block = self.open_results.get(call_id)
        if block is None:
            self.check_new_result(call_id, whole=False)
            reply_id = self.segment(ACTING, ("result", call_id))
            self.add(ToolResultStartEvent, reply_id, call_id, name)
            block = _OpenBlock("result", (reply_id, call_id, name), ToolResultTextDeltaEvent, ToolResultEndEvent)
            self.open_results[call_id] = block
        elif name is not None and name != block.args[2]:
            raise ArgumentValueError(f"the tool result {call_id!r} is named {block.args[2]!r}, not {name!r}")
        if isinstance(output, str):
            if output:
                self.add_text(ToolResultTextDeltaEvent, block.args, output)
        else:
            self.add(ToolResultDataDeltaEvent, *block.args, output)

    def end_result(self, call_id: str, state: ToolResultState, metadata: Mapping[str, Any]) -> None:
        """End the open tool result answering ``call_id`` in ``state``, with the result's ``metadata``."""
        block = self.open_results.pop(call_id, None)
        if block is None:
            if call_id in self.left_running:
                why = " (it was left RUNNING when its acting phase ended)"
            elif self.segment_kind == ACTING and ("result", call_id) in self.used:
                why = " (it ended already)"
            else:
                why = ""
            raise ArgumentValueError(f"no tool result {call_id!r} is open{why}: tool_result(id, output) opens one")
        self.add(ToolResultEndEvent, *block.args, state, metadata=result_end_metadata(state, metadata) or None)

    def check_new_result(self, call_id: str | None, whole: bool) -> None:
        """Refuse a result of the call ``call_id`` that would be a second one by mistake: after its
        result was left running; or in the acting phase that has one, unless it comes ``whole`` with
        no result being streamed (it then goes in an acting phase of its own, as two results of one
        call in a message do)."""
        if call_id in self.left_running:
            raise ArgumentValueError(
                f"the tool result {call_id!r} was left RUNNING when a block of the model ended its acting phase: "
                "end a result with end_tool_result before the reply goes on"
            )
        if self.segment_kind != ACTING or ("result", call_id) not in self.used:
            return
        if not whole:
            raise ArgumentValueError(
                f"the call {call_id!r} has a result in this acting phase already (given whole, or ended with "
                "end_tool_result): its output must come before that, and another result needs a model call between"
            )
        if self.open_results:
            raise ArgumentValueError(
                f"the call {call_id!r} has a result in this acting phase already; another would start an acting "
                f"phase of its own, which ends the results being streamed ({_listed(self.open_results)}): end them first"
            )

    def made_call(self, call_id: str | None, name: str | None) -> None:
        self.call_names[call_id] = name
        self.left_running.discard(call_id)  # its result is that of a new call

    def close_text(self) -> None:
        block = self.open
        if block is not None:
            self.open = None
            self.add_end(block)

    def add_end(self, block: _OpenBlock) -> None:
        """The end event of a text, thinking or call block, with the block's metadata if it has any."""
        metadata = None if block.metadata is None else {BLOCK_KEY: {"metadata": block.metadata}}
        self.add(block.end, *block.args, metadata=metadata)

    def close_blocks(self) -> None:
        """Close every block being streamed, in the order they opened: a tool result RUNNING, as a
        tool that did not finish (and as Java ends one that waits: to a Java client, an end without
        a state is a finished tool)."""
        self.close_text()
        for call in self.open_calls.values():
            self.add_end(call)
        self.open_calls.clear()
        for call_id, result in self.open_results.items():
            self.add(result.end, *result.args, ToolResultState.RUNNING)
            self.left_running.add(call_id)
        self.open_results.clear()

    # -- whole blocks ------------------------------------------------------------------

    def block(self, block: ContentBlock) -> None:
        if type(block) is ToolResultBlock:
            self.tool_result(block)  # beside the results being streamed, in their acting phase
            return
        self.close_blocks()
        if type(block) is TextBlock:
            self.streamed_text("text", block.text, None)
        elif type(block) is ThinkingBlock:
            extras = None if block.metadata is None else {BLOCK_KEY: {"metadata": block.metadata}}
            self.streamed_text("thinking", block.thinking, extras)
        elif type(block) is DataBlock and isinstance(block.source, Base64Source):
            self.data(block, block.source)
        elif type(block) is ToolUseBlock:
            self.tool_call(block)
        elif type(block) is HintBlock:
            reply_id = self.segment(MODEL_CALL, None)
            self.add(HintBlockEvent, reply_id, block.id, block.source, block.hint)
        else:  # no event streams it: it travels whole, as its JSON
            reply_id = self.segment(MODEL_CALL, None)
            self.add(CustomEvent, CONTENT_BLOCK_EVENT, {"replyId": reply_id, "block": block.to_dict()})

    def open_text(self, kind: str, metadata: Mapping[str, Any] | None) -> _OpenBlock:
        # Java's block ids are "text" and "thinking" in every model call; a second block of a kind in
        # one model call needs an id of its own, or it would continue the first.
        start, delta, end = _TEXT_EVENTS[kind]
        reply_id = self.segment(MODEL_CALL, None)
        count = self.counters[kind] = self.counters.get(kind, 0) + 1
        block_id = kind if count == 1 else f"{kind}-{count}"
        self.add(start, reply_id, block_id, metadata=metadata)
        return _OpenBlock(kind, (reply_id, block_id), delta, end)

    def streamed_text(self, kind: str, text: str, metadata: Mapping[str, Any] | None) -> None:
        block = self.open_text(kind, metadata)
        for piece in _chunks(text, self.chunk_size):
            self.add(block.delta, *block.args, piece)
        self.add(block.end, *block.args)

    def data(self, block: DataBlock, source: Base64Source) -> None:
        reply_id = self.segment(MODEL_CALL, ("data", block.id))
        extras: dict[str, Any] = {"media_type": source.media_type}
        if block.name is not None:
            extras["name"] = block.name
        self.add(DataBlockStartEvent, reply_id, block.id, metadata={BLOCK_KEY: extras})
        for piece in _chunks(source.data, self.chunk_size):
            self.add(DataBlockDeltaEvent, reply_id, block.id, piece)
        self.add(DataBlockEndEvent, reply_id, block.id)

    def tool_call(self, block: ToolUseBlock) -> None:
        reply_id = self.segment(MODEL_CALL, ("call", block.id))
        self.made_call(block.id, block.name)
        # The state is stated, so that a later RequireUserConfirmEvent cannot change it; but in a live
        # reply a PENDING call may be one the reply's end lists as waiting for the user (then ASKING),
        # as a call streamed with tool_call() is.
        extras: dict[str, Any] = {}
        if not (self.live and block.state is ToolCallState.PENDING):
            extras["state"] = block.state.value
        if block.metadata:
            extras["metadata"] = block.metadata
        arguments = block.content
        if arguments is None:  # stream the input as a model would; the block keeps content None
            extras["content"] = None
            try:
                arguments = json.dumps(block.input, ensure_ascii=False)
            except (TypeError, ValueError):  # not JSON-able: the input travels whole below
                arguments = ""
        if not says_input(arguments, block.input):  # the assembler, parsing them, would not make the input
            extras["input"] = block.input
        self.add(ToolCallStartEvent, reply_id, block.id, block.name, metadata={BLOCK_KEY: extras})
        for piece in _chunks(arguments, self.chunk_size) or [""]:  # "" is content too
            self.add(ToolCallDeltaEvent, reply_id, block.id, block.name, piece)
        self.add(ToolCallEndEvent, reply_id, block.id, block.name)

    def tool_result(self, block: ToolResultBlock) -> None:
        if block.id in self.open_results:
            raise ArgumentValueError(
                f"the tool result {block.id!r} is being streamed: send the rest of its output with "
                "tool_result() and end it with end_tool_result()"
            )
        self.check_new_result(block.id, whole=True)
        reply_id = self.segment(ACTING, ("result", block.id))
        args = (reply_id, block.id, block.name)
        self.add(ToolResultStartEvent, *args)
        after_text = False  # consecutive text deltas merge, so a text right after text goes whole
        for item in block.output:
            if type(item) is TextBlock and not after_text:
                for piece in _chunks(item.text, self.chunk_size) or [""]:
                    self.add(ToolResultTextDeltaEvent, *args, piece)
                after_text = True
            else:
                self.add(ToolResultDataDeltaEvent, *args, item)
                after_text = False
        state, metadata = _as_java_ends(block)
        self.add(ToolResultEndEvent, *args, state, metadata=metadata)

    # -- generate reason ---------------------------------------------------------------

    def generate_reason(
        self,
        reason: GenerateReason,
        pairs: list[tuple[ToolUseBlock, ToolResultBlock | None]],
        asking: list[ToolUseBlock],
        metadata: Mapping[str, Any],
    ) -> dict[str, str]:
        """The events stating ``reason``, for a reply whose calls and results are ``pairs`` (see
        ``_answers``); ``asking``: the calls that wait for the user; ``metadata``: the message's.
        Returns the reply id of the request they make, under the metadata key Java records it."""
        if reason is GenerateReason.MODEL_STOP:
            return {}  # the default: no event states it
        if reason is GenerateReason.PERMISSION_ASKING:
            key = REQUEST_KEYS[reason]
            reply_id = self.request_id(metadata, key, None)
            self.add(RequireUserConfirmEvent, reply_id, asking)
            self.add(RequestStopEvent, "permission asking", reason)  # Java's pair of events
            return {key: reply_id}
        if reason is GenerateReason.TOOL_SUSPENDED:
            suspended = [call for call, result in pairs if result is not None and result.is_suspended]
            # Under the reply id of the acting phase whose results wait, as Java sends it.
            key = REQUEST_KEYS[reason]
            reply_id = self.request_id(metadata, key, self.acting_id)
            self.add(RequireExternalExecutionEvent, reply_id, suspended)
            return {key: reply_id}
        if reason is GenerateReason.ALL_TOOLS_DENIED:
            denied = [call for call, result in pairs if result is not None and result.state is ToolResultState.DENIED]
            self.add(AllToolsDeniedEvent, denied)
        else:
            self.add(RequestStopEvent, reason.name.lower().replace("_", " "), reason)
        return {}

    @staticmethod
    def request_id(metadata: Mapping[str, Any], key: str, acting_id: str | None) -> str:
        """The reply id of a request to the client (a confirmation, an external execution), which
        Java's agent records in the message's metadata under ``key`` for the resume to answer:
        the message's, when it records one; else the acting phase's, or a new one."""
        given = metadata.get(key)
        if type(given) is str and given:
            return given
        return acting_id or new_hex_id()


_BUILDERS: dict[type[AgentEvent], Callable[..., AgentEvent]] = {}  # event class -> its unchecked_init


def _as_java_ends(block: ToolResultBlock) -> tuple[ToolResultState, Mapping[str, Any]]:
    """The state and metadata of ``block``'s end event.  A result is RUNNING until a tool says
    otherwise, and Java's agent ends a finished one in the state it works out, as here: RUNNING
    on the wire means a suspended tool, to Java's clients (its AG-UI bridge drops the output).
    The state the block holds travels beside it, for this package's assembler; but as it is, when
    the result's own metadata has an entry where it would go."""
    if block.state is not ToolResultState.RUNNING or block.is_suspended or BLOCK_KEY in block.metadata:
        return block.state, result_end_metadata(block.state, block.metadata)
    failed = any(type(item) is TextBlock and item.text.startswith("[ERROR]") for item in block.output)
    stated = ToolResultState.ERROR if failed else ToolResultState.SUCCESS
    return stated, {**block.metadata, BLOCK_KEY: {"state": ToolResultState.RUNNING.value}}

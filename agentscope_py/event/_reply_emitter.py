"""``ReplyEmitter``: the events of a reply, made while the reply is being produced."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import ContentBlock, TextBlock
from .._checks import check_bool, check_enum, check_mapping, check_optional_str, check_str, describe
from .._enums import GenerateReason, ToolCallState, ToolResultState
from .._frozen import EMPTY, FrozenDict
from .._ids import new_msg_id, new_msg_timestamp
from .._messages import Msg
from .._role_messages import AssistantMessage
from .._usage import ChatUsage
from ..errors import ArgumentTypeError, ArgumentValueError, StreamError
from ._assembler import MessageAssembler
from ._answers import answers
from ._base import AgentEvent
from ._emitter import Emitter
from ._stream_keys import REQUEST_KEYS

__all__ = ["ReplyEmitter"]

_WHOLE_BLOCK_DELTA = 1 << 20  # characters per delta, at most: of a block given whole, or of one given live
# The entries finish() states: the reason, and the reply ids of the requests it makes.  One copied
# along with a previous message's metadata must not stand for this reply's (an answered request's id).
_STATED_BY_FINISH = (Msg.METADATA_GENERATE_REASON, *REQUEST_KEYS.values())


def _without_stated(metadata: FrozenDict) -> FrozenDict:
    if not any(key in metadata for key in _STATED_BY_FINISH):
        return metadata
    return FrozenDict({key: value for key, value in metadata.items() if key not in _STATED_BY_FINISH})


_WAITING = (ToolCallState.PENDING, ToolCallState.ASKING)  # the states of a call that may wait for the user


class ReplyEmitter:
    """Turns a reply into AgentScope events as it is produced, for a server to send on at once.

    Each method adds to the reply and returns the events to send for it, in order
    (an empty list when there is nothing to send). The first call also returns the
    ``AgentStartEvent``; :meth:`finish` ends the reply. The stream follows the same
    rules as :func:`events_from_message`, so a client's ``MessageAssembler`` builds
    from it the message that :attr:`message` holds once the reply is finished.

    Not thread-safe: drive one reply from one thread (or one task) at a time.
    """

    __slots__ = ("_assembler", "_emitter", "_message", "_metadata", "_name", "_reply_id", "_sent", "_source")

    def __init__(
        self,
        name: str | None = None,
        *,
        id: str | None = None,
        source: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """``name`` is the agent's, ``id`` the message's (a fresh one by default, also the reply's
        id on the wire), ``source`` tags every event as a sub-agent's, ``metadata`` is the message's."""
        self._name = check_optional_str(name, "ReplyEmitter name")
        self._reply_id = new_msg_id() if id is None else check_str(id, "ReplyEmitter id")
        self._source = check_optional_str(source, "ReplyEmitter source")
        self._metadata = _without_stated(check_mapping(metadata, "ReplyEmitter metadata"))
        # A whole block is all there: it goes in deltas as large as a client reads whole (the SSE
        # parser's default limit is 64 Mi characters, and JSON may write a character as six).
        self._emitter = Emitter(_WHOLE_BLOCK_DELTA, self._source, live=True)
        # Fed every event as it is made: the message is what a client assembles, by construction.
        self._assembler = MessageAssembler(strict=True)
        self._sent = 0  # events returned to the caller so far
        self._message: AssistantMessage | None = None

    def __repr__(self) -> str:
        state = "finished" if self._message is not None else f"{self._sent} events sent"
        return f"<ReplyEmitter {self._name!r} reply_id={self._reply_id!r}: {state}>"

    @property
    def reply_id(self) -> str:
        """The reply's id on the wire, which is also the message's id."""
        return self._reply_id

    @property
    def events(self) -> tuple[AgentEvent, ...]:
        """Every event returned so far, in order: what a server replays to a client that reconnects."""
        return tuple(self._emitter.events[: self._sent])

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` has been called."""
        return self._message is not None

    @property
    def message(self) -> AssistantMessage:
        """The reply as a message, once :meth:`finish` has been called."""
        if self._message is None:
            raise StreamError("the reply is not finished: call finish() first (snapshot() shows it so far)")
        return self._message

    def snapshot(self) -> AssistantMessage | None:
        """The reply so far, as a client that received every event shows it (``None`` before the
        first event; the finished message after :meth:`finish`)."""
        if self._message is not None:
            return self._message
        return self._assembler.snapshot(self._source)

    # -- adding to the reply --------------------------------------------------------------

    def start(self) -> list[AgentEvent]:
        """The ``AgentStartEvent``, to tell a client at once that a reply is coming; any other
        method sends it first when this was not called.  Returns nothing when it was sent already."""
        self._ready()
        return self._returned()

    def text(self, delta: str, *, new_block: bool = False) -> list[AgentEvent]:
        """More text: continues the text block being streamed, or opens one (closing the block
        before it). An empty ``delta`` adds no text and opens no block. ``new_block=True``: the
        delta begins a block of its own, even right after a text block (a provider that splits
        its text into blocks, as Anthropic does at citations); with an empty ``delta``, it only
        closes the text block being streamed, if any."""
        self._ready()
        check_bool(new_block, "ReplyEmitter.text new_block")
        self._emitter.text_delta("text", check_str(delta, "ReplyEmitter.text delta"), None, new_block)
        return self._returned()

    def thinking(
        self, delta: str, *, metadata: Mapping[str, Any] | None = None, new_block: bool = False
    ) -> list[AgentEvent]:
        """More reasoning: continues the thinking block being streamed, or opens one.
        ``metadata`` becomes the block's, sent when it closes (the last given wins): an Anthropic
        signature, which comes last, as ``{"anthropic": {"signature": ...}}``; given with an empty
        ``delta``, it opens a block if none is open. ``new_block`` as for :meth:`text`."""
        self._ready()
        check_bool(new_block, "ReplyEmitter.thinking new_block")
        checked = None if metadata is None else check_mapping(metadata, "ReplyEmitter.thinking metadata")
        self._emitter.text_delta("thinking", check_str(delta, "ReplyEmitter.thinking delta"), checked, new_block)
        return self._returned()

    def tool_call(
        self,
        id: str,
        name: str | None = None,
        arguments: str = "",
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[AgentEvent]:
        """A fragment of the JSON ``arguments`` of the tool call ``id``, which opens when it is not
        open. ``name`` is required when the call opens, and may be left out (``None`` or ``""``)
        after. Calls may stream side by side; a call closes when a block other than a tool call
        begins, or its model call ends, and cannot go on after. ``metadata`` becomes the call's,
        sent when it closes (the last given wins), as for :meth:`thinking`."""
        self._ready()
        # The checked values go on, not the given ones: a str subclass becomes its plain text, as a
        # field stores it (the emitter builds its events without the classes' checks).
        id = check_str(id, "ReplyEmitter.tool_call id")
        name = check_optional_str(name, "ReplyEmitter.tool_call name")
        checked = None if metadata is None else check_mapping(metadata, "ReplyEmitter.tool_call metadata")
        self._emitter.call_delta(id, name, check_str(arguments, "ReplyEmitter.tool_call arguments"), checked)
        return self._returned()

    def tool_result(self, id: str, output: str | ContentBlock = "", *, name: str | None = None) -> list[AgentEvent]:
        """Output of the tool that answers the call ``id``, as the tool produces it: text (a ``str``
        or a ``TextBlock``), which continues the text before it, or another block (an image the
        tool made, say), as Java streams a tool's chunks.

        The result opens when it is not open (``output=""`` only opens it, to show that the tool
        runs), named ``name`` or, when that is ``None`` or ``""``, as this reply's call ``id``.
        Results stream side by side in an acting phase, which ends the model call under way; each
        stays ``RUNNING`` until :meth:`end_tool_result`, and one still open when a block of the
        model ends the acting phase stays so, and takes no more output."""
        self._ready()
        id = check_str(id, "ReplyEmitter.tool_result id")
        name = check_optional_str(name, "ReplyEmitter.tool_result name")
        if type(output) is TextBlock:
            output = output.text
        elif isinstance(output, str):
            output = str.__str__(output)
        elif not isinstance(output, ContentBlock):
            raise ArgumentTypeError(
                f"ReplyEmitter.tool_result output must be a str or a content block instance, got {describe(output)}"
            )
        if not name:  # as for a call: some producers repeat the name as ""
            name = None if id in self._emitter.open_results else self._emitter.call_names.get(id)
        self._emitter.result_output(id, name, output)
        return self._returned()

    def end_tool_result(
        self,
        id: str,
        state: ToolResultState = ToolResultState.SUCCESS,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[AgentEvent]:
        """The tool that answers the call ``id`` is done: its result, opened by :meth:`tool_result`,
        ends in ``state``. ``metadata`` is the result's: ``{ToolResultBlock.METADATA_SUSPENDED: True}``,
        with state ``RUNNING``, for a call left to external execution."""
        self._ready()
        id = check_str(id, "ReplyEmitter.end_tool_result id")
        checked_state = check_enum(state, ToolResultState, "ReplyEmitter.end_tool_result state")
        checked = check_mapping(metadata, "ReplyEmitter.end_tool_result metadata", drop_none=True)
        self._emitter.end_result(id, checked_state, checked)
        return self._returned()

    def block(self, block: ContentBlock) -> list[AgentEvent]:
        """A whole block: a tool result once the tool has run, an image, a complete tool call…
        It closes the blocks being streamed; a ``ToolResultBlock`` ends the model call and goes
        beside the results being streamed."""
        self._ready()
        if not isinstance(block, ContentBlock):
            raise ArgumentTypeError(f"ReplyEmitter.block needs a content block instance, got {describe(block)}")
        self._emitter.block(block)
        return self._returned()

    def end_model_call(self, usage: ChatUsage | None = None) -> list[AgentEvent]:
        """The model call is over (its blocks too); ``usage`` is what it cost. The message's usage
        is the sum over its model calls. A block after this starts the next model call."""
        self._ready()
        if usage is not None and not isinstance(usage, ChatUsage):
            raise ArgumentTypeError(f"ReplyEmitter.end_model_call usage must be a ChatUsage or None, got {describe(usage)}")
        self._check_usage(usage)
        self._emitter.end_model_call(usage)
        return self._returned()

    def _check_tool_call(self, id: str, name: str | None) -> None:
        """Refuses, changing nothing, a call :meth:`tool_call` would refuse to open (an id this model
        call has closed): the stream relays check before they send the block that came before."""
        self._emitter.check_call_opens(id, name)

    def _check_usage(self, usage: ChatUsage | None) -> None:
        """Refuses ``usage`` when its sum with the reply's would overflow: what a client will add
        up, refused before any event is made (the stream relays check it before their last blocks)."""
        # The reply's usage as the assembler holds it: a snapshot would build the whole message for it.
        sent = None if usage is None else self._assembler._usage_so_far(self._source)
        if usage is not None and sent is not None:
            try:
                sent + usage
            except ArgumentValueError as error:
                raise ArgumentValueError(
                    f"ReplyEmitter.end_model_call: the reply's usage so far plus this one is past what a usage holds "
                    f"({error})"
                ) from None

    def finish(
        self,
        generate_reason: GenerateReason = GenerateReason.MODEL_STOP,
        *,
        metadata: Mapping[str, Any] | None = None,
        with_result: bool = False,
    ) -> list[AgentEvent]:
        """End the reply: the events stating ``generate_reason`` (for ``PERMISSION_ASKING``, the
        tool calls without a result that are PENDING or ASKING are those waiting for the user), then
        the ``AgentEndEvent``.
        ``metadata``: message metadata known only at the end (a provider's stop reason, say),
        added to the constructor's. ``with_result=True`` sends the ``AgentResultEvent`` a Java
        client reads the reply from."""
        self._ready()
        reason = check_enum(generate_reason, GenerateReason, "ReplyEmitter.finish generate_reason")
        late = _without_stated(check_mapping(metadata, "ReplyEmitter.finish metadata"))
        check_bool(with_result, "ReplyEmitter.finish with_result")
        emitter, first = self._emitter, self._sent
        emitter.end_segment()  # first, so that the calls the events below list are complete
        self._feed()
        sent = self._assembler.snapshot(self._source)
        pairs = answers(() if sent is None else sent.content)
        # As Java lists the calls its permission gate asks about: an ALLOWED call not run yet is not one.
        waiting = [call for call, result in pairs if result is None and call.state in _WAITING]
        # Asked under an id of this reply's own, which the message records, as Java's agent records it.
        stated = {**late, **emitter.generate_reason(reason, pairs, waiting, EMPTY)}
        self._feed()
        info = {"metadata": {**self._metadata, **stated}} if stated else None
        result = None
        if with_result:  # the message as the events above left it (the calls that wait ASKING)
            result = self._assembler.snapshot(self._source)
            if result is not None and stated:
                result = result.with_metadata({**result.metadata, **stated})
        emitter.end(self._reply_id, result, info)
        self._feed()
        return emitter.events[first:]

    # -- internals ----------------------------------------------------------------------

    def _ready(self) -> None:
        """Refuse to add to a finished reply; start the reply if nothing started it."""
        if self._message is not None:
            raise StreamError("this reply is finished; start a ReplyEmitter for the next one")
        if not self._emitter.events:
            # The timestamp travels, as events_from_message sends it: made from the start event's time,
            # it would be in each client's own time zone.
            info: dict[str, Any] = {"timestamp": new_msg_timestamp()}
            if self._metadata:
                info["metadata"] = self._metadata
            self._emitter.start(self._reply_id, self._name, info)

    def _feed(self) -> None:
        assembler = self._assembler
        events = self._emitter.events
        for event in events[self._sent :]:
            for message in assembler.feed(event):
                self._message = message
        self._sent = len(events)

    def _returned(self) -> list[AgentEvent]:
        sent = self._sent
        self._feed()
        return self._emitter.events[sent:]

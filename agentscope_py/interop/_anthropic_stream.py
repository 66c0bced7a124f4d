"""``AnthropicStreamRelay``: a streamed Anthropic Messages answer passed on as AgentScope events
while its events arrive.

Text and thinking go on as deltas and a tool call's input as call fragments, at
once.  The relay also gathers the events into the whole answer, as the SDK's
``accumulate_event`` does, and reads it with ``from_anthropic_response`` when the
answer is over: what describes the answer (its usage, why it stopped, its ids,
the citations, the server tools' blocks) comes from there, so that the message
the reply makes is the one ``from_anthropic_response`` makes of the answer.  A
block the reply cannot stream as it is goes whole when it ends, built as the
reader builds it: redacted thinking, and a tool call whose input came whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._blocks import ThinkingBlock, ToolUseBlock
from .._checks import describe
from .._reader import as_plain, at, json_kind, opt_int, opt_list, opt_str, req, req_int, req_list, req_str
from .._role_messages import AssistantMessage
from .._shown import elided
from .._tool_arguments import parse_tool_arguments
from ..errors import ArgumentTypeError, DecodeError, StreamError, UnsupportedContentError
from ..event import AgentEvent, ReplyEmitter
from ._payloads import field_of, nesting_guard, req_object, sdk_json
from ._relay import AnswerRelay
from ._responses import anthropic_usage, from_anthropic_response
from ._stream_json import json_copy

__all__ = ["AnthropicStreamRelay"]

# The events of raw_message_stream_event.py.
_RAW = frozenset(
    {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
)
# What the SDK's MessageStream yields beside the raw events, repeating them, and the API's keep-alive.
_REPEATED = frozenset({"text", "citation", "thinking", "signature", "input_json", "ping"})
# Each delta's field, and the block it continues ("input": a tool_use, or a block kept whole that has an
# input, as a server tool's call).  A delta of a type not here, added after us, is skipped as the SDK skips it.
_DELTAS = {
    "text_delta": ("text", "text"),
    "citations_delta": ("citation", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "thinking"),
    "input_json_delta": ("partial_json", "input"),
}
# The usage counts a message_delta may give anew; output_tokens it always gives.
_LATE_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "server_tool_use", "output_tokens_details")

# How a block reaches the reply: its deltas as they come ("streamed": text and thinking; "call": a tool
# call's input), whole when it ends, or not at all ("kept": a block we have no block for, which the
# message keeps whole in its metadata, read from the whole answer).
_Mode = Literal["streamed", "call", "whole", "kept"]


class _Block:
    """One content block of the answer, as its events build it."""

    __slots__ = ("apart", "call_id", "citations", "fields", "fragments", "mode", "opened", "pieces", "signature")

    def __init__(self, fields: dict[str, Any], mode: _Mode) -> None:
        self.fields = fields  # as content_block_start gave it
        self.mode = mode
        self.opened = False  # whether a streamed block has been sent anything
        self.apart = False  # a streamed block right after one of its kind: it opens a block of its own
        self.pieces: list[str] = []  # text or thinking deltas, joined once: appending to a str is quadratic
        self.fragments: list[str] = []  # the input's JSON, in pieces
        self.citations: list[Any] = []
        self.signature: str | None = None
        self.call_id = ""  # a tool call's

    @property
    def kind(self) -> str:
        kind: str = self.fields["type"]  # read as a string when the block started
        return kind

    def whole(self) -> dict[str, Any]:
        """The block as the SDK gathers it: text and thinking appended, citations too, the last
        signature, and the input parsed from all of its JSON (when there is any)."""
        out = dict(self.fields)
        if self.kind in ("text", "thinking"):
            out[self.kind] = out[self.kind] + "".join(self.pieces)
        if self.citations:
            out["citations"] = [*(out.get("citations") or ()), *self.citations]
        if self.signature is not None:
            out["signature"] = self.signature
        raw = "".join(self.fragments)
        if raw:
            # The SDK parses what came so far leniently (jiter's partial mode): text that holds no object,
            # as a call cut off by max_tokens, keeps the input the block started with here.
            parsed, problem = parse_tool_arguments(raw)
            if problem is None:
                out["input"] = parsed
        return out


class AnthropicStreamRelay(AnswerRelay):
    """Passes one streamed Anthropic answer on to a :class:`~agentscope_py.ReplyEmitter` while it
    arrives: ``feed(event)`` for each event of ``client.messages.create(stream=True)`` or of
    ``client.messages.stream(...)`` (the SDK's object, its ``model_dump()``, or the parsed JSON),
    returning the events to send, then ``end()``.

    ``end()`` ends the reply's model call with the answer's usage. Then ``generate_reason`` and
    ``metadata`` are what :func:`from_anthropic_response` reads from the whole answer: give them to
    ``reply.finish(...)`` when this answer ends the reply. The message the reply makes is then the
    one ``from_anthropic_response`` makes of the answer the SDK gathers from the same events. Make
    one relay per answer: a reply that calls tools takes several.
    """

    __slots__ = ("_blocks", "_call_ids", "_ended", "_fields", "_open", "_reply", "_stopped", "_streaming")
    _piece = "event"

    def __init__(self, reply: ReplyEmitter) -> None:
        if not isinstance(reply, ReplyEmitter):
            raise ArgumentTypeError(f"AnthropicStreamRelay relays into a ReplyEmitter, got {describe(reply)}")
        AnswerRelay.__init__(self)
        self._reply = reply
        self._fields: dict[str, Any] | None = None  # the answer's fields, from message_start, as message_delta changes them
        self._blocks: list[_Block] = []
        self._open: _Block | None = None  # the block whose deltas come now
        # The kind of block ("text", "thinking") the reply holds open, which a block of that kind would continue.
        self._streaming: str | None = None
        self._call_ids: dict[str, int] = {}  # each tool call's id, and its block's index
        self._stopped = False  # message_stop came
        self._ended = False

    def __repr__(self) -> str:
        state = "ended" if self._ended else f"{len(self._blocks)} content blocks so far"
        return f"<AnthropicStreamRelay: {state}>"

    # -- the stream ---------------------------------------------------------------------

    def feed(self, event: Any) -> list[AgentEvent]:
        """Relay one event; returns the events to send for it (often none). The events the SDK's
        ``MessageStream`` derives from the raw ones (``text``, ``thinking``, ``input_json`` …) repeat
        them and are skipped, as are ``ping`` and event types added after this library. Malformed
        events raise :class:`~agentscope_py.DecodeError` naming the path, and change nothing."""
        if self._ended:
            raise StreamError("this answer has ended (end() was called): make a new AnthropicStreamRelay for the next one")
        if self._reply.finished:  # before anything changes: the reply refuses what the event would add
            raise StreamError("the reply this relay feeds is finished: relay the answer into a reply still open")
        if _peek(event) in _REPEATED:  # before reading it: each repeats the snapshot so far
            return []
        with nesting_guard(""):
            plain = json_copy(_event(event))  # a copy: the gathered answer must not change the caller's events
        kind = req_str(req(plain, "type", ""), "type")
        if kind not in _RAW:
            _refuse_other(plain, kind)
            return []  # an event type added after us: the API asks clients to skip those
        if self._stopped:
            raise DecodeError(
                f"a {kind} event after message_stop: one relay relays one answer; make a new "
                "AnthropicStreamRelay for the next",
                "type",
            )
        if self._fields is None and kind != "message_start":
            raise DecodeError(f"a {kind} event before message_start: an answer's stream begins with message_start", "type")
        if kind == "message_start":
            return self._message_start(plain)
        if kind == "content_block_start":
            return self._block_start(plain)
        if kind == "content_block_delta":
            return self._block_delta(plain)
        if kind == "content_block_stop":
            return self._block_stop(plain)
        if kind == "message_delta":
            self._message_delta(plain)
            return []
        events = self._close()  # message_stop
        self._stopped = True
        return events

    def end(self) -> list[AgentEvent]:
        """The answer is over: send the block the stream left open, end the model call with the
        answer's usage, and return the events. A stream cut short ends with what came."""
        if self._ended:
            return []
        if self._fields is None:
            raise StreamError("no event of the answer came: feed() its events (message_start first) before end()")
        # Read first: an answer that does not read (a count beyond what a usage holds) leaves all as it was.
        read = from_anthropic_response({**self._fields, "content": [block.whole() for block in self._blocks]})
        self._reply._check_usage(read.usage)  # and a usage the reply refuses, likewise
        events = self._close()
        events += self._reply.end_model_call(read.usage)
        self._read, self._ended = read, True
        return events

    # -- internals ----------------------------------------------------------------------

    def _message_start(self, plain: Mapping[str, Any]) -> list[AgentEvent]:
        if self._fields is not None:
            raise DecodeError(
                "a second message_start: one relay relays one answer; make a new AnthropicStreamRelay for the next",
                "type",
            )
        message = req_object(req(plain, "message", ""), "message")
        if req_list(req(message, "content", "message"), "message.content"):
            raise DecodeError("a message_start holds no blocks: they come in content_block_start events", "message.content")
        _read(message, "", "message")  # an answer, with a role and a usage we read
        self._fields = message
        return self._reply.start()

    def _block_start(self, plain: Mapping[str, Any]) -> list[AgentEvent]:
        index = req_int(req(plain, "index", ""), "index")
        fields = req_object(req(plain, "content_block", ""), "content_block")
        kind = req_str(req(fields, "type", "content_block"), "content_block.type")
        if index != len(self._blocks):
            raise DecodeError(f"expected content block {len(self._blocks)} (blocks start in order, from 0), got {index}", "index")
        read = _read(fields, "content[0]", "content_block").content
        if kind in ("text", "thinking"):
            opt_list(fields.get("citations"), "content_block.citations")  # which citations_delta appends to
        call = read[0] if read and isinstance(read[0], ToolUseBlock) else None
        if call is not None:
            if not call.name:
                raise DecodeError("a tool call needs a name", "content_block.name")
            if not call.id:  # a result could not answer it
                raise DecodeError("a tool call needs an id", "content_block.id")
            if call.id in self._call_ids:
                raise DecodeError(
                    f"content block {self._call_ids[call.id]} is a tool call with this id already: "
                    "each call of an answer needs an id of its own",
                    "content_block.id",
                )
        mode: _Mode
        if call is not None:
            # An input given in the start, not in fragments, has no JSON text to stream.
            mode = "call" if not call.input else "whole"
        elif kind in ("text", "thinking"):
            mode = "streamed"
        else:
            mode = "whole" if read else "kept"  # redacted thinking; or a block the message keeps in its metadata
        if call is not None and mode == "call":
            # Refused by the reply before the open block is sent: its events would go with the error.
            self._reply._check_tool_call(call.id or "", call.name)
        events = self._close()
        block = _Block(fields, mode)
        block.apart = self._streaming == kind  # the reply would take its deltas for more of the block before
        # The reply first: a block it refuses (a call id it holds already) is not recorded, and the same
        # event fed again is refused for the same reason.
        if call is not None:
            block.call_id = call.id or ""  # not empty: checked above
            if mode == "call":
                # Fields of its own (a caller) are the call's metadata, as the reader keeps them.
                events += self._reply.tool_call(block.call_id, call.name, "", metadata=call.metadata or None)
                block.opened = True
                self._streaming = None
            self._call_ids[block.call_id] = index
        elif mode == "streamed":
            events += self._stream(block, fields[kind])
        self._open = block
        self._blocks.append(block)
        return events

    def _block_delta(self, plain: Mapping[str, Any]) -> list[AgentEvent]:
        index = req_int(req(plain, "index", ""), "index")
        delta = req_object(req(plain, "delta", ""), "delta")
        kind = req_str(req(delta, "type", "delta"), "delta.type")
        block = self._started(index, "its deltas")
        if block is not self._open:
            raise DecodeError(
                f"content block {index} has ended: blocks stream one after another, each block's deltas "
                "before its content_block_stop and the next block's start",
                "index",
            )
        if kind not in _DELTAS:
            if block.mode == "kept":
                # The message keeps the block to send back as it came: without this delta it would not be.
                raise DecodeError(
                    f"a delta of type {elided(kind)} for content block {index} ({elided(block.kind)}), which the "
                    "message keeps whole and this relay cannot complete (a beta stream?): read the whole answer "
                    "with from_anthropic_response(stream.get_final_message())",
                    "delta.type",
                )
            return []  # a delta of a kind added since, to a block of ours: skipped, as the SDK skips it
        key, continues = _DELTAS[kind]
        path = at("delta", key)
        if continues == "input":
            fits = block.kind == "tool_use" or (block.mode == "kept" and "input" in block.fields)
        else:
            fits = block.kind == continues
        if not fits:
            raise DecodeError(f"{kind} does not continue a block of type {elided(block.kind)} (content block {index})", "delta.type")
        if kind == "citations_delta":
            block.citations.append(req_object(req(delta, key, "delta"), path))
            return []
        value = req_str(req(delta, key, "delta"), path)
        if kind == "signature_delta":
            block.signature = value  # the SDK keeps the last one
            return []
        if kind == "input_json_delta":
            block.fragments.append(value)
            if block.mode == "call" and value:
                return self._reply.tool_call(block.call_id, None, value)
            return []
        block.pieces.append(value)
        return self._stream(block, value) if block.mode == "streamed" else []

    def _block_stop(self, plain: Mapping[str, Any]) -> list[AgentEvent]:
        index = req_int(req(plain, "index", ""), "index")
        if self._started(index, "its content_block_stop") is not self._open:
            return []  # it ended already (the SDK takes a second stop too)
        return self._close()

    def _message_delta(self, plain: Mapping[str, Any]) -> None:
        """What the SDK takes from a message_delta: the stop reason, sequence and details, a container,
        and the usage counts it gives (output_tokens always; the others when not null)."""
        delta = req_object(req(plain, "delta", ""), "delta")
        usage = req_object(req(plain, "usage", ""), "usage")
        changes = {
            "stop_reason": opt_str(delta.get("stop_reason"), "delta.stop_reason"),
            "stop_sequence": opt_str(delta.get("stop_sequence"), "delta.stop_sequence"),
            "stop_details": delta.get("stop_details"),
        }
        if delta.get("container") is not None:
            changes["container"] = delta["container"]
        counts = {"output_tokens": req(usage, "output_tokens", "usage")}
        counts.update((key, usage[key]) for key in _LATE_USAGE if usage.get(key) is not None)
        for key in ("output_tokens", "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            opt_int(counts.get(key), at("usage", key))
        assert self._fields is not None  # feed() checked that message_start came
        own = self._fields.get("usage")
        merged = {**(own if isinstance(own, dict) else {}), **counts}
        anthropic_usage(merged)  # now, not at end(): counts whose sum a usage cannot hold
        self._fields.update(changes)
        self._fields["usage"] = merged

    def _started(self, index: int, what: str) -> _Block:
        if not 0 <= index < len(self._blocks):
            raise DecodeError(f"no content block {index} has started: its content_block_start comes before {what}", "index")
        return self._blocks[index]

    def _stream(self, block: _Block, delta: str) -> list[AgentEvent]:
        if not delta:
            return []
        new_block = block.apart and not block.opened
        if block.kind == "text":
            events = self._reply.text(delta, new_block=new_block)
        else:
            events = self._reply.thinking(delta, new_block=new_block)
        block.opened = True
        self._streaming = block.kind
        return events

    def _close(self) -> list[AgentEvent]:
        """End the open block: a thinking block streamed takes its metadata (the signature, which
        comes last), and a block sent whole goes now."""
        block = self._open
        if block is None or block.mode in ("call", "kept") or block.opened and block.kind == "text":
            self._open = None
            return []  # sent as it came (a text streamed: the reply holds it all), or nothing to send
        read = _read(block.whole(), "content[0]", "content_block").content[0]
        self._open = None  # once read: a block that does not read stays open, as it was
        if block.opened:  # a thinking block streamed, still open in the reply
            metadata = read.metadata if isinstance(read, ThinkingBlock) else None
            return [] if metadata is None else self._reply.thinking("", metadata=metadata)
        # Sent whole: what cannot stream, and a streamed block nothing was sent for (an empty text), which
        # no delta would open.
        self._streaming = None
        return self._reply.block(read)


def _peek(event: object) -> str | None:
    """The type of ``event`` as given, without reading the rest of it."""
    kind = field_of(event, "type")
    return kind if isinstance(kind, str) else None


def _event(event: object) -> dict[str, Any]:
    plain = as_plain(sdk_json(event))
    if type(plain) is dict:
        return plain
    if type(plain) is str:
        hint = ": parse each server-sent event's data as JSON first"
    elif type(plain) is list:
        hint = ": give the events one by one"
    else:
        hint = ""
    raise DecodeError(f"expected a stream event (an object), got {json_kind(plain)}{hint}")


def _refuse_other(plain: Mapping[str, Any], kind: str) -> None:
    """Refuse what is no event of an answer's stream but may be taken for one."""
    if kind == "message":
        raise DecodeError(
            "this is a whole answer, not an event of a streamed one: from_anthropic_response reads it", "type"
        )
    if kind == "error":  # the SDK raises it as an APIStatusError; a stream read otherwise gives it as it is
        error = plain.get("error")
        said = [error.get(key) for key in ("type", "message")] if type(error) is dict else []
        # The type first: it tells whether to retry (overloaded_error) or not (invalid_request_error).
        detail = ": " + ": ".join(elided(text) for text in said if isinstance(text, str)) if said else ""
        raise DecodeError(f"the stream reports an error instead of the rest of the answer{detail}", "error")


def _read(value: Mapping[str, Any], inner: str, outer: str) -> AssistantMessage:
    """``from_anthropic_response`` of the answer ``value`` (``inner`` ``""``) or of an answer holding
    the block ``value`` alone (``inner`` ``"content[0]"``), its errors said at ``outer``, where the event
    holds what was read."""
    answer = {**value, "content": []} if not inner else {"role": "assistant", "content": [value]}
    try:
        return from_anthropic_response(answer)
    except DecodeError as error:
        raise DecodeError(error.reason, _moved(error.path, inner, outer)) from None
    except UnsupportedContentError as error:  # its message begins with the path
        raise UnsupportedContentError(_moved(str(error), inner, outer)) from None


def _moved(text: str, inner: str, outer: str) -> str:
    if not inner:
        return at(outer, text) if text else outer
    if text.startswith(inner):
        return outer + text[len(inner) :]
    return text

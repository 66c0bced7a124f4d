"""AnthropicStreamRelay: a streamed Anthropic answer relayed into a ReplyEmitter as it arrives.

The message the reply makes must be the one ``from_anthropic_response`` makes of
the answer the SDK gathers from the same events (``accumulate_event``), in
content, metadata, usage and generate reason, for the events as the SDK gives
them, as their ``model_dump()``, as parsed JSON, and as ``MessageStream`` yields
them (with its derived events between).  Two differences are by design: a tool
call whose input streamed keeps the JSON text in ``content``, as every streamed
call does; and a stop that ``from_anthropic_response`` records as ``MODEL_STOP``
is the reply's default, which no event states.  Malformed events raise
DecodeError with a path, never a bare exception.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

import attrs
import pytest
from anthropic.lib.streaming._messages import accumulate_event, build_events
from anthropic.types import Message, RawMessageStreamEvent
from hypothesis import given
from hypothesis import strategies as st
from provider_payloads import mutated
from pydantic import TypeAdapter
from strategies import json_objects, json_text

from agentscope_py import (
    AgentEvent,
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    ChatUsage,
    DecodeError,
    GenerateReason,
    Msg,
    ReplyEmitter,
    StreamError,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    UserMessage,
    assemble,
)
from agentscope_py._tool_arguments import parse_tool_arguments
from agentscope_py.event._stream_keys import BLOCK_KEY
from agentscope_py.event import TextBlockDeltaEvent, ThinkingBlockEndEvent, ToolCallDeltaEvent, ToolCallStartEvent
from agentscope_py.interop import AnthropicStreamRelay, from_anthropic_response, stop_reason, to_anthropic

_EVENTS: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
_REASON = Msg.METADATA_GENERATE_REASON
_STOP_REASONS = ["end_turn", "tool_use", "max_tokens", "refusal", "stop_sequence", "pause_turn"]
_TOKENS = st.integers(0, 5000)


# -- streams ----------------------------------------------------------------------------


def _start(usage: dict[str, int] | None = None, *, content: list[Any] | None = None) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content or [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 1, **(usage or {})},
        },
    }


def _block(index: int, block: dict[str, Any], *deltas: dict[str, Any], stop: bool = True) -> list[dict[str, Any]]:
    events = [{"type": "content_block_start", "index": index, "content_block": block}]
    events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
    return events + ([{"type": "content_block_stop", "index": index}] if stop else [])


def _text(text: str) -> dict[str, Any]:
    return {"type": "text_delta", "text": text}


def _json(partial: str) -> dict[str, Any]:
    return {"type": "input_json_delta", "partial_json": partial}


def _end(reason: str | None = "end_turn", output_tokens: int = 7, **usage: Any) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
         "usage": {"output_tokens": output_tokens, **usage}},
        {"type": "message_stop"},
    ]


_CITATION = st.fixed_dictionaries({
    "type": st.just("char_location"), "cited_text": json_text(surrogates=False), "document_index": st.just(0),
    "document_title": st.none() | st.just("Doc"), "start_char_index": st.just(0), "end_char_index": st.just(5),
}) | st.fixed_dictionaries({
    "type": st.just("web_search_result_location"), "cited_text": st.just("Paris"),
    "url": st.just("https://example.com/w"), "title": st.none() | st.just("A page"), "encrypted_index": st.just("Eo8B"),
})


@st.composite
def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut anywhere (a character is never split), with empty pieces among them."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    return [text[start:stop] for start, stop in zip(bounds, bounds[1:])]


@st.composite
def _text_block(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    start: dict[str, Any] = {"type": "text", "text": ""}
    citations = draw(st.sampled_from(["absent", "null", "empty"]))
    if citations != "absent":
        start["citations"] = None if citations == "null" else []
    deltas: list[dict[str, Any]] = [_text(piece) for piece in draw(_pieces(draw(json_text(surrogates=False))))]
    for citation in draw(st.lists(_CITATION, max_size=2)):
        deltas.insert(draw(st.integers(0, len(deltas))), {"type": "citations_delta", "citation": citation})
    return _block(index, start, *deltas, stop=draw(st.integers(0, 9)) > 0)


@st.composite
def _thinking_block(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [
        {"type": "thinking_delta", "thinking": piece} for piece in draw(_pieces(draw(json_text(surrogates=False))))
    ]
    signatures = draw(st.lists(st.sampled_from(["EqQBCkYIARgC", "ErUBCkYIBRgC"]), max_size=2))
    deltas += [{"type": "signature_delta", "signature": signature} for signature in signatures]
    return _block(index, {"type": "thinking", "thinking": "", "signature": ""}, *deltas)


@st.composite
def _tool_use(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    start: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{index:02}", "name": draw(st.sampled_from(["get_weather", "a"])), "input": {}}
    if draw(st.integers(0, 4)) == 0:  # a caller: sent whole, with its metadata
        start["caller"] = {"type": "direct"}
    arguments = draw(json_objects(surrogates=False))
    no_text = not arguments and draw(st.booleans())  # as the API streams an empty input: no JSON at all
    text = "" if no_text else json.dumps(arguments, ensure_ascii=draw(st.booleans()))
    return _block(index, start, *[_json(piece) for piece in draw(_pieces(text))])


@st.composite
def _server_tool(draw: st.DrawFn, index: int) -> list[dict[str, Any]]:
    """A web search the server ran: its call, whose input streams, and its result, whole."""
    call_id = f"srvtoolu_{index:02}"
    query = json.dumps({"query": draw(json_text(surrogates=False))})
    call = _block(index, {"type": "server_tool_use", "id": call_id, "name": "web_search", "input": {}},
                  *[_json(piece) for piece in draw(_pieces(query))])
    result = {"type": "web_search_tool_result", "tool_use_id": call_id, "content": [
        {"type": "web_search_result", "url": "https://example.com/w", "title": "Weather",
         "encrypted_content": "EqgfCioIARgB", "page_age": draw(st.none() | st.just("1 day"))}]}
    return call + _block(index + 1, result)


_KINDS = ["text", "thinking", "redacted", "tool_use", "server_tool"]


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], str | None]:
    """The events of an answer, as the API sends them (parsed JSON), and its stop reason."""
    start_usage = {key: draw(_TOKENS) for key in ("cache_creation_input_tokens", "cache_read_input_tokens") if draw(st.booleans())}
    events = [_start(start_usage)]
    for kind in draw(st.lists(st.sampled_from(_KINDS), max_size=7)):
        index = sum(event["type"] == "content_block_start" for event in events)
        if kind == "text":
            events += draw(_text_block(index))
        elif kind == "thinking":
            events += draw(_thinking_block(index))
        elif kind == "redacted":
            events += _block(index, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3"})
        elif kind == "tool_use":
            events += draw(_tool_use(index))
        else:
            events += draw(_server_tool(index))
    reason = None
    for _ in range(draw(st.integers(0, 2))):  # a stream cut short has none; the last one counts
        reason = draw(st.sampled_from(_STOP_REASONS))
        late: dict[str, Any] = {key: draw(_TOKENS) for key in ("input_tokens", "cache_read_input_tokens") if draw(st.booleans())}
        if draw(st.booleans()):
            late["server_tool_use"] = {"web_search_requests": draw(st.integers(0, 3)), "web_fetch_requests": 0}
        delta = {"stop_reason": reason, "stop_sequence": "\n\nHuman:" if reason == "stop_sequence" else None}
        events.append({"type": "message_delta", "delta": delta, "usage": {"output_tokens": draw(_TOKENS), **late}})
    if draw(st.integers(0, 9)) > 0:
        events.append({"type": "message_stop"})
    return events, reason


# -- running them ---------------------------------------------------------------------------


def accumulated(events: Iterable[Any]) -> Any:
    """The answer as the SDK gathers it from ``events``."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


def message_stream(events: list[Any]) -> list[Any]:
    """``events`` as the SDK's ``MessageStream`` yields them: each raw event, then those it derives from it."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    out: list[Any] = []
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        out += build_events(event=event, message_snapshot=snapshot)
    return out


def relayed(events: Iterable[Any], reply: ReplyEmitter | None = None) -> tuple[ReplyEmitter, AnthropicStreamRelay, list[AgentEvent]]:
    """``events`` relayed into ``reply`` (a new one by default), the answer ended and the reply finished."""
    reply = reply or ReplyEmitter("Claude")
    relay = AnthropicStreamRelay(reply)
    sent: list[AgentEvent] = []
    for event in events:
        sent += relay.feed(event)
    sent += relay.end()
    sent += reply.finish(relay.generate_reason, metadata=relay.metadata)
    return reply, relay, sent


def comparable(message: Msg[Any]) -> tuple[Any, ...]:
    """What must be equal: the content (a call's raw argument text aside), the metadata (an explicit
    MODEL_STOP aside: the reply's default), the usage and the generate reason."""
    content = [attrs.evolve(block, content=None) if isinstance(block, ToolUseBlock) else block for block in message.content]
    metadata = {key: value for key, value in message.metadata.items() if key != _REASON}
    return content, metadata, message.usage, message.get_generate_reason()


def check(events: list[Any], accumulate: list[Any] | None = None) -> ReplyEmitter:
    """Relay ``events`` and check the reply against the SDK's own reading of them (of ``accumulate``,
    the raw events, when ``events`` are not)."""
    expected = from_anthropic_response(accumulated(events if accumulate is None else accumulate))
    reply, _, sent = relayed(events)
    message = reply.message
    assert comparable(message) == comparable(expected)
    assert stop_reason(message) == stop_reason(expected)
    for call in message.get_content_blocks(ToolUseBlock):  # a streamed call keeps its text, which holds its input
        assert call.content is None or parse_tool_arguments(call.content)[0] == call.input
    assert list(reply.events) == sent  # every event was returned, in order, when it was made
    assert assemble(reply.events, strict=True) == [message]
    return reply


# -- the property -------------------------------------------------------------------------


@given(streams())
def test_parsed_json_events_make_the_message_the_sdk_reads(stream: tuple[list[dict[str, Any]], str | None]) -> None:
    events, reason = stream
    noisy = [*events]
    noisy.insert(1, {"type": "ping"})  # the keep-alive, and an event type added after us: skipped
    noisy.insert(len(noisy) - 1, {"type": "future_event", "x": 1})
    reply = check(noisy, events)
    assert stop_reason(reply.message) == reason


@given(streams(), st.sampled_from(["sdk", "model_dump", "message_stream"]))
def test_sdk_events_make_the_message_the_sdk_reads(stream: tuple[list[dict[str, Any]], str | None], form: str) -> None:
    objects = [_EVENTS.validate_python(event) for event in stream[0]]
    if form == "sdk":
        check(objects)
    elif form == "model_dump":
        check([event.model_dump() for event in objects])  # a null for every field left unset, read alike
    else:
        check(message_stream(objects), objects)


# -- examples ------------------------------------------------------------------------------


def test_text_and_calls_are_sent_as_they_arrive() -> None:
    reply = ReplyEmitter()
    relay = AnthropicStreamRelay(reply)
    relay.feed(_start())
    relay.feed(_block(0, {"type": "text", "text": ""})[0])
    sent = relay.feed({"type": "content_block_delta", "index": 0, "delta": _text("Let me ")})
    assert isinstance(sent[-1], TextBlockDeltaEvent) and sent[-1].delta == "Let me "
    relay.feed({"type": "content_block_stop", "index": 0})
    started = relay.feed(_block(1, {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}})[0])
    assert any(isinstance(event, ToolCallStartEvent) and event.tool_call_name == "get_weather" for event in started)
    fragment = relay.feed({"type": "content_block_delta", "index": 1, "delta": _json('{"city": ')})
    assert [type(event) for event in fragment] == [ToolCallDeltaEvent]


def test_a_text_right_after_a_text_streams_as_a_block_of_its_own() -> None:
    # As Claude splits a cited answer into text blocks: each goes on as it comes, in a block of its own.
    events = [_start(), *_block(0, {"type": "text", "text": ""}, _text("One.")),
              *_block(1, {"type": "text", "text": ""}, _text("Two"), _text(".")), *_end()]
    relay = AnthropicStreamRelay(ReplyEmitter())
    sent = [relay.feed(event) for event in events[:7]]
    assert [type(event).__name__ for event in sent[5]] == ["TextBlockEndEvent", "TextBlockStartEvent", "TextBlockDeltaEvent"]
    assert [event.delta for event in sent[6] if isinstance(event, TextBlockDeltaEvent)] == ["."]
    assert check(events).message.content == (TextBlock("One."), TextBlock("Two."))


def test_the_signature_goes_with_the_thinking_block() -> None:
    events = [_start(),
              *_block(0, {"type": "thinking", "thinking": "", "signature": ""},
                      {"type": "thinking_delta", "thinking": "Sunny? "}, {"type": "signature_delta", "signature": "EqQB"}),
              *_block(1, {"type": "thinking", "thinking": "", "signature": ""},
                      {"type": "thinking_delta", "thinking": "Yes."}, {"type": "signature_delta", "signature": "ErUB"}),
              *_block(2, {"type": "redacted_thinking", "data": "EmwK"}),
              *_block(3, {"type": "text", "text": ""}, _text("Sunny.")), *_end()]
    reply = check(events)
    ends = [event for event in reply.events if isinstance(event, ThinkingBlockEndEvent)]
    assert ends[0].metadata == {BLOCK_KEY: {"metadata": {"anthropic": {"signature": "EqQB"}}}}  # sent as it closes
    assert reply.message.content[:3] == (
        ThinkingBlock("Sunny? ", {"anthropic": {"signature": "EqQB"}}),
        ThinkingBlock("Yes.", {"anthropic": {"signature": "ErUB"}}),
        ThinkingBlock("", {"anthropic": {"type": "redacted_thinking", "data": "EmwK"}}),
    )
    assert to_anthropic([UserMessage("Weather?"), reply.message])["messages"][1]["content"][:3] == [
        {"type": "thinking", "thinking": "Sunny? ", "signature": "EqQB"},
        {"type": "thinking", "thinking": "Yes.", "signature": "ErUB"},
        {"type": "redacted_thinking", "data": "EmwK"},
    ]


def test_a_call_with_fields_of_its_own_streams_with_them() -> None:
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    events = [_start(), *_block(0, {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}, "caller": caller},
                                _json('{"a": 1}')), *_end("tool_use")]
    relay = AnthropicStreamRelay(ReplyEmitter())
    sent = [relay.feed(event) for event in events[:3]]
    assert [type(event) for event in sent[2]] == [ToolCallDeltaEvent]  # its input, at once
    reply = check(events)
    metadata = {"anthropic": {"caller": caller}}
    assert reply.message.content == (ToolUseBlock("toolu_1", "get", {"a": 1}, '{"a": 1}', metadata=metadata),)
    end = next(event for event in reply.events if type(event).__name__ == "ToolCallEndEvent")
    assert end.metadata == {BLOCK_KEY: {"metadata": metadata}}  # the call's fields, on its end


def test_a_streamed_call_keeps_its_argument_text() -> None:
    events = [_start(), *_block(0, {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}},
                                _json('{"city":'), _json(' "Paris"}')), *_end("tool_use")]
    reply = check(events)
    assert reply.message.content == (ToolUseBlock("toolu_1", "get", {"city": "Paris"}, '{"city": "Paris"}'),)
    assert reply.message.get_generate_reason() is GenerateReason.TOOL_CALLS


def test_a_call_cut_short_keeps_its_text_and_no_guessed_input() -> None:
    # The SDK parses the text so far leniently; the relay gives what every streamed call gives.
    events = [_start(), *_block(0, {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}},
                                _json('{"city": "Paris", "da')), *_end("max_tokens")]
    assert from_anthropic_response(accumulated(events)).content[0] == ToolUseBlock("toolu_1", "get", {"city": "Paris"})
    reply, _, _ = relayed(events)
    assert reply.message.content == (ToolUseBlock("toolu_1", "get", {}, '{"city": "Paris", "da'),)
    assert stop_reason(reply.message) == "max_tokens"


def test_an_explicit_stop_is_the_replys_default() -> None:
    reply, relay, _ = relayed([_start(), *_block(0, {"type": "text", "text": ""}, _text("Hi.")), *_end("end_turn")])
    assert relay.generate_reason is GenerateReason.MODEL_STOP
    assert _REASON in from_anthropic_response(accumulated([_start(), *_end("end_turn")])).metadata
    assert _REASON not in reply.message.metadata and reply.message.get_generate_reason() is GenerateReason.MODEL_STOP


def test_usage_and_metadata_are_the_readers() -> None:
    events = [_start({"cache_read_input_tokens": 100}),
              *_block(0, {"type": "text", "text": ""}, _text("Hi.")),
              *_end("max_tokens", output_tokens=12, input_tokens=10)]
    reply, relay, _ = relayed(events)
    assert relay.usage == ChatUsage(input_tokens=110, output_tokens=12, cached_tokens=100) == reply.message.usage
    response = relay.metadata["anthropic"]["response"]
    assert response["id"] == "msg_01" and response["stop_reason"] == "max_tokens"
    assert response["usage"] == {"input_tokens": 10, "output_tokens": 12, "cache_read_input_tokens": 100}
    assert _REASON not in relay.metadata


def test_an_answer_without_usage_or_blocks() -> None:
    start = _start()
    del start["message"]["usage"]
    reply, relay, _ = relayed([start, {"type": "message_stop"}])
    assert relay.usage is None and reply.message.content == () and reply.message.usage is None
    reply, _, _ = relayed([_start(), *_end("end_turn", output_tokens=3)])
    assert reply.message.usage == ChatUsage(9, 3)  # on a model call of its own


def test_one_relay_per_answer_in_a_reply_that_calls_tools() -> None:
    first = [_start(), *_block(0, {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}}, _json("{}")),
             *_end("tool_use", output_tokens=5)]
    second = [_start(), *_block(0, {"type": "text", "text": ""}, _text("Sunny.")), *_end("end_turn", output_tokens=2)]
    reply = ReplyEmitter()
    relay = AnthropicStreamRelay(reply)
    for event in first:
        relay.feed(event)
    relay.end()
    reply.block(ToolResultBlock("toolu_1", "get", [TextBlock("sunny")], state=ToolResultState.SUCCESS))
    relay = AnthropicStreamRelay(reply)
    for event in second:
        relay.feed(event)
    relay.end()
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    assert [type(block) for block in reply.message.content] == [ToolUseBlock, ToolResultBlock, TextBlock]
    assert reply.message.usage == ChatUsage(18, 7)
    assert stop_reason(reply.message) == "end_turn"
    assert assemble(reply.events, strict=True) == [reply.message]


def test_server_tool_blocks_are_kept_in_the_metadata() -> None:
    events = [_start(), *_block(0, {"type": "text", "text": ""}, _text("Searching.")),
              *_block(1, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
                      _json('{"query": '), _json('"paris"}')),
              *_block(2, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
              *_block(3, {"type": "text", "text": ""}, _text("Sunny.")), *_end()]
    reply = check(events)
    assert reply.message.content == (TextBlock("Searching."), TextBlock("Sunny."))
    assert reply.message.metadata["anthropic"]["blocks"]["1"][0]["input"] == {"query": "paris"}


def test_an_unknown_delta_is_skipped() -> None:
    events = [_start(), *_block(0, {"type": "text", "text": ""}, _text("Hi"), {"type": "future_delta", "x": 1}), *_end()]
    check(events, [event for event in events if event.get("delta", {}).get("type") != "future_delta"])


# -- what raises ----------------------------------------------------------------------------

_OPEN_TEXT = [_start(), _block(0, {"type": "text", "text": ""})[0]]


@pytest.mark.parametrize(
    ("before", "event", "path", "words"),
    [
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
         "delta.text", "expected a string"),
        ([_start(), _block(0, {"type": "tool_use", "id": "t", "name": "f", "input": {}})[0]],
         {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": None}},
         "delta.partial_json", "expected a string"),
        ([_start()], _block(0, {"type": "tool_use", "id": "t", "name": "f", "input": []})[0],
         "content_block.input", "expected an object"),
        ([_start()], _block(0, {"type": "text"})[0], "content_block", "missing required key 'text'"),
        ([_start()], _block(0, {"type": "tool_use", "id": "t", "name": "", "input": {}})[0], "content_block.name", "needs a name"),
        ([_start(), *_block(0, {"type": "tool_use", "id": "t", "name": "f", "input": {}})],
         _block(1, {"type": "tool_use", "id": "t", "name": "f", "input": {}})[0], "content_block.id", "content block 0"),
        ([_start()], _block(1, {"type": "text", "text": ""})[0], "index", "expected content block 0"),
        ([_start()], {"type": "content_block_start", "index": True, "content_block": {}}, "index", "expected an integer"),
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 3, "delta": _text("x")}, "index", "no content block 3 has started"),
        (_OPEN_TEXT, {"type": "content_block_stop", "index": -1}, "index", "no content block -1 has started"),
        ([*_OPEN_TEXT, _block(1, {"type": "text", "text": ""})[0]],
         {"type": "content_block_delta", "index": 0, "delta": _text("x")}, "index", "content block 0 has ended"),
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "x"}},
         "delta.type", "thinking_delta does not continue a block of type 'text'"),
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": "x"}},
         "delta.citation", "expected an object"),
        # A block the message keeps to send back as it came: a delta the relay cannot apply (a beta stream's
        # compaction) would leave it incomplete, sent back so, where a block of ours only misses news.
        ([_start(), _block(0, {"type": "compaction", "content": None})[0]],
         {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "Summary"}},
         "delta.type", "'compaction_delta' for content block 0 ('compaction'), which the message keeps whole"),
        ([_start()], {"type": "message_delta", "delta": {"stop_reason": 1}, "usage": {"output_tokens": 1}},
         "delta.stop_reason", "expected a string"),
        ([_start()], {"type": "message_delta", "delta": {}, "usage": {"output_tokens": "1"}},
         "usage.output_tokens", "expected an integer"),
        ([_start()], {"type": "message_delta", "delta": {}, "usage": {}}, "usage", "missing required key 'output_tokens'"),
        ([], {**_start(), "message": {**_start()["message"], "role": "user"}}, "message.role", "expected the role 'assistant'"),
        ([], {**_start(), "message": {**_start()["message"], "usage": {"input_tokens": 1}}}, "message.usage",
         "missing required key 'output_tokens'"),
        ([], _start(content=[{"type": "text", "text": "hi"}]), "message.content", "come in content_block_start events"),
        ([], {"type": "content_block_stop", "index": 0}, "type", "before message_start"),
        ([_start()], _start(), "type", "a second message_start"),
        ([_start(), {"type": "message_stop"}], _start(), "type", "after message_stop"),
        ([], {"role": "assistant", "content": []}, "", "missing required key 'type'"),
        ([], {"type": "message", "role": "assistant", "content": []}, "type", "from_anthropic_response reads it"),
        ([], {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error",
         "instead of the rest of the answer: 'overloaded_error': 'Overloaded'"),
        ([_start()], _block(0, {"type": "tool_use", "id": "", "name": "f", "input": {}})[0], "content_block.id", "needs an id"),
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"x": float("nan")}}},
         "delta.citation.x", "nan is not a JSON number"),
        (_OPEN_TEXT, {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {1: "x"}}},
         "delta.citation", "object keys must be strings"),
        ([_start()], {"type": "message_delta", "delta": {"stop_details": {"x": {1, 2}}}, "usage": {"output_tokens": 1}},
         "delta.stop_details.x", "expected a JSON value, got set"),
        ([_start()], {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 2**31}}, "usage", "output_tokens"),
        ([_start()], {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 1, "cache_read_input_tokens": 2**31 - 5}},
         "usage", "input_tokens"),
        ([_start()], {"type": "message_stop", "junk": [{"index": 2**70}]}, "junk[0].index", "expected an index from 0 to"),
        ([], 'data: {"type": "ping"}', "", "parse each server-sent event's data as JSON first"),
        ([], [_start()], "", "give the events one by one"),
    ],
)
def test_malformed_events_raise_with_the_path(before: list[Any], event: Any, path: str, words: str) -> None:
    relay = AnthropicStreamRelay(ReplyEmitter())
    for earlier in before:
        relay.feed(earlier)
    with pytest.raises(DecodeError) as raised:
        relay.feed(event)
    assert raised.value.path == path and words in raised.value.reason


def test_a_malformed_event_changes_nothing() -> None:
    reply = ReplyEmitter()
    relay = AnthropicStreamRelay(reply)
    for event in _OPEN_TEXT:
        relay.feed(event)
    with pytest.raises(DecodeError):
        relay.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}})
    with pytest.raises(DecodeError):
        relay.feed(_block(1, {"type": "tool_use", "id": "t", "name": "f", "input": 1})[0])
    for event in [{"type": "content_block_delta", "index": 0, "delta": _text("fine")}, *_end()]:
        relay.feed(event)
    relay.end()
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    assert reply.message.content == (TextBlock("fine"),)


def test_the_callers_events_are_left_as_they_were() -> None:
    events = [_start(), *_block(0, {"type": "text", "text": ""}, _text("Hi")), *_end("max_tokens", 99)]
    before = copy.deepcopy(events)
    relayed(events)  # recorded events may be replayed, to another relay or a log
    assert events == before


def test_a_usage_that_cannot_be_held_is_refused_when_it_comes() -> None:
    reply = ReplyEmitter()
    relay = AnthropicStreamRelay(reply)
    for event in [_start(), *_block(0, {"type": "text", "text": ""}, _text("Hi"))]:
        relay.feed(event)
    with pytest.raises(DecodeError, match="usage"):
        relay.feed({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2**31}})
    for event in _end():  # the end the stream should have sent: the relay goes on
        relay.feed(event)
    assert relay.end()[-1].type.value == "MODEL_CALL_END"
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    assert reply.message.usage == relay.usage and stop_reason(reply.message) == "end_turn"


def test_a_usage_the_reply_refuses_leaves_the_answer_unended() -> None:
    # The reply's usage plus this answer's would pass a Java int: refused before the block the
    # stream left open goes out (an empty text, sent whole), so nothing is made that the caller does not get.
    reply = ReplyEmitter()
    first = AnthropicStreamRelay(reply)
    for event in [_start({"input_tokens": 2**31 - 10}), *_block(0, {"type": "text", "text": ""}, _text("One.")), *_end()]:
        first.feed(event)
    first.end()
    second = AnthropicStreamRelay(reply)
    for event in [_start({"input_tokens": 2**31 - 10}), *_block(0, {"type": "text", "text": ""}, stop=False)]:
        second.feed(event)
    made = len(reply.events)
    for _ in range(2):
        with pytest.raises(ArgumentValueError, match="the reply's usage so far plus this one is past what a usage holds"):
            second.end()
        assert len(reply.events) == made


def test_a_whole_message_object_gets_a_hint() -> None:
    answer = Message.model_validate({**_start()["message"], "content": [{"type": "text", "text": "hi"}]})
    with pytest.raises(DecodeError, match="from_anthropic_response reads it"):
        AnthropicStreamRelay(ReplyEmitter()).feed(answer)


def test_a_block_no_answer_holds_is_unsupported_where_it_stands() -> None:
    relay = AnthropicStreamRelay(ReplyEmitter())
    relay.feed(_start())
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    with pytest.raises(UnsupportedContentError, match=r"^content_block\.type: "):
        relay.feed(_block(0, image)[0])


def test_the_relay_is_used_in_order() -> None:
    with pytest.raises(ArgumentTypeError, match="relays into a ReplyEmitter"):
        AnthropicStreamRelay("reply")  # type: ignore[arg-type]
    relay = AnthropicStreamRelay(ReplyEmitter())
    with pytest.raises(StreamError, match="feed"):
        relay.end()
    relay.feed(_start())
    with pytest.raises(StreamError, match="call end"):
        relay.usage
    assert relay.end() != [] and relay.end() == []
    assert repr(relay) == "<AnthropicStreamRelay: ended>"
    with pytest.raises(StreamError, match="new AnthropicStreamRelay"):
        relay.feed({"type": "ping"})


def test_an_sdk_events_model_dump_reads_with_its_times_as_the_json_held_them() -> None:
    # A code execution container's expiry is a datetime in the plain model_dump(), as in an answer's.
    container = {"id": "container_1", "expires_at": "2025-01-01T00:00:00Z"}
    delta = {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None, "container": container},
             "usage": {"output_tokens": 3}}
    events = [_start(), *_block(0, {"type": "text", "text": ""}, _text("Done.")), delta, {"type": "message_stop"}]
    dumped = [_EVENTS.validate_python(event).model_dump() for event in events]
    assert dumped[4]["delta"]["container"]["expires_at"].year == 2025  # a datetime, not the text
    relay = AnthropicStreamRelay(ReplyEmitter())
    for event in dumped:
        relay.feed(event)
    relay.end()
    assert relay.metadata["anthropic"]["response"]["container"]["expires_at"] == "2025-01-01T00:00:00Z"


def test_an_event_the_reply_refuses_leaves_the_relay_as_it_was() -> None:
    reply = ReplyEmitter()
    reply.block(ToolUseBlock("toolu_1", "get", {}))  # the reply made a call of this id already
    relay = AnthropicStreamRelay(reply)
    relay.feed(_start())
    call = _block(0, {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}})[0]
    for _ in range(2):  # refused again for the same reason, not as a block out of order
        with pytest.raises(ArgumentValueError, match="the tool call 'toolu_1' was closed"):
            relay.feed(call)
    assert repr(relay) == "<AnthropicStreamRelay: 0 content blocks so far>"
    finished = ReplyEmitter()
    # Refused after a block the stream left open (no content_block_stop): that block is sent all the same.
    sent = list(reply.events)
    relay = AnthropicStreamRelay(reply)
    sent += relay.feed(_start())
    sent += relay.feed(_block(0, {"type": "redacted_thinking", "data": "ENC"})[0])
    with pytest.raises(ArgumentValueError, match="the tool call 'toolu_1' was closed"):
        relay.feed({**call, "index": 1})
    sent += relay.feed(_block(1, {"type": "text", "text": ""})[0])
    sent += relay.end() + reply.finish()
    assert assemble(sent) == [reply.message]
    assert len(reply.message.get_content_blocks(ThinkingBlock)) == 1
    relay = AnthropicStreamRelay(finished)
    relay.feed(_start())
    finished.finish()
    with pytest.raises(StreamError, match="the reply this relay feeds is finished"):
        relay.feed(_block(0, {"type": "text", "text": ""})[0])


@st.composite
def _broken(draw: st.DrawFn) -> list[Any]:
    events = draw(streams())[0]
    at = draw(st.integers(0, len(events) - 1))
    events[at] = draw(mutated(st.just(events[at])))
    return events


@given(_broken())
def test_broken_streams_raise_decode_errors_only(events: list[Any]) -> None:
    reply = ReplyEmitter()
    relay = AnthropicStreamRelay(reply)
    try:
        for event in events:
            relay.feed(event)
        relay.end()
        reply.finish(relay.generate_reason, metadata=relay.metadata)
    except (DecodeError, UnsupportedContentError):
        return
    except StreamError as error:  # message_start turned into an event of a type we skip
        assert "no event of the answer came" in str(error)
        return
    except AgentScopeError as error:  # pragma: no cover - the failure says which
        raise AssertionError(f"{type(error).__name__}: {error}") from error
    assert assemble(reply.events, strict=True) == [reply.message]

"""OpenAIStreamRelay: a streamed Chat Completions answer passed on as events while it arrives,
making the message from_openai_response makes of the answer the SDK gathers from the chunks."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from agentscope_py import (
    AgentEvent,
    ArgumentTypeError,
    ArgumentValueError,
    ChatUsage,
    DecodeError,
    GenerateReason,
    Msg,
    ReplyEmitter,
    StreamError,
    TextBlock,
    TextBlockDeltaEvent,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    assemble,
)
from agentscope_py.interop import OpenAIStreamRelay, from_openai_response, stop_reason, to_openai


def _chunk(delta: dict[str, Any] | None = None, finish_reason: str | None = None, **fields: Any) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o",
        "system_fingerprint": "fp_1",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    chunk.update(fields)
    return chunk


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"x": value}
    return value


def _usage_chunk(prompt: int = 20, completion: int = 7) -> dict[str, Any]:
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    return _chunk(usage=usage)


def _call(index: int, arguments: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        call.update(id=call_id, type="function")
        call["function"]["name"] = name
    return {"tool_calls": [call]}


def _sdk_chunk(chunk: dict[str, Any]) -> ChatCompletionChunk:
    """``chunk`` as the SDK's stream makes it, without validating it: a server's ``""`` finish
    reason, which the type's literals leave out, passes as it does there."""
    return cast(ChatCompletionChunk, construct_type(type_=ChatCompletionChunk, value=chunk))


def _sdk_read(chunks: list[dict[str, Any]]) -> Any:
    """The answer as the OpenAI SDK gathers it from ``chunks``, read by from_openai_response."""
    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(_sdk_chunk(chunk))
    # The snapshot, not get_final_completion(), which raises for an answer cut short (see openai.md).
    return from_openai_response(state.current_completion_snapshot)


def _relayed(chunks: list[Any]) -> tuple[ReplyEmitter, OpenAIStreamRelay, list[AgentEvent]]:
    reply = ReplyEmitter("Friday")
    relay = OpenAIStreamRelay(reply)
    sent = [event for chunk in chunks for event in relay.feed(chunk)]
    sent += relay.end()
    sent += reply.finish(relay.generate_reason, metadata=relay.metadata)
    assert tuple(sent) == reply.events
    return reply, relay, sent


def _same_answer(relayed: Any, read: Any) -> None:
    # Arguments that streamed as nothing are no raw text (content None), where the answer has "".
    expected = [attrs.evolve(block, content=None) if type(block) is ToolUseBlock and block.content == "" else block for block in read.content]
    assert list(relayed.content) == expected
    assert relayed.usage == read.usage
    assert relayed.get_generate_reason() is read.get_generate_reason()
    # A reply states no MODEL_STOP, the default, which from_openai_response writes for "stop"; the
    # SDK writes the last chunk's usage, null when that chunk had none, where the relay keeps the
    # last usage given.
    reason = Msg.METADATA_GENERATE_REASON
    assert _without_nulls({**relayed.metadata, reason: None}) == _without_nulls({**read.metadata, reason: None})


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_nulls(entry) for key, entry in value.items() if entry is not None}
    return value


# -- examples ------------------------------------------------------------------------------


def test_text_and_tool_calls_go_on_as_they_arrive() -> None:
    chunks = [
        _chunk({"role": "assistant", "content": "", "refusal": None}),
        _chunk({"content": "Let me "}),
        _chunk({"content": "check."}),
        _chunk(_call(0, '{"city": ', "call_7", "get_weather")),
        _chunk(_call(1, "{}", "call_8", "get_time")),  # a parallel call, streamed beside the first
        _chunk(_call(0, '"Rome"}')),
        _chunk({}, "tool_calls"),
        _usage_chunk(),
    ]
    reply = ReplyEmitter("Friday")
    relay = OpenAIStreamRelay(reply)
    assert relay.feed(chunks[0]) == []  # a role and an empty text: nothing to show yet
    first = relay.feed(chunks[1])
    assert [type(event).__name__ for event in first][-2:] == ["TextBlockStartEvent", "TextBlockDeltaEvent"]
    assert isinstance(first[-1], TextBlockDeltaEvent) and first[-1].delta == "Let me "
    for chunk in chunks[2:]:
        relay.feed(chunk)
    ended = relay.end()
    assert [type(event).__name__ for event in ended] == ["ToolCallEndEvent", "ToolCallEndEvent", "ModelCallEndEvent"]
    assert relay.usage == ChatUsage(20, 7) and relay.generate_reason is GenerateReason.TOOL_CALLS
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    message = reply.message
    assert message.content == (
        TextBlock("Let me check."),
        ToolUseBlock("call_7", "get_weather", {"city": "Rome"}, '{"city": "Rome"}'),
        ToolUseBlock("call_8", "get_time", {}, "{}"),
    )
    assert stop_reason(message) == "tool_calls" and message.usage == ChatUsage(20, 7)
    _same_answer(message, _sdk_read(chunks))
    assert assemble(reply.events, strict=True) == [message]


def test_the_sdks_chunk_objects_are_relayed_too() -> None:
    chunks = [_chunk({"role": "assistant", "content": "Hi"}), _chunk({"content": "!"}, "stop"), _usage_chunk()]
    reply, _, _ = _relayed([ChatCompletionChunk.model_validate(chunk) for chunk in chunks])
    _same_answer(reply.message, _sdk_read(chunks))


def test_the_events_of_the_sdks_stream_are_relayed_as_their_chunks() -> None:
    # client.chat.completions.stream(...) gives events: each chunk in a "chunk" event, and events
    # derived from the chunks ("content.delta", "tool_calls.function.arguments.done" …), which repeat them.
    chunks = [
        _chunk({"role": "assistant", "content": "Hi"}),
        _chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a"'}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}, "tool_calls"),
        _usage_chunk(),
    ]
    state = ChatCompletionStreamState()
    events = [event for chunk in chunks for event in state.handle_chunk(ChatCompletionChunk.model_validate(chunk))]
    assert {event.type for event in events} > {"chunk", "content.delta", "tool_calls.function.arguments.done"}
    expected, _, _ = _relayed(chunks)
    for form in (events, [event.model_dump(exclude_unset=True) for event in events]):
        reply, _, _ = _relayed(form)
        assert reply.message.__replace__(id=expected.message.id, timestamp=expected.message.timestamp) == expected.message
    with pytest.raises(DecodeError, match=r"^expected a chat\.completion\.chunk object, got null$"):
        OpenAIStreamRelay(ReplyEmitter()).feed({"type": "chunk"})
    # Only the SDK's events: an error, or a Responses API event, is no chunk, and not skipped as one.
    others: list[dict[str, Any]] = [
        {"type": "error", "error": {"message": "overloaded"}},
        {"type": "response.output_text.delta", "delta": "x"},
        {"type": []},
    ]
    for other in others:
        with pytest.raises(DecodeError, match="missing required key 'choices'"):
            OpenAIStreamRelay(ReplyEmitter()).feed(other)


def test_a_refusal_is_the_messages_text_as_from_openai_response_reads_it() -> None:
    chunks = [
        _chunk({"role": "assistant", "content": " ", "refusal": None}),  # blank: the refusal stands in for it
        _chunk({"refusal": "I can't help "}),
        _chunk({"refusal": "with that."}, "stop"),
    ]
    reply, relay, _ = _relayed(chunks)
    assert reply.message.content == (TextBlock("I can't help with that."),)
    assert relay.metadata["openai"]["refusal"] == "I can't help with that."
    _same_answer(reply.message, _sdk_read(chunks))


def test_an_audio_answers_transcript_is_its_text() -> None:
    chunks = [
        _chunk({"role": "assistant", "audio": {"id": "audio_1", "data": "UklG", "transcript": "It is ", "expires_at": 1}}),
        _chunk({"audio": {"data": "RgAA", "transcript": "sunny."}}, "stop"),
    ]
    reply, _, _ = _relayed(chunks)
    assert reply.message.content == (TextBlock("It is sunny."),)
    _same_answer(reply.message, _sdk_read(chunks))


def test_a_cut_answer_says_so() -> None:
    chunks = [_chunk({"role": "assistant", "content": "The three reasons are: first,"}), _chunk({}, "length")]
    reply, relay, _ = _relayed(chunks)
    assert stop_reason(reply.message) == "length"  # a truncated answer is told from a finished one
    assert relay.generate_reason is GenerateReason.MODEL_STOP and relay.usage is None
    _same_answer(reply.message, _sdk_read(chunks))


def test_each_answer_is_a_message_of_its_own_as_from_openai_response_reads_it() -> None:
    chunks = [_chunk({"role": "assistant", "content": "Hi", "reasoning_content": "Greet."}, "stop"), _usage_chunk(5, 1)]
    _, relay, _ = _relayed(chunks)
    read = _sdk_read(chunks)
    assert relay.answer.content == read.content and relay.answer.usage == read.usage == ChatUsage(5, 1)
    assert relay.answer.metadata == read.metadata
    assert relay.answer.metadata["openai"]["reasoning_content"] == "Greet."


def test_a_reply_that_calls_tools_takes_one_relay_per_answer() -> None:
    reply = ReplyEmitter("Friday")
    first = OpenAIStreamRelay(reply)
    for chunk in [_chunk({"role": "assistant", "content": None}), _chunk(_call(0, "{}", "call_1", "get_time")), _usage_chunk(9, 3)]:
        first.feed(chunk)
    first.end()
    reply.block(ToolResultBlock("call_1", "get_time", [TextBlock("12:00")], state=ToolResultState.SUCCESS))
    second = OpenAIStreamRelay(reply)
    for chunk in [_chunk({"role": "assistant", "content": "It is noon."}, "stop"), _usage_chunk(30, 4)]:
        second.feed(chunk)
    second.end()
    reply.finish(second.generate_reason, metadata=second.metadata)
    assert [type(block).__name__ for block in reply.message.content] == ["ToolUseBlock", "ToolResultBlock", "TextBlock"]
    assert reply.message.usage == ChatUsage(39, 7)  # both model calls
    assert assemble(reply.events, strict=True) == [reply.message]


def test_a_calls_other_fields_are_kept_as_the_sdk_gathers_them() -> None:
    # Gemini's OpenAI-compatible API sends a call's thought signature beside it, and wants it back.
    signature = {"google": {"thought_signature": "SIG=="}}
    first = _call(0, '{"city": ', "call_1", "get_weather")
    first["tool_calls"][0]["extra_content"] = signature
    last = _call(0, '"Paris"}')
    last["tool_calls"][0]["function"]["strict"] = True  # a field of the function, kept under it
    chunks = [_chunk({"role": "assistant", "content": None}), _chunk(first), _chunk(last), _chunk({}, "tool_calls")]
    reply, _, sent = _relayed(chunks)
    _same_answer(reply.message, _sdk_read(chunks))
    (call,) = reply.message.get_content_blocks(ToolUseBlock)
    assert call.metadata == {"openai": {"extra_content": signature, "function": {"strict": True}}}
    (turn,) = to_openai([reply.message], validate=False)  # the call's result would come next
    assert turn["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}', "strict": True},
            "extra_content": signature,
        }
    ]
    assert assemble(sent, strict=True) == [reply.message]


def test_a_choices_other_fields_are_kept_from_the_chunk_that_begins_it() -> None:
    # Azure adds its content filter's verdict to each choice of each chunk; the SDK keeps the first.
    def filtered(delta: dict[str, Any], verdict: str, finish_reason: str | None = None) -> dict[str, Any]:
        chunk = _chunk(delta, finish_reason)
        chunk["choices"][0]["content_filter_results"] = {"hate": {"filtered": False, "severity": verdict}}
        return chunk

    chunks = [filtered({"role": "assistant", "content": "Hi"}, "safe"), filtered({}, "low", "stop")]
    reply, _, _ = _relayed(chunks)
    read = _sdk_read(chunks)
    _same_answer(reply.message, read)
    kept = reply.message.metadata["openai"]["response"]["choice"]["content_filter_results"]
    assert kept == {"hate": {"filtered": False, "severity": "safe"}}


def test_an_empty_finish_reason_after_the_real_one_is_none() -> None:
    # Some servers (sglang, Ollama) repeat finish_reason as "" in the chunks after the one that gives it.
    chunks = [_chunk({"role": "assistant", **_call(0, "{}", "call_1", "search")}), _chunk({}, "tool_calls"), _chunk({}, ""), _usage_chunk()]
    reply, relay, _ = _relayed(chunks)
    assert stop_reason(reply.message) == "tool_calls" == stop_reason(_sdk_read(chunks))
    assert relay.generate_reason is GenerateReason.TOOL_CALLS


def test_a_usage_the_reply_refuses_leaves_the_answer_unended() -> None:
    # The reply's usage plus this answer's would pass a Java int: refused before the answer's last
    # blocks go out, so nothing is made that the caller does not get.
    reply = ReplyEmitter()
    first = OpenAIStreamRelay(reply)
    for chunk in [_chunk({"content": "One."}, "stop"), _usage_chunk(2**31 - 1, 1)]:
        first.feed(chunk)
    first.end()
    second = OpenAIStreamRelay(reply)
    for chunk in [_chunk({"refusal": "No."}, "stop"), _usage_chunk(2**31 - 1, 1)]:
        second.feed(chunk)
    made = len(reply.events)
    for _ in range(2):
        with pytest.raises(ArgumentValueError, match="the reply's usage so far plus this one is past what a usage holds"):
            second.end()
        assert len(reply.events) == made


def test_text_after_a_tool_call_waits_for_the_end() -> None:
    # OpenAI sends the text first; a server that does not would close the calls with its text.
    chunks = [_chunk(_call(0, '{"q": ', "call_1", "search")), _chunk({"content": "Searching."}), _chunk(_call(0, "1}"))]
    reply, _, _ = _relayed([*chunks, _chunk({}, "tool_calls")])
    assert reply.message.content == (ToolUseBlock("call_1", "search", {"q": 1}, '{"q": 1}'), TextBlock("Searching."))


def test_other_choices_and_azures_filter_notices_are_skipped() -> None:
    notice = {"object": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0}]}
    other = _chunk({"content": "not this"})
    other["choices"][0]["index"] = 1
    reply, _, _ = _relayed([notice, _chunk({"role": "assistant", "content": "this"}), other, _chunk({}, "stop")])
    assert reply.message.content == (TextBlock("this"),)


# -- what it refuses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        (["a", "list"], "expected a chat.completion.chunk object, got array; give the chunks one by one"),
        ({"object": "chat.completion", "choices": []}, "object: this is a whole answer, not a chunk of one"),
        ({"object": "response.output_text.delta"}, "object: expected a chat.completion.chunk, got"),
        ({"choices": {"index": 0}}, "choices: expected an array"),
        (_chunk({"content": 3}), r"choices\[0\].delta.content: expected a string"),
        (_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), "must give its id and function name"),
        (_chunk({"tool_calls": [{"index": "0", "id": "c", "function": {"name": "f"}}]}), r"tool_calls\[0\].index: expected an integer"),
        (_chunk({"tool_calls": [{"index": 0, "id": "c", "type": "custom", "custom": {"name": "f"}}]}), "only function tool calls"),
        (_chunk({"items": [{"index": -1}]}), r"delta.items\[0\].index: expected an index from 0 to 2147483647, got -1"),
        (_chunk(_call(2**70, "{}", "c", "f")), r"tool_calls\[0\].index: expected an index from 0 to"),
        (_chunk({"content": "x"}, usage={"prompt_tokens": "5"}), "usage.prompt_tokens: expected an integer"),
        (_chunk({"audio": "x"}), "delta.audio: expected an object, got string"),
        (_chunk({"content": "x", "name": 5}), "delta.name: expected a string, got number"),
        # What the answer could not hold at end(), refused before its events go out.
        (_chunk({"role": "user", "content": "Hello"}), r"delta.role: expected the role 'assistant' \(an answer's\), got 'user'$"),
        (_chunk({"role": ""}), r"delta.role: expected the role 'assistant' \(an answer's\), got ''$"),
        (_chunk({"audio": {"transcript": "Hello"}}), r"delta.audio: missing required key 'id': an answer's audio begins with its id"),
        (_chunk({"audio": {"id": 5, "transcript": "hi"}}), r"delta.audio.id: expected a string, got number"),
        (_chunk({"function_call": {"name": 5, "arguments": ""}}), r"delta.function_call.name: expected a string, got number"),
        (_chunk({"function_call": {"name": "f", "arguments": {}}}), r"delta.function_call.arguments: expected a string, got object"),
        (_chunk({"function_call": {"arguments": "{}"}}), r"delta.function_call: missing required key 'name': a function call's first"),
        (_chunk({"content": "x", "score": float("nan")}), "delta.score: nan is not a JSON number"),
        (_chunk({"extra": {1: "x"}}), "delta.extra: object keys must be strings"),
        (_chunk({"deep": _nested(150)}), "nested deeper than 100 levels"),
        (_chunk({"extra": {1, 2}}), "delta.extra: expected a JSON value, got set"),
    ],
)
def test_a_malformed_chunk_raises_decode_error_naming_the_path(chunk: Any, message: str) -> None:
    relay = OpenAIStreamRelay(ReplyEmitter())
    with pytest.raises(DecodeError, match=message):
        relay.feed(chunk)


@pytest.mark.parametrize(
    "bad",
    [
        _chunk({"content": "!", "tool_calls": [{"index": 0}]}, "length"),
        _chunk({"content": "!", "tool_calls": [{"index": 2**70, "id": "c", "function": {"name": "f"}}]}, "length"),
        _chunk({"content": "!"}, "length", usage={"prompt_tokens": 10**30, "completion_tokens": 1}),
        _chunk({"content": "!", "refusal": ["no"]}, "length"),
        _chunk({"role": "user", "content": "!"}, "length"),
        _chunk({"content": "!", "function_call": {"name": 5, "arguments": ""}}, "length"),
    ],
)
def test_a_malformed_chunk_changes_nothing(bad: dict[str, Any]) -> None:
    reply = ReplyEmitter()
    relay = OpenAIStreamRelay(reply)
    relay.feed(_chunk({"role": "assistant", "content": "Hi"}))
    with pytest.raises(DecodeError):
        relay.feed(bad)
    relay.feed(_chunk({}, "stop"))
    relay.end()
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    assert reply.message.content == (TextBlock("Hi"),) and stop_reason(reply.message) == "stop"


def test_a_legacy_function_call_that_never_gave_arguments_has_none() -> None:
    # OpenAI's first function_call chunk carries "arguments": ""; a server leaving it out is read so too,
    # where the answer's reader would refuse the call at end(), after its text had gone out.
    chunks = [_chunk({"role": "assistant", "function_call": {"name": "get_time"}}), _chunk({}, "function_call")]
    reply, relay, _ = _relayed(chunks)
    assert relay.metadata["openai"]["function_call"] == {"name": "get_time", "arguments": ""}
    assert reply.message.content == ()


def test_tool_call_chunks_that_would_make_a_wrong_message_are_refused() -> None:
    relay = OpenAIStreamRelay(ReplyEmitter())
    relay.feed(_chunk(_call(0, "{}", "call_1", "search")))
    with pytest.raises(DecodeError, match="tool call 'call_1' was given already, at another index"):
        relay.feed(_chunk(_call(1, "{}", "call_1", "search")))
    with pytest.raises(DecodeError, match="tool call 'call_1' is named 'search', not 'find'"):
        relay.feed(_chunk(_call(0, "{}", "call_1", "find")))
    with pytest.raises(DecodeError, match="tool call 'call_2' begins here: its first chunk must give the function name"):
        relay.feed(_chunk({"tool_calls": [{"index": 1, "id": "call_2", "function": {"arguments": "{}"}}]}))


def test_a_chunk_refused_for_a_call_it_began_itself_leaves_the_relay_as_it_was() -> None:
    # The calls a chunk begins are checked against those its earlier fragments began too.
    reply = ReplyEmitter()
    relay = OpenAIStreamRelay(reply)
    relay.feed(_chunk(_call(0, "{}", "call_1", "search")))
    twice = {"tool_calls": [_call(1, "{", "call_2", "fetch")["tool_calls"][0], _call(2, "}", "call_2", "fetch")["tool_calls"][0]]}
    with pytest.raises(DecodeError, match=r"tool_calls\[1\]\.id: tool call 'call_2' was given already, at another index"):
        relay.feed(_chunk(twice))
    # Nothing of it was taken: call_2 may begin at index 1 still, and its fragments go on there.
    relay.feed(_chunk({"tool_calls": [_call(1, '{"u"', "call_2", "fetch")["tool_calls"][0], _call(1, ': 1}')["tool_calls"][0]]}))
    relay.feed(_chunk({}, "tool_calls"))
    relay.end()
    reply.finish(relay.generate_reason, metadata=relay.metadata)
    calls = reply.message.get_content_blocks(ToolUseBlock)
    assert [(call.id, call.name, dict(call.input)) for call in calls] == [("call_1", "search", {}), ("call_2", "fetch", {"u": 1})]


def test_compatible_servers_streams_are_relayed() -> None:
    def repeated(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return _chunk({"role": "assistant", **delta}, finish_reason)  # the role in every chunk (Ollama, OpenRouter)

    chunks = [
        repeated({"content": "Two lookups."}),
        # every parallel call at index 0, each with its own id (as some servers send them); ids and names
        # repeated in every chunk of a call; a gap in the indexes
        repeated(_call(0, '{"q": ', "call_1", "search")),
        repeated(_call(0, '"cats"}', "call_1", "search")),
        repeated(_call(0, "{}", "call_2", "clock")),
        repeated(_call(2, "{}", "call_3", "weather")),
        repeated({}, "tool_calls"),
    ]
    reply, _, _ = _relayed(chunks)
    assert [(call.id, call.name, call.input) for call in reply.message.get_content_blocks(ToolUseBlock)] == [
        ("call_1", "search", {"q": "cats"}),
        ("call_2", "clock", {}),
        ("call_3", "weather", {}),
    ]
    assert reply.message.get_text_content() == "Two lookups."
    assert assemble(reply.events, strict=True) == [reply.message]


def test_text_and_a_call_in_one_chunk_keep_their_order() -> None:
    reply, _, _ = _relayed([_chunk({"content": "Looking.", **_call(0, "{}", "call_1", "search")}, "tool_calls")])
    assert reply.message.content == (TextBlock("Looking."), ToolUseBlock("call_1", "search", {}, "{}"))


def test_the_choice_must_be_one_the_stream_has() -> None:
    with pytest.raises(ArgumentValueError, match="choice must be the index of a choice"):
        OpenAIStreamRelay(ReplyEmitter(), choice=-1)
    relay = OpenAIStreamRelay(ReplyEmitter(), choice=3)
    relay.feed(_chunk({"content": "only choice 0"}, "stop"))
    with pytest.raises(StreamError, match="no chunk held choice 3"):
        relay.end()


def test_the_answer_is_read_once_it_is_over() -> None:
    relay = OpenAIStreamRelay(ReplyEmitter())
    with pytest.raises(StreamError, match="no chunk of the answer came"):
        relay.end()
    relay.feed(_chunk({"content": "Hi"}, "stop"))
    with pytest.raises(StreamError, match=r"the answer is not over: call end\(\)"):
        relay.metadata  # noqa: B018
    with pytest.raises(StreamError, match=r"the answer is not over: call end\(\)"):
        relay.answer  # noqa: B018
    assert relay.end() != [] and relay.end() == []  # ended once
    with pytest.raises(StreamError, match="make a new OpenAIStreamRelay for the next one"):
        relay.feed(_chunk({"content": "more"}))
    assert repr(relay) == "<OpenAIStreamRelay choice=0: ended>"


def test_a_finished_reply_is_refused_before_the_chunk_changes_anything() -> None:
    reply = ReplyEmitter()
    relay = OpenAIStreamRelay(reply)
    relay.feed(_chunk({"role": "assistant", "content": "Hi"}))
    reply.finish()
    for _ in range(2):  # the same refusal each time: the relay took nothing of the chunk
        with pytest.raises(StreamError, match="the reply this relay feeds is finished"):
            relay.feed(_chunk({"content": " there"}))


def test_wrong_arguments_say_what_is_expected() -> None:
    with pytest.raises(ArgumentTypeError, match="relays into a ReplyEmitter"):
        OpenAIStreamRelay([])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="choice must be the index of a choice"):
        OpenAIStreamRelay(ReplyEmitter(), choice="0")  # type: ignore[arg-type]


# -- the property: the message is the one the SDK's answer reads as --------------------------

_PIECES = st.text(alphabet=st.sampled_from("ab é😀\n\"{}"), max_size=5)


@st.composite
def _streams(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Chunks as OpenAI streams an answer: text or a refusal, then tool calls whose fragments may
    interleave, then the finish reason, then (when asked for) the usage."""
    chunks = [_chunk({"role": "assistant", "content": draw(st.sampled_from(["", None])), "refusal": None})]
    refusing = draw(st.booleans())
    for piece in draw(st.lists(_PIECES, max_size=5)):
        chunks.append(_chunk({"refusal" if refusing else "content": piece}))
    calls = draw(st.integers(0, 3))
    left: dict[int, list[str]] = {}
    for index in range(calls):
        arguments = draw(st.sampled_from([json.dumps({"q": "cats", "n": index}), "{}", "", '{"broken": ']))
        cuts = sorted(draw(st.lists(st.integers(0, len(arguments)), max_size=3)))
        left[index] = [arguments[start:end] for start, end in zip([0, *cuts], [*cuts, len(arguments)], strict=True)]
    opened = 0  # calls open in the order of their index, as OpenAI numbers them; their fragments interleave
    while any(left.values()):
        candidates = [index for index in range(opened) if left[index]] + ([opened] if opened < calls else [])
        index = draw(st.sampled_from(candidates))
        first = index == opened
        opened += first
        fragment = _call(index, left[index].pop(0), f"call_{index}" if first else None, f"tool_{index}" if first else None)
        if draw(st.booleans()):  # other fields of the call or its function, as Gemini's thought signature
            extra = draw(st.sampled_from([{"extra_content": {"google": {"thought_signature": "S"}}}, {"x_n": 1}]))
            place = fragment["tool_calls"][0]["function"] if draw(st.booleans()) else fragment["tool_calls"][0]
            place.update(extra)
        chunks.append(_chunk(fragment))
    reason = draw(st.sampled_from(["stop", "tool_calls", "length", "content_filter"]))
    chunks.append(_chunk({}, reason))
    if draw(st.booleans()):
        chunks.append(_chunk({}, ""))  # as some servers repeat it: no reason
    if draw(st.booleans()):
        chunks.append(_usage_chunk(draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))))
    return chunks


@given(_streams(), st.booleans())
def test_the_message_is_the_one_from_openai_response_reads_of_the_sdks_answer(chunks: list[dict[str, Any]], as_sdk_objects: bool) -> None:
    fed = [_sdk_chunk(chunk) for chunk in chunks] if as_sdk_objects else chunks
    reply, _, sent = _relayed(fed)
    read = _sdk_read(chunks)
    _same_answer(reply.message, read)
    assert stop_reason(reply.message) == stop_reason(read)
    assert assemble(sent, strict=True) == [reply.message]
    assert assemble([AgentEvent.from_json(event.to_json()) for event in sent]) == [reply.message]


def test_indexed_objects_after_plain_entries_are_gathered_as_the_sdk_gathers_them() -> None:
    # A field the relay keeps as it is: a list of plain entries, then objects with an index. The SDK
    # appends them; inserted at their index, each moved every entry after it (a hostile stream of
    # n of each took time n squared).
    chunks = [
        _chunk({"role": "assistant", "content": "Hi", "x": ["a", "b", "c"]}),
        _chunk({"x": [{"index": 0, "v": 1}, {"index": 1, "v": 2}]}),
        _chunk({}, "stop"),
    ]
    reply, _, _ = _relayed(chunks)
    expected = _sdk_read(chunks).metadata["openai"]["x"]
    assert expected == ["a", "b", "c", {"index": 0, "v": 1}, {"index": 1, "v": 2}]
    assert reply.message.metadata["openai"]["x"] == expected

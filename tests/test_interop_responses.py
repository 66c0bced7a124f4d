"""from_openai_response and from_anthropic_response: a provider's answer as one assistant message.

The message must read as the request reader reads the same assistant turn (so
it converts back the same), with the answer's usage and stop reason mapped and
every other field of the answer kept under ``metadata[<format>]["response"]``,
which no writer puts into a turn.  Untrusted answers give a result or a
DecodeError with a path, never a bare exception.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest
from anthropic.types import Message, MessageParam
from hypothesis import given
from hypothesis import strategies as st
from interop_compare import comparable
from openai.lib._parsing._completions import parse_chat_completion
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage, ChatCompletionMessageParam
from openai.types.chat.chat_completion import ChoiceLogprobs
from pydantic import BaseModel
from provider_payloads import anthropic_responses, mutated, openai_responses
from sdk_types import conform
from strategies import as_built_in_python, json_values

from agentscope_py import (
    AgentScopeError,
    ArgumentTypeError,
    AssistantMessage,
    ChatUsage,
    ConversationError,
    DecodeError,
    GenerateReason,
    Msg,
    ReplyEmitter,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    UnsupportedContentError,
    UserMessage,
)
from agentscope_py.interop._anthropic_read import READ_FIELDS as anthropic_reads
from agentscope_py.interop import (
    OpenAIStreamRelay,
    from_anthropic,
    from_anthropic_response,
    from_openai,
    from_openai_response,
    from_vercel_ai,
    repair_conversation,
    stop_reason,
    to_anthropic,
    to_openai,
)

_REASON = Msg.METADATA_GENERATE_REASON

COMPLETION: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "gpt-4o",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
                ],
            },
        }
    ],
    "usage": {
        "prompt_tokens": 20,
        "completion_tokens": 5,
        "total_tokens": 25,
        "prompt_tokens_details": {"cached_tokens": 8},
    },
}

ANSWER: dict[str, Any] = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Paris, then.", "signature": "EqQB"},
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 3, "cache_creation_input_tokens": 2, "cache_read_input_tokens": 10, "output_tokens": 4},
}


# -- OpenAI ---------------------------------------------------------------------------


def test_an_openai_completion_reads_as_its_message_with_usage_and_reason() -> None:
    message = from_openai_response(COMPLETION)
    assert isinstance(message, AssistantMessage)
    assert message.content == (
        TextBlock("Let me look."),
        ToolUseBlock("call_1", "get_weather", {"city": "Paris"}, '{"city":"Paris"}'),
    )
    assert message.usage == ChatUsage(input_tokens=20, output_tokens=5, cached_tokens=8)
    assert message.get_generate_reason() is GenerateReason.TOOL_CALLS
    assert message.metadata["openai"] == {
        "response": {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4o",
            "usage": COMPLETION["usage"],
            "choice": {"index": 0, "finish_reason": "tool_calls", "logprobs": None},
        }
    }
    # What describes the call stays out of the turn.
    assert to_openai([UserMessage("weather?"), message, ToolResultMessage.of("call_1", "get_weather", "sunny")]) == [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": COMPLETION["choices"][0]["message"]["tool_calls"]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]


@pytest.mark.parametrize("content", [None, "", " \n", []], ids=["null", "empty", "blank", "no parts"])
def test_a_refusal_is_what_the_message_says(content: Any) -> None:
    # Some servers send an empty string beside the refusal, where OpenAI sends null.
    refused = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": content, "refusal": "I can't help with that."}}]}
    message = from_openai_response(refused)
    assert message.content == (TextBlock("I can't help with that."),)
    assert message.get_text_content() == "I can't help with that."
    assert message.metadata["openai"]["refusal"] == "I can't help with that."
    conversation = [UserMessage("how do I ..."), message, UserMessage("ok, something else")]
    assert repair_conversation(conversation).changes == ()  # not an empty message to drop
    assert to_anthropic(conversation)["messages"][1] == {"role": "assistant", "content": "I can't help with that."}


def test_a_refusal_reads_alike_from_the_answer_and_from_its_message_and_goes_back_once() -> None:
    completion = ChatCompletion.model_validate({**COMPLETION, "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "refusal": "I cannot help with that."}}]})
    reply = from_openai_response(completion)
    # The SDK's way: the answer's message appended to the conversation as it is.
    _, appended = from_openai([{"role": "user", "content": "q"}, completion.choices[0].message])
    assert reply.content == appended.content == (TextBlock("I cannot help with that."),)
    # Said once, as the refusal: no content repeats it (as OpenAI's Agents SDK sends one back).
    request = to_openai([UserMessage("q"), reply, UserMessage("ok")])
    assert request[1] == {"role": "assistant", "refusal": "I cannot help with that."}
    conform(request[1], ChatCompletionMessageParam)
    assert to_openai([UserMessage("q"), appended])[1] == {"role": "assistant", "content": None, "refusal": "I cannot help with that."}
    # An edit is written, and the refusal it replaced is not sent beside it.
    edited = reply.with_content([TextBlock("Let me answer another way.")])
    assert to_openai([UserMessage("q"), edited])[1] == {"role": "assistant", "content": "Let me answer another way."}


@pytest.mark.parametrize("given", [None, {}, COMPLETION, ChatCompletion.model_validate(COMPLETION), "length"])
def test_stop_reason_of_anything_but_a_message_says_what_to_pass(given: Any) -> None:
    with pytest.raises(ArgumentTypeError, match="pass the one that from_openai_response or from_anthropic_response gave"):
        stop_reason(given)


def test_an_answer_from_the_sdks_parse_goes_into_the_next_request_as_the_api_takes_it() -> None:
    class City(BaseModel):
        city: str

    raw = ChatCompletion.model_validate({**COMPLETION, "choices": [
        {"index": 0, "finish_reason": "stop", "logprobs": None, "message": {"role": "assistant", "content": '{"city":"Paris"}'}}]})
    parsed = parse_chat_completion(response_format=City, input_tools=[], chat_completion=raw)
    assert parsed.choices[0].message.parsed == City(city="Paris")
    message = from_openai_response(parsed)
    request = to_openai([UserMessage("where?"), message])
    assert request[1] == {"role": "assistant", "content": '{"city":"Paris"}'}  # no "parsed", no "tool_calls": null
    conform(request[1], ChatCompletionMessageParam)


def test_a_tool_call_parsed_by_the_sdk_goes_back_without_its_parsed_arguments() -> None:
    class GetWeather(BaseModel):
        city: str

    call = {"id": "call_1", "type": "function", "function": {"name": "GetWeather", "arguments": '{"city":"Paris"}'}}
    raw = ChatCompletion.model_validate({**COMPLETION, "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [call]}}]})
    tool = openai.pydantic_function_tool(GetWeather)
    parsed = parse_chat_completion(response_format=openai.omit, input_tools=[tool], chat_completion=raw)
    (parsed_call,) = parsed.choices[0].message.tool_calls or []
    assert parsed_call.function.parsed_arguments == GetWeather(city="Paris")
    request = to_openai([UserMessage("q"), from_openai_response(parsed), ToolResultMessage.of("call_1", "GetWeather", "sunny")])
    assert request[1] == {"role": "assistant", "tool_calls": [call]}


AUDIO = {"id": "audio_1", "data": "UklGRg==", "expires_at": 1700000000, "transcript": "Hello there"}


@pytest.mark.parametrize("content", [None, ""], ids=["null", "empty"])
def test_an_audio_answer_says_its_transcript_and_goes_back_by_its_id(content: Any) -> None:
    answer = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": content, "audio": AUDIO}}]}
    message = from_openai_response(answer)
    assert message.get_text_content() == "Hello there"
    assert message.metadata["openai"]["response"]["audio"] == AUDIO  # the data stays with the answer
    conversation = [UserMessage("hi"), message, UserMessage("and then?")]
    assert repair_conversation(conversation).changes == ()
    request = to_openai(conversation)
    assert request[1]["audio"] == {"id": "audio_1"}  # the request's Audio has only the id
    conform(request[1], ChatCompletionMessageParam)
    assert to_anthropic(conversation)["messages"][1] == {"role": "assistant", "content": "Hello there"}


def test_an_audio_answer_whose_text_is_edited_goes_back_without_its_audio() -> None:
    # The audio says the transcript: sent beside the edited text, the model would still hear what
    # the edit took out.  An edit made after reading is written, never undone by a carried field.
    answer = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": None, "audio": AUDIO}}]}
    message = from_openai_response(answer)
    redacted = message.with_content([TextBlock("[redacted]")])
    assert to_openai([UserMessage("hi"), redacted])[1] == {"role": "assistant", "content": "[redacted]"}
    assert to_openai([UserMessage("hi"), message])[1]["audio"] == {"id": "audio_1"}  # unedited: by its id
    # Its text taken away, it says nothing at all: refused as the API would refuse it.
    with pytest.raises(ConversationError):
        to_openai([UserMessage("hi"), message.with_content([])])
    # A transcript that says nothing was never the text: the audio is all the answer says, and goes back.
    silent = {**AUDIO, "transcript": " "}
    unsaid = from_openai_response({"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": None, "audio": silent}}]})
    assert to_openai([UserMessage("hi"), unsaid])[1] == {"role": "assistant", "audio": {"id": "audio_1"}}


def test_an_audio_answer_s_message_reads_alike_from_the_answer_and_from_a_history() -> None:
    completion = ChatCompletion.model_validate({**COMPLETION, "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "refusal": None, "audio": AUDIO}}]})
    reply = from_openai_response(completion)
    # The SDK's way: the answer's message appended to the conversation as it is, or dumped.
    message = completion.choices[0].message
    for appended in (message, message.model_dump(), message.model_dump(mode="json")):
        _, read = from_openai([{"role": "user", "content": "hi"}, appended])
        assert read.content == reply.content == (TextBlock("Hello there"),)
        assert read.metadata["openai"]["audio"] == {"id": "audio_1"}
        assert read.metadata["openai"]["response"] == {"audio": AUDIO}  # the rest describes the answer
        conversation = [UserMessage("hi"), read, UserMessage("and then?")]
        assert repair_conversation(conversation).changes == ()  # no empty turn to drop
        request = to_openai(conversation)
        assert request[1] == {"role": "assistant", "content": "Hello there", "refusal": None, "audio": {"id": "audio_1"},
                              **({"function_call": None} if appended is not message else {})}
        conform(request[1], ChatCompletionMessageParam)
        assert stop_reason(read) is None  # read from no answer


@pytest.mark.parametrize(
    "said", [{"audio": {"id": "audio_1"}}, {"function_call": {"name": "f", "arguments": "{}"}}], ids=["audio", "function_call"]
)
def test_an_assistant_turn_holding_only_what_the_api_takes_for_content_is_sent(said: dict[str, Any]) -> None:
    payload = [{"role": "user", "content": "hi"}, {"role": "assistant", **said}, {"role": "user", "content": "more"}]
    assert to_openai(from_openai(payload)) == payload  # not refused as an empty assistant message
    # a null one holds nothing
    with pytest.raises(ConversationError, match=r"would reject this conversation: messages\[1\]: assistant message with no content\."):
        to_openai(from_openai([payload[0], {"role": "assistant", **dict.fromkeys(said)}, payload[2]]))


def test_sdk_objects_inside_a_completion_dict_read_as_their_json() -> None:
    completion = ChatCompletion.model_validate(COMPLETION)
    as_dict = {"choices": completion.choices, "usage": completion.usage}
    assert comparable([from_openai_response(as_dict)]) == comparable([from_openai_response({
        "choices": COMPLETION["choices"], "usage": COMPLETION["usage"]})])
    sdk_choice = completion.choices[0]
    logprobs = ChoiceLogprobs(content=[])
    in_a_dict = {"message": sdk_choice.message, "finish_reason": "tool_calls", "index": 0, "logprobs": logprobs}
    read = from_openai_response({"choices": [in_a_dict]})
    assert read.metadata["openai"]["response"]["choice"]["logprobs"] == {"content": []}


def test_the_nulls_of_a_tool_call_s_input_are_its_own() -> None:
    # Only the fields kept as they came lose their nulls: a read field (input) is data, also where the
    # block's type is a str subclass, as in a document built in Python.
    class Tag(str):
        pass

    for kind in ("tool_use", Tag("tool_use")):
        answer = {**ANSWER, "content": [{"type": kind, "id": "c", "name": "f", "input": {"when": None}}]}
        (call,) = from_anthropic_response(answer).content
        assert isinstance(call, ToolUseBlock) and call.input == {"when": None}


@pytest.mark.parametrize("form", ["object", "model_dump", "exclude_none", "json"])
def test_an_anthropic_answer_s_citation_goes_back_as_a_request_holds_it(form: str) -> None:
    # An untitled document's citation has a null document_title, which a request's citation must
    # have (Required[Optional[str]]); a file's has its file_id, which no request's has.
    citation = {"type": "char_location", "cited_text": "Paris", "document_index": 0, "document_title": None,
                "start_char_index": 0, "end_char_index": 5}
    sdk = Message.model_validate(
        {**ANSWER, "content": [{"type": "text", "text": "Per the doc", "citations": [{**citation, "file_id": "file_011"}]}]})
    given = {"object": sdk, "model_dump": sdk.model_dump(), "exclude_none": sdk.model_dump(exclude_none=True),
             "json": sdk.model_dump(mode="json")}[form]
    request = to_anthropic([UserMessage("q"), from_anthropic_response(given)], validate=False)
    assert request["messages"][1]["content"][0]["citations"] == [citation]
    conform(request["messages"], list[MessageParam])


def test_a_refusal_beside_tool_calls_leaves_the_calls_alone() -> None:
    completion = {"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "", "refusal": "no",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}
    assert from_openai_response(completion).content == (TextBlock(""), ToolUseBlock("c", "f", {}, "{}"))


def test_a_call_s_own_fields_go_into_the_next_request() -> None:
    # Gemini's OpenAI-compatible endpoint refuses the next request unless each call's signature comes back.
    signed = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"},
              "extra_content": {"google": {"thought_signature": "SIG=="}}}
    completion = ChatCompletion.model_validate({**COMPLETION, "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [signed]}}]})
    reply = from_openai_response(completion)
    request = to_openai([UserMessage("q"), reply, ToolResultMessage.of("c1", "f", "ok")])
    assert request[1] == {"role": "assistant", "tool_calls": [signed]}


def test_the_openai_sdk_object_reads_as_the_json_it_came_from() -> None:
    from_sdk = from_openai_response(ChatCompletion.model_validate(COMPLETION))
    assert comparable([from_sdk]) == comparable([from_openai_response(COMPLETION)])
    assert from_sdk.usage == ChatUsage(20, 5, 8)


@pytest.mark.parametrize(
    ("finish_reason", "reason"),
    [
        ("stop", GenerateReason.MODEL_STOP),
        ("tool_calls", GenerateReason.TOOL_CALLS),
        ("function_call", None),  # a legacy call is carried, not a ToolUseBlock to look for
        ("length", None),
        ("content_filter", None),
        (None, None),
    ],
)
def test_openai_finish_reasons(finish_reason: str | None, reason: GenerateReason | None) -> None:
    choice = {"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", "content": "hi"}}
    message = from_openai_response({"choices": [choice]})
    assert message.metadata.get(_REASON) == (None if reason is None else reason.name)
    assert message.metadata["openai"]["response"]["choice"]["finish_reason"] == finish_reason
    assert stop_reason(message) == finish_reason  # "length" tells a truncated answer from a finished one
    assert message.usage is None  # no usage in the answer


def test_the_stop_reason_is_the_answer_s_and_no_turn_s() -> None:
    cut = from_openai_response({"choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "x"}}]})
    assert stop_reason(cut) == "length" and cut.get_generate_reason() is GenerateReason.MODEL_STOP
    assert stop_reason(Msg.from_json(cut.to_json())) == "length"  # stored with the message
    # A turn of a request was no answer: it has none, nor does a message whose kept fields are not the reader's.
    assert stop_reason(from_openai(to_openai([UserMessage("q"), cut]))[1]) is None
    assert stop_reason(AssistantMessage("x", metadata={"openai": {"response": {"choice": "length"}}})) is None
    assert stop_reason(AssistantMessage("x", metadata={"anthropic": {"response": {"stop_reason": 3}}})) is None


def test_a_responses_api_answer_is_refused_by_what_it_is() -> None:
    answer = {"id": "resp_1", "object": "response", "output": [{"type": "message", "role": "assistant", "content": []}]}
    with pytest.raises(DecodeError, match="Responses API answer") as caught:
        from_openai_response(answer)
    assert caught.value.path == "object"


def test_json_text_and_a_bare_message_are_refused_saying_what_to_give() -> None:
    answer: dict[str, Any] = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                              "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}
    readers: list[tuple[Callable[[Any], AssistantMessage], str]] = [
        (from_openai_response, json.dumps(answer)),
        (from_anthropic_response, '{"type": "message"}'),
    ]
    for reader, text in readers:
        for form in (text, text.encode()):
            with pytest.raises(DecodeError, match=r"^expected the answer as a dict or the SDK's object, got JSON text: parse it first"):
                reader(form)
    with pytest.raises(DecodeError, match=r"^choices: missing required key 'choices': this is a message, not the whole answer") as caught:
        from_openai_response(ChatCompletionMessage.model_validate(answer["choices"][0]["message"]))
    assert "from_openai" in str(caught.value)
    with pytest.raises(DecodeError, match=r"got string; parse each server-sent event's data as JSON first"):
        OpenAIStreamRelay(ReplyEmitter()).feed(json.dumps(answer))


def test_a_stream_given_for_the_whole_answer_is_refused_saying_what_to_do() -> None:
    # client.chat.completions.create(..., stream=True) gives the SDK's Stream; a generator of chunks alike. (The
    # SDK may vendor its own httpx: the response is typed Any.)
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []}
    http: Any = httpx.Response(200, content=f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode(), request=httpx.Request("POST", "http://x"))
    sdk_stream = openai.Stream(cast_to=ChatCompletionChunk, response=http, client=openai.OpenAI(api_key="k", base_url="http://x"))

    async def chunks() -> Any:
        yield chunk

    for stream in (sdk_stream, iter([chunk]), chunks()):
        with pytest.raises(DecodeError, match=r"^expected the whole answer, got a stream of it \(\w+\): give each chunk to OpenAIStreamRelay"):
            from_openai_response(stream)
    with pytest.raises(DecodeError, match=r"\(generator\): give each event to AnthropicStreamRelay, or .*get_final_message\(\)"):
        from_anthropic_response(event for event in [{"type": "message_start"}])


def test_an_sdk_object_inside_a_dict_answer_is_read_as_its_json() -> None:
    # dict(message) of the SDK's Message: its blocks and its usage stay the SDK's objects.
    answer = Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Hi."}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    })
    read = from_anthropic_response(dict(answer))
    assert read.usage == ChatUsage(3, 4) and read.content == (TextBlock("Hi."),)
    assert read.metadata["anthropic"]["response"]["usage"] == {"input_tokens": 3, "output_tokens": 4}
    assert Msg.from_json(read.to_json()) == read


def test_a_streaming_chunk_is_refused_by_what_it_is() -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]}
    with pytest.raises(DecodeError, match=r"streaming chunk \(chat\.completion\.chunk\).*get_final_completion") as caught:
        from_openai_response(chunk)
    assert caught.value.path == "object"


_OPENAI_ANSWER = "an OpenAI Chat Completions answer; read it with from_openai_response"
_ANTHROPIC_ANSWER = "an Anthropic Messages answer; read it with from_anthropic_response"


@pytest.mark.parametrize("as_sdk_object", [False, True])
@pytest.mark.parametrize(
    ("read", "given", "message"),
    [
        (from_openai, "completion", "messages: expected a list of messages, got " + _OPENAI_ANSWER),
        (from_anthropic, "answer", "expected a list of messages, got " + _ANTHROPIC_ANSWER),
        # Each provider's answer given to the other's readers: not read as a message, nor as an answer.
        (from_openai, "answer", "messages: expected a list of messages, got " + _ANTHROPIC_ANSWER),
        (from_anthropic, "completion", "expected a list of messages, got " + _OPENAI_ANSWER),
        (from_openai_response, "answer", "this is " + _ANTHROPIC_ANSWER),
        (from_anthropic_response, "completion", "this is " + _OPENAI_ANSWER),
        (from_vercel_ai, "completion", "messages: expected a list of messages, got " + _OPENAI_ANSWER),
        # Inside the list: an Anthropic answer has a role and content, and the OpenAI reader read it as
        # a message, writing its id, model, stop_reason and usage into the next request.
        (from_openai, ["completion"], "messages[1]: got " + _OPENAI_ANSWER.replace(";", " where a message was expected;")),
        (from_openai, ["answer"], "messages[1]: got " + _ANTHROPIC_ANSWER.replace(";", " where a message was expected;")),
        (from_anthropic, ["completion"], "messages[1]: got " + _OPENAI_ANSWER.replace(";", " where a message was expected;")),
    ],
)
def test_an_answer_given_where_messages_are_expected_says_which_reader_takes_it(
    read: Callable[[Any], Any], given: str | list[str], message: str, as_sdk_object: bool
) -> None:
    answers = {
        "completion": ChatCompletion.model_validate(COMPLETION) if as_sdk_object else COMPLETION,
        "answer": Message.model_validate(ANSWER) if as_sdk_object else ANSWER,
    }
    payload = answers[given] if isinstance(given, str) else [{"role": "user", "content": "hi"}, answers[given[0]]]
    with pytest.raises(DecodeError) as caught:
        read(payload)
    assert str(caught.value) == message


def test_messages_that_only_share_keys_with_an_answer_are_read_as_messages() -> None:
    # An answer is told by every field its kind always has: a message with such a key added stays a
    # message, and an Anthropic answer appended to the history it answers is its next message.
    for extra in ({"type": "message", "model": "x"}, {"choices": [1]}, {"object": "response"}):
        for role in ("user", "assistant"):
            [message] = from_openai([{"role": role, "content": "q", **extra}])
            assert message.get_text_content() == "q"
    for answer in (ANSWER, Message.model_validate(ANSWER)):
        user, reply = from_anthropic({"messages": [{"role": "user", "content": "q"}, answer]})
        assert isinstance(reply, AssistantMessage) and reply.get_text_content() == from_anthropic_response(ANSWER).get_text_content()


def test_a_responses_api_answer_or_item_is_refused_by_what_it_is() -> None:
    with pytest.raises(DecodeError, match=r"^this is an OpenAI Responses API answer; this library reads OpenAI Chat Completions answers"):
        from_anthropic_response({"id": "resp_1", "object": "response", "output": []})
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    with pytest.raises(DecodeError, match=r"^messages\[0\]\.content\[0\]\.type: unknown part type 'input_text'.*\(a part of a Responses API item"):
        from_openai([item])
    with pytest.raises(DecodeError, match=r"got 'output_text' \(a part of a Responses API item: this reads Chat Completions messages\)$"):
        from_openai([{"role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}])


def test_a_request_body_given_to_the_openai_reader_says_to_pass_its_messages() -> None:
    with pytest.raises(DecodeError, match=r"^messages: .*pass its 'messages'$"):
        from_openai({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})


@pytest.mark.parametrize("event", ["message_start", "content_block_delta", "message_stop", "ping"])
def test_a_streaming_event_of_anthropic_is_refused_by_what_it_is(event: str) -> None:
    with pytest.raises(DecodeError, match=rf"streaming event \('{event}'\).*get_final_message") as caught:
        from_anthropic_response({"type": event})
    assert caught.value.path == "type"


def test_the_choice_to_read_is_chosen_by_index() -> None:
    completion = {
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "one"}},
            {"index": 1, "finish_reason": "length", "message": {"role": "assistant", "content": "two"}},
        ]
    }
    second = from_openai_response(completion, choice=1)
    assert second.get_text_content() == "two"
    assert second.metadata["openai"]["response"]["choice"] == {"index": 1, "finish_reason": "length"}
    with pytest.raises(DecodeError, match=r"^choices: there is no choice 2: the completion has 2$"):
        from_openai_response(completion, choice=2)
    with pytest.raises(DecodeError, match=r"^choices: there is no choice -1"):
        from_openai_response(completion, choice=-1)
    with pytest.raises(DecodeError, match=r"^choices: there is no choice 0: the completion has 0$"):
        from_openai_response({"choices": []})
    with pytest.raises(ArgumentTypeError, match="choice must be the index of a choice"):
        from_openai_response(completion, choice="1")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("completion", "path"),
    [
        ([], ""),
        ({}, ""),  # a missing key is named in the message, at its holder's path
        ({"choices": {}}, "choices"),
        ({"choices": [None]}, "choices[0]"),
        ({"choices": [{}]}, "choices[0]"),
        ({"choices": [{"message": {"role": "user", "content": "hi"}}]}, "choices[0].message.role"),
        ({"choices": [{"message": {"role": "assistant", "content": 3}}]}, "choices[0].message.content"),
        ({"choices": [{"message": {"role": "assistant"}, "finish_reason": 1}]}, "choices[0].finish_reason"),
        (
            {"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}]}}]},
            "choices[0].message.tool_calls[0].function",
        ),
        ({"choices": [{"message": {"role": "assistant"}}], "usage": []}, "usage"),
        ({"choices": [{"message": {"role": "assistant"}}], "usage": {"prompt_tokens": "1", "completion_tokens": 1}}, "usage.prompt_tokens"),
        ({"choices": [{"message": {"role": "assistant"}}], "usage": {"prompt_tokens": 1}}, "usage"),
        ({"choices": [{"message": {"role": "assistant"}}], "usage": {"prompt_tokens": 1, "completion_tokens": "1"}}, "usage.completion_tokens"),
        (
            {"choices": [{"message": {"role": "assistant"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 1.5}}},
            "usage.prompt_tokens_details.cached_tokens",
        ),
    ],
)
def test_a_malformed_openai_completion_names_the_path(completion: Any, path: str) -> None:
    with pytest.raises(DecodeError) as caught:
        from_openai_response(completion)
    assert caught.value.path == path


@given(openai_responses(), st.data())
def test_any_openai_completion_reads_as_the_request_reader_reads_its_message(
    completion: dict[str, Any], data: st.DataObject
) -> None:
    index = data.draw(st.integers(min_value=0, max_value=len(completion["choices"]) - 1))
    choice = completion["choices"][index]
    message = from_openai_response(completion, choice=index)
    # An answer's null fields are fields it does not have.  The rest reads as the request reader reads
    # it: an audio answer's transcript, or a refusal with no content, is the text, and the audio goes
    # back by its id, kept whole in "response".
    (as_request,) = from_openai([{key: value for key, value in choice["message"].items() if value is not None}])
    assert message.content == as_request.content
    assert to_openai([message], validate=False) == to_openai([as_request], validate=False)
    kept = dict(message.metadata["openai"])
    request_kept = dict(as_request.metadata.get("openai", {}))
    assert kept.pop("response") == {
        **{key: value for key, value in completion.items() if key != "choices"},
        "choice": {key: value for key, value in choice.items() if key != "message"},
        **request_kept.pop("response", {}),
    }
    assert kept == request_kept
    usage = completion.get("usage")
    assert message.usage == (
        None
        if usage is None
        else ChatUsage(usage["prompt_tokens"], usage["completion_tokens"], usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
    )


# -- Anthropic ------------------------------------------------------------------------


def test_an_anthropic_answer_reads_as_its_turn_with_usage_and_reason() -> None:
    message = from_anthropic_response(ANSWER)
    (as_request,) = from_anthropic({"messages": [{"role": "assistant", "content": ANSWER["content"]}]})
    assert message.content == as_request.content
    # Every input token, as OpenAI counts them: fresh, written to the cache, read from it.
    assert message.usage == ChatUsage(input_tokens=15, output_tokens=4, cached_tokens=10)
    assert message.get_generate_reason() is GenerateReason.TOOL_CALLS
    assert message.metadata["anthropic"] == {
        "response": {key: value for key, value in ANSWER.items() if key not in ("role", "content")}
    }
    request = to_anthropic([UserMessage("weather?"), message, ToolResultMessage.of("toolu_1", "get_weather", "sunny")])
    assert request["messages"][1] == {"role": "assistant", "content": ANSWER["content"]}


def test_the_anthropic_sdk_object_reads_as_the_json_it_came_from() -> None:
    from_sdk = from_anthropic_response(Message.model_validate(ANSWER))
    assert comparable([from_sdk]) == comparable([from_anthropic_response(ANSWER)])
    # Its plain model_dump() writes null for every field left unset (caller, citations …): read as
    # unset, so that the next request does not send them.
    dumped = from_anthropic_response(Message.model_validate(ANSWER).model_dump())
    assert to_anthropic([UserMessage("q"), dumped], validate=False) == to_anthropic([UserMessage("q"), from_sdk], validate=False)


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("end_turn", GenerateReason.MODEL_STOP),
        ("stop_sequence", GenerateReason.MODEL_STOP),
        ("tool_use", GenerateReason.TOOL_CALLS),
        ("max_tokens", None),
        ("pause_turn", None),
        ("refusal", None),
        (None, None),
    ],
)
def test_anthropic_stop_reasons(given: str | None, reason: GenerateReason | None) -> None:
    message = from_anthropic_response({"role": "assistant", "content": [], "stop_reason": given})
    assert message.metadata.get(_REASON) == (None if reason is None else reason.name)
    assert stop_reason(message) == given  # "max_tokens" tells a truncated answer from a finished one
    assert message.content == ()
    assert message.usage is None


@pytest.mark.parametrize(
    ("answer", "path"),
    [
        ("hi", ""),
        ({"type": "error", "error": {"type": "overloaded_error"}}, "type"),
        ({"content": []}, ""),
        ({"role": "user", "content": []}, "role"),
        ({"role": "assistant"}, ""),
        ({"role": "assistant", "content": [{"type": "text"}]}, "content[0]"),
        ({"role": "assistant", "content": [{"type": None, "text": "x"}]}, "content[0].type"),  # null, not missing
        ({"role": "assistant", "content": [{"type": "text", "text": None}]}, "content[0].text"),
        ({"role": "assistant", "content": [], "stop_reason": 7}, "stop_reason"),
        ({"role": "assistant", "content": [], "usage": {"output_tokens": 1}}, "usage"),
        ({"role": "assistant", "content": [], "usage": {"input_tokens": 1, "output_tokens": "4"}}, "usage.output_tokens"),
        ({"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": 7}]}, "content[0].signature"),
        (
            {"role": "assistant", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": "9"}},
            "usage.cache_read_input_tokens",
        ),
    ],
)
def test_a_malformed_anthropic_answer_names_the_path(answer: Any, path: str) -> None:
    with pytest.raises(DecodeError) as caught:
        from_anthropic_response(answer)
    assert caught.value.path == path


# -- server tools' blocks, kept whole in place ---------------------------------------------

_SEARCH = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather paris"}}
_FOUND = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
    {"type": "web_search_result", "url": "https://example.com/w", "title": "Weather", "encrypted_content": "EqgfCioIARgB",
     "page_age": "1 day"}]}
_CITED = {"type": "text", "text": "It is sunny.", "citations": [
    {"type": "web_search_result_location", "url": "https://example.com/w", "title": "Weather",
     "encrypted_index": "Eo8BCioIAhgB", "cited_text": "Sunny today in Paris"}]}
_THOUGHT = {"type": "thinking", "thinking": "Search first.", "signature": "EqQBCkYIARgC"}


def _anthropic_answer(content: list[dict[str, Any]], stop: str = "end_turn", **fields: Any) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 8}, **fields}


def test_a_web_search_answer_reads_and_its_server_blocks_go_back_in_place() -> None:
    wire = _anthropic_answer([_THOUGHT, _SEARCH, _FOUND, _CITED])
    sdk = Message.model_validate(wire)
    for answer in (wire, sdk, sdk.model_dump(), sdk.model_dump(mode="json")):
        reply = from_anthropic_response(answer)
        thought, text = reply.content
        assert isinstance(thought, ThinkingBlock) and text == TextBlock("It is sunny.")
        follow_up = [UserMessage("Weather in Paris?"), reply, UserMessage("Thanks. And Rome?")]
        request = to_anthropic(follow_up)
        # Exactly as answered (the thinking's signature holds only so), nulls of unset fields aside.
        assert request["messages"][1] == {"role": "assistant", "content": [_THOUGHT, _SEARCH, _FOUND, _CITED]}
        conform(request["messages"], list[MessageParam])
        # Anthropic's alone: another format does not see them.
        assert to_openai(follow_up, on_unsupported="drop")[1] == {"role": "assistant", "content": "It is sunny."}


def test_a_paused_answer_goes_back_as_it_is_and_its_continuation_joins_it() -> None:
    paused = from_anthropic_response(_anthropic_answer([{"type": "text", "text": "Searching."}, _SEARCH], "pause_turn"))
    assert stop_reason(paused) == "pause_turn" and paused.content == (TextBlock("Searching."),)
    question = UserMessage("Weather in Paris?")
    assert to_anthropic([question, paused])["messages"][1] == {
        "role": "assistant", "content": [{"type": "text", "text": "Searching."}, _SEARCH]}
    # An answer of server blocks alone holds no block of ours: sent all the same, empty elsewhere.
    only = from_anthropic_response(_anthropic_answer([_SEARCH], "pause_turn"))
    assert only.content == ()
    assert to_anthropic([question, only])["messages"][1] == {"role": "assistant", "content": [_SEARCH]}
    with pytest.raises(ConversationError, match="assistant message with no content"):
        to_openai([question, only])
    rest = from_anthropic_response(_anthropic_answer([_FOUND, _CITED]))
    assert to_anthropic([question, only, rest])["messages"][1]["content"] == [_SEARCH, _FOUND, _CITED]


def test_a_block_type_added_after_us_is_kept_whole_in_an_answer() -> None:
    newer = {"type": "brand_new_block", "payload": {"x": [1, None]}, "unset": None}
    reply = from_anthropic_response(_anthropic_answer([{"type": "text", "text": "a"}, newer]))
    assert reply.content == (TextBlock("a"),)
    # Its unset (null) fields left out, as for any block read from a model_dump(); the nulls inside are its own.
    assert to_anthropic([UserMessage("q"), reply])["messages"][1]["content"] == [
        {"type": "text", "text": "a"}, {"type": "brand_new_block", "payload": {"x": [1, None]}}]


# -- a plain model_dump() and nulls the SDK lets through ------------------------------------


def test_an_answer_with_a_container_reads_the_same_from_the_sdk_object_and_either_dump() -> None:
    sdk = Message.model_validate(_anthropic_answer(
        [{"type": "text", "text": "a"}], container={"id": "cntr_1", "expires_at": "2026-01-01T00:00:00Z"}))
    from_object, from_dump, from_json = (
        from_anthropic_response(form) for form in (sdk, sdk.model_dump(), sdk.model_dump(mode="json"))
    )
    assert from_object.metadata["anthropic"]["response"]["container"] == {"id": "cntr_1", "expires_at": "2026-01-01T00:00:00Z"}
    assert comparable([from_dump]) == comparable([from_json])
    assert (from_object.content, from_object.usage) == (from_dump.content, from_dump.usage)
    assert from_dump.metadata["anthropic"]["response"]["container"]["expires_at"] == "2026-01-01T00:00:00Z"


def test_python_times_in_an_answer_read_as_their_json_does() -> None:
    east = dt.timezone(dt.timedelta(hours=2))
    answer = _anthropic_answer([{"type": "text", "text": "a"}], x_times=[
        dt.datetime(2026, 1, 1, 0, 0, 0, 123000, tzinfo=east), dt.datetime(2026, 1, 1), dt.date(2026, 1, 2)])
    kept = from_anthropic_response(answer).metadata["anthropic"]["response"]["x_times"]
    assert kept == ["2026-01-01T00:00:00.123000+02:00", "2026-01-01T00:00:00", "2026-01-02"]
    # OpenAI's SDK gives no time today; an answer built in Python holding one reads all the same.
    completion = {**COMPLETION, "x_expires": dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)}
    assert from_openai_response(completion).metadata["openai"]["response"]["x_expires"] == "2026-01-01T00:00:00Z"


def test_a_null_token_count_reads_as_zero_and_stays_null_in_the_response() -> None:
    answer = _anthropic_answer([{"type": "text", "text": "a"}])
    answer["usage"] = {"input_tokens": 9, "output_tokens": None, "cache_read_input_tokens": 2}
    reply = from_anthropic_response(answer)
    assert reply.usage == ChatUsage(input_tokens=11, output_tokens=0, cached_tokens=2)
    assert reply.metadata["anthropic"]["response"]["usage"]["output_tokens"] is None
    completion = {**COMPLETION, "usage": {"prompt_tokens": 20, "completion_tokens": None}}
    assert from_openai_response(completion).usage == ChatUsage(input_tokens=20, output_tokens=0, cached_tokens=0)


def test_a_thinking_block_with_a_null_signature_reads_as_unsigned_thinking() -> None:
    reply = from_anthropic_response(_anthropic_answer(
        [{"type": "thinking", "thinking": "hmm", "signature": None}, {"type": "text", "text": "a"}]))
    assert reply.content == (ThinkingBlock("hmm"), TextBlock("a"))
    with pytest.raises(UnsupportedContentError, match=r"ThinkingBlock without a signature \(messages\[1\]\.content\[0\]\)"):
        to_anthropic([UserMessage("q"), reply])
    assert to_anthropic([UserMessage("q"), reply], on_unsupported="drop")["messages"][1]["content"] == "a"


@given(anthropic_responses())
def test_any_anthropic_answer_reads_as_the_request_reader_reads_its_turn(answer: dict[str, Any]) -> None:
    message = from_anthropic_response(answer)
    # An answer's null block field is one left unset (the SDK's model_dump() writes them all), but for
    # those the reader reads.
    content = [
        {key: value for key, value in block.items() if value is not None or key in anthropic_reads.get(block["type"], ())}
        for block in answer["content"]
    ]
    (as_request,) = from_anthropic({"messages": [{"role": "assistant", "content": content}]})
    assert to_anthropic([message], validate=False) == to_anthropic([as_request], validate=False)
    kept = dict(message.metadata["anthropic"])
    assert kept.pop("response") == {key: value for key, value in answer.items() if key not in ("role", "content")}
    assert kept == as_request.metadata.get("anthropic", {})
    usage = answer["usage"]
    cache_read = usage.get("cache_read_input_tokens") or 0
    input_tokens = usage["input_tokens"] + (usage.get("cache_creation_input_tokens") or 0) + cache_read
    assert message.usage == ChatUsage(input_tokens, usage["output_tokens"], cache_read)


# -- untrusted answers ----------------------------------------------------------------

_READERS = [from_openai_response, from_anthropic_response]
_ANSWERS = [openai_responses(), anthropic_responses()]


def _outcome(read: Any, answer: Any) -> Any:
    try:
        return comparable([read(answer)])
    except AgentScopeError as error:
        assert isinstance(error, (DecodeError, UnsupportedContentError)), error
        if isinstance(error, DecodeError):
            assert str(error).startswith(error.path)
        return type(error), str(error)


@pytest.mark.parametrize(("read", "answers"), list(zip(_READERS, _ANSWERS)), ids=["openai", "anthropic"])
@given(data=st.data())
def test_any_json_or_mutated_answer_reads_or_is_refused_clearly(read: Any, answers: Any, data: st.DataObject) -> None:
    _outcome(read, data.draw(json_values() | mutated(answers)))


@pytest.mark.parametrize(("read", "answers"), list(zip(_READERS, _ANSWERS)), ids=["openai", "anthropic"])
@given(data=st.data())
def test_an_answer_built_in_python_reads_as_its_json_would(read: Any, answers: Any, data: st.DataObject) -> None:
    answer = data.draw(answers | mutated(answers))
    assert _outcome(read, data.draw(as_built_in_python(answer))) == _outcome(read, answer)


@pytest.mark.parametrize("read", _READERS, ids=["openai", "anthropic"])
def test_an_answer_nested_past_the_recursion_limit_is_a_decode_error(read: Any) -> None:
    deep: Any = "x"
    for _ in range(100_000):
        deep = {"a": deep}
    answer = {"role": "assistant", "content": [], "x_trace": deep}
    with pytest.raises(DecodeError, match="^the payload is nested too deeply to read$"):
        read({"choices": [{"message": answer}]} if read is from_openai_response else answer)


def test_token_counts_that_sum_past_a_java_int_are_refused_where_they_are() -> None:
    answer = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 0, "cache_creation_input_tokens": 2**31 - 1},
    }
    with pytest.raises(DecodeError, match=r"^usage: ChatUsage.input_tokens must be from -2147483648 to 2147483647"):
        from_anthropic_response(answer)


def test_whole_float_token_counts_read_as_ints() -> None:
    completion = {
        "choices": [{"message": {"role": "assistant", "content": "hi"}}],
        "usage": {"prompt_tokens": 3.0, "completion_tokens": 4.0, "prompt_tokens_details": {"cached_tokens": 2.0}},
    }
    usage = from_openai_response(completion).usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (3, 4, 2)
    assert {type(usage.input_tokens), type(usage.output_tokens), type(usage.cached_tokens)} == {int}
    assert usage.to_dict()["inputTokens"] == 3 and "3.0" not in usage.to_json()

"""OpenAI Chat Completions: mapping, round trips both ways, policies, tool turns, SDK conformance."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from contextlib import nullcontext
from typing import Any

import openai
import pytest
from hypothesis import given
from interop_compare import comparable, conversations_for
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionContentPartText,
    ChatCompletionMessageParam,
)
from provider_payloads import OPENAI_UNREAD, as_openai_reads_them, openai_payloads
from sdk_types import conform, problems
from read_only import assert_plain

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ConversationError,
    DataBlock,
    DecodeError,
    HintBlock,
    ImageBlock,
    Msg,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py.interop import (
    ConversionNote,
    from_openai,
    from_openai_response,
    repair_conversation,
    stop_reason,
    to_agentflow,
    to_anthropic,
    to_openai,
    to_swarm_kit,
    to_vercel_ai,
    validate_conversation,
)


def conforms(payload: list[dict[str, Any]], *, allow: Collection[str] = ()) -> None:
    """Every message is a ``ChatCompletionMessageParam``, closed: no key the SDK's types do not define
    (but those ``allow`` names), no required key missing (see ``sdk_types``)."""
    conform(list(payload), list[ChatCompletionMessageParam], allow=allow)


# -- worked examples ------------------------------------------------------------

CONVERSATION: list[dict[str, Any]] = [
    {"role": "developer", "content": "Answer briefly."},
    {
        "role": "user",
        "name": "alice",
        "content": [
            {"type": "text", "text": "What is in this picture, and the weather in Paris?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "assistant", "content": "A cat; and it is sunny in Paris."},
]


def test_reads_each_role_into_its_message_class() -> None:
    developer, user, call, result, answer = from_openai(CONVERSATION)
    assert isinstance(developer, SystemMessage) and developer.get_text_content() == "Answer briefly."
    assert developer.metadata["openai"] == {"role": "developer"}
    assert isinstance(user, UserMessage) and user.name == "alice"
    assert user.content[1] == DataBlock(URLSource("https://example.com/cat.png"), id=user.content[1].id)  # type: ignore[union-attr]
    assert user.metadata["openai"]["parts"] == {"1": {"image_url": {"detail": "high"}}}
    assert isinstance(call, AssistantMessage)
    assert call.content == (ToolUseBlock("call_1", "get_weather", {"city": "Paris"}, '{"city": "Paris"}'),)
    assert isinstance(result, ToolResultMessage)
    assert result.content == (ToolResultBlock("call_1", "get_weather", TextBlock("sunny"), state=ToolResultState.SUCCESS),)
    assert isinstance(answer, AssistantMessage) and answer.get_text_content() == "A cat; and it is sunny in Paris."


def test_writes_the_conversation_back_exactly() -> None:
    out = to_openai(from_openai(CONVERSATION))
    assert out == CONVERSATION
    assert out.notes == ()
    conforms(out)


def test_ids_and_timestamps_are_generated_because_the_format_has_none() -> None:
    first, second = from_openai(CONVERSATION[:2])
    assert first.id and second.id and first.id != second.id
    assert first.timestamp is not None


def test_raw_argument_text_is_kept_byte_for_byte() -> None:
    raw = '{ "city" :"Paris",\n "days": 1.0e0 }'
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}]
    (message,) = from_openai(payload)
    call = message.content[0]
    assert isinstance(call, ToolUseBlock) and call.content == raw and call.input == {"city": "Paris", "days": 1.0}
    assert to_openai([message], validate=False)[0]["tool_calls"][0]["function"]["arguments"] == raw


@pytest.mark.parametrize("raw", ["", "{", '{"city": "Par', "[1, 2]", "null", "5"])
def test_arguments_that_are_not_a_json_object_keep_the_text_and_an_empty_input(raw: str) -> None:
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}]
    call = from_openai(payload)[0].content[0]
    assert isinstance(call, ToolUseBlock) and call.input == {} and call.content == raw
    assert to_openai(from_openai(payload), validate=False) == payload


def test_a_call_built_without_raw_text_is_written_compactly() -> None:
    calls = [AssistantMessage(ToolUseBlock("c", "f", {"city": "Zürich", "n": [1, 2]})), ToolResultMessage.of("c", "f", "ok")]
    assert to_openai(calls)[0]["tool_calls"][0]["function"]["arguments"] == '{"city":"Zürich","n":[1,2]}'


def test_media_parts() -> None:
    user = UserMessage(
        DataBlock(Base64Source("image/png", "iVBO")),
        ImageBlock(URLSource("https://e.com/x.jpg")),
        DataBlock(Base64Source("audio/wav", "UklG")),
        AudioBlock(Base64Source("audio/mpeg", "SUQz")),
        DataBlock(Base64Source("application/pdf", "JVBE"), name="report.pdf"),
    )
    out = to_openai([user])
    assert out[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
        {"type": "image_url", "image_url": {"url": "https://e.com/x.jpg"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "report.pdf"}},
    ]
    conforms(out)


def test_a_file_by_id_reads_as_a_url_source_and_goes_back_as_the_id() -> None:
    payload = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc", "filename": "a.pdf"}}]}]
    block = from_openai(payload)[0].content[0]
    assert isinstance(block, DataBlock) and block.source == URLSource("file-abc") and block.name == "a.pdf"
    assert to_openai(from_openai(payload)) == payload


def test_refusal_audio_and_custom_calls_travel_in_metadata() -> None:
    payload = [
        {
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}],
            "refusal": "I can't help with that.",
            "audio": {"id": "audio_1"},
            "name": "bot",
            "tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "1"},
    ]
    message = from_openai(payload)[0]
    assert message.metadata["openai"]["refusal"] == "I can't help with that."
    assert message.metadata["openai"]["audio"] == {"id": "audio_1"}
    assert message.content[1] == ToolUseBlock("c", "sql", {}, "SELECT 1", {"openai": {"type": "custom"}})
    assert to_openai(from_openai(payload)) == payload
    conforms(to_openai(from_openai(payload)))


def test_an_edit_of_a_custom_calls_text_or_input_is_written() -> None:
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}]}]
    (message,) = from_openai(payload)
    call = message.content[0]
    assert isinstance(call, ToolUseBlock)

    def written(edited: ToolUseBlock) -> Any:
        return to_openai([message.with_content([edited])], validate=False)[0]["tool_calls"][0]["custom"]["input"]

    assert written(ToolUseBlock("c", "sql", {}, "SELECT 2", call.metadata)) == "SELECT 2"
    # Custom input is text: an input given since, which the old text does not say, goes as its JSON.
    assert written(ToolUseBlock("c", "sql", {"q": "SELECT 2"}, "SELECT 1", call.metadata)) == '{"q":"SELECT 2"}'


def test_a_null_content_form_does_not_hide_text_added_since() -> None:
    read = from_openai([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "audio": {"id": "a1"}}])
    assert to_openai(read)[1] == {"role": "assistant", "content": None, "audio": {"id": "a1"}}  # as it came
    edited = [read[0], read[1].with_content([TextBlock("spoken")])]
    assert to_openai(edited)[1]["content"] == "spoken"


# -- rule 1: round trips -------------------------------------------------------------


def as_a_request(payload: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``payload`` without what describes an answer, which no request message has: an assistant
    message's ``annotations``, read into ``metadata["openai"]["response"]`` and never written."""
    return [
        {key: value for key, value in message.items() if key != "annotations"} if message.get("role") == "assistant" else message
        for message in payload
    ]


@given(openai_payloads())
def test_payload_round_trip(payload: list[dict[str, Any]]) -> None:
    out = to_openai(from_openai(payload), validate=False)
    assert out == as_a_request(payload)
    assert_plain(list(out))  # carried fields too: the caller's to change


@given(openai_payloads(surrogates=False, nulls=False))
def test_output_conforms_to_the_sdk_types(payload: list[dict[str, Any]]) -> None:
    # The payload's own fields the SDK does not define travel too: those are the payload's.  But not an
    # answer's annotations, which servers refusing unknown properties answer with a 400.
    conforms(to_openai(from_openai(payload), validate=False), allow=OPENAI_UNREAD - {"annotations"})


@given(conversations_for("openai"))
def test_message_round_trip(messages: list[Msg]) -> None:
    out = to_openai(messages)
    conforms(out)
    assert comparable(from_openai(out)) == comparable(as_openai_reads_them(messages))


# -- rule 2: never silently lossy ---------------------------------------------------------

UNSUPPORTED = [
    (AssistantMessage(TextBlock("ok"), ThinkingBlock("hmm")), 1, "a ThinkingBlock"),
    (AssistantMessage(HintBlock("h", "be brief")), 0, "a HintBlock"),
    (UserMessage(TextBlock("x"), VideoBlock(URLSource("https://e.com/v.mp4"))), 1, "a VideoBlock by URL"),
    (UserMessage(DataBlock(URLSource("https://e.com/a.wav", "audio/wav"))), 0, "a DataBlock by URL (audio/wav)"),
    (AssistantMessage(DataBlock(URLSource("https://e.com/cat.png"))), 0, "a DataBlock by URL in an assistant message"),
    # input_audio takes WAV and MP3 only
    (UserMessage(DataBlock(Base64Source("audio/ogg", "T2dn"))), 0, "a DataBlock of audio/ogg"),
    (UserMessage(AudioBlock(Base64Source("audio/flac", "ZkxhQw=="))), 0, "an AudioBlock of audio/flac"),
]


@pytest.mark.parametrize(
    ("name", "sent"),
    [("bob", "bob"), ("_ok-1", "_ok-1"), ("Research Assistant", "Research_Assistant"), ("x<|>y", "x_y"),
     ("a" * 70, "a" * 64), ("张三", None)],
)
def test_a_name_goes_as_the_api_takes_names(name: str, sent: str | None) -> None:
    # OpenAI answers a name outside [A-Za-z0-9_-] with a 400 ("string does not match pattern").
    (written,) = to_openai([UserMessage("hi", name=name)])
    assert written.get("name") == sent


def test_a_block_inside_a_tool_result_is_named_by_its_place_in_the_output() -> None:
    png = DataBlock(Base64Source("image/png", "iVBORw0KGgo"))
    conversation = [
        UserMessage("q"),
        AssistantMessage(ToolUseBlock("c", "f", {})),
        ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("a"), png], state=ToolResultState.SUCCESS)),
    ]
    with pytest.raises(UnsupportedContentError, match=r"a DataBlock of image/png in a tool result's output \(messages\[2\]\.content\[0\]\.output\[1\]\)"):
        to_openai(conversation)
    (note,) = to_openai(conversation, on_unsupported="drop").notes
    assert (note.message_index, note.block_index, note.output_index) == (2, 0, 1)
    assert str(note) == "messages[2].content[0].output[1]: data block dropped (OpenAI Chat Completions cannot hold it)"


@pytest.mark.parametrize(("message", "block_index", "block_type"), UNSUPPORTED)
def test_a_block_openai_cannot_hold_raises_naming_where(message: Msg, block_index: int, block_type: str) -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        to_openai([UserMessage("hi"), message])
    assert f"messages[1].content[{block_index}]" in str(caught.value)
    assert f"cannot hold {block_type} (" in str(caught.value)
    assert "on_unsupported" in str(caught.value)


def test_drop_and_text_policies_record_their_choice() -> None:
    messages = [UserMessage("hi"), AssistantMessage(ThinkingBlock("hmm"), TextBlock("hello"))]
    dropped = to_openai(messages, on_unsupported="drop")
    assert dropped[1] == {"role": "assistant", "content": "hello"}
    assert dropped.notes == (ConversionNote(1, 0, "thinking", "dropped", "OpenAI Chat Completions"),)
    as_text = to_openai(messages, on_unsupported="text")
    assert as_text[1]["content"] == [{"type": "text", "text": "[thinking] hmm"}, {"type": "text", "text": "hello"}]
    assert [note.action for note in as_text.notes] == ["as_text"]
    assert "messages[1].content[0]: thinking block sent as text" in str(as_text.notes[0])


def test_a_non_text_tool_output_is_unsupported() -> None:
    messages = [
        AssistantMessage(ToolUseBlock("c", "shot", {})),
        ToolResultMessage(ToolResultBlock("c", "shot", [TextBlock("here"), DataBlock(URLSource("https://e.com/s.png"))])),
    ]
    with pytest.raises(UnsupportedContentError, match=r"messages\[1\]\.content\[0\]"):
        to_openai(messages)
    out = to_openai(messages, on_unsupported="text")
    assert out[1]["content"] == [{"type": "text", "text": "here"}, {"type": "text", "text": "[data: https://e.com/s.png]"}]


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="on_unsupported"):
        to_openai([], on_unsupported="ignore")  # type: ignore[arg-type]


# -- rule 3: tool results split out and merged back ------------------------------------------


def test_results_inside_an_assistant_message_become_tool_messages() -> None:
    inline = AssistantMessage(
        TextBlock("checking"),
        ToolUseBlock("a", "f", {}),
        ToolUseBlock("b", "g", {}),
        ToolResultBlock("a", "f", TextBlock("1"), state=ToolResultState.SUCCESS),
        ToolResultBlock("b", "g", TextBlock("2"), state=ToolResultState.SUCCESS),
        TextBlock("done"),
    )
    out = to_openai([inline])
    assert [m["role"] for m in out] == ["assistant", "tool", "tool", "assistant"]
    assert [m.get("tool_call_id") for m in out] == [None, "a", "b", None]
    back = from_openai(out)
    assert [type(m) for m in back] == [AssistantMessage, ToolResultMessage, AssistantMessage]
    assert [b.id for b in back[1].get_content_blocks(ToolResultBlock)] == ["a", "b"]
    conforms(out)


@pytest.mark.parametrize("blank", ["", " \n"])
def test_blank_text_after_results_writes_no_empty_assistant_message(blank: str) -> None:
    # Found by the fuzz test: the text went out alone, as {"role": "assistant", "content": ""},
    # which the API refuses and the conversation check missed (it checks the message whole).
    inline = AssistantMessage(ToolUseBlock("a", "f", {}), ToolResultBlock("a", "f", TextBlock("1")), TextBlock(blank))
    out = to_openai([inline])
    assert [m["role"] for m in out] == ["assistant", "tool"]
    assert validate_conversation(from_openai(out)) == []
    # Text that says something is still written after the results.
    said = to_openai([inline.with_content([*inline.content[:2], TextBlock("done")])])
    assert said[-1] == {"role": "assistant", "content": "done"}


def test_blank_text_after_results_is_written_when_the_message_carries_what_it_says() -> None:
    # An answer spoken as audio: its turn has no text, and says something all the same.
    _, spoken = from_openai([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "audio": {"id": "a1"}}])
    answered = spoken.with_content([ToolResultBlock("c", "f", [TextBlock("ok")]), TextBlock("")])
    out = to_openai([UserMessage("hi"), AssistantMessage(ToolUseBlock("c", "f", {})), answered], validate=False)
    assert out[-1] == {"role": "assistant", "content": "", "audio": {"id": "a1"}}
    # Written, that turn parts a call from its result in the next message: the writer's check says
    # so, which validate_conversation, knowing no writer, cannot.
    calls = AssistantMessage(ToolUseBlock("c", "f", {}), ToolUseBlock("d", "f", {}))
    conversation = [UserMessage("hi"), calls, answered, ToolResultMessage.of("d", "f", "ok")]
    assert validate_conversation(conversation) == []
    with pytest.raises(ConversationError, match=r"tool call 'd' has no result right after it"):
        to_openai(conversation)


def test_text_beside_results_in_a_tool_message_goes_in_a_user_message() -> None:
    messages = [
        AssistantMessage(ToolUseBlock("a", "f", {})),
        ToolResultMessage(ToolResultBlock("a", "f", TextBlock("1")), TextBlock("note")),
    ]
    assert [m["role"] for m in to_openai(messages)] == ["assistant", "tool", "user"]


# -- rule 6: the converter refuses what the API would answer with a 400 -------------------------


def test_an_unanswered_call_raises_and_points_at_repair() -> None:
    messages = [UserMessage("hi"), AssistantMessage(ToolUseBlock("a", "f", {}))]
    with pytest.raises(ConversationError, match="repair_conversation") as caught:
        to_openai(messages)
    assert "messages[1].content[0]: tool call 'a' has no result" in str(caught.value)
    assert len(caught.value.problems) == 1
    assert to_openai(messages, validate=False)[1]["tool_calls"][0]["id"] == "a"


def test_a_message_without_role_is_refused() -> None:
    with pytest.raises(ValueError, match="no role"):
        to_openai([Msg("x", role=None)])


# -- bad input ------------------------------------------------------------------------

BAD: list[tuple[Any, str]] = [
    ({"messages": []}, "messages"),
    ([1], "messages[0]"),
    ([{"content": "x"}], "messages[0]"),
    ([{"role": "robot", "content": "x"}], "messages[0].role"),
    ([{"role": "user"}], "messages[0]"),
    ([{"role": "user", "content": 3}], "messages[0].content"),
    ([{"role": "user", "content": [{"type": "video"}]}], "messages[0].content[0].type"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], "messages[0].content[0].image_url"),
    ([{"role": "user", "content": [{"type": "file", "file": {}}]}], "messages[0].content[0].file"),
    ([{"role": "system", "content": [{"type": "image_url"}]}], "messages[0].content[0].type"),
    (
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {}}}]},
        ],
        "messages[3].tool_calls[0].function.arguments",
    ),
    ([{"role": "assistant", "tool_calls": {}}], "messages[0].tool_calls"),
    ([{"role": "assistant", "refusal": 1}], "messages[0].refusal"),
    ([{"role": "tool", "content": "x"}], "messages[0]"),
    ([{"role": "user", "content": "x", "name": 5}], "messages[0].name"),
    ([{"role": "assistant", "content": "x", "annotations": {}}], "messages[0].annotations"),
    ([{"role": "tool", "tool_call_id": "c", "content": "x", "name": 5}], "messages[0].name"),
    # Calls and results only where the API takes them: kept elsewhere, they would be no call or result.
    ([{"role": "user", "content": "x", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}], "messages[0].tool_calls"),
    ([{"role": "developer", "content": "x", "tool_calls": []}], "messages[0].tool_calls"),
    ([{"role": "tool", "tool_call_id": "c", "content": "x", "tool_calls": []}], "messages[0].tool_calls"),
    ([{"role": "assistant", "content": "x", "tool_call_id": "c"}], "messages[0].tool_call_id"),
    # What a request holds of an audio answer and of a deprecated function call, checked as it holds them.
    ([{"role": "assistant", "audio": {}}], "messages[0].audio"),
    ([{"role": "assistant", "audio": {"id": 5}}], "messages[0].audio.id"),
    ([{"role": "assistant", "function_call": {}}], "messages[0].function_call"),
    ([{"role": "assistant", "function_call": {"name": "f", "arguments": {}}}], "messages[0].function_call.arguments"),
]


def test_a_call_out_of_place_says_which_role_holds_it() -> None:
    with pytest.raises(DecodeError, match=r"^messages\[0\]\.tool_calls: only assistant messages hold tool_calls, not a user message$"):
        from_openai([{"role": "user", "content": "x", "tool_calls": []}])


@pytest.mark.parametrize(("payload", "path"), BAD)
def test_malformed_input_raises_decode_error_with_the_path(payload: Any, path: str) -> None:
    with pytest.raises(DecodeError) as caught:
        from_openai(payload)
    assert caught.value.path == path


@pytest.mark.parametrize("fmt", ["flac", "ogg", "WAV"])
def test_an_audio_format_the_api_does_not_take_is_refused_when_read(fmt: str) -> None:
    # input_audio takes "wav" and "mp3" only, which is all to_openai can write back.
    payload = [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "ZkxhQw==", "format": fmt}}]}]
    with pytest.raises(DecodeError, match=f"expected the format 'wav' or 'mp3' .*got '{fmt}'") as caught:
        from_openai(payload)
    assert caught.value.path == "messages[0].content[0].input_audio.format"


def test_the_deprecated_function_role_is_refused_clearly() -> None:
    with pytest.raises(UnsupportedContentError, match="'function' role"):
        from_openai([{"role": "function", "name": "f", "content": "x"}])


def test_sdk_objects_dumped_to_dicts_read_back() -> None:
    from openai.types.chat import ChatCompletionMessage

    sdk = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
        }
    )
    (message,) = from_openai([sdk.model_dump(exclude_none=True)])
    assert message.content == (ToolUseBlock("c", "f", {"a": 1}, '{"a":1}'),)
    assert json.loads(json.dumps(to_openai([message], validate=False)))[0]["tool_calls"][0]["id"] == "c"


@pytest.mark.parametrize("role", ["system", "developer", "user", "assistant"])
def test_a_name_travels_for_every_role_that_has_one(role: str) -> None:
    payload = [{"role": role, "content": "x", "name": "n"}]
    assert from_openai(payload)[0].name == "n"
    assert to_openai(from_openai(payload)) == payload


def test_the_sdks_own_message_dicts_go_back_without_the_nulls_a_request_refuses() -> None:
    from openai.types.chat import ChatCompletionMessage

    answer = ChatCompletionMessage(role="assistant", content="Hello").model_dump()
    cited_call = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": "Looking it up.",
            "annotations": [
                {"type": "url_citation", "url_citation": {"start_index": 0, "end_index": 4, "title": "T", "url": "https://e.com"}}
            ],
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
        }
    ).model_dump()
    assert answer["tool_calls"] is None and answer["annotations"] is None  # what the SDK writes
    payload = [
        {"role": "user", "content": "hi", "name": None},
        cited_call,
        {"role": "tool", "tool_call_id": "c", "content": "1", "name": "f"},
        answer,
    ]
    user, call, result, said = from_openai(payload)
    assert user.name is None and said.get_text_content() == "Hello"
    assert call.metadata["openai"]["response"] == {"annotations": cited_call["annotations"]}
    assert result.get_content_blocks(ToolResultBlock)[0].metadata == {"openai": {"name": "f"}}
    # No name, tool_calls or annotations given as null (a request holds the first two as a string and
    # an array only), nor annotations at all (no request has them); the nulls a request takes go back
    # as they came.
    out = to_openai([user, call, result, said])
    assert out == [
        {"role": "user", "content": "hi"},
        {key: value for key, value in cited_call.items() if key != "annotations"},
        payload[2],
        {"role": "assistant", "content": "Hello", "refusal": None, "audio": None, "function_call": None},
    ]
    # But for a tool message's name, which no request type defines, and which OpenAI takes.
    conforms(out, allow=("name",))


@pytest.mark.parametrize(("field", "sent"), [
    ("refusal", True), ("audio", True), ("function_call", True), ("name", False), ("tool_calls", False), ("annotations", False),
])
def test_an_explicit_null_reads_as_absent_and_goes_back_if_a_request_takes_it(field: str, sent: bool) -> None:
    payload = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x", field: None}]
    user, assistant = from_openai(payload)
    assert assistant.content == (TextBlock("x"),) and assistant.name is None
    assert "response" not in assistant.metadata.get("openai", {})  # annotations: null are none
    out = to_openai([user, assistant])
    assert out == (payload if sent else [payload[0], {"role": "assistant", "content": "x"}])
    conforms(out)


@pytest.mark.parametrize("role", ["user", "system", "developer", "assistant"])
def test_a_null_call_field_on_any_message_reads_as_absent(role: str) -> None:
    # The SDK's model_dump() of a message writes them; no request holds them as null.
    payload = [{"role": role, "content": "q", "tool_calls": None, "tool_call_id": None}]
    out = to_openai(from_openai(payload), validate=False)
    assert out == [{"role": role, "content": "q"}]
    conforms(out)


def test_the_sdks_function_call_object_in_a_message_dict_is_read() -> None:
    from openai.types.chat.chat_completion_message import FunctionCall

    payload = [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "function_call": FunctionCall(name="f", arguments="{}")}]
    out = to_openai(from_openai(payload))
    assert out[1] == {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}


def test_a_tool_message_s_null_name_is_not_sent() -> None:
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c", "content": "1", "name": None}]
    out = to_openai(from_openai(payload))
    assert out[1] == {"role": "tool", "tool_call_id": "c", "content": "1"}
    conforms(out)


def test_an_assistant_run_the_policy_emptied_is_not_written_beside_its_results() -> None:
    call = AssistantMessage(ToolUseBlock("call_1", "f", {}))
    thought_then_result = AssistantMessage(ThinkingBlock("hmm"), ToolResultBlock("call_1", "f", [TextBlock("ok")]))
    sent = to_openai([call, thought_then_result], on_unsupported="drop")
    assert [message["role"] for message in sent] == ["assistant", "tool"]
    assert [note.block_type for note in sent.notes] == ["thinking"]
    assert validate_conversation(from_openai(sent)) == []


# -- fields we do not read travel, on calls and parts alike ---------------------------------------


def test_a_tool_call_s_own_fields_travel_in_its_metadata() -> None:
    # Gemini's OpenAI-compatible endpoint signs each call, and refuses the next request without it.
    signature = {"google": {"thought_signature": "SIG=="}}
    payload = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}", "strict": True},
             "extra_content": signature},
            {"id": "c2", "type": "custom", "custom": {"name": "g", "input": "x", "grammar": "lark"}, "x_extra": 1},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
    ]
    _, assistant, _ = from_openai(payload)
    first, second = assistant.get_content_blocks(ToolUseBlock)
    assert first.metadata == {"openai": {"extra_content": signature, "function": {"strict": True}}}
    assert second.metadata == {"openai": {"type": "custom", "custom": {"grammar": "lark"}, "x_extra": 1}}
    assert to_openai(from_openai(payload)) == payload
    # What we write wins over a kept field of the same name.
    edited = ToolUseBlock("c3", "h", {"a": 1}, metadata={"openai": {"id": "old", "function": {"name": "old"}}})
    assert to_openai([AssistantMessage(edited)], validate=False)[0]["tool_calls"] == [
        {"id": "c3", "type": "function", "function": {"name": "h", "arguments": '{"a":1}'}}]


def test_a_part_s_fields_we_do_not_read_travel_in_parts() -> None:
    payload = [
        {"role": "system", "content": [{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low", "x_crop": [0, 1]},
             "x_tag": 1},
            {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav", "x_rate": 8000}},
            {"type": "file", "file": {"file_id": "file-1", "x_kind": "pdf"}},
        ]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "no", "x_why": "policy"}]},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "1", "cache_control": None}]},
    ]
    system, user, assistant, result = from_openai(payload)
    assert system.metadata["openai"]["parts"] == {"0": {"cache_control": {"type": "ephemeral"}}}
    assert user.metadata["openai"]["parts"] == {
        "0": {"cache_control": {"type": "ephemeral"}},
        "1": {"x_tag": 1, "image_url": {"detail": "low", "x_crop": [0, 1]}},
        "2": {"input_audio": {"x_rate": 8000}},
        "3": {"file": {"x_kind": "pdf"}, "type": "file"},
    }
    assert assistant.metadata["openai"]["parts"] == {"0": {"type": "refusal", "x_why": "policy"}}
    assert to_openai([system, user, assistant, result], validate=False) == payload


# -- SDK objects where the JSON object is expected ---------------------------------------------------


def test_sdk_objects_read_as_the_json_they_hold() -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall

    completion = ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "refusal": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}]}}],
    })
    reply = completion.choices[0].message
    # The SDK's way: the answer's message appended to the conversation as it is.
    messages: list[Any] = [{"role": "user", "content": "q"}, reply, {"role": "tool", "tool_call_id": "c1", "content": "1"}]
    as_json = [messages[0], reply.model_dump(mode="json", exclude_unset=True), messages[2]]
    assert comparable(from_openai(messages)) == comparable(from_openai(as_json))
    assert to_openai(from_openai(messages)) == as_json
    # Calls that are SDK objects, in a message that is a dict.
    call = ChatCompletionMessageFunctionToolCall.model_validate(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}, "extra_content": {"k": 1}})
    (message,) = from_openai([{"role": "assistant", "tool_calls": [call]}])
    assert message.content == (ToolUseBlock("c1", "f", {}, "{}", {"openai": {"extra_content": {"k": 1}}}),)
    # parse()'s message repeats its content under "parsed", which no request may hold: not carried.
    from openai.types.chat import ParsedChatCompletionMessage

    parsed = ParsedChatCompletionMessage[Any].model_validate({"role": "assistant", "content": '{"a":1}', "parsed": {"a": 1}})
    assert to_openai(from_openai([{"role": "user", "content": "q"}, parsed]))[1] == {"role": "assistant", "content": '{"a":1}'}


def test_an_object_that_is_no_sdk_model_is_still_refused_by_path() -> None:
    class Fake:
        def model_dump(self) -> dict[str, Any]:  # not pydantic's signature
            return {}

    with pytest.raises(DecodeError) as caught:
        from_openai([Fake()])
    assert caught.value.path == "messages[0]" and "expected an object, got Fake" in str(caught.value)


# -- a turn the policy emptied, and arguments nested too deeply ------------------------------------------


def test_a_user_turn_the_policy_emptied_is_absent() -> None:
    video = UserMessage(VideoBlock(URLSource("https://example.com/v.mp4")))
    conversation = [
        UserMessage("hi"),
        AssistantMessage(ToolUseBlock("a", "f", {})),
        video,
        ToolResultMessage.of("a", "f", "ok"),
    ]
    sent = to_openai(conversation, on_unsupported="drop")  # no ConversationError: the call has its result
    assert [message["role"] for message in sent] == ["user", "assistant", "tool"]
    assert sent.notes == (ConversionNote(2, 0, "video", "dropped", "OpenAI Chat Completions"),)
    conforms(sent)
    assert to_openai([UserMessage("hi"), video], on_unsupported="drop") == [{"role": "user", "content": "hi"}]


def test_problems_of_the_conversation_as_written_name_blocks_as_given() -> None:
    # The thought before the call is dropped: the call is still content[1] of the caller's message.
    with pytest.raises(ConversationError) as caught:
        to_openai([UserMessage("hi"), AssistantMessage(ThinkingBlock("hmm"), ToolUseBlock("a", "f", {}))], on_unsupported="drop")
    assert [str(problem) for problem in caught.value.problems] == ["messages[1].content[1]: tool call 'a' has no result right after it"]


@pytest.mark.parametrize(("depth", "stored"), [(20, True), (402, False), (450, False), (495, False), (2000, False)])
def test_arguments_too_deep_to_store_keep_the_text_as_arguments_too_deep_to_parse(depth: int, stored: bool) -> None:
    # Deeper than a message stores (400 levels) reads as deeper than Python parses: the text kept, no input.
    raw = '{"a":' * depth + "1" + "}" * depth
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}]
    (message,) = from_openai(payload)
    (call,) = message.get_content_blocks(ToolUseBlock)
    assert call.content == raw
    assert bool(call.input) is stored
    assert to_openai([message], validate=False) == payload
    # Anthropic takes arguments as an object only: one it cannot have is refused as such.
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[0\]") if not stored else nullcontext():
        to_anthropic([message], validate=False)


def test_image_detail_follows_an_equal_data_block_with_a_fresh_id() -> None:
    # A DataBlock's id is no part of what it holds: the same image as a new block keeps its detail.
    payload = [{"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"}},
    ]}]
    (msg,) = from_openai(payload)
    image = msg.content[1]
    assert isinstance(image, DataBlock)
    fresh = DataBlock(image.source, name=image.name)
    assert fresh.id != image.id
    assert to_openai([msg.with_content([msg.content[0], fresh])]) == payload


@pytest.mark.parametrize("media_type", ["audio/vnd.wave", "audio/wav; codecs=1", "Audio/WAV"])
def test_audio_vnd_wave_and_wav_with_parameters_are_written_as_wav(media_type: str) -> None:
    # The WAV media types input_audio takes as format "wav", whatever parameters they carry.
    msg = UserMessage([DataBlock(Base64Source(media_type, "UklGRg=="))])
    assert to_openai([msg]) == [
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}
    ]


def test_a_file_data_url_without_a_media_type_round_trips() -> None:
    # "data:;base64,..." names no media type: kept whole as the data, written back as it came.
    payload = [{"role": "user", "content": [{"type": "file", "file": {"file_data": "data:;base64,AAAA", "filename": "a.bin"}}]}]
    (msg,) = from_openai(payload)
    block = msg.content[0]
    assert isinstance(block, DataBlock) and isinstance(block.source, Base64Source)
    assert block.source.data == "data:;base64,AAAA"
    assert to_openai([msg]) == payload


@pytest.mark.parametrize(
    "part",
    [
        {"type": "file", "file": {"file_data": "data:AAAA;base64,AAAA", "filename": "a.bin"}},
        {"type": "image_url", "image_url": {"url": "data:iVBORw0KGgo=;base64,AAAA"}},
    ],
)
def test_a_data_url_whose_type_is_no_media_type_round_trips(part: dict[str, Any]) -> None:
    # Read as inline data of that type, it was refused on the way back (as when Base64Source's
    # arguments are swapped): the URL is kept whole instead.
    payload = [{"role": "user", "content": [part]}]
    assert to_openai(from_openai(payload)) == payload


# -- a refusal with no content is the message's text -------------------------------------------------

REFUSAL = "I cannot help with that."


@pytest.mark.parametrize(
    "content",
    [{"content": None}, {}, {"content": ""}, {"content": " \n"}, {"content": [{"type": "text", "text": "", "x_tag": 1}]}],
    ids=["null", "absent", "empty", "blank", "blank part"],
)
def test_a_refusal_without_content_reads_as_the_text_and_goes_back_as_it_came(content: dict[str, Any]) -> None:
    payload = [{"role": "user", "content": "q"}, {"role": "assistant", **content, "refusal": REFUSAL}]
    user, answer = from_openai(payload)
    assert answer.content == (TextBlock(REFUSAL),)
    assert repair_conversation([user, answer]).changes == ()  # no empty turn to drop
    # The refusal says it once: as the refusal, beside the content as it came.
    assert to_openai([user, answer]) == payload


def test_a_refusal_read_as_the_text_is_dropped_once_the_text_is_edited() -> None:
    user, answer = from_openai([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "refusal": REFUSAL}])
    edited = answer.with_content([TextBlock("Here is a safer answer.")])
    assert to_openai([user, edited])[1] == {"role": "assistant", "content": "Here is a safer answer."}
    with_call = answer.with_content([*answer.content, ToolUseBlock("c", "f", {})])
    assert to_openai([user, with_call, ToolResultMessage.of("c", "f", "ok")])[1] == {
        "role": "assistant", "content": REFUSAL,
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}


def test_the_blank_content_a_refusal_came_with_is_dropped_once_the_text_is_edited() -> None:
    user, answer = from_openai([{"role": "user", "content": "q"}, {"role": "assistant", "content": " \n", "refusal": REFUSAL}])
    only_call = answer.with_content([ToolUseBlock("c", "f", {})])
    assert to_openai([user, only_call, ToolResultMessage.of("c", "f", "ok")])[1] == {
        "role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}


def test_a_refusal_beside_content_parts_given_as_sdk_objects_reads_as_the_text() -> None:
    part = ChatCompletionContentPartText(type="text", text="")
    (answer,) = from_openai([{"role": "assistant", "content": [part], "refusal": REFUSAL}])
    assert answer.content == (TextBlock(REFUSAL),)
    assert to_openai([answer]) == [{"role": "assistant", "content": [{"type": "text", "text": ""}], "refusal": REFUSAL}]


def test_a_refusal_beside_content_or_calls_is_not_read_as_the_text() -> None:
    beside_calls = [{"role": "assistant", "content": None, "refusal": "no",
                     "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": "c", "content": "1"}]
    beside_text = [{"role": "assistant", "content": "no", "refusal": "no"}]  # the text the refusal says, and no less
    blank = [{"role": "assistant", "content": "", "refusal": " "}]  # a blank refusal says nothing either
    assert from_openai(beside_calls)[0].content == (ToolUseBlock("c", "f", {}, "{}"),)
    assert from_openai(beside_text)[0].content == (TextBlock("no"),)
    assert from_openai(blank)[0].content == (TextBlock(""),)
    for payload in (beside_calls, beside_text, blank):
        assert to_openai(from_openai(payload), validate=False) == payload


# -- media types: told by a URL's file extension, matched whatever their case ----------------------


@pytest.mark.parametrize(("url", "said"), [("data:audio/wav;base64,UklG", "audio/wav"), ("data:,hello", "text/plain")])
def test_a_data_url_is_sent_as_the_type_it_declares_not_as_an_image(url: str, said: str) -> None:
    with pytest.raises(UnsupportedContentError, match=rf"by URL \(messages\[0\]\.content\[0\]\): its data: URL says {said}"):
        to_openai([UserMessage(DataBlock(URLSource(url)))])
    if said == "text/plain":  # a plain-text document to Anthropic, inline
        assert to_anthropic([UserMessage(DataBlock(URLSource(url)))])["messages"][0]["content"] == [
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hello"}}]
    else:
        with pytest.raises(UnsupportedContentError, match=rf"its data: URL says {said}"):
            to_anthropic([UserMessage(DataBlock(URLSource(url)))])
    assert to_vercel_ai([UserMessage(DataBlock(URLSource(url)))])[0]["content"] == [{"type": "file", "data": url, "mediaType": said}]


def test_a_url_whose_extension_names_no_image_is_not_sent_as_an_image() -> None:
    wav = UserMessage("listen", DataBlock(URLSource("https://x/a.wav")))
    with pytest.raises(UnsupportedContentError, match=r"by URL \(messages\[0\]\.content\[1\]\): its file extension says audio/wav"):
        to_openai([wav])
    dropped = to_openai([wav], on_unsupported="drop")
    assert dropped[0]["content"] == "listen" and [note.block_index for note in dropped.notes] == [1]
    with pytest.raises(UnsupportedContentError, match="application/pdf"):  # files go inline or by id
        to_openai([UserMessage(DataBlock(URLSource("https://x/report.PDF?v=2")))])
    # An image's extension, or none, is an image still.
    for url in ("https://x/cat.JPG", "https://x/render?id=7"):
        assert to_openai([UserMessage(DataBlock(URLSource(url)))])[0]["content"][0]["type"] == "image_url"


def test_a_media_type_a_url_declares_wins_over_its_file_extension() -> None:
    declared = [UserMessage(DataBlock(URLSource("https://x/a.wav", "image/png")))]
    assert to_openai(declared)[0]["content"] == [{"type": "image_url", "image_url": {"url": "https://x/a.wav"}}]
    assert to_anthropic(declared)["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "url", "url": "https://x/a.wav"}}]


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        # The type is declared: the extension decided nothing.
        ([UserMessage(DataBlock(URLSource("https://x/a.png", "audio/wav")))], r"a DataBlock by URL \(audio/wav\)"),
        # An AudioBlock is audio whatever its URL says.
        ([UserMessage(AudioBlock(URLSource("https://x/a.wav")))], r"an AudioBlock by URL"),
        # An assistant message holds no media, whatever its type.
        ([UserMessage("q"), AssistantMessage(DataBlock(URLSource("https://x/a.wav")))], r"a DataBlock by URL"),
    ],
    ids=["declared", "audio block", "assistant"],
)
def test_the_error_names_the_file_extension_only_where_it_told_the_type(messages: list[Msg], error: str) -> None:
    index = len(messages) - 1
    with pytest.raises(UnsupportedContentError, match=rf"cannot hold {error} \(messages\[{index}\]\.content\[0\]\); pass"):
        to_openai(messages)


def test_an_image_url_part_whose_url_names_another_type_goes_back_as_it_came() -> None:
    payload = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/scan.pdf"}}]}]
    assert to_openai(from_openai(payload)) == payload


def test_media_types_match_whatever_their_case() -> None:
    out = to_openai([UserMessage(DataBlock(Base64Source("IMAGE/PNG", "iVBO")), DataBlock(Base64Source("Audio/WAV", "UklG")))])
    assert out[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:IMAGE/PNG;base64,iVBO"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
    ]
    conforms(out)


# -- a file read by id -------------------------------------------------------------------------


def test_a_file_by_id_in_another_message_is_refused_saying_why_and_what_to_do() -> None:
    (read,) = from_openai([{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc", "filename": "a.pdf"}}]}])
    (file,) = read.get_content_blocks(DataBlock)
    with pytest.raises(UnsupportedContentError) as caught:
        to_openai([UserMessage("Now translate it", file)])
    assert "(messages[0].content[1]): 'file-abc' has no scheme, so it is a file id, not a URL" in str(caught.value)
    assert "or one given that message's metadata" in str(caught.value)
    # Given the metadata that records it, the block goes back as the file id it is.
    again = UserMessage("Now translate it", file, metadata=read.metadata)
    assert to_openai([again])[0]["content"][1] == {"type": "file", "file": {"file_id": "file-abc", "filename": "a.pdf"}}


# -- on_unsupported="text" ------------------------------------------------------------------------


def test_a_call_as_text_says_its_arguments_as_json() -> None:
    call = ToolUseBlock("c", "n", {"a": 1, "ok": True, "none": None, "city": "Zürich"})
    out = to_openai([UserMessage("x"), ToolResultMessage([call])], on_unsupported="text", validate=False)
    assert out[1]["content"] == '[tool call n c: {"a":1,"ok":true,"none":null,"city":"Zürich"}]'
    # Raw argument text that still says the input goes as it came.
    spaced = ToolUseBlock("c", "n", {"a": 1}, '{"a": 1}')
    out = to_openai([UserMessage("x"), ToolResultMessage([spaced])], on_unsupported="text", validate=False)
    assert out[1]["content"] == '[tool call n c: {"a": 1}]'


# -- a message its tool results cut into many turns -------------------------------------------------


def _cut_by_results(turns: int, metadata: dict[str, Any]) -> list[Msg]:
    """A question, and an answer whose calls, results and texts alternate: ``2 * turns`` turns of it."""
    content: list[Any] = []
    for index in range(turns):
        content += [ToolUseBlock(f"c{index}", "f", {}), ToolResultBlock(f"c{index}", "f", [TextBlock("ok")]), TextBlock(f"t{index}")]
    return [UserMessage("q"), AssistantMessage(content, metadata=metadata)]


def test_the_kept_fields_of_a_message_cut_into_turns_are_sent_once() -> None:
    # Sent with each of the message's turns, they made the payload grow with turns times their size
    # (a 300 KB message gave 59 MB), and read back, each turn's message held a copy.
    reasoning = "r" * 100_000
    out = to_openai(_cut_by_results(50, {"openai": {"reasoning_content": reasoning}}))
    assert [index for index, message in enumerate(out) if "reasoning_content" in message] == [1]
    assert len(json.dumps(out)) < 2 * len(reasoning)
    back = from_openai(out)
    assert back[1].metadata["openai"] == {"reasoning_content": reasoning}
    assert all("openai" not in message.metadata for message in back[2:])
    assert to_openai(back) == out
    # A first turn that is not written (blank text beside the results) leaves them to the next.
    answer = AssistantMessage(
        [TextBlock(" "), ToolResultBlock("c0", "f", [TextBlock("ok")]), TextBlock("done")],
        metadata={"openai": {"reasoning_content": "r"}},
    )
    out = to_openai([UserMessage("q"), AssistantMessage(ToolUseBlock("c0", "f", {})), answer], validate=False)
    assert out[2:] == [
        {"role": "tool", "tool_call_id": "c0", "content": "ok"},
        {"role": "assistant", "content": "done", "reasoning_content": "r"},
    ]


# -- a hostile value in an error ---------------------------------------------------------------------


def test_a_long_bad_value_is_shown_by_its_start_in_the_error() -> None:
    # Errors land in logs: a megabyte role or type shows its start and its length, not itself.
    huge = "A" * 1_000_000
    cases: list[Any] = [
        lambda: from_openai([{"role": huge, "content": "x"}]),
        lambda: from_openai([{"role": "user", "content": [{"type": huge}]}]),
        lambda: from_openai([{"role": "system", "content": [{"type": huge, "text": "x"}]}]),
        lambda: from_openai([{"role": "assistant", "tool_calls": [{"id": "a", "type": huge}]}]),
        lambda: from_openai([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA==", "format": huge}}]}]),
        lambda: from_openai_response({"choices": [{"message": {"role": huge}}]}),
    ]
    for read in cases:
        with pytest.raises(DecodeError) as info:
            read()
        assert f"{'A' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 1000


# -- what a request holds: only what the API takes -----------------------------------------------------


def test_the_sdk_type_check_is_closed() -> None:
    # pydantic, which the suite checked the SDK's types with, lets an unknown key through.
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"role": "assistant", "tool_calls": [{**call, "index": 0}]},
         "$.tool_calls[0]: ChatCompletionMessageFunctionToolCallParam has no key 'index'"),
        ({"role": "assistant", "content": "x", "tool_calls": None}, "$.tool_calls: expected an array, got null"),
        ({"role": "assistant", "audio": {"id": "a", "data": "UklG"}}, "$.audio: Audio has no key 'data'"),
        ({"role": "user", "content": [{"type": "image_url", "image_url": {}}]}, "$.content[0].image_url: ImageURL requires 'url'"),
    ]
    for message, problem in cases:
        assert problems(message, ChatCompletionMessageParam, "$") == [problem]


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate({
        "id": "chatcmpl-3", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    })


def test_a_streamed_call_goes_back_without_its_chunk_index() -> None:
    # The SDK's ChatCompletionStreamState leaves each call it gathers the index its chunks named it
    # by, which no request has.
    state = ChatCompletionStreamState()
    call = {"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}
    for piece in [_chunk({"role": "assistant", "content": None}), _chunk({"tool_calls": [{"index": 0, **call}]}),
                  _chunk({}, "tool_calls")]:
        state.handle_chunk(piece)
    final = state.get_final_completion()
    result = {"role": "tool", "tool_call_id": "call_7", "content": "sunny"}
    # Read as the answer, or as its message appended to the history (the SDK's way): alike.
    for history in (
        [UserMessage("Weather in Rome?"), from_openai_response(final), *from_openai([result])],
        from_openai([{"role": "user", "content": "Weather in Rome?"}, final.choices[0].message, result]),
    ):
        (streamed_call,) = history[1].get_content_blocks(ToolUseBlock)
        assert "openai" not in streamed_call.metadata
        request = to_openai(history)
        assert request[1]["tool_calls"] == [call]
        conforms(request)


def test_tool_ids_longer_than_the_api_takes_are_shortened_alike_in_call_and_result() -> None:
    # OpenAI answers 400 to an id of more than 40 characters ("string too long"); other providers and
    # frameworks make longer ones (a Responses API item id, 51).  Two that share their first 31
    # characters stay two; one that is what another becomes makes that one take a longer digest.
    forty = "c" * 40
    long_ids = ["fc_689e2d4880a0819d98acca37694989b00b15d90494fc6b87", "fc_689e2d4880a0819d98acca37694989b00b15d90494fc6b88"]
    taken = "fc_689e2d4880a0819d98acca376949_9041a1a6"  # what the first becomes
    ids = [*long_ids, forty, taken, "x" * 10_000]
    calls = AssistantMessage(*(ToolUseBlock(call_id, "read", {}) for call_id in ids))
    inline = AssistantMessage(ToolUseBlock(long_ids[0] + "z", "read", {}), ToolResultBlock(long_ids[0] + "z", "read", TextBlock("y")))
    results = ToolResultMessage(*(ToolResultBlock(call_id, "read", TextBlock("x")) for call_id in ids))
    payload = to_openai([UserMessage("go"), calls, results, inline])
    written = [call["id"] for call in payload[1]["tool_calls"]]
    answered = [message["tool_call_id"] for message in payload[2 : 2 + len(ids)]]
    assert written == answered and len(set(written)) == len(ids)
    assert all(len(call_id) <= 40 for call_id in written)
    assert written[2:4] == [forty, taken]  # ids the API takes stay as they are
    assert written[0].startswith(long_ids[0][:23]) and written[0] != taken
    assert payload[-2]["tool_calls"][0]["id"] == payload[-1]["tool_call_id"] != long_ids[0] + "z"
    conforms(payload)
    assert to_openai([UserMessage("go"), calls, results, inline]) == payload  # the same every time
    # Read back, the message holds the id written, which goes out as it is.
    assert to_openai(from_openai(payload)) == payload


def test_every_id_the_rules_write_is_one_they_take_renumbered_ones_too() -> None:
    # No API has both rules yet; a number put after a reused id is cut to fit like a digest.
    from agentscope_py.interop._tool_ids import ToolIdRules, tool_ids
    from agentscope_py.interop._turns import split_turns

    rules = ToolIdRules(re.compile(r"[^A-Za-z0-9_-]"), 40, takes_empty=False, once_per_request=True)
    conversation: list[Msg] = [UserMessage("q")]
    for call_id in ["c" * 40] * 3 + ["d" * 60] * 2:
        conversation += [AssistantMessage(ToolUseBlock(call_id, "f", {})), ToolResultMessage.of(call_id, "f", "r")]
    written = tool_ids(split_turns(conversation), rules)
    assert len(set(written.values())) == 4  # the calls after the first of each id, each with its result
    assert all(rules.takes(call_id) for call_id in written.values())


def test_no_content_is_written_as_an_empty_array() -> None:
    # The API refuses content: [] ("expected an array with minimum length 1"), which the SDK's types allow.
    call = AssistantMessage(ToolUseBlock("c", "rm", {}))
    no_output = ToolResultMessage([ToolResultBlock("c", "rm", [], state=ToolResultState.DENIED)])
    out = to_openai([SystemMessage([]), UserMessage([]), call, no_output])
    assert out == [
        {"role": "system", "content": ""},
        {"role": "user", "content": ""},
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "rm", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": ""},
    ]
    conforms(out)
    # Read back, "" is one empty text, which goes out the same.
    assert to_openai(from_openai(out)) == out
    # A message read with its content as a list, edited down to nothing but its calls.
    user, answer, result = from_openai([
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}],
         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "ok"}]},
    ])
    edited = to_openai([user.with_content([]), answer.with_content(answer.get_content_blocks(ToolUseBlock)), result])
    assert edited[0] == {"role": "user", "content": ""}
    assert "content" not in edited[1]
    conforms(edited)
    # A refusal that came with no parts goes back without them.
    refused = [{"role": "user", "content": "q"}, {"role": "assistant", "content": [], "refusal": REFUSAL}]
    assert to_openai(from_openai(refused))[1] == {"role": "assistant", "refusal": REFUSAL}


def test_inline_data_without_a_name_is_sent_with_a_filename_of_its_type() -> None:
    # The API refuses file_data without a filename ("Missing required parameter: '...file.file_id'"),
    # which the SDK's types allow.
    pdf = Base64Source("application/pdf", "JVBERi0xLjQK")
    out = to_openai([UserMessage("Summarise", DataBlock(pdf))])
    assert out[0]["content"][1] == {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjQK", "filename": "file.pdf"}}
    # Read back, that filename is no name: the block is as it was, and goes out the same again.
    (back,) = from_openai(out)
    (block,) = back.get_content_blocks(DataBlock)
    assert block.source == pdf and block.name is None
    assert to_openai([back]) == out
    odd = to_openai([UserMessage(DataBlock(Base64Source("application/x-thing", "AAAA")))])
    assert odd[0]["content"][0]["file"]["filename"] == "file"  # no extension known for the type
    # A file by id is given no name, and one it has is its own.
    by_id = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc", "filename": "file.pdf"}}]}]
    (by_id_block,) = from_openai(by_id)[0].get_content_blocks(DataBlock)
    assert by_id_block.name == "file.pdf"
    assert to_openai(from_openai(by_id)) == by_id


# -- what describes an answer stays with it -----------------------------------------------------------

CITATION = {
    "type": "url_citation",
    "url_citation": {"start_index": 4, "end_index": 15, "title": "Example", "url": "https://example.com"},
}


def _completion(message: dict[str, Any], finish_reason: str = "stop") -> ChatCompletion:
    # Built as the client builds an answer (leniently, nested objects too), so that the fields a server
    # left out stay unset, and one it gave as null is set to None.
    fields: dict[str, Any] = {
        "id": "chatcmpl-9", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None, "message": message}],
    }
    return ChatCompletion.model_construct(**fields)


def _forms(completion: ChatCompletion) -> list[Any]:
    """The answer as the SDK returns it, its model_dump(), and the JSON the server sent."""
    return [completion, completion.model_dump(), json.loads(completion.model_dump_json())]


@pytest.mark.parametrize("annotations", [[CITATION], []])
def test_an_answer_s_annotations_are_kept_under_response_and_never_sent(annotations: list[Any]) -> None:
    # The API gives annotations on every message ([] when there are none); no request message has the
    # field, and servers that refuse unknown properties answer it with a 400.
    completion = _completion({"role": "assistant", "content": "See example.com.", "refusal": None, "annotations": annotations})
    message = completion.choices[0].message
    reads: list[Msg] = [from_openai_response(answer) for answer in _forms(completion)]
    # The SDK's message appended to the history, as its own examples do, as it is and dumped.
    reads += [from_openai([sdk_message])[0] for sdk_message in (message, message.model_dump())]
    for read in reads:
        assert read.metadata["openai"]["response"]["annotations"] == annotations
        out = to_openai([UserMessage("Sources?"), read])
        assert out[1]["content"] == "See example.com." and "annotations" not in out[1]
        conforms(out)
        assert to_openai(from_openai(out)) == out  # and what is written reads back and goes out the same


def test_an_audio_answer_keeps_its_annotations_beside_its_audio() -> None:
    audio = {"id": "audio_1", "data": "UklGRg==", "expires_at": 1700003600, "transcript": "See example.com."}
    completion = _completion({"role": "assistant", "content": None, "audio": audio, "annotations": [CITATION]})
    for read in (from_openai_response(completion), from_openai([completion.choices[0].message])[0]):
        assert read.get_text_content() == "See example.com."
        response = read.metadata["openai"]["response"]
        assert response["audio"] == audio and response["annotations"] == [CITATION]
        sent = {"role": "assistant", "content": "See example.com.", "audio": {"id": "audio_1"}}
        assert to_openai([UserMessage("q"), read])[1] == sent


def test_annotations_kept_beside_the_fields_of_a_turn_are_not_sent_either() -> None:
    # Metadata made by hand, or stored before annotations moved under "response".
    stored = AssistantMessage("See example.com.", metadata={"openai": {"annotations": [CITATION], "reasoning_content": "r"}})
    out = to_openai([UserMessage("q"), stored])
    assert out[1] == {"role": "assistant", "content": "See example.com.", "reasoning_content": "r"}


# -- what the SDK gathers from a stream a compatible server sent ----------------------------------------


def test_a_streamed_call_whose_chunks_never_say_its_type_reads_as_a_function_call() -> None:
    # Some OpenAI-compatible servers stream a call without "type"; the SDK's ChatCompletionStreamState
    # then gathers it with type None.
    state = ChatCompletionStreamState()
    for piece in [
        _chunk({"role": "assistant", "content": None}),
        _chunk({"tool_calls": [{"index": 0, "id": "call_q", "function": {"name": "get_weather", "arguments": '{"city": '}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Rome"}'}}]}),
        _chunk({}, "tool_calls"),
    ]:
        state.handle_chunk(piece)
    final = state.get_final_completion()
    assert final.choices[0].message.model_dump()["tool_calls"][0]["type"] is None
    sent = {"id": "call_q", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}
    for answer in _forms(final):
        reply = from_openai_response(answer)
        assert reply.content == (ToolUseBlock("call_q", "get_weather", {"city": "Rome"}, '{"city": "Rome"}'),)
        request = to_openai([UserMessage("Weather in Rome?"), reply, ToolResultMessage.of("call_q", "get_weather", "sunny")])
        assert request[1]["tool_calls"] == [sent]
        conforms(request)


@pytest.mark.parametrize("typeless", [{"type": None}, {}], ids=["null", "absent"])
def test_a_call_without_a_type_is_the_kind_its_body_names(typeless: dict[str, Any]) -> None:
    function = {"id": "c1", **typeless, "function": {"name": "f", "arguments": "{}"}}
    custom = {"id": "c2", **typeless, "custom": {"name": "g", "input": "x"}}
    (message,) = from_openai([{"role": "assistant", "tool_calls": [function, custom]}])
    assert [call.metadata for call in message.get_content_blocks(ToolUseBlock)] == [{}, {"openai": {"type": "custom"}}]
    assert to_openai([message], validate=False)[0]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "c2", "type": "custom", "custom": {"name": "g", "input": "x"}},
    ]


@pytest.mark.parametrize("idless", [{"id": None}, {}], ids=["null", "absent"])
def test_a_call_without_an_id_reads_and_is_left_to_the_conversation_check(idless: dict[str, Any]) -> None:
    # Not refused for want of an id some compatible servers never send: the answer's text and call are
    # read.  No result can name the call, which the check says before a request is sent.
    call = {**idless, "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    completion = _completion({"role": "assistant", "content": "Checking.", "tool_calls": [call]}, "tool_calls")
    for answer in _forms(completion):
        reply = from_openai_response(answer)
        assert reply.content == (TextBlock("Checking."), ToolUseBlock(None, "f", {"a": 1}, '{"a": 1}'))
        conversation = [UserMessage("q"), reply, ToolResultMessage.of(None, "f", "ok")]
        with pytest.raises(ConversationError, match=r"messages\[1\]\.content\[1\]: tool call None has no result"):
            to_openai(conversation)
        # Written as the writer writes any call without an id.
        out = to_openai(conversation, validate=False)
        assert out[1]["tool_calls"] == [{"id": "", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]
        assert out[2]["tool_call_id"] == ""
    (request_read,) = from_openai([{"role": "assistant", "tool_calls": [call]}])
    assert request_read.content == (ToolUseBlock(None, "f", {"a": 1}, '{"a": 1}'),)


@pytest.mark.parametrize(("call", "path", "problem"), [
    ({"id": 5, "type": "function", "function": {"name": "f", "arguments": "{}"}}, ".id", "expected a string, got number"),
    ({"id": "c", "type": 5, "function": {"name": "f", "arguments": "{}"}}, ".type", "expected a string, got number"),
    ({"id": "c", "type": "tool", "function": {"name": "f", "arguments": "{}"}}, ".type", "unknown tool call type 'tool'"),
    ({"id": "c", "type": "function"}, "", "missing required key 'function'"),
    ({"id": "c"}, "", "missing required key 'function'"),
    ({"id": "c", "type": None, "function": None}, ".function", "expected an object, got null"),
    ({"id": None, "type": None, "function": {"arguments": "{}"}}, ".function", "missing required key 'name'"),
])
def test_a_call_truly_malformed_is_still_refused_by_path(call: dict[str, Any], path: str, problem: str) -> None:
    message = {"role": "assistant", "tool_calls": [call]}
    answer = {"id": "chatcmpl-9", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o",
              "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]}
    for read in (lambda: from_openai([message]), lambda: from_openai_response(answer)):
        with pytest.raises(DecodeError) as caught:
            read()
        assert caught.value.path.endswith("tool_calls[0]" + path)
        assert problem in str(caught.value)


# -- an answer cut short, which the SDK's stream helpers raise rather than return -------------------------


@pytest.mark.parametrize(("reason", "raised"), [
    ("length", openai.LengthFinishReasonError), ("content_filter", openai.ContentFilterFinishReasonError),
])
def test_a_streamed_answer_cut_short_is_read_from_what_the_sdk_gathered(reason: str, raised: type[Exception]) -> None:
    # As docs/interop/openai.md says: get_final_completion() raises; the snapshot (or the error's
    # completion) holds the answer.
    state = ChatCompletionStreamState()
    for piece in [_chunk({"role": "assistant", "content": "The three reasons are: first,"}), _chunk({}, reason)]:
        state.handle_chunk(piece)
    with pytest.raises(raised) as caught:
        state.get_final_completion()
    for gathered in (state.current_completion_snapshot, getattr(caught.value, "completion")):
        cut = from_openai_response(gathered)
        assert stop_reason(cut) == reason
        assert cut.get_text_content() == "The three reasons are: first,"


@pytest.mark.parametrize(
    "convert",
    [to_openai, to_anthropic, to_vercel_ai, to_agentflow, to_swarm_kit],
    ids=["openai", "anthropic", "vercel", "agentflow", "swarm_kit"],
)
@pytest.mark.parametrize("block_class", [DataBlock, ImageBlock])
def test_inline_data_whose_media_type_is_no_media_type_is_refused_with_the_likely_cause(
    convert: Callable[[list[Msg[Any]]], object], block_class: type[DataBlock] | type[ImageBlock]
) -> None:
    # URLSource(url, mime_type) but Base64Source(media_type, data): swapped, the data went out as a file
    # of type "iVBORw0KGgo=" (OpenAI's data URL "data:iVBORw0KGgo=;base64,image/png"), or, to AgentFlow
    # and swarm-kit, as an image whose bytes were the text "image/png".
    for media_type in ("iVBORw0KGgo=", "/9j/4AAQSkZJRgABAQ"):  # a PNG's and a JPEG's base64, as a real swap gives
        swapped = UserMessage("look", block_class(Base64Source(media_type, "image/png")))
        with pytest.raises(
            UnsupportedContentError,
            match=r"\(messages\[0\]\.content\[1\]\): its media type '.*' is no media type such as 'image/png' "
            r"\(Base64Source takes the media type first, then the data\); pass on_unsupported=",
        ):
            convert([swapped])
    assert convert([UserMessage("look", block_class(Base64Source("image/png", "iVBORw0KGgo=")))])


def test_a_media_type_with_parameters_is_one() -> None:
    [user] = to_openai([UserMessage("look", DataBlock(Base64Source("image/png; charset=binary", "AAAA")))])
    assert user["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png; charset=binary;base64,AAAA"}}

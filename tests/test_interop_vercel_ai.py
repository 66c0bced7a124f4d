"""Vercel AI SDK / Codebuff: payloads come back exactly, tool results split out and merged back."""

from __future__ import annotations

import copy
from types import MappingProxyType
from typing import Any, Literal

import attrs
import pytest
from framework_payloads import any_timestamps, comparable, seed, vercel_ai_payloads
from hypothesis import given
from hypothesis import strategies as st
from payload_fields import extra_field_cases
from strategies import chat_usages, json_text, message_metadata, msg_timestamps

from agentscope_py import (
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    Base64Source,
    ContentBlock,
    DataBlock,
    DecodeError,
    HintBlock,
    Msg,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolCallState,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
)
from agentscope_py.interop import (
    from_anthropic,
    from_vercel_ai,
    to_anthropic,
    to_openai,
    to_vercel_ai,
    validate_conversation,
)

SEEDS = seed("vercel_ai_seed.json")


@pytest.mark.parametrize("name", ["messages", "vercel_sdk", "vercel_sdk_7_steps", "vercel_sdk_7_ui"])
def test_seed_examples_come_back_exactly(name: str) -> None:
    payload = SEEDS[name]
    original = copy.deepcopy(payload)
    assert to_vercel_ai(from_vercel_ai(payload)) == original
    assert payload == original


def test_seed_messages_read_as_agentscope_messages() -> None:
    system, user, assistant, tool, *_, screenshot = from_vercel_ai(SEEDS["messages"])
    assert isinstance(system, SystemMessage) and system.get_text_content() == "You are a helpful coding assistant."
    assert isinstance(user, UserMessage)
    assert user.content[1] == DataBlock(Base64Source("image/png", "iVBORw0KGgo="), id=user.content[1].id)  # type: ignore[union-attr]
    call = assistant.content[1]
    assert isinstance(call, ToolUseBlock) and call.input == {"path": "tsconfig.json", "content": '{"compilerOptions":{}}'}
    assert isinstance(tool, ToolResultMessage)
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock)
    assert (result.id, result.name) == ("call_123", "write_file")
    assert result.output == (TextBlock('{"success": true, "path": "tsconfig.json"}'),)
    assert tool.metadata["vercel_ai"]["layout"] == "codebuff"
    assert screenshot.timestamp is not None and screenshot.metadata["vercel_ai"]["tags"] == ["USER_PROMPT"]


def test_a_codebuff_tool_message_that_became_an_error_goes_as_a_tool_result_part() -> None:
    # Codebuff's shape has no error: the standard part says it, rather than losing it silently.
    tool = from_vercel_ai(SEEDS["messages"])[3]
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock)
    failed = tool.with_content([ToolResultBlock(result.id, result.name, [TextBlock("exit 1")], state=ToolResultState.ERROR)])
    (sent,) = to_vercel_ai([failed])
    assert sent["content"] == [
        {"type": "tool-result", "toolCallId": "call_123", "toolName": "write_file", "output": {"type": "error-text", "value": "exit 1"}}
    ]
    (read,) = from_vercel_ai([sent])[0].content
    assert isinstance(read, ToolResultBlock) and read.state is ToolResultState.ERROR


def test_sdk_tool_outputs_map_to_states_and_blocks() -> None:
    tool = from_vercel_ai(SEEDS["vercel_sdk"])[3]
    text, error, content = tool.content
    assert isinstance(text, ToolResultBlock) and (text.output, text.state) == ((TextBlock("sunny"),), ToolResultState.SUCCESS)
    assert isinstance(error, ToolResultBlock) and (error.output, error.state) == ((TextBlock('{"code": 500}'),), ToolResultState.ERROR)
    assert isinstance(content, ToolResultBlock) and [type(b) for b in content.output] == [TextBlock, DataBlock]


@given(vercel_ai_payloads())
def test_payloads_come_back_exactly(payload: list[dict[str, Any]]) -> None:
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


# -- messages the SDK can hold come back equal (but for their ids) ----------------------

_TEXT = json_text(max_size=12)
_TEXTS = st.builds(TextBlock, _TEXT)
_DATA = st.builds(
    DataBlock,
    st.one_of(
        st.builds(URLSource, st.just("https://e.com/a.png"), st.none() | st.sampled_from(["image/png", "application/pdf"])),
        st.builds(Base64Source, st.sampled_from(["image/png", "application/pdf"]), st.just("iVBORw0KGgo=")),
    ),
    name=st.none() | _TEXT,
)


def _declared(block: DataBlock) -> bool:
    return not isinstance(block.source, URLSource) or block.source.mime_type is not None


# An assistant's media is a file part, and so is a user's named medium (an image part holds no name).
# A file part must name its media type: one the block does not declare comes back declared
# (test_a_file_part_names_the_likely_media_type).
_DECLARED_DATA = _DATA.filter(_declared)
_USER_DATA = _DATA.filter(lambda block: block.name is None or _declared(block))
# Named, a result's medium other than an image goes as a file-data item (AI SDK 6) or a file item (7),
# which hold the name; an image as media for 6, which holds none.  A URL goes as image-url, which
# holds no media type (an image's comes back from its extension), or file-url.
_B64_DATA = st.builds(DataBlock, st.builds(Base64Source, st.just("image/png"), st.just("AAAA"))) | st.builds(
    DataBlock, st.builds(Base64Source, st.just("audio/wav"), st.just("AAAA")), name=st.none() | _TEXT
)
_URL_DATA = st.sampled_from(
    [DataBlock(URLSource("https://e.com/a.png")), DataBlock(URLSource("https://e.com/a", "application/pdf"), name="a")]
)
# A call waiting for approval (ASKING) goes with an approval request and comes back asking.
_CALLS = st.builds(
    ToolUseBlock,
    _TEXT,
    _TEXT,
    st.dictionaries(_TEXT, st.integers() | _TEXT, max_size=2),
    state=st.sampled_from([ToolCallState.PENDING, ToolCallState.ASKING]),
)
_RESULTS = st.one_of(
    st.builds(ToolResultBlock, _TEXT, _TEXT, _TEXTS, state=st.sampled_from([ToolResultState.SUCCESS, ToolResultState.ERROR])),
    st.builds(ToolResultBlock, _TEXT, _TEXT, st.lists(_TEXTS | _B64_DATA, max_size=3).filter(lambda b: len(b) != 1), state=st.just(ToolResultState.SUCCESS)),
)
# AI SDK 6 and 7 hold media by URL in a tool result too (the name of a URL's file does not travel).
_URL_RESULTS = st.builds(
    ToolResultBlock, _TEXT, _TEXT, st.lists(_TEXTS | _B64_DATA | _URL_DATA.map(lambda b: attrs.evolve(b, name=None)), min_size=2, max_size=3), state=st.just(ToolResultState.SUCCESS)
)
_FIELDS = {"name": st.none() | _TEXT, "metadata": message_metadata(), "timestamp": st.none() | msg_timestamps(), "usage": st.none() | chat_usages()}
_MESSAGES = st.one_of(
    st.builds(UserMessage, st.lists(_TEXTS | _USER_DATA, max_size=3), **_FIELDS),
    st.builds(SystemMessage, _TEXTS, **_FIELDS),
    st.builds(AssistantMessage, st.lists(st.one_of(_TEXTS, _DECLARED_DATA, _CALLS, st.builds(ThinkingBlock, _TEXT)), max_size=4), **_FIELDS),
    st.builds(ToolResultMessage, st.lists(_RESULTS, min_size=1, max_size=3), **_FIELDS),
)


@given(st.lists(_MESSAGES, max_size=4))
def test_messages_come_back_equal(messages: list[Msg[Any]]) -> None:
    back = from_vercel_ai(to_vercel_ai(messages))
    assert [comparable(m, ids=False) for m in back] == [comparable(m, ids=False) for m in messages]


@pytest.mark.parametrize("ai_sdk", [6, 7])
@given(results=st.lists(_RESULTS | _URL_RESULTS, min_size=1, max_size=3))
def test_results_written_for_ai_sdk_6_and_7_come_back_equal(ai_sdk: Literal[6, 7], results: list[ToolResultBlock]) -> None:
    message = ToolResultMessage(results)
    (back,) = from_vercel_ai(to_vercel_ai([message], ai_sdk=ai_sdk))
    # What is read is rendered in AI SDK 6's spelling: 7's (its file item) is marked, in the metadata.
    plain = back.with_content([attrs.evolve(block, metadata={}) for block in back.get_content_blocks(ToolResultBlock)])
    assert comparable(plain, ids=False)[3] == comparable(message, ids=False)[3]


@pytest.mark.parametrize("media_type", ["IMAGE/PNG", "image/png; name=x.png", "Image/Png;name=x.png"])
def test_an_image_type_in_any_case_and_with_parameters_is_an_image_part(media_type: str) -> None:
    written = to_vercel_ai([UserMessage(DataBlock(Base64Source(media_type, "iVBORw0KGgo=")))])
    assert written[0]["content"][0]["type"] == "image"


def test_a_file_part_names_the_likely_media_type() -> None:
    # The SDK requires a file part's mediaType; a block that declares none is written with the one
    # its URL's extension or its data's first bytes suggest, or refused when neither tells.
    from_openai_image = DataBlock(URLSource("https://example.com/cat.jpg"))
    sent = to_vercel_ai(
        [
            UserMessage(from_openai_image, DataBlock(URLSource("https://e.com/report.pdf"))),
            AssistantMessage(from_openai_image, DataBlock(Base64Source("", "iVBORw0KGgo="))),
        ]
    )
    assert sent[0]["content"] == [
        {"type": "image", "image": "https://example.com/cat.jpg"},
        {"type": "file", "data": "https://e.com/report.pdf", "mediaType": "application/pdf"},
    ]
    assert sent[1]["content"] == [
        {"type": "file", "data": "https://example.com/cat.jpg", "mediaType": "image/jpeg"},
        {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
    ]
    unknown = [UserMessage(DataBlock(URLSource("https://e.com/download")))]
    with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock by URL \(messages\[0\]\.content\[0\]\)"):
        to_vercel_ai(unknown)
    assert to_vercel_ai(unknown, on_unsupported="drop")[0]["content"] == []


def test_a_named_image_is_a_file_part_which_holds_its_name() -> None:
    # The SDK's image part has no filename (it strips one); its providers send an image file part as an image.
    chart = DataBlock(Base64Source("image/png", _PNG), name="chart.png")
    photo = DataBlock(URLSource("https://e.com/photo.jpg"), name="photo.jpg")
    unnamed = DataBlock(Base64Source("image/png", _PNG))
    message = UserMessage(chart, photo, unnamed, timestamp=None)
    (sent,) = to_vercel_ai([message])
    assert sent["content"] == [
        {"type": "file", "data": f"data:image/png;base64,{_PNG}", "mediaType": "image/png", "filename": "chart.png"},
        {"type": "file", "data": "https://e.com/photo.jpg", "mediaType": "image/jpeg", "filename": "photo.jpg"},
        {"type": "image", "image": f"data:image/png;base64,{_PNG}", "mediaType": "image/png"},
    ]
    (back,) = from_vercel_ai([sent])
    declared = DataBlock(URLSource("https://e.com/photo.jpg", "image/jpeg"), name="photo.jpg")  # a file part names its type
    assert comparable(back)[3] == comparable(message.with_content([chart, declared, unnamed]))[3]
    assert "vercel_ai" not in back.metadata  # file parts are what the writer chooses for them
    # An image part read with a filename (the SDK's type has none) goes back as it came.
    payload = [{"role": "user", "content": [{**sent["content"][2], "filename": "chart.png"}]}]
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


# Written out rather than read from the library: an entry dropped from its table must fail here.
EXTENSION_TYPES = {
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "bmp": "image/bmp", "svg": "image/svg+xml", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic",
    "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "flac": "audio/flac",
    "m4a": "audio/mp4", "aac": "audio/aac", "mp4": "video/mp4", "webm": "video/webm", "mov": "video/quicktime",
    "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html",
    "htm": "text/html", "json": "application/json", "xml": "application/xml",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}


def file_part_of(url: str, mime_type: str | None = None) -> dict[str, Any]:
    """The file part an assistant's DataBlock by ``url`` becomes: it must name a media type."""
    sent = to_vercel_ai([UserMessage("q"), AssistantMessage(DataBlock(URLSource(url, mime_type)))])
    [part] = sent[1]["content"]
    return part  # type: ignore[no-any-return]


@pytest.mark.parametrize(("extension", "media_type"), sorted(EXTENSION_TYPES.items()))
def test_a_url_with_a_known_file_extension_goes_with_the_media_type_it_names(extension: str, media_type: str) -> None:
    for name in (f"a.{extension}", f"A.{extension.upper()}"):
        url = f"https://x/{name}"
        assert file_part_of(url) == {"type": "file", "data": url, "mediaType": media_type}


@pytest.mark.parametrize(
    ("url", "mime_type", "media_type"),
    [
        ("https://x/photo.v2.wav", None, "audio/wav"),  # the last extension names the type
        ("https://x/a.wav?format=png#x.png", None, "audio/wav"),  # the path's, not the query's
        ("https://x/a.wav", "image/png", "image/png"),  # the type declared wins over the extension
        ("https://x/files/pdf", None, None),  # a name without a dot has no extension
        ("https://x/v1.2/download", None, None),  # nor has a name after a folder's dot
        ("https://x/backup.tar.gz", None, None),
    ],
)
def test_a_url_has_the_media_type_of_its_last_path_segments_extension(url: str, mime_type: str | None, media_type: str | None) -> None:
    if media_type is None:
        with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock by URL \(messages\[1\]\.content\[0\]\)"):
            file_part_of(url, mime_type)
    else:
        assert file_part_of(url, mime_type) == {"type": "file", "data": url, "mediaType": media_type}


# -- tool results: split out, merged back ----------------------------------------------------


def test_results_inside_an_assistant_message_go_to_a_tool_message() -> None:
    message = AssistantMessage(
        TextBlock("checking"),
        ToolUseBlock("c1", "weather", {"city": "Paris"}),
        ToolResultBlock("c1", "weather", TextBlock("sunny"), state=ToolResultState.SUCCESS),
        TextBlock("It is sunny."),
        name="bot",
    )
    sent = to_vercel_ai([message])
    assert [m["role"] for m in sent] == ["assistant", "tool", "assistant"]
    assert sent[1]["content"] == [
        {"type": "tool-result", "toolCallId": "c1", "toolName": "weather", "output": {"type": "text", "value": "sunny"}}
    ]
    assert sent[0]["providerOptions"] == {"agentscope": {"name": "bot"}}
    assert "providerOptions" not in sent[2]  # the message's own fields go with its first part only
    back = from_vercel_ai(sent)
    assert [type(m) for m in back] == [AssistantMessage, ToolResultMessage, AssistantMessage]
    assert back[1].content == (message.content[2],)


def test_a_provider_executed_result_stays_in_the_assistant_message() -> None:
    payload = [
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "ws", "toolName": "web_search", "input": {"q": "x"}, "providerExecuted": True},
                {"type": "tool-result", "toolCallId": "ws", "toolName": "web_search", "output": {"type": "json", "value": [1, 2]}},
                {"type": "text", "text": "found two"},
            ],
        }
    ]
    messages = from_vercel_ai(payload)
    assert len(messages) == 1 and isinstance(messages[0].content[1], ToolResultBlock)
    assert to_vercel_ai(messages) == payload


def test_other_blocks_of_a_tool_message_go_to_a_user_message() -> None:
    message = ToolResultMessage(ToolResultBlock("c", "f", TextBlock("r")), TextBlock("note"))
    assert [m["role"] for m in to_vercel_ai([message])] == ["tool", "user"]


def test_raw_argument_text_is_read_and_written_as_it_came() -> None:
    raw = '{"path": "a.txt" , "n": 1}'
    payload = [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "w", "input": raw}]}]
    call = from_vercel_ai(payload)[0].content[0]
    assert isinstance(call, ToolUseBlock) and call.content == raw and call.input == {"path": "a.txt", "n": 1}
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


def test_arguments_known_only_as_raw_text_go_as_an_object_when_they_parse() -> None:
    call = ToolUseBlock("c", "w", {}, '{"a": 1}')
    assert to_vercel_ai([AssistantMessage(call)])[0]["content"][0]["input"] == {"a": 1}


# -- never silently lossy ---------------------------------------------------------------------


def test_a_hint_raises_naming_where_unless_a_policy_is_chosen() -> None:
    messages = [UserMessage("hi"), AssistantMessage(TextBlock("a"), HintBlock("h", "short"))]
    with pytest.raises(UnsupportedContentError, match=r"HintBlock \(messages\[1\]\.content\[1\]\)"):
        to_vercel_ai(messages)
    dropped = to_vercel_ai(messages, on_unsupported="drop")
    assert dropped[1]["content"] == [{"type": "text", "text": "a"}]
    assert [(n.message_index, n.block_index, n.block_type, n.action) for n in dropped.notes] == [(1, 1, "hint", "dropped")]
    as_text = to_vercel_ai(messages, on_unsupported="text")
    assert as_text[1]["content"][1] == {"type": "text", "text": "[hint] short"}


def test_a_url_inside_a_tool_result_is_unsupported_for_ai_sdk_5() -> None:
    result = ToolResultBlock("c", "f", [TextBlock("see"), DataBlock(URLSource("https://e.com/a.png", "image/png"))])
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[0\]"):
        to_vercel_ai([ToolResultMessage(result)], ai_sdk=5)
    sent = to_vercel_ai([ToolResultMessage(result)], on_unsupported="text", ai_sdk=5)
    assert sent[0]["content"][0]["output"]["value"][1] == {"type": "text", "text": "[data: https://e.com/a.png]"}


@pytest.mark.parametrize("ai_sdk", [6, 7])
def test_a_url_inside_a_tool_result_goes_as_an_image_url_or_file_url_item_for_ai_sdk_6_and_7(ai_sdk: Literal[6, 7]) -> None:
    media = [
        DataBlock(URLSource("https://e.com/a.png", "image/png")),
        DataBlock(URLSource("https://e.com/doc.pdf")),  # its type from its extension
        DataBlock(URLSource("https://e.com/x", "application/pdf"), name="x.pdf"),  # file-url holds no name
    ]
    result = ToolResultBlock("c", "f", [TextBlock("see"), *media], state=ToolResultState.SUCCESS)
    (sent,) = to_vercel_ai([ToolResultMessage(result)], ai_sdk=ai_sdk)
    assert sent["content"][0]["output"]["value"][1:] == [
        {"type": "image-url", "url": "https://e.com/a.png"},
        {"type": "file-url", "url": "https://e.com/doc.pdf", "mediaType": "application/pdf"},
        {"type": "file-url", "url": "https://e.com/x", "mediaType": "application/pdf"},
    ]
    # A URL of no type we can tell, or a file id no one can fetch, still goes through the policy.
    for untold in (URLSource("https://e.com/x"), URLSource("file-abc123", "image/png")):
        with pytest.raises(UnsupportedContentError):
            to_vercel_ai([ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("x"), DataBlock(untold)]))], ai_sdk=ai_sdk)


def test_thinking_outside_an_assistant_message_is_unsupported() -> None:
    with pytest.raises(UnsupportedContentError, match="ThinkingBlock"):
        to_vercel_ai([ToolResultMessage(ThinkingBlock("hm"))])


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ("messages", "messages"),
        ([{"content": "x"}], "messages[0]"),
        ([{"role": "developer", "content": "x"}], "messages[0].role"),
        ([{"role": "user", "content": [{"type": "image", "image": 3}]}], "messages[0].content[0].image"),
        ([{"role": "user", "content": [{"type": "audio", "data": "x"}]}], "messages[0].content[0].type"),
        ([{"role": "user", "content": [{"type": "reasoning", "text": "x"}]}], "messages[0].content[0].type"),
        ([{"role": "tool", "content": "done"}], "messages[0].content"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "content", "value": [{"type": "media", "data": "x"}]}}]}], "messages[0].content[0].output.value[0]"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "blob"}}]}], "messages[0].content[0].output.type"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "content", "value": [{"type": "file-id"}]}}]}], "messages[0].content[0].output.value[0]"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "content", "value": [{"type": "file-id", "fileId": 7}]}}]}], "messages[0].content[0].output.value[0].fileId"),
        ([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "content", "value": [{"type": "image-file-id", "fileId": {"openai": None}}]}}]}], "messages[0].content[0].output.value[0].fileId.openai"),
        ([{"role": "tool", "toolCallId": "c", "toolName": "f", "content": [{"type": "json"}]}], "messages[0].content[0]"),
        ([{"role": "user", "content": "x", "sentAt": "now"}], "messages[0].sentAt"),
        ([{"role": "user", "content": "x", "providerOptions": {"agentscope": {"usage": {"input_tokens": 1.5}}}}], "messages[0].providerOptions.agentscope.usage.input_tokens"),
    ],
)
def test_malformed_payloads_name_the_path(payload: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        from_vercel_ai(payload)
    assert info.value.path == path


def test_a_long_bad_value_is_shown_by_its_start_in_the_error() -> None:
    # Errors land in logs: a megabyte role, type or id shows its start and its length, not itself.
    huge = "A" * 1_000_000
    result = {"type": "tool-result", "toolCallId": "a", "toolName": "f"}
    for payload in (
        [{"role": huge, "content": "x"}],
        [{"role": "user", "content": [{"type": huge}]}],
        [{"role": "tool", "content": [{**result, "output": {"type": huge}}]}],
        [{"role": "tool", "content": [{**result, "output": {"type": "content", "value": [{"type": huge}]}}]}],
        [{"role": "assistant", "content": [{"type": "tool-approval-request", "approvalId": "a", "toolCallId": huge}]}],
    ):
        with pytest.raises(DecodeError) as info:
            from_vercel_ai(payload)
        assert f"{'A' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 1000


def test_media_in_an_assistant_message_is_a_file_part() -> None:
    # The SDK's assistant content takes file parts but no image part.
    reply = AssistantMessage(TextBlock("here"), DataBlock(Base64Source("image/png", "iVBORw0KGgo=")))
    (written,) = to_vercel_ai([reply])
    assert written["content"][1] == {"type": "file", "data": "data:image/png;base64,iVBORw0KGgo=", "mediaType": "image/png"}
    (back,) = from_vercel_ai([written])
    data = back.content[1]
    assert isinstance(data, DataBlock) and data.source == Base64Source("image/png", "iVBORw0KGgo=")
    assert "vercel_ai" not in back.metadata  # nothing to carry: a file part is what the writer chooses there


def test_ai_sdk_6_outputs_read_and_go_back_as_they_came() -> None:
    # packages/provider-utils/src/types/content-part.ts of ai@6: a denied approval, and the new output items.
    payload = [
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "delete", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "delete",
                                      "output": {"type": "execution-denied", "reason": "not today"}}]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c2", "toolName": "chart", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c2", "toolName": "chart", "output": {
            "type": "content", "value": [
                {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                {"type": "file-url", "url": "https://example.com/report.pdf"},
                {"type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "r.pdf"},
            ]}}]},
    ]
    _, denied, _, chart = from_vercel_ai(payload)
    (refusal,) = denied.content
    assert isinstance(refusal, ToolResultBlock) and refusal.state is ToolResultState.DENIED
    assert refusal.output == (TextBlock("not today"),)
    (result,) = chart.content
    assert isinstance(result, ToolResultBlock)
    image, url, pdf = result.output
    assert isinstance(image, DataBlock) and image.source == Base64Source("image/png", "iVBORw0KGgo=")
    assert isinstance(url, DataBlock) and url.source == URLSource("https://example.com/report.pdf")
    assert isinstance(pdf, DataBlock) and pdf.name == "r.pdf"
    assert to_vercel_ai([*from_vercel_ai(payload)]) == payload
    # Made here, a denial goes as an error text (AI SDK 5 knows no execution-denied).
    fresh = ToolResultMessage(ToolResultBlock("c1", "delete", [TextBlock("not today")], state=ToolResultState.DENIED))
    assert to_vercel_ai([fresh])[0]["content"][0]["output"] == {"type": "error-text", "value": "not today"}


def test_a_call_without_input_reads_as_no_arguments_and_goes_back_without_it() -> None:
    # The SDK's schema has input optional, and JSON.stringify leaves an undefined one out.
    payload = [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "ls"}]}]
    (message,) = from_vercel_ai(payload)
    [call] = message.content
    assert isinstance(call, ToolUseBlock)
    assert (call.id, call.name, call.input, call.content) == ("c1", "ls", {}, None)
    assert to_vercel_ai([message]) == payload


def test_a_provider_executed_result_without_its_call_stays_in_the_assistant_message() -> None:
    # to-response-messages.ts writes providerExecuted on the result too; here its call came earlier.
    payload = [{"role": "assistant", "content": [
        {"type": "tool-result", "toolCallId": "ws1", "toolName": "web_search", "output": {"type": "text", "value": "3 hits"},
         "providerExecuted": True},
    ]}]
    (message,) = from_vercel_ai(payload)
    assert isinstance(message, AssistantMessage)
    assert to_vercel_ai([message]) == payload


@pytest.mark.parametrize("media_type", [{"mediaType": ""}, {}])
def test_a_file_part_read_without_a_media_type_goes_back_as_it_came(media_type: dict[str, str]) -> None:
    # Found by the mutation property: the SDK requires mediaType, but what was read is written back.
    payload = [{"role": "user", "content": [{"type": "file", "data": "AA==", "filename": "", **media_type}]}]
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


def test_a_media_type_that_is_none_is_refused_when_read_or_kept_in_its_url() -> None:
    # Found by the mutation property: the writers refuse inline data of such a type (as when
    # Base64Source's arguments are swapped), so a payload read with it could not go back.
    for part, path in (
        ({"type": "file", "data": "AA==", "mediaType": "data:"}, "messages[0].content[0].mediaType"),
        ({"type": "tool-result", "toolCallId": "c", "toolName": "f",
          "output": {"type": "content", "value": [{"type": "media", "data": "AA==", "mediaType": "AA=="}]}},
         "messages[0].content[0].output.value[0].mediaType"),
    ):
        with pytest.raises(DecodeError, match=r"expected a media type such as 'image/png', got ") as caught:
            from_vercel_ai([{"role": "assistant", "content": [part]}])
        assert caught.value.path == path
    # A data: URL whose type is none is a URL, and a URL's declared type is passed on as it is:
    # both written back as they came.
    payload = [{"role": "user", "content": [
        {"type": "image", "image": "data:AA==;base64,AA=="},
        {"type": "file", "data": "https://e.com/a.pdf", "mediaType": "pdf"},
    ]}]
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


def test_an_ai_sdk_6_provider_result_stays_in_its_assistant_message() -> None:
    # ai@6's toResponseMessages writes no providerExecuted on the result; its call came before.
    payload = [
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "s1", "toolName": "web_search", "input": {}, "providerExecuted": True}]},
        {"role": "assistant", "content": [
            {"type": "tool-result", "toolCallId": "s1", "toolName": "web_search", "output": {"type": "text", "value": "r"}},
            {"type": "text", "text": "done"},
        ]},
    ]
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


@pytest.mark.parametrize(
    ("output", "value"),
    [
        ([DataBlock(Base64Source("image/png", "iVBORw0KGgo="))], None),  # a medium: through the policy
        ([TextBlock("exit 1"), TextBlock("see log")], "exit 1\nsee log"),
        ([], ""),
    ],
)
def test_an_error_result_is_written_as_an_error_whatever_its_output(output: list[ContentBlock], value: str | None) -> None:
    # Only a text says error: it comes back an error holding that one text (docs: Round trips).
    message = [ToolResultMessage(ToolResultBlock("c1", "f", output, state=ToolResultState.ERROR))]
    if value is None:
        with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock of image/png"):
            to_vercel_ai(message)
        sent = to_vercel_ai(message, on_unsupported="text")
    else:
        sent = to_vercel_ai(message)
    written = sent[0]["content"][0]["output"]
    assert written["type"] == "error-text" and (value is None or written["value"] == value)
    (result,) = from_vercel_ai(sent)[0].content
    assert isinstance(result, ToolResultBlock) and result.state is ToolResultState.ERROR
    assert result.output == (TextBlock(written["value"]),)


def test_a_denial_read_from_ai_sdk_6_stays_one_when_its_reason_changes() -> None:
    payload = [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t",
                                             "output": {"type": "execution-denied", "reason": "no"}}]}]
    (message,) = from_vercel_ai(payload)
    (denied,) = message.content
    assert isinstance(denied, ToolResultBlock)
    changed = message.with_content([ToolResultBlock(denied.id, denied.name, [TextBlock("not now")], denied.metadata, denied.state)])
    assert to_vercel_ai([changed])[0]["content"][0]["output"] == {"type": "execution-denied", "reason": "not now"}


def test_a_codebuff_result_that_became_an_error_carries_no_stale_output() -> None:
    payload = [{"role": "tool", "toolCallId": "c1", "toolName": "f", "content": [{"type": "json", "value": {"a": 1}}]}]
    (message,) = from_vercel_ai(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock)
    failed = message.with_content([ToolResultBlock(result.id, result.name, result.output, result.metadata, ToolResultState.ERROR)])
    (part,) = to_vercel_ai([failed])[0]["content"]
    assert part == {"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "error-text", "value": '{"a": 1}'}}


def test_a_file_url_items_media_type_is_kept() -> None:
    payload = [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": {
        "type": "content", "value": [{"type": "file-url", "url": "https://x/r.pdf", "mediaType": "application/pdf"}]}}]}]
    (result,) = from_vercel_ai(payload)[0].content
    assert isinstance(result, ToolResultBlock)
    (document,) = result.output
    assert isinstance(document, DataBlock) and document.source == URLSource("https://x/r.pdf", "application/pdf")


# -- AI SDK 6's tool approvals --------------------------------------------------------------


def test_an_approval_request_makes_its_call_asking_and_both_parts_go_back_as_they_came() -> None:
    history: list[dict[str, Any]] = [
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {"path": "a.txt"}},
            {"type": "tool-approval-request", "approvalId": "ap-1", "toolCallId": "c1"},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "ls", "input": {}},
        ]},
        {"role": "tool", "content": [
            {"type": "tool-approval-response", "approvalId": "ap-1", "approved": False, "reason": "keep it"},
            {"type": "tool-result", "toolCallId": "c2", "toolName": "ls", "output": {"type": "text", "value": "a.txt"}},
        ]},
    ]
    assistant, tool = from_vercel_ai(history)
    asked, listed = assistant.content
    assert isinstance(asked, ToolUseBlock) and asked.state is ToolCallState.ASKING
    assert isinstance(listed, ToolUseBlock) and listed.state is ToolCallState.PENDING
    assert [type(block) for block in tool.content] == [ToolResultBlock]  # the answer is no block: carried
    assert to_vercel_ai([assistant, tool]) == history
    # Answered in Python, the call goes on as allowed; its request stays, for the answer to refer to.
    allowed = assistant.with_content([asked.with_state(ToolCallState.ALLOWED), listed])
    assert to_vercel_ai([allowed])[0]["content"][1] == {"type": "tool-approval-request", "approvalId": "ap-1", "toolCallId": "c1"}
    # A request goes with its call: take the call out, and what is written still reads.
    [without] = to_vercel_ai([assistant.with_content([listed])])
    assert [part["type"] for part in without["content"]] == ["tool-call"]
    assert from_vercel_ai([without])[0].content == (listed,)


def test_a_call_made_asking_in_python_asks_with_its_own_id_and_reads_back_equal() -> None:
    asking = AssistantMessage(ToolUseBlock("c9", "rm", {"path": "b"}, state=ToolCallState.ASKING), id="m", timestamp=None)
    [written] = to_vercel_ai([asking])
    assert written["content"][1] == {"type": "tool-approval-request", "approvalId": "c9", "toolCallId": "c9"}
    [back] = from_vercel_ai([written])
    assert back.content == asking.content and back.metadata == {}


@pytest.mark.parametrize(
    ("part", "path", "message"),
    [
        ({"type": "tool-approval-request", "approvalId": "a", "toolCallId": "zz"}, ".toolCallId", "no tool-call 'zz' in this message"),
        ({"type": "tool-approval-request", "toolCallId": "c1"}, "", "missing required key 'approvalId'"),
        ({"type": "tool-approval-response", "approvalId": "a", "approved": True}, ".type", "expected one of text, image, file, reasoning, tool-call, tool-result, tool-approval-request"),
    ],
)
def test_a_malformed_approval_part_names_its_path(part: dict[str, Any], path: str, message: str) -> None:
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {}}
    with pytest.raises(DecodeError, match=message) as info:
        from_vercel_ai([{"role": "assistant", "content": [call, part]}])
    assert info.value.path == f"messages[0].content[1]{path}"
    with pytest.raises(DecodeError, match="approved: expected a boolean") as info:
        from_vercel_ai([{"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "a", "approved": "yes"}]}])
    with pytest.raises(DecodeError, match="unknown part type 'tool-approval-request'; expected one of text, image, file$"):
        from_vercel_ai([{"role": "user", "content": [{"type": "tool-approval-request", "approvalId": "a", "toolCallId": "c1"}]}])


@pytest.mark.parametrize(
    "carried",
    [
        "junk",
        None,
        [1],
        {"0": "junk"},
        {"0": None},
        {"0": {"type": "tool-approval-response", "approvalId": "a", "approved": True}},
        {"²": {"type": "tool-approval-request", "approvalId": "a", "toolCallId": "c1"}},  # a digit, but no number
    ],
)
def test_approvals_metadata_that_is_not_what_was_read_is_passed_over(carried: object) -> None:
    # Carried bookkeeping edited into something else reads as absent, as every carried field does.
    call = ToolUseBlock("c1", "f", {})
    message = AssistantMessage(call, metadata={"vercel_ai": {"approvals": carried}})
    [written] = to_vercel_ai([message])
    assert written["content"] == [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]


def test_an_approval_answer_alone_in_its_tool_message_parts_nothing() -> None:
    # AI SDK 6 sends the user's answer in a tool message of its own, between the call and its result.
    # Read, that message holds no block: it is no turn, so the call and its result still meet.
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "delete a.txt"},
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {}},
            {"type": "tool-approval-request", "approvalId": "ap", "toolCallId": "c1"},
        ]},
        {"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "ap", "approved": True}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "rm", "output": {"type": "text", "value": "ok"}}]},
    ]
    messages = from_vercel_ai(history)
    assert validate_conversation(messages) == []
    assert [m["role"] for m in to_openai(messages)] == ["user", "assistant", "tool"]
    assert [m["role"] for m in to_anthropic(messages)["messages"]] == ["user", "assistant", "user"]
    assert to_vercel_ai(messages) == history


_APPROVED: list[dict[str, Any]] = [
    {"role": "assistant", "content": [
        {"type": "text", "text": "deleting"},
        {"type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": {}},
        {"type": "tool-approval-request", "approvalId": "ap-1", "toolCallId": "c1"},
    ]},
    {"role": "tool", "content": [
        {"type": "tool-approval-response", "approvalId": "ap-1", "approved": True},
        {"type": "tool-result", "toolCallId": "c1", "toolName": "rm", "output": {"type": "text", "value": "ok"}},
    ]},
]


def test_a_call_asking_for_approval_is_unsupported_for_ai_sdk_5_which_has_no_approvals() -> None:
    # ai 5 refuses the whole prompt for an approval part: it goes through the policy, not into the payload.
    asking = AssistantMessage(TextBlock("deleting"), ToolUseBlock("c9", "rm", {}, state=ToolCallState.ASKING))
    with pytest.raises(UnsupportedContentError, match=r"tool-approval-request part \(messages\[0\]\.content\[1\], for call 'c9'\): ai 5 has no tool approvals"):
        to_vercel_ai([asking], ai_sdk=5)
    for policy in ("drop", "text"):  # a text would say nothing the call does not: dropped either way
        sent = to_vercel_ai([asking], on_unsupported=policy, ai_sdk=5)
        assert [part["type"] for part in sent[0]["content"]] == ["text", "tool-call"]
        assert [(n.message_index, n.block_index, n.block_type, n.action) for n in sent.notes] == [
            (0, 1, "tool-approval-request", "dropped")
        ]
    assert [part["type"] for part in to_vercel_ai([asking], ai_sdk=6)[0]["content"]][-1] == "tool-approval-request"


def test_approval_parts_read_from_a_payload_are_unsupported_for_ai_sdk_5() -> None:
    messages = from_vercel_ai(_APPROVED)
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[1\], for call 'c1'"):
        to_vercel_ai(messages, ai_sdk=5)
    sent = to_vercel_ai(messages, on_unsupported="drop", ai_sdk=5)
    assert [[part["type"] for part in message["content"]] for message in sent] == [["text", "tool-call"], ["tool-result"]]
    assert [(n.message_index, n.block_index, n.block_type) for n in sent.notes] == [
        (0, 1, "tool-approval-request"), (1, 0, "tool-approval-response")
    ]
    assert str(sent.notes[1]) == "messages[1].content[0]: tool-approval-response block dropped (the Vercel AI SDK 5 cannot hold it)"
    # The answer alone in its tool message: named by the place it stood at.
    answer_alone = from_vercel_ai([_APPROVED[1] | {"content": _APPROVED[1]["content"][:1]}])
    with pytest.raises(UnsupportedContentError, match=r"tool-approval-response part \(messages\[0\]\.content\[0\], for approval 'ap-1'\)"):
        to_vercel_ai(answer_alone, ai_sdk=5)
    # AI SDK 6 and 7 take them, as they came.
    assert to_vercel_ai(messages, ai_sdk=7) == _APPROVED


def test_a_parts_fields_stay_with_it_after_an_approval_part_is_dropped_for_ai_sdk_5() -> None:
    text = {"type": "text", "text": "x", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}
    payload = [{"role": "assistant", "content": [*_APPROVED[0]["content"][1:], text]}]
    (sent,) = to_vercel_ai(from_vercel_ai(payload), on_unsupported="drop", ai_sdk=5)
    assert sent["content"] == [payload[0]["content"][0], text]


# -- AI SDK 6's output items we have no block for ------------------------------------------------

# content-part.ts of ai@6: a file the provider holds, by one id or one per provider, and a provider's own item.
_FILE_ID = {"type": "file-id", "fileId": "file-abc"}
_IMAGE_FILE_ID = {"type": "image-file-id", "fileId": {"openai": "file-1", "anthropic": "file_2"}}
_CUSTOM = {"type": "custom", "providerOptions": {"anthropic": {"type": "search_result", "source": "s"}}}


def _tool_result(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {
        "type": "content", "value": items}}]}]


def test_file_id_and_custom_items_are_carried_and_go_back_where_they_were() -> None:
    payload = _tool_result([
        {"type": "text", "text": "two charts"},
        _FILE_ID,
        {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png", "providerOptions": {"openai": {"detail": "low"}}},
        _IMAGE_FILE_ID,
        _CUSTOM,
    ])
    original = copy.deepcopy(payload)
    (message,) = from_vercel_ai(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock)
    # No block stands for them: the blocks are what the other items hold.
    assert [type(block) for block in result.output] == [TextBlock, DataBlock]
    assert to_vercel_ai([message]) == original
    # The output edited, they still stand at their places, as they came; so does the image, the block
    # its item was read into still standing at its index of the output.
    edited = message.with_content([attrs.evolve(result, output=[TextBlock("charts"), result.output[1]])])
    assert to_vercel_ai([edited])[0]["content"][0]["output"]["value"] == [
        {"type": "text", "text": "charts"},
        _FILE_ID,
        {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png", "providerOptions": {"openai": {"detail": "low"}}},
        _IMAGE_FILE_ID,
        _CUSTOM,
    ]
    # Alone, beside one text, they keep the output a content list (a text output holds none).
    alone = _tool_result([{"type": "text", "text": "see file"}, _FILE_ID])
    assert to_vercel_ai(from_vercel_ai(alone)) == alone
    only = _tool_result([_CUSTOM])
    assert to_vercel_ai(from_vercel_ai(only)) == only


def test_file_id_items_in_a_codebuff_list_go_back_where_they_were() -> None:
    payload = [{"role": "tool", "toolCallId": "c", "toolName": "f", "content": [_FILE_ID, {"type": "json", "value": {"ok": True}}]}]
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


_ITEMS = st.lists(
    st.sampled_from([
        _FILE_ID,
        _IMAGE_FILE_ID,
        _CUSTOM,
        {"type": "custom"},
        {"type": "text", "text": "t"},
        {"type": "media", "data": "AAAA", "mediaType": "audio/wav"},
        {"type": "file-url", "url": "https://e.com/r.pdf"},
    ]),
    max_size=5,
)


@given(_ITEMS)
def test_outputs_holding_items_we_have_no_block_for_come_back_exactly(items: list[dict[str, Any]]) -> None:
    payload = _tool_result(items)
    assert to_vercel_ai(from_vercel_ai(payload)) == payload
    codebuff = [{"role": "tool", "toolCallId": "c", "toolName": "f", "content": items}]
    assert to_vercel_ai(from_vercel_ai(codebuff)) == codebuff


def test_carried_items_that_are_not_what_was_read_are_passed_over() -> None:
    junk = {"0": {"type": "file-id"}, "1": "junk", "x": _FILE_ID, "²": _FILE_ID, "3": {"type": "text", "text": "t"}}
    result = ToolResultBlock("c", "f", [], {"vercel_ai": {"blocks": junk}}, ToolResultState.SUCCESS)
    assert to_vercel_ai([ToolResultMessage(result)])[0]["content"][0]["output"] == {"type": "content", "value": []}


# -- media in a tool result must name its type ------------------------------------------------------

_PNG = "iVBORw0KGgoAAAANSUhEUg"


def test_a_medium_in_a_tool_result_goes_with_its_likely_media_type_or_through_the_policy() -> None:
    guessed = ToolResultMessage(ToolResultBlock("c", "f", [DataBlock(Base64Source("", _PNG))], state=ToolResultState.SUCCESS))
    (sent,) = to_vercel_ai([guessed])
    assert sent["content"][0]["output"] == {"type": "content", "value": [{"type": "media", "data": _PNG, "mediaType": "image/png"}]}
    codebuff = guessed.with_metadata({"vercel_ai": {"layout": "codebuff"}})
    assert to_vercel_ai([codebuff])[0]["content"] == [{"type": "media", "data": _PNG, "mediaType": "image/png"}]
    untold = ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("x"), DataBlock(Base64Source("", "AAAA"))]))
    with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock of no media type in a tool result's output \(messages\[0\]\.content\[0\]\.output\[1\]\)"):
        to_vercel_ai([untold])
    dropped = to_vercel_ai([untold], on_unsupported="drop")
    assert dropped[0]["content"][0]["output"] == {"type": "content", "value": [{"type": "text", "text": "x"}]}
    assert [(note.block_type, note.action) for note in dropped.notes] == [("data", "dropped")]
    as_text = to_vercel_ai([untold.with_metadata({"vercel_ai": {"layout": "codebuff"}})], on_unsupported="text")
    assert as_text[0]["content"][1]["type"] == "json" and as_text.notes[0].action == "as_text"


@given(any_timestamps())
def test_every_timestamp_written_reads_back_the_same(timestamp: str) -> None:
    (written,) = to_vercel_ai([UserMessage("hi", timestamp=timestamp)])
    assert from_vercel_ai([written])[0].timestamp == timestamp


def test_sent_at_is_always_milliseconds() -> None:
    # Codebuff writes Date.now(): a small number is a time just after 1970, not seconds.
    (first,) = from_vercel_ai([{"role": "user", "content": "x", "sentAt": 1000}])
    (second,) = from_vercel_ai([{"role": "user", "content": "x", "sentAt": 2000}])
    assert first.timestamp is not None and first.timestamp.endswith(":01.000")
    assert second.timestamp is not None and second.timestamp.endswith(":02.000")


def test_a_medium_in_an_error_result_goes_through_the_policy_as_one_an_error_cannot_hold() -> None:
    failed = ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("x"), DataBlock(Base64Source("image/png", _PNG))], state=ToolResultState.ERROR))
    with pytest.raises(UnsupportedContentError, match=r"image/png in an error result, which holds text only \(messages\[0\]\.content\[0\]\.output\[1\]\)"):
        to_vercel_ai([failed])
    assert to_vercel_ai([failed], on_unsupported="drop")[0]["content"][0]["output"] == {"type": "error-text", "value": "x"}


def test_a_named_data_block_in_a_tool_result_keeps_its_name() -> None:
    report = DataBlock(Base64Source("application/pdf", "JVBERi0="), name="report.pdf")
    message = ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("done"), report], state=ToolResultState.SUCCESS))
    (sent,) = to_vercel_ai([message])
    assert sent["content"][0]["output"]["value"][1] == {
        "type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "report.pdf"
    }
    (result,) = from_vercel_ai([sent])[0].content
    assert isinstance(result, ToolResultBlock) and isinstance(result.output[1], DataBlock)
    assert result.output[1].name == "report.pdf"
    # Codebuff's media item holds no name: there it is not written (docs: Round trips).
    codebuff = to_vercel_ai([message.with_metadata({"vercel_ai": {"layout": "codebuff"}})])
    assert codebuff[0]["content"][1] == {"type": "media", "data": "JVBERi0=", "mediaType": "application/pdf"}


# -- Anthropic's thinking through the AI SDK ---------------------------------------------------------


def test_anthropic_thinking_goes_where_the_sdks_anthropic_provider_reads_it() -> None:
    # convert-to-anthropic-messages-prompt.ts: a reasoning part's providerOptions.anthropic signature,
    # else its redactedData, makes the thinking (or redacted_thinking) block sent.
    request = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "redacted_thinking", "data": "ENC"},
            {"type": "thinking", "thinking": "hm", "signature": "SIG"},
            {"type": "text", "text": "hello"},
        ]},
    ]}
    messages = from_anthropic(request)
    sent = to_vercel_ai(messages)
    assert sent[1]["content"][:2] == [
        {"type": "reasoning", "text": "", "providerOptions": {"anthropic": {"redactedData": "ENC"}}},
        {"type": "reasoning", "text": "hm", "providerOptions": {"anthropic": {"signature": "SIG"}}},
    ]
    back = from_vercel_ai(sent)
    assert back[1].content == messages[1].content
    assert to_anthropic(back) == request


@pytest.mark.parametrize(
    "anthropic",
    [
        {"signature": "SIG", "redactedData": "ENC"},  # the signature wins, as in the provider
        {"signature": "SIG", "cacheControl": {"type": "ephemeral"}},
        {"redactedData": 5},  # no string: no thinking of Anthropic's, carried as it came
    ],
)
def test_a_reasoning_part_with_anthropic_options_comes_back_exactly(anthropic: dict[str, Any]) -> None:
    payload = [{"role": "assistant", "content": [
        {"type": "reasoning", "text": "hm", "providerOptions": {"anthropic": anthropic, "openai": {"itemId": "rs_1"}}},
    ]}]
    original = copy.deepcopy(payload)
    (message,) = from_vercel_ai(payload)
    assert to_vercel_ai([message]) == original
    (thought,) = message.content
    assert isinstance(thought, ThinkingBlock)
    expected = {"signature": "SIG"} if "signature" in anthropic else None
    assert (thought.metadata or {}).get("anthropic") == expected


def test_a_carried_object_the_rendering_no_longer_writes_goes_back_as_it_came() -> None:
    # The rest of providerOptions.anthropic is carried beside the signature the writer renders; once
    # the signature is gone, the rest is written whole, with no bookkeeping of ours in it.
    payload = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "t", "providerOptions": {"anthropic": {"signature": "s", "parts": 1, "absent": [2]}}}
        ]},
    ]
    question, answer = from_vercel_ai(payload)
    (thought,) = answer.get_content_blocks(ThinkingBlock)
    unsigned = ThinkingBlock(thought.thinking, {key: value for key, value in (thought.metadata or {}).items() if key != "anthropic"})
    (part,) = to_vercel_ai([question, answer.with_content([unsigned])])[1]["content"]
    assert part == {"type": "reasoning", "text": "t", "providerOptions": {"anthropic": {"parts": 1, "absent": [2]}}}


# -- a field the reader does not read is kept, at every level of a tool result ---------------------


@pytest.mark.parametrize("role", ["tool", "assistant"])
def test_a_tool_result_parts_own_content_field_goes_back_as_it_came(role: str) -> None:
    # A part has no "content" of the SDK's: one given is kept like any other field the reader does not read.
    payload = [{"role": role, "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f",
                                           "output": {"type": "text", "value": "ok"}, "content": "kept?"}]}]
    (message,) = from_vercel_ai(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock) and result.metadata["vercel_ai"]["content"] == "kept?"
    assert to_vercel_ai([message]) == payload
    edited = message.with_content([ToolResultBlock(result.id, result.name, [TextBlock("new")], result.metadata, result.state)])
    assert to_vercel_ai([edited])[0]["content"][0]["content"] == "kept?"  # the output is ours, the field still its


@pytest.mark.parametrize("extra", [{"value": "x"}, {"value": {"nested": [1]}}, {"content": "c", "zz": None}])
def test_a_denials_fields_beside_its_reason_go_back_as_they_came(extra: dict[str, Any]) -> None:
    # They were rendered against the error-text an unhinted result is written as, whose "value" stood
    # for ours there, and a denial, written without one, dropped it.
    for output in ({"type": "execution-denied", **extra}, {"type": "execution-denied", "reason": "no", **extra}):
        payload = [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": output}]}]
        (message,) = from_vercel_ai(payload)
        assert to_vercel_ai([message]) == payload
        (denied,) = message.content
        assert isinstance(denied, ToolResultBlock) and denied.state is ToolResultState.DENIED
        reason = ToolResultBlock(denied.id, denied.name, [TextBlock("not now")], denied.metadata, denied.state)
        assert to_vercel_ai([message.with_content([reason])])[0]["content"][0]["output"] == {
            "type": "execution-denied", "reason": "not now", **extra}
        # Once it is no denial, its type and value are ours (a field of no output type's stays, as ever).
        done = ToolResultBlock(denied.id, denied.name, [TextBlock("done")], denied.metadata, ToolResultState.SUCCESS)
        written = to_vercel_ai([message.with_content([done])])[0]["content"][0]["output"]
        assert (written["type"], written["value"]) == ("text", "done")


_OUTPUTS = [
    {"type": "text", "value": "ok"},
    {"type": "error-text", "value": "failed"},
    {"type": "json", "value": {"a": 1}},
    {"type": "error-json", "value": [1]},
    {"type": "execution-denied"},
    {"type": "execution-denied", "reason": "no"},
    {"type": "content", "value": [{"type": "text", "text": "a"}, {"type": "media", "data": "iVBORw0KGgo=", "mediaType": "image/png"}]},
    {"type": "content", "value": [{"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                                  {"type": "file-data", "data": "AAAA", "mediaType": "application/pdf", "filename": "a.pdf"}]},
    {"type": "content", "value": [{"type": "image-url", "url": "https://x/a.png"}, {"type": "file-url", "url": "https://x/r.pdf", "mediaType": "application/pdf"}]},
    {"type": "content", "value": [{"type": "file-id", "fileId": {"openai": "f1"}}, {"type": "image-file-id", "fileId": "f2"}, {"type": "custom"}]},
]
# Fields other parts, outputs or items have (so a reader may take them for its own), a field of nobody's, and
# fields named like bookkeeping entries of a carried dict.
_EXTRA_KEYS = ["content", "value", "reason", "text", "output", "data", "mediaType", "url", "toolCallId", "zz", "replaced", "absent", "blocks", "layout"]


def _result_payloads(role: str) -> list[Any]:
    return [[{"role": role, "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": output}]}] for output in _OUTPUTS]


_CODEBUFF_RESULT = [{"role": "tool", "toolCallId": "c", "toolName": "f", "content": [{"type": "json", "value": {"a": 1}}, {"type": "file-id", "fileId": "f"}]}]


@pytest.mark.parametrize(
    "payload",
    [
        # A tool message's toolCallId is read: it says the message is in Codebuff's shape.
        *extra_field_cases("tool", _result_payloads("tool"), _EXTRA_KEYS, {((0,), "toolCallId")}),
        *extra_field_cases("assistant", _result_payloads("assistant"), _EXTRA_KEYS),
        *extra_field_cases("codebuff", [_CODEBUFF_RESULT], _EXTRA_KEYS),
    ],
)
def test_a_field_the_reader_does_not_read_goes_back_at_any_level_of_a_result(payload: list[dict[str, Any]]) -> None:
    assert to_vercel_ai(from_vercel_ai(payload)) == payload


# -- the ai_sdk version: how media in a tool result are spelled ---------------------------------------

_NAMED_IMAGE = DataBlock(Base64Source("image/png", _PNG), name="screen.png")
_NAMED_PDF = DataBlock(Base64Source("application/pdf", "JVBERi0="), name="report.pdf")
_PDF = DataBlock(Base64Source("application/pdf", "JVBERi0="))


def _items(blocks: list[ContentBlock], ai_sdk: Literal[5, 6, 7] | None = None) -> list[dict[str, Any]]:
    result = ToolResultBlock("c", "f", [TextBlock("x"), *blocks], state=ToolResultState.SUCCESS)
    message = ToolResultMessage(result)
    sent = to_vercel_ai([message]) if ai_sdk is None else to_vercel_ai([message], ai_sdk=ai_sdk)
    return sent[0]["content"][0]["output"]["value"][1:]  # type: ignore[no-any-return]


def test_a_named_image_in_a_tool_result_goes_as_media_by_default() -> None:
    # ai 6's Anthropic provider sends a file-data item only for a PDF: an image so was dropped unsaid.
    assert _items([_NAMED_IMAGE]) == [{"type": "media", "data": _PNG, "mediaType": "image/png"}]
    assert _items([_NAMED_PDF]) == [
        {"type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "report.pdf"}
    ]


@pytest.mark.parametrize(
    ("ai_sdk", "expected"),
    [
        # AI SDK 5 knows media items only.
        (5, [("media", None), ("media", None), ("media", None)]),
        # 6 reads media; file-data for a named file, which holds its name (not an image: Anthropic drops it).
        (6, [("media", None), ("file-data", "report.pdf"), ("media", None)]),
        # 7 refuses media items and deprecates image-data / file-data: its own file item, a name with it.
        (7, [("file", "screen.png"), ("file", "report.pdf"), ("file", None)]),
    ],
)
def test_media_in_a_tool_result_are_spelled_for_the_ai_sdk_version(
    ai_sdk: Literal[5, 6, 7], expected: list[tuple[str, str | None]]
) -> None:
    items = _items([_NAMED_IMAGE, _NAMED_PDF, _PDF], ai_sdk)
    assert [(entry["type"], entry.get("filename")) for entry in items] == expected
    datas = [entry["data"]["data"] if ai_sdk == 7 else entry["data"] for entry in items]
    assert datas == [_PNG, "JVBERi0=", "JVBERi0="]
    assert [entry["mediaType"] for entry in items] == ["image/png", "application/pdf", "application/pdf"]


def test_ai_sdk_7_gets_its_file_item_with_tagged_data_for_base64_and_the_url_items_it_takes_for_a_url() -> None:
    # The file item's URL must be a URL object, which JSON cannot hold: 7's schema refuses the string.
    blocks: list[ContentBlock] = [_NAMED_IMAGE, DataBlock(URLSource("https://e.com/a.png")), DataBlock(URLSource("https://e.com/d.pdf"))]
    assert _items(blocks, 7) == [
        {"type": "file", "data": {"type": "data", "data": _PNG}, "mediaType": "image/png", "filename": "screen.png"},
        {"type": "image-url", "url": "https://e.com/a.png"},
        {"type": "file-url", "url": "https://e.com/d.pdf", "mediaType": "application/pdf"},
    ]


@pytest.mark.parametrize(
    ("ai_sdk", "error"), [(8, ArgumentValueError), (4, ArgumentValueError), ("6", ArgumentTypeError), (6.0, ArgumentTypeError), (True, ArgumentTypeError)]
)
def test_an_ai_sdk_version_we_do_not_write_for_raises(ai_sdk: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="ai_sdk must be 5, 6 or 7"):
        to_vercel_ai([UserMessage("hi")], ai_sdk=ai_sdk)


@pytest.mark.parametrize("ai_sdk", [6, 7])
def test_items_read_from_a_payload_go_back_as_they_came_for_ai_sdk_6_and_7(ai_sdk: Literal[6, 7]) -> None:
    payload = _tool_result([
        {"type": "text", "text": "x"},
        {"type": "image-data", "data": _PNG, "mediaType": "image/png"},
        {"type": "file", "mediaType": "application/pdf", "filename": "a.pdf", "data": {"type": "data", "data": "JVBERi0="}},
        {"type": "file", "mediaType": "application/pdf", "data": {"type": "url", "url": "https://e.com/a.pdf"}},
    ])
    assert to_vercel_ai(from_vercel_ai(payload), ai_sdk=ai_sdk) == payload


def test_items_read_in_a_spelling_ai_sdk_5_does_not_take_are_spelled_for_it() -> None:
    # ai 5 takes text and media items only, and refuses the whole prompt for any other.
    payload = _tool_result([
        {"type": "text", "text": "x"},
        {"type": "image-data", "data": _PNG, "mediaType": "image/png"},
        {"type": "file", "mediaType": "application/pdf", "filename": "a.pdf", "data": {"type": "data", "data": "JVBERi0="}},
        {"type": "file-data", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "b.pdf"},
    ])
    converted = to_vercel_ai(from_vercel_ai(payload), ai_sdk=5)
    assert converted[0]["content"][0]["output"]["value"] == [
        {"type": "text", "text": "x"},
        {"type": "media", "data": _PNG, "mediaType": "image/png"},
        {"type": "media", "data": "JVBERi0=", "mediaType": "application/pdf"},
        {"type": "media", "data": "JVBERi0=", "mediaType": "application/pdf"},
    ]
    assert converted.notes == ()  # a name is not sent to 5, as for media made in Python
    # Beside a field of the output's own, which makes the output carried: spelled for 5 all the same.
    (message,) = from_vercel_ai([{"role": "tool", "content": [{**payload[0]["content"][0], "output": {
        **payload[0]["content"][0]["output"], "providerOptions": {"openai": {"detail": "low"}}}}]}])
    (sent,) = to_vercel_ai([message], ai_sdk=5)
    assert [entry["type"] for entry in sent["content"][0]["output"]["value"]] == ["text", "media", "media", "media"]


def test_a_url_item_read_from_a_payload_goes_through_the_policy_for_ai_sdk_5() -> None:
    payload = _tool_result([
        {"type": "text", "text": "x"},
        {"type": "file", "mediaType": "application/pdf", "data": {"type": "url", "url": "https://e.com/a.pdf"}},
    ])
    (message,) = from_vercel_ai(payload)
    with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock by URL \(application/pdf\) in a tool result.s output \(messages\[0\]\.content\[0\]\.output\[1\]\)"):
        to_vercel_ai([message], ai_sdk=5)
    sent = to_vercel_ai([message], ai_sdk=5, on_unsupported="drop")
    assert sent[0]["content"][0]["output"]["value"] == [{"type": "text", "text": "x"}]
    assert [str(note) for note in sent.notes] == [
        "messages[0].content[0].output[1]: data block dropped (the Vercel AI SDK cannot hold it)"
    ]


def test_items_kept_whole_go_through_the_policy_for_ai_sdk_5() -> None:
    payload = _tool_result([
        {"type": "text", "text": "x"},
        {"type": "file-id", "fileId": "file-abc"},
        {"type": "media", "data": _PNG, "mediaType": "image/png"},
        {"type": "custom", "providerOptions": {"anthropic": {"kind": "x"}}},
    ])
    (message,) = from_vercel_ai(payload)
    with pytest.raises(UnsupportedContentError, match=r"AI SDK 5 cannot hold a file-id item \(messages\[0\]\.content\[0\]\.output\[1\]\): .* or ai_sdk=6 or 7"):
        to_vercel_ai([message], ai_sdk=5)
    for policy in ("drop", "text"):  # a file only its provider holds says the model nothing as text
        sent = to_vercel_ai([message], ai_sdk=5, on_unsupported=policy)
        assert sent[0]["content"][0]["output"]["value"] == [payload[0]["content"][0]["output"]["value"][i] for i in (0, 2)]
        assert [str(note) for note in sent.notes] == [
            "messages[0].content[0].output[1]: file-id block dropped (the Vercel AI SDK 5 cannot hold it)",
            "messages[0].content[0].output[3]: custom block dropped (the Vercel AI SDK 5 cannot hold it)",
        ]
    assert to_vercel_ai([message], ai_sdk=6) == payload


@pytest.mark.parametrize("reason", [{"reason": "not now"}, {}])
def test_a_denial_read_from_ai_sdk_6_is_an_error_text_for_ai_sdk_5_which_has_no_denial(reason: dict[str, str]) -> None:
    payload = [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "rm",
                                             "output": {"type": "execution-denied", **reason}}]}]
    (message,) = from_vercel_ai(payload)
    sent = to_vercel_ai([message], ai_sdk=5)
    assert sent[0]["content"][0]["output"] == {"type": "error-text", "value": reason.get("reason", "")}
    assert sent.notes == ()
    assert to_vercel_ai([message], ai_sdk=7) == payload


def test_an_item_read_in_our_ai_sdk_6_spelling_is_written_as_the_version_spells_it() -> None:
    # Nothing is carried for it: beside an item that came in another spelling, it is spelled for ai_sdk.
    payload = _tool_result([
        {"type": "media", "data": _PNG, "mediaType": "image/png"},
        {"type": "image-data", "data": _PNG, "mediaType": "image/png"},
        {"type": "image-url", "url": "https://e.com/a.png"},
    ])
    (message,) = from_vercel_ai(payload)
    (tool,) = to_vercel_ai([message], ai_sdk=7)
    assert tool["content"][0]["output"]["value"] == [
        {"type": "file", "data": {"type": "data", "data": _PNG}, "mediaType": "image/png"},
        {"type": "image-data", "data": _PNG, "mediaType": "image/png"},
        {"type": "image-url", "url": "https://e.com/a.png"},
    ]
    # AI SDK 5 holds no URL: the item in our spelling goes through the policy.
    with pytest.raises(UnsupportedContentError, match=r"output\[2\]"):
        to_vercel_ai([message], ai_sdk=5)


def test_a_results_items_carry_their_spelling_not_their_data() -> None:
    payload = _tool_result([
        {"type": "text", "text": "x"},
        {"type": "image-data", "data": _PNG, "mediaType": "image/png", "providerOptions": {"openai": {"detail": "low"}}},
        {"type": "file", "mediaType": "application/pdf", "filename": "a.pdf", "data": {"type": "data", "data": "JVBERi0="}},
        {"type": "file", "mediaType": "image/png", "data": {"type": "url", "url": f"data:image/png;base64,{_PNG}"}},
    ])
    (message,) = from_vercel_ai(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock)
    carried = result.metadata["vercel_ai"]
    assert carried["parts"] == {
        "1": {"media_form": "image-data", "providerOptions": {"openai": {"detail": "low"}}},
        "2": {"media_form": "file:data"},
        "3": {"media_form": "file:url"},
    }
    assert set(carried) == {"parts", "part_of"} and _PNG not in str(carried) and "JVBERi0=" not in str(carried)
    assert to_vercel_ai([message]) == payload
    codebuff = [{"role": "tool", "toolCallId": "c", "toolName": "f", "content": payload[0]["content"][0]["output"]["value"]}]
    (read,) = from_vercel_ai(codebuff)
    (read_result,) = read.content
    assert isinstance(read_result, ToolResultBlock)
    assert _PNG not in str(read.metadata) and _PNG not in str(read_result.metadata)
    assert to_vercel_ai([read]) == codebuff


def test_an_items_spelling_is_never_applied_to_another_block() -> None:
    (message,) = from_vercel_ai(_tool_result([{"type": "image-data", "data": _PNG, "mediaType": "image/png"}]))
    (result,) = message.content
    assert isinstance(result, ToolResultBlock)
    gif = DataBlock(Base64Source("image/gif", "R0lGODlh"))

    def written(output: list[ContentBlock]) -> list[dict[str, Any]]:
        edited = message.with_content([attrs.evolve(result, output=output)])
        return to_vercel_ai([edited])[0]["content"][0]["output"]["value"]  # type: ignore[no-any-return]

    media = {"type": "media", "data": _PNG, "mediaType": "image/png"}
    # Another block at its index, or one put before it: ours, for both.
    assert written([gif, TextBlock("t")]) == [{"type": "media", "data": "R0lGODlh", "mediaType": "image/gif"}, {"type": "text", "text": "t"}]
    assert written([gif, *result.output]) == [{"type": "media", "data": "R0lGODlh", "mediaType": "image/gif"}, media]
    # After one added behind it, it still stands there: as it came.
    assert written([*result.output, gif])[0] == {"type": "image-data", "data": _PNG, "mediaType": "image/png"}


# -- AI SDK 7's tagged file data ----------------------------------------------------------------------


def test_ai_sdk_7_tagged_file_data_is_read_and_goes_back_as_it_came() -> None:
    payload = [
        {"role": "user", "content": [
            {"type": "file", "mediaType": "image/png", "filename": "dot.png", "data": {"type": "url", "url": f"data:image/png;base64,{_PNG}"}},
            {"type": "file", "mediaType": "application/pdf", "data": {"type": "url", "url": "https://e.com/doc.pdf"}},
            {"type": "file", "mediaType": "application/pdf", "data": {"type": "data", "data": "JVBERi0="}},
        ]},
        *_tool_result([{"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": _PNG}}]),
    ]
    user, tool = from_vercel_ai(payload)
    assert [attrs.evolve(block, id="-") for block in user.get_content_blocks(DataBlock)] == [
        DataBlock(Base64Source("image/png", _PNG), name="dot.png", id="-"),
        DataBlock(URLSource("https://e.com/doc.pdf", "application/pdf"), id="-"),
        DataBlock(Base64Source("application/pdf", "JVBERi0="), id="-"),
    ]
    (result,) = tool.content
    assert isinstance(result, ToolResultBlock) and isinstance(result.output[0], DataBlock)
    assert result.output[0].source == Base64Source("image/png", _PNG)
    # Only the spelling is carried beside a part, not its data a second time (a named image goes in a
    # file part, as ours does).
    parts = {"0": {"media_form": "url"}, "1": {"media_form": "url"}, "2": {"media_form": "data"}}
    assert user.metadata["vercel_ai"]["parts"] == parts
    assert to_vercel_ai([user, tool]) == payload


def test_ai_sdk_7_tagged_file_data_held_in_another_mapping_reads_as_a_dict_would() -> None:
    # A program's payload may hold its objects as any mapping (a read-only view, say), as JSON never does.
    data = {"type": "data", "data": "JVBERi0="}
    part: dict[str, Any] = {"type": "file", "mediaType": "application/pdf", "data": data}
    viewed = {**part, "data": MappingProxyType(data)}
    (message,) = from_vercel_ai([{"role": "user", "content": [viewed]}])
    (block,) = message.get_content_blocks(DataBlock)
    assert block.source == Base64Source("application/pdf", "JVBERi0=")
    assert to_vercel_ai([message]) == [{"role": "user", "content": [part]}]


@pytest.mark.parametrize("url", ["", "foo", "/files/a.pdf", "files/a.pdf"])
def test_ai_sdk_7_url_data_without_a_scheme_raises_naming_it(url: str) -> None:
    # A URL object's JSON always has one; without, the block would be refused as a file id when written.
    data = {"type": "url", "url": url}
    with pytest.raises(DecodeError, match="has no scheme: AI SDK 7's url data is a URL object") as caught:
        from_vercel_ai([{"role": "user", "content": [{"type": "file", "mediaType": "application/pdf", "data": data}]}])
    assert caught.value.path == "messages[0].content[0].data.url"
    with pytest.raises(DecodeError, match="give one") as caught:
        from_vercel_ai(_tool_result([{"type": "file", "mediaType": "application/pdf", "data": data}]))
    assert caught.value.path == "messages[0].content[0].output.value[0].data.url"


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"type": "reference", "reference": {"openai": "file-1"}}, "messages[0].content[0].data.type", "file data of type 'reference' is not read"),
        ({"type": "text", "text": "hello"}, "messages[0].content[0].data.type", "file data of type 'text' is not read"),
        ({"openai": "file-1"}, "messages[0].content[0].data", "a provider reference"),
        ({"type": "url", "url": 3}, "messages[0].content[0].data.url", "expected a string"),
    ],
)
def test_ai_sdk_7_file_data_that_is_no_block_of_ours_raises_naming_it(data: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message) as caught:
        from_vercel_ai([{"role": "user", "content": [{"type": "file", "mediaType": "text/plain", "data": data}]}])
    assert caught.value.path == path


def test_ai_sdk_7_references_in_a_tool_result_are_carried_whole() -> None:
    items: list[dict[str, Any]] = [
        {"type": "text", "text": "x"},
        {"type": "file", "mediaType": "application/pdf", "data": {"type": "reference", "reference": {"openai": "file-1"}}},
        {"type": "file-reference", "providerReference": {"anthropic": "file_01"}},
        {"type": "image-file-reference", "providerReference": {"openai": "file-2"}},
    ]
    (tool,) = from_vercel_ai(_tool_result(items))
    (result,) = tool.content
    assert isinstance(result, ToolResultBlock) and result.output == (TextBlock("x"),)
    assert to_vercel_ai([tool]) == _tool_result(items)
    with pytest.raises(DecodeError, match="expected a string") as caught:
        from_vercel_ai(_tool_result([{"type": "file-reference", "providerReference": {"openai": 1}}]))
    assert caught.value.path == "messages[0].content[0].output.value[0].providerReference.openai"
    with pytest.raises(DecodeError, match="file data of type 'text' is not read"):
        from_vercel_ai(_tool_result([{"type": "file", "mediaType": "text/plain", "data": {"type": "text", "text": "hi"}}]))


# -- bare base64 is carried as a mark, not a second copy ----------------------------------------------

_BARE = [
    {"role": "user", "content": [{"type": "image", "image": _PNG, "mediaType": "image/png"}]},
    {"role": "assistant", "content": [{"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf"}]},
]


def test_bare_base64_is_carried_as_a_mark_and_goes_back_bare() -> None:
    user, assistant = from_vercel_ai(_BARE)
    for message, data in ((user, _PNG), (assistant, "JVBERi0=")):
        assert message.metadata["vercel_ai"]["parts"] == {"0": {"media_form": "base64"}}
        assert data not in str(message.metadata)
    assert to_vercel_ai([user, assistant]) == _BARE


def test_the_bare_base64_mark_is_not_applied_to_another_block() -> None:
    user, assistant = from_vercel_ai(_BARE)
    other = DataBlock(Base64Source("image/gif", "R0lGODlh"))
    (sent,) = to_vercel_ai([user.with_content([other])])
    assert sent["content"] == [{"type": "image", "image": "data:image/gif;base64,R0lGODlh", "mediaType": "image/gif"}]
    # Another block placed before it: the mark stays with the part at its index, which is now another.
    (sent,) = to_vercel_ai([assistant.with_content([other, *assistant.content])])
    assert [part["data"] for part in sent["content"]] == ["data:image/gif;base64,R0lGODlh", "data:application/pdf;base64,JVBERi0="]

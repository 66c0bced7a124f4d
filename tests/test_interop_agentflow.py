"""AgentFlow: payloads come back exactly, messages come back equal, nothing is lost silently."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from typing import Any, Literal

import attrs
import pytest
from framework_payloads import agentflow_payloads, any_timestamps, comparable, seed
from hypothesis import example, given
from hypothesis import strategies as st
from payload_fields import extra_field_cases
from strategies import chat_usages, json_text, json_values, message_metadata, msg_ids, msg_timestamps

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ChatUsage,
    ContentBlock,
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
    agentflow,
    from_agentflow,
    from_openai,
    from_vercel_ai,
    to_agentflow,
    to_vercel_ai,
)
from agentscope_py.interop._frameworks import json_text as output_as_text

SEEDS = seed("agentflow_seed.json")


@pytest.mark.parametrize("side", ["typescript_client", "python", "python_model_dump"])
def test_seed_examples_come_back_exactly(side: str) -> None:
    payload = SEEDS[side]
    original = copy.deepcopy(payload)
    assert to_agentflow(from_agentflow(payload)) == original
    assert payload == original  # reading never changes the caller's payload


def test_seed_messages_read_as_agentscope_messages() -> None:
    user, system, multimodal, _, tool, assistant, _ = from_agentflow(SEEDS["typescript_client"])
    assert isinstance(user, UserMessage) and user.get_text_content() == "What is the capital of France?"
    assert user.id is None and user.timestamp is not None and len(user.timestamp) == 23
    assert isinstance(system, SystemMessage)
    image = multimodal.get_first_content_block(DataBlock)
    assert image is not None and image.source == URLSource("https://example.com/photo.jpg")
    assert multimodal.metadata["agentflow"]["parts"]["1"]["alt_text"] == "A street photo"
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock)
    assert (result.id, result.state, result.output) == ("call_abc123", ToolResultState.SUCCESS, (TextBlock('{"result": 42}'),))
    assert isinstance(assistant, AssistantMessage)
    thinking, call = assistant.content  # the annotation and error blocks are carried, not content
    assert thinking == ThinkingBlock("Look up the weather first.", {"agentflow": {"details": ["the user asked about Paris"]}})
    assert isinstance(call, ToolUseBlock) and (call.id, call.name, dict(call.input)) == ("call_9", "get_location", {})
    assert set(assistant.metadata["agentflow"]["blocks"]) == {"2", "3"}
    assert assistant.usage == ChatUsage(input_tokens=30, output_tokens=12, cached_tokens=8)
    usages = dict(assistant.metadata["agentflow"]["usages"])
    # reasoning_tokens stands for the 0 we write: with the digest of that 0, so that it goes back only while we do.
    assert set(usages.pop("replaced")) == {"reasoning_tokens"}
    assert usages == {"reasoning_tokens": 5, "image_tokens": 0}


@pytest.mark.parametrize("kept", [5, None, [5], "x", True, 1.5], ids=repr)
def test_edited_metadata_that_keeps_no_block_object_writes_no_block(kept: object) -> None:
    # What the reader keeps there is a block object; anything else an edit put there is not written.
    for message in (AssistantMessage("hi", metadata={"agentflow": {"blocks": {"0": kept, "1": kept}}}),
                    UserMessage("hi", metadata={"agentflow": {"blocks": {"0": kept}}})):
        (written,) = to_agentflow([message])
        assert written["content"] == [{"type": "text", "text": "hi"}]


@pytest.mark.parametrize(
    ("write", "read"), [(to_agentflow, from_agentflow), (to_vercel_ai, from_vercel_ai)], ids=["agentflow", "vercel_ai"]
)
def test_a_local_time_the_clock_skips_comes_back_an_hour_later(
    monkeypatch: pytest.MonkeyPatch, write: Callable[[list[Msg]], Any], read: Callable[[Any], list[Msg]]
) -> None:
    # As the docs say: in New York 02:30 on 2024-03-10 never happens, so no epoch time reads back as it.
    monkeypatch.setenv("TZ", "EST5EDT,M3.2.0,M11.1.0")  # POSIX: no time zone database needed
    time.tzset()
    try:
        for stamp, back in [("2024-03-10 02:30:00.000", "2024-03-10 03:30:00.000"), ("2024-11-03 01:30:00.000", None)]:
            (message,) = read(write([UserMessage("x", id="u", timestamp=stamp)]))
            assert message.timestamp == (back or stamp)  # the hour the clock repeats comes back as it was
    finally:
        monkeypatch.undo()
        time.tzset()


def test_python_side_ids_timestamps_and_names() -> None:
    hello, mixed, _, tool, _ = from_agentflow(SEEDS["python"])
    assert hello.id == "msg-001" and hello.timestamp is not None and hello.timestamp.endswith(".250")
    assert hello.metadata["source"] == "api"
    assert mixed.id == "42" and mixed.metadata["agentflow"]["message_id"] == 42
    assert [type(block) for block in mixed.content] == [TextBlock, *[DataBlock] * 7]
    document = mixed.content[6]
    assert isinstance(document, DataBlock) and document.source == URLSource("file-def456", "application/pdf")
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock) and result.name == "get_weather"  # from the call it answers
    assert result.output == (TextBlock("Sunny, 25°C"),)


# -- property: every payload comes back exactly --------------------------------------


@given(agentflow_payloads())
def test_payloads_come_back_exactly(payload: list[dict[str, Any]]) -> None:
    assert to_agentflow(from_agentflow(payload)) == payload


# -- property: messages AgentFlow can hold come back equal -----------------------------

_TEXT = json_text(max_size=12)
_TEXTS = st.builds(TextBlock, _TEXT)
_DATA = st.builds(
    DataBlock,
    st.one_of(
        st.builds(URLSource, st.sampled_from(["https://e.com/a.png", "https://e.com/b.pdf"]), st.none() | st.sampled_from(["image/png", "application/pdf"])),
        st.builds(Base64Source, st.sampled_from(["image/png", "audio/wav", "application/pdf"]), st.sampled_from(["iVBORw0KGgo=", "AAAA"])),
    ),
    name=st.none() | _TEXT,
)
_CALLS = st.builds(ToolUseBlock, _TEXT, _TEXT, st.dictionaries(_TEXT, st.integers() | _TEXT, max_size=2))
_RESULTS = st.builds(
    ToolResultBlock,
    _TEXT,
    _TEXT,
    st.lists(_TEXTS | _DATA, max_size=3),
    state=st.sampled_from([ToolResultState.SUCCESS, ToolResultState.ERROR]),
)
_THINKING = st.builds(ThinkingBlock, _TEXT)
_ANY = st.one_of(_TEXTS, _DATA, _CALLS, _RESULTS, _THINKING)
# A message's own metadata["agentscope"], where AgentFlow's holds the name: among them the ones the
# name cannot simply join (no mapping, empty, a name or "metadata" of their own).
_OWN_AGENTSCOPE = st.one_of(
    json_values(max_leaves=4).filter(lambda value: value is not None),
    st.fixed_dictionaries({}, optional={"name": _TEXT | st.none(), "metadata": json_values(max_leaves=2), "trace": st.integers()}),
)
_FIELDS = {
    "id": st.none() | msg_ids(),
    "name": st.none() | _TEXT,
    "metadata": message_metadata() | st.builds(lambda metadata, own: {**metadata, "agentscope": own}, message_metadata(), _OWN_AGENTSCOPE),
    "timestamp": st.none() | msg_timestamps(),
}
_MESSAGES = st.one_of(
    st.builds(UserMessage, st.lists(_TEXTS | _DATA, max_size=3), **_FIELDS),
    st.builds(SystemMessage, st.lists(_TEXTS, max_size=2), **_FIELDS),
    st.builds(AssistantMessage, st.lists(_ANY, max_size=4), usage=st.none() | chat_usages().map(lambda u: ChatUsage(u.input_tokens, u.output_tokens, u.cached_tokens)), **_FIELDS),
    st.builds(ToolResultMessage, st.lists(_ANY, max_size=3), **_FIELDS),
)


def _name_results(messages: list[Msg[Any]]) -> list[Msg[Any]]:
    # A result's name travels only through the call it answers: the strategy keeps the two apart.
    return [
        m.with_content([b.with_id_and_name(b.id, None) if isinstance(b, ToolResultBlock) else b for b in m.content])
        for m in messages
    ]


@given(st.lists(_MESSAGES, max_size=4))
def test_messages_come_back_equal(messages: list[Msg[Any]]) -> None:
    unnamed = _name_results(messages)
    sent = to_agentflow(unnamed)
    for message in sent:
        for block in message["content"]:
            _check_model_fields(block)
    back = from_agentflow(sent)
    expected = [comparable(m) for m in unnamed]
    # Results whose call is in the conversation get its name back; compare them nameless.
    assert [comparable(m) for m in _name_results(back)] == expected


# The fields of AgentFlow's block models (10xscale-agentflow 0.10.1, agentflow/core/state/
# message_block.py): (required, optional).  Its Python docs page spells two of them otherwise.
_MEDIA_REF = {"kind", "url", "file_id", "data_base64", "mime_type", "size_bytes", "sha256", "filename", "width", "height", "duration_ms", "page"}
_MODEL_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    "text": ({"text"}, {"annotations"}),
    "image": ({"media"}, {"alt_text", "bbox"}),
    "audio": ({"media"}, {"transcript", "sample_rate", "channels"}),
    "video": ({"media"}, {"thumbnail"}),
    "document": ({"media"}, {"text", "pages", "excerpt"}),
    "data": ({"mime_type"}, {"data_base64", "media"}),
    "tool_call": ({"id", "name"}, {"args", "tool_type"}),
    "tool_result": ({"call_id"}, {"output", "is_error", "status"}),
    "reasoning": ({"summary"}, {"details"}),
}


def _check_model_fields(block: dict[str, Any]) -> None:
    required, optional = _MODEL_FIELDS[block["type"]]
    keys = set(block) - {"type"}
    assert required <= keys <= required | optional, block
    if "media" in block:
        assert set(block["media"]) <= _MEDIA_REF and block["media"]["kind"] in ("url", "file_id", "data"), block
    if block["type"] == "tool_result" and isinstance(block.get("output"), list):
        for inner in block["output"]:
            _check_model_fields(inner)


def test_results_and_reasoning_are_written_as_agentflows_models_name_them() -> None:
    sent = to_agentflow(
        [
            AssistantMessage(ThinkingBlock("hmm"), ToolUseBlock("c1", "f", {"q": 1})),
            ToolResultMessage(ToolResultBlock("c1", "f", [TextBlock("ok")], state=ToolResultState.SUCCESS)),
            ToolResultMessage(ToolResultBlock("c2", "f", [], state=ToolResultState.ERROR)),
        ]
    )
    assert sent[0]["content"][0] == {"type": "reasoning", "summary": "hmm"}
    assert sent[1]["content"] == [{"type": "tool_result", "call_id": "c1", "output": "ok", "is_error": False, "status": "completed"}]
    assert sent[2]["content"] == [{"type": "tool_result", "call_id": "c2", "output": None, "is_error": True, "status": "failed"}]


def test_the_docs_pages_spelling_is_read_and_written_back_as_read() -> None:
    _, _, tool, _ = from_agentflow(SEEDS["python"][1:5])
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock) and result.output == (TextBlock("Sunny, 25°C"),)
    assert to_agentflow([tool])[0]["content"] == SEEDS["python"][3]["content"]


def test_a_reasoning_block_with_both_spellings_is_read_from_summary_and_comes_back() -> None:
    payload = [{"message_id": "m", "role": "assistant", "timestamp": 1.0, "metadata": {},
                "content": [{"type": "reasoning", "summary": "short", "thinking": "long"}]}]
    (message,) = from_agentflow(payload)
    thought = message.content[0]
    assert isinstance(thought, ThinkingBlock) and thought.thinking == "short"
    assert to_agentflow([message]) == payload
    edited = message.with_content([ThinkingBlock("shorter", thought.metadata)])
    assert to_agentflow([edited])[0]["content"] == [{"type": "reasoning", "summary": "shorter", "thinking": "long"}]


def test_a_null_output_is_no_output() -> None:
    dumped = SEEDS["python_model_dump"][2]
    (message,) = from_agentflow([dumped])
    (result,) = message.content
    assert isinstance(result, ToolResultBlock) and (result.id, result.output, result.state) == ("c2", (), ToolResultState.SUCCESS)
    assert to_agentflow([message]) == [dumped]


def test_a_data_url_in_a_url_media_ref_is_inline_data() -> None:
    dumped = SEEDS["python_model_dump"][3]
    (message,) = from_agentflow([dumped])
    image = message.content[0]
    assert isinstance(image, DataBlock) and image.source == Base64Source("image/png", "iVBORw0KGgo=")
    assert to_agentflow([message]) == [dumped]
    fresh = to_agentflow([UserMessage(DataBlock(Base64Source("image/png", "iVBORw0KGgo=")))])
    assert fresh[0]["content"] == [{"type": "image", "media": {"kind": "data", "data_base64": "iVBORw0KGgo=", "mime_type": "image/png"}}]


def test_a_result_gets_the_name_of_its_call() -> None:
    messages = [
        AssistantMessage(ToolUseBlock("c1", "search", {"q": "x"}), id="a", timestamp="2024-06-10 09:00:00.000"),
        ToolResultMessage(ToolResultBlock("c1", "search", TextBlock("found"), state=ToolResultState.SUCCESS), id="t", timestamp="2024-06-10 09:00:01.000"),
    ]
    assert from_agentflow(to_agentflow(messages)) == messages


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        (URLSource("https://example.com/photo.jpg"), "image"),
        (URLSource("data:image/png;base64,iVBORw0KGgo="), "image"),
        (Base64Source("", "iVBORw0KGgoAAAA="), "image"),  # a PNG's first bytes
        (URLSource("https://e.com/talk.mp3"), "audio"),
        (URLSource("https://e.com/clip.webm"), "video"),
        (URLSource("https://e.com/report.pdf"), "document"),
        (URLSource("https://e.com/download"), "document"),
        (Base64Source("", "JVBERi0="), "document"),
    ],
)
def test_media_that_declares_no_type_goes_as_the_block_its_url_or_bytes_suggest(source: Any, kind: str) -> None:
    (sent,) = to_agentflow([UserMessage(DataBlock(source), id="u")])
    (part,) = sent["content"]
    assert part["type"] == kind and "mime_type" not in part["media"]  # the type guessed is not declared


def test_an_image_read_from_another_format_by_url_is_an_image_block() -> None:
    # OpenAI's image_url declares no media type; the block comes back as it went.
    (read,) = from_openai([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://e.com/photo.jpg"}}]}])
    (sent,) = to_agentflow([read])
    assert sent["content"] == [{"type": "image", "media": {"kind": "url", "url": "https://e.com/photo.jpg"}}]
    (back,) = from_agentflow([sent])
    assert comparable(back, ids=False) == comparable(read, ids=False)
    # A block AgentFlow sent as a document stays one, whatever its URL says.
    payload = [{**sent, "content": [{**sent["content"][0], "type": "document"}]}]
    assert to_agentflow(from_agentflow(payload)) == payload


def test_results_of_calls_sharing_an_id_are_named_after_the_calls_in_order() -> None:
    # Each result answers the earliest call of its id not answered yet, as validate_conversation pairs them.
    payload = [
        {"message_id": "a", "role": "assistant", "timestamp": None, "metadata": {}, "content": [
            {"type": "tool_call", "id": "c1", "name": "read_file", "args": {}},
            {"type": "tool_call", "id": "c1", "name": "delete_file", "args": {}}]},
        {"message_id": "t", "role": "tool", "timestamp": None, "metadata": {}, "content": [
            {"type": "tool_result", "call_id": "c1", "output": "contents of a"},
            {"type": "tool_result", "call_id": "c1", "output": "deleted b"}]},
        # a later turn reusing the id; its first call is never answered
        {"message_id": "b", "role": "assistant", "timestamp": None, "metadata": {}, "content": [
            {"type": "tool_call", "id": "c1", "name": "list_files", "args": {}}]},
        {"message_id": "c", "role": "assistant", "timestamp": None, "metadata": {}, "content": [
            {"type": "tool_call", "id": "c1", "name": "stat_file", "args": {}}]},
        {"message_id": "u", "role": "tool", "timestamp": None, "metadata": {}, "content": [
            {"type": "tool_result", "call_id": "c1", "output": "a: 3 bytes"},
            {"type": "tool_result", "call_id": "c1", "output": "again"}]},
    ]
    messages = from_agentflow(payload)
    named = [(block.name, block.output) for message in messages for block in message.get_content_blocks(ToolResultBlock)]
    assert named == [
        ("read_file", (TextBlock("contents of a"),)),
        ("delete_file", (TextBlock("deleted b"),)),
        ("stat_file", (TextBlock("a: 3 bytes"),)),
        ("stat_file", (TextBlock("again"),)),  # a repeated result: its id's last call
    ]
    assert to_agentflow(messages) == payload


@pytest.mark.parametrize(("media_type", "kind"), [("IMAGE/PNG", "image"), ("Audio/WAV; rate=16000", "audio"), ("VIDEO/mp4", "video")])
def test_a_declared_type_in_any_case_and_with_parameters_chooses_the_block(media_type: str, kind: str) -> None:
    (sent,) = to_agentflow([UserMessage(DataBlock(Base64Source(media_type, "AAAA")), id="u")])
    assert sent["content"][0]["type"] == kind


def test_legacy_media_blocks_go_out_by_their_kind_and_come_back_as_data_blocks() -> None:
    source = URLSource("https://e.com/a.mp4", "video/mp4")
    sent = to_agentflow([UserMessage(ImageBlock(source), AudioBlock(source), VideoBlock(source), id="u")])
    assert [part["type"] for part in sent[0]["content"]] == ["image", "audio", "video"]
    back = from_agentflow(sent)[0]
    assert all(isinstance(block, DataBlock) and block.source == source for block in back.content)


def test_an_edited_json_output_is_written_as_the_new_text() -> None:
    payload = copy.deepcopy(SEEDS["typescript_client"][4:5])
    tool = from_agentflow(payload)[0]
    result = tool.content[0]
    assert isinstance(result, ToolResultBlock)
    edited = tool.with_content([attrs_evolve_output(result, "now plain text")])
    assert to_agentflow([edited])[0]["content"][0]["output"] == "now plain text"


def attrs_evolve_output(block: ToolResultBlock, text: str) -> ToolResultBlock:
    return ToolResultBlock(block.id, block.name, TextBlock(text), block.metadata, block.state)


# -- never silently lossy --------------------------------------------------------------

_HINTED = [AssistantMessage("fine", id="a"), AssistantMessage(TextBlock("x"), HintBlock("h1", "be brief"), id="b")]


def test_a_block_agentflow_cannot_hold_raises_naming_where() -> None:
    with pytest.raises(UnsupportedContentError, match=r"messages\[1\]\.content\[1\]") as info:
        to_agentflow(_HINTED)
    assert "HintBlock" in str(info.value) and "on_unsupported" in str(info.value)


@pytest.mark.parametrize(
    ("policy", "parts"),
    [
        ("drop", [{"type": "text", "text": "x"}]),
        ("text", [{"type": "text", "text": "x"}, {"type": "text", "text": "[hint] be brief"}]),
    ],
)
def test_the_policy_changes_that_and_says_so(policy: Any, parts: list[dict[str, Any]]) -> None:
    result = to_agentflow(_HINTED, on_unsupported=policy)
    assert result[1]["content"] == parts
    action: Literal["dropped", "as_text"] = "dropped" if policy == "drop" else "as_text"
    assert result.notes == (ConversionNote(1, 1, "hint", action, "AgentFlow"),)


def test_unparsable_raw_arguments_and_sourceless_video_are_unsupported() -> None:
    message = AssistantMessage(ToolUseBlock("c", "f", {}, '{"cut'), VideoBlock(), id="a")
    result = to_agentflow([message], on_unsupported="drop")
    assert result[0]["content"] == []
    assert [(note.block_index, note.block_type) for note in result.notes] == [(0, "tool_use"), (1, "video")]


def test_a_nested_block_a_result_cannot_hold_is_refused_too() -> None:
    message = ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("a"), HintBlock(None, "h")]), id="t")
    with pytest.raises(UnsupportedContentError, match=r"messages\[0\]\.content\[0\]"):
        to_agentflow([message])


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        ({"role": "user"}, "messages"),
        ([{"role": "user"}], "messages[0]"),
        ([{"role": "robot", "content": []}], "messages[0].role"),
        ([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "media": {"kind": "url", "url": 7}}]}], "messages[0].content[1].media.url"),
        ([{"role": "user", "content": [{"type": "image", "media": {"kind": "s3"}}]}], "messages[0].content[0].media.kind"),
        ([{"role": "user", "content": [{"type": "tool_call", "id": "c", "name": "f", "args": {}}]}], "messages[0].content[0]"),
        ([{"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "f", "args": "{}"}]}], "messages[0].content[0].args"),
        ([{"role": "tool", "content": [{"type": "tool_result", "call_id": "c", "output": 1, "is_error": "no"}]}], "messages[0].content[0].is_error"),
        ([{"role": "user", "content": [], "timestamp": "yesterday"}], "messages[0].timestamp"),
        ([{"role": "user", "content": [], "timestamp": 1e300}], "messages[0].timestamp"),
        ([{"role": "user", "content": [], "timestamp": "9999-12-31T23:59:59-23:00"}], "messages[0].timestamp"),
        ([{"role": "user", "content": [], "message_id": [1]}], "messages[0].message_id"),
        ([{"role": "user", "content": [], "message_id": 10**5000}], "messages[0].message_id"),  # past Python's digits to print
        ([{"role": "assistant", "content": [], "usages": {"prompt_tokens": "3"}}], "messages[0].usages.prompt_tokens"),
    ],
)
def test_malformed_payloads_name_the_path(payload: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        from_agentflow(payload)
    assert info.value.path == path


def test_messages_must_be_messages_with_a_role() -> None:
    with pytest.raises(TypeError, match=r"messages\[0\] must be a Msg, got TextBlock"):
        to_agentflow([TextBlock("x")])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="has no role"):
        to_agentflow([Msg("x", role=None)])


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="on_unsupported"):
        to_agentflow([], on_unsupported="ignore")  # type: ignore[arg-type]


def test_blocks_keep_their_content_type() -> None:
    block: ContentBlock = from_agentflow([{"role": "user", "content": [{"type": "data", "mime_type": "application/json", "data_base64": "e30="}]}])[0].content[0]
    assert isinstance(block, DataBlock) and block.source == Base64Source("application/json", "e30=")


def test_a_tool_result_of_blocks_as_the_server_dumps_them_reads_as_blocks() -> None:
    # AgentFlow's Python server writes every field of its blocks, defaults included: the result's
    # blocks are still blocks (not their JSON as text), and the payload comes back as it was.
    text = {"type": "text", "text": "here is the screenshot", "annotations": []}
    media = {"kind": "data", "url": None, "file_id": None, "data_base64": "iVBORw0KGgo=", "mime_type": "image/png"}
    image = {"type": "image", "media": media, "alt_text": None, "bbox": None}
    payload = [
        {"message_id": "a", "role": "assistant", "timestamp": 1718000000000, "metadata": {},
         "content": [{"type": "tool_call", "id": "c1", "name": "shot", "args": {}}]},
        {"message_id": "t", "role": "tool", "timestamp": 1718000000000, "metadata": {},
         "content": [{"type": "tool_result", "tool_call_id": "c1", "content": [text, image], "is_error": False}]},
    ]
    _, result_message = from_agentflow(payload)
    (result,) = result_message.content
    assert isinstance(result, ToolResultBlock)
    assert [type(block).__name__ for block in result.output] == ["TextBlock", "DataBlock"]
    assert result.output[0] == TextBlock("here is the screenshot")
    assert to_agentflow(from_agentflow(payload)) == payload


@pytest.mark.parametrize("url", ["", "photo.png"])
def test_a_url_without_a_scheme_goes_back_as_it_came(url: str) -> None:
    # Not sent on as a URL to other formats (it may be a file id), but AgentFlow's own goes back.
    payload = [{"role": "user", "content": [{"type": "image", "media": {"kind": "url", "url": url}}]}]
    assert to_agentflow(from_agentflow(payload)) == payload


def test_a_result_that_became_an_error_says_so_where_the_payload_left_is_error_out() -> None:
    payload = [{"role": "tool", "content": [{"type": "tool_result", "call_id": "c1", "output": "ok"}]}]
    (message,) = from_agentflow(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock)
    failed = [message.with_content([result.with_state(ToolResultState.ERROR)])]
    assert to_agentflow(failed)[0]["content"] == [{"type": "tool_result", "call_id": "c1", "output": "ok", "is_error": True, "status": "failed"}]
    (again,) = from_agentflow(to_agentflow(failed))[0].content
    assert isinstance(again, ToolResultBlock) and again.state is ToolResultState.ERROR


# -- AgentFlow's own dumps, defaults and older builds ------------------------------------------

_LOCATORS = ("url", "file_id", "data_base64")


def _dumped_ref(kind: str, locator: str, value: str) -> st.SearchStrategy[dict[str, Any]]:
    """A ``MediaRef`` as AgentFlow's models dump it: the other locators as explicit nulls or left out,
    and a "url" kind, its default, also left out."""
    optional: dict[str, st.SearchStrategy[Any]] = {key: st.none() for key in _LOCATORS if key != locator}
    optional |= {"mime_type": st.none() | st.sampled_from(["image/png", "application/pdf"]), "filename": st.none() | st.just("a.bin"), "sha256": st.none()}
    required: dict[str, st.SearchStrategy[Any]] = {locator: st.just(value)}
    if kind == "url":
        optional["kind"] = st.just(kind)
    else:
        required["kind"] = st.just(kind)
    return st.fixed_dictionaries(required, optional=optional)


_DUMPED_REFS = st.one_of(
    _dumped_ref("url", "url", "https://e.com/a.png"),
    _dumped_ref("url", "url", "data:image/png;base64,iVBORw0KGgo="),
    _dumped_ref("file_id", "file_id", "file-1"),
    _dumped_ref("data", "data_base64", "AAAA"),
)
_DUMPED_BLOCKS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("data"), "mime_type": st.just("application/octet-stream"), "data_base64": st.just("QUJD")},
        optional={"media": st.none() | _DUMPED_REFS},
    ),
    st.fixed_dictionaries(
        {"type": st.just("data"), "mime_type": st.just("application/octet-stream"), "media": _DUMPED_REFS},
        optional={"data_base64": st.none()},
    ),
    st.fixed_dictionaries({"type": st.just("image"), "media": _DUMPED_REFS}, optional={"alt_text": st.none(), "bbox": st.none()}),
    st.fixed_dictionaries({"type": st.just("audio"), "media": _DUMPED_REFS}, optional={"transcript": st.none(), "channels": st.none()}),
    st.fixed_dictionaries({"type": st.just("video"), "media": _DUMPED_REFS}, optional={"thumbnail": st.none() | _DUMPED_REFS}),
    st.fixed_dictionaries({"type": st.just("document"), "media": _DUMPED_REFS}, optional={"text": st.none(), "pages": st.none(), "excerpt": st.none()}),
)


@given(st.lists(_DUMPED_BLOCKS, max_size=3))
def test_media_blocks_as_agentflows_models_dump_them_come_back_exactly(blocks: list[dict[str, Any]]) -> None:
    payload = [{"role": "user", "content": blocks}]
    assert to_agentflow(from_agentflow(payload)) == payload


@pytest.mark.parametrize("media", [None, {"kind": "url", "url": "https://e.com/raw.bin"}])
def test_a_data_block_keeps_its_inline_data_beside_a_media_field(media: Any) -> None:
    # DataBlock(mime_type, data_base64=None, media=None): model_dump() writes "media": null beside the data.
    payload = [{"role": "user", "content": [{"type": "data", "mime_type": "application/octet-stream", "data_base64": "AAAA", "media": media}]}]
    (message,) = from_agentflow(payload)
    (block,) = message.content
    assert isinstance(block, DataBlock) and block.source == Base64Source("application/octet-stream", "AAAA")
    assert to_agentflow([message]) == payload


def test_inline_data_whose_mime_type_is_no_media_type_is_refused_where_it_is_read() -> None:
    # to_agentflow refuses inline data of such a type (Base64Source's arguments swapped, most
    # likely), as every writer does: a payload read with one could not go back.
    for part, path in (
        ({"type": "image", "media": {"kind": "data", "data_base64": "AA==", "mime_type": "iVBORw0KGgo="}},
         "messages[0].content[0].media.mime_type"),
        ({"type": "image", "media": {"kind": "url", "url": "data:;base64,AA==", "mime_type": "png"}},
         "messages[0].content[0].media.mime_type"),
        ({"type": "data", "mime_type": "AA==", "data_base64": "AA=="}, "messages[0].content[0].mime_type"),
    ):
        with pytest.raises(DecodeError, match=r"expected a media type such as 'image/png', got ") as caught:
            from_agentflow([{"role": "user", "content": [part]}])
        assert caught.value.path == path
    # None given ("" in a data block, which requires the key) is no type, read as such; a URL's type,
    # which the writers pass on as it is, goes back as it came.
    payload = [{"role": "user", "content": [
        {"type": "data", "mime_type": "", "data_base64": "AA=="},
        {"type": "image", "media": {"kind": "url", "url": "https://e.com/a", "mime_type": "png"}},
    ]}]
    assert to_agentflow(from_agentflow(payload)) == payload


def test_a_media_ref_without_a_kind_is_a_url_and_goes_back_without_one() -> None:
    # MediaRef.kind defaults to "url" in AgentFlow's Python and TypeScript models.
    payload = [
        {"role": "user", "content": [
            {"type": "image", "media": {"url": "https://e.com/a.png", "mime_type": "image/png"}},
            {"type": "data", "mime_type": "application/pdf", "media": {"url": "https://e.com/b.pdf"}},
        ]},
    ]
    (message,) = from_agentflow(payload)
    assert [block.source for block in message.content if isinstance(block, DataBlock)] == [
        URLSource("https://e.com/a.png", "image/png"),
        URLSource("https://e.com/b.pdf"),
    ]
    assert to_agentflow([message]) == payload


def test_the_name_joins_the_messages_own_agentscope_metadata() -> None:
    reply = AssistantMessage("x", name="bot", metadata={"agentscope": {"trace": 1}}, id="r", timestamp=None)
    sent = to_agentflow([reply])
    assert sent[0]["metadata"] == {"agentscope": {"trace": 1, "name": "bot"}}
    assert from_agentflow(sent) == [reply]


@pytest.mark.parametrize(
    ("name", "own", "written"),
    [
        (None, {"name": "zzz"}, {"metadata": {"name": "zzz"}}),  # not to be read as the name
        ("bot", {"name": "zzz"}, {"name": "bot", "metadata": {"name": "zzz"}}),
        ("bot", {}, {"name": "bot", "metadata": {}}),
        ("bot", "plain text", {"name": "bot", "metadata": "plain text"}),
        (None, "plain text", "plain text"),
        (None, {"part": [1, 2]}, {"metadata": {"part": [1, 2]}}),  # not to be read as the mark of a split message
        ("bot", {"part": "intro"}, {"part": "intro", "name": "bot"}),
    ],
)
def test_own_agentscope_metadata_the_name_cannot_join_goes_beside_it(name: str | None, own: Any, written: Any) -> None:
    message = AssistantMessage("x", name=name, metadata={"agentscope": own}, id="r", timestamp=None)
    sent = to_agentflow([message])
    assert sent[0]["metadata"] == {"agentscope": written}
    assert from_agentflow(sent) == [message]


def test_only_the_name_is_taken_out_of_agentflows_agentscope_metadata() -> None:
    payload = [{"role": "assistant", "content": [], "metadata": {"agentscope": {"name": "bot", "trace": 1}}}]
    (message,) = from_agentflow(payload)
    assert message.name == "bot" and message.metadata["agentscope"] == {"trace": 1}
    assert to_agentflow([message]) == payload


@given(any_timestamps())
@example("1970-01-02 00:00:00.000")
@example("1972-12-31 23:59:59.999")
@example("1969-12-31 23:59:59.999")
@example("5138-11-16 09:46:40.000")  # about 1e11 s, past which seconds would read as milliseconds
@example("9999-12-31 23:59:59.999")
def test_every_timestamp_written_reads_back_the_same(timestamp: str) -> None:
    # AgentFlow's epoch numbers are milliseconds (TypeScript) or seconds (Python), told apart by size:
    # written in seconds, as AgentFlow's Python Message holds them, but past the year 5138, where seconds
    # would read as milliseconds.
    (written,) = to_agentflow([UserMessage("hi", id="m", timestamp=timestamp)])
    assert from_agentflow([written])[0].timestamp == timestamp
    number = written["timestamp"]
    assert type(number) is float and abs(number) < 1e11 or type(number) is int and abs(number) >= 1e14


def test_an_iso_timestamp_of_older_agentflow_builds_is_read_and_goes_back_as_it_came() -> None:
    # Message.timestamp was a pydantic datetime there, dumped as ISO-8601 text.
    payload = [{"role": "user", "content": [], "timestamp": "2024-06-10T09:30:00.250000"}]
    (message,) = from_agentflow(payload)
    assert message.timestamp == "2024-06-10 09:30:00.250"  # local time, as the text is
    assert to_agentflow([message]) == payload
    (utc,) = from_agentflow([{"role": "user", "content": [], "timestamp": "2024-06-10T09:30:00.250+00:00"}])
    (epoch,) = from_agentflow([{"role": "user", "content": [], "timestamp": 1718011800250}])
    assert utc.timestamp == epoch.timestamp
    later = UserMessage([], metadata=message.metadata, timestamp="2024-06-10 09:30:01.000")
    assert isinstance(to_agentflow([later])[0]["timestamp"], float)  # edited: epoch seconds


# -- results nested in results ---------------------------------------------------------------------


def _nested_result(depth: int, **fields: Any) -> dict[str, Any]:
    """A tool result whose output holds a tool result, and so on ``depth`` deep, each with ``fields``."""
    block: dict[str, Any] = {"type": "text", "text": "x"}
    for _ in range(depth):
        block = {"type": "tool_result", "call_id": "a", "output": [block], **fields}
    return block


def test_results_nested_in_results_are_rendered_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each level was rendered and diffed with all the levels below it, to read and again to write:
    # quadratic in the depth.
    write = agentflow._write_tool_result
    rendered: list[ToolResultBlock] = []

    def counted(*args: Any) -> dict[str, Any]:
        rendered.append(args[3])
        return write(*args)

    monkeypatch.setattr(agentflow, "_write_tool_result", counted)
    payload = [{"role": "tool", "content": [_nested_result(100)]}]
    messages = from_agentflow(payload)
    assert len(rendered) == 100
    rendered.clear()
    assert to_agentflow(messages) == payload
    assert len(rendered) <= 100


def test_results_nested_in_results_that_fail_to_read_are_written_as_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each level read the output below it before finding its own is_error wrong, and the level above
    # then wrote that output as JSON text: the levels below written once for each level above them.
    written: list[object] = []

    def counted(value: Any, path: str) -> str:
        written.append(value)
        return output_as_text(value, path)

    monkeypatch.setattr("agentscope_py.interop._agentflow_blocks.json_text", counted)
    inner = _nested_result(100, is_error="no")
    payload = [{"role": "tool", "content": [{"type": "tool_result", "call_id": "a", "output": [inner]}]}]
    (message,) = from_agentflow(payload)
    assert written == [[inner]]
    (result,) = message.content
    assert isinstance(result, ToolResultBlock) and result.output == (TextBlock(json.dumps([inner])),)
    assert to_agentflow([message]) == payload


# -- a hostile value in an error ---------------------------------------------------------------------


def test_a_long_bad_value_is_shown_by_its_start_in_the_error() -> None:
    # Errors land in logs: a megabyte role, kind or timestamp shows its start and its length.
    huge = "A" * 1_000_000
    for payload in (
        [{"role": huge, "content": []}],
        [{"role": "user", "content": [{"type": "image", "media": {"kind": huge}}]}],
    ):
        with pytest.raises(DecodeError) as info:
            from_agentflow(payload)
        assert f"{'A' * 48!r}…(1,000,000 characters)" in str(info.value) and len(str(info.value)) < 1000
    with pytest.raises(ValueError, match=r"timestamp 'AAAA.*…\(1,000,000 characters\) is not in AgentScope's"):
        to_agentflow([UserMessage("hi", timestamp=huge)])
    # An epoch number too long to print is given by its size (its repr raised a ValueError).
    with pytest.raises(DecodeError, match="timestamp <an int of 16,610 bits> is out of the range of dates"):
        from_agentflow([{"role": "user", "content": [], "timestamp": 10**5000}])


# -- a tool result's two spellings, and fields the reader does not read -----------------------------

_RESULT: dict[str, Any] = {"type": "tool_result", "is_error": False}


def _result_message(fields: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"message_id": "m", "role": "tool", "timestamp": None, "metadata": {}, "content": [{**_RESULT, **fields}]}]


@pytest.mark.parametrize(
    ("fields", "edited"),
    [
        ({"call_id": "c", "output": "x", "content": False}, {"call_id": "c", "output": "new", "content": False}),
        ({"call_id": "c", "output": None, "content": "y"}, {"call_id": "c", "output": "new", "content": "y"}),
        ({"call_id": "c", "tool_call_id": "d", "output": "x"}, {"call_id": "c", "tool_call_id": "d", "output": "new"}),
        ({"tool_call_id": "d", "call_id": "c", "content": {"a": 1}, "output": [1]},
         {"tool_call_id": "d", "call_id": "c", "content": {"a": 1}, "output": "new"}),
        ({"tool_call_id": "d", "content": "x"}, {"tool_call_id": "d", "content": "new"}),  # the page's spelling alone
    ],
)
def test_a_result_with_both_spellings_is_read_from_the_models_and_comes_back(fields: dict[str, Any], edited: dict[str, Any]) -> None:
    # content and tool_call_id are the page's spelling of output and call_id: beside the models' keys they
    # are fields of their own, carried as they came, and the models' keys are still written.
    payload = _result_message(fields)
    (message,) = from_agentflow(payload)
    (result,) = message.content
    assert isinstance(result, ToolResultBlock) and result.id == fields.get("call_id", fields.get("tool_call_id"))
    assert to_agentflow([message]) == payload
    changed = message.with_content([attrs_evolve_output(result, "new")])
    assert to_agentflow([changed])[0]["content"] == [{**_RESULT, **edited}]


# The fields of a result in either spelling, of the blocks an output holds, a field of nobody's, and fields
# named like bookkeeping entries of a carried dict.
_EXTRA_KEYS = ["content", "output", "call_id", "tool_call_id", "text", "url", "summary", "zz", "replaced", "absent", "blocks", "parts", "escaped"]
_RESULT_FIELDS: list[dict[str, Any]] = [
    {"call_id": "c", "output": "x"},
    {"tool_call_id": "c", "content": "x"},
    {"call_id": "c", "output": {"a": [1]}, "is_error": True},
    {"call_id": "c", "output": None},
    {"call_id": "c"},
    {"call_id": "c", "output": [{"type": "text", "text": "a"}, {"type": "image", "media": {"kind": "url", "url": "https://x/a.png"}}]},
]


@pytest.mark.parametrize("payload", extra_field_cases("", map(_result_message, _RESULT_FIELDS), _EXTRA_KEYS))
def test_a_field_the_reader_does_not_read_goes_back_at_any_level_of_a_result(payload: list[dict[str, Any]]) -> None:
    assert to_agentflow(from_agentflow(payload)) == payload


# -- what AgentFlow's runtime reads: tools_calls, one result per tool message, seconds, status ---------------
#
# Recorded with 10xscale-agentflow 0.10.1: AgentFlow's converters send the model, and its tool node runs, the
# calls in Message.tools_calls (not those in the content); its converter answers the first call of a tool
# message only; its Message.timestamp is epoch seconds.

# AnthropicConverter.convert_response (agentflow/runtime/adapters/llm/anthropic_converter.py) of a reply
# with thinking, text, a server tool use and a tool use, model_dump(mode="json") (raw left out).
_ANTHROPIC_TURN: dict[str, Any] = {
    "message_id": "msg_01", "role": "assistant",
    "content": [
        {"type": "reasoning", "summary": "Two cities.", "details": None},
        {"type": "text", "text": "Checking.", "annotations": []},
        {"type": "tool_call", "id": "srv_1", "name": "web_search", "args": {"query": "weather"}, "tool_type": "server_tool"},
        {"type": "tool_call", "id": "toolu_1", "name": "get_weather", "args": {"city": "Zürich", "days": 2, "metric": True, "ratio": 1.0}, "tool_type": None},
    ],
    "delta": False,
    "tools_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Z\\u00fcrich", "days": 2, "metric": true, "ratio": 1.0}'}}],
    "reasoning": "Two cities.",
    "timestamp": 1795443103.507755,
    "metadata": {"provider": "anthropic", "model": "claude", "finish_reason": "tool_use"},
    "usages": {"completion_tokens": 5, "prompt_tokens": 10, "total_tokens": 15, "reasoning_tokens": 0,
               "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "image_tokens": 0, "audio_tokens": 0},
    "parsed_content": None,
}


def test_calls_are_written_to_tools_calls_as_agentflows_converters_write_them() -> None:
    (read,) = from_agentflow([_ANTHROPIC_TURN])
    # What we write for these blocks is what AgentFlow wrote: nothing of it needs carrying.
    assert not {"tools_calls", "reasoning"} & set(read.metadata["agentflow"])
    assert to_agentflow([read]) == [_ANTHROPIC_TURN]
    thinking, text, server_call, call = read.content
    assert isinstance(server_call, ToolUseBlock) and isinstance(call, ToolUseBlock)
    # Written afresh: the server tool (Anthropic ran it) stays out, as AgentFlow leaves it out.
    fresh = AssistantMessage(thinking, text, server_call, ToolUseBlock(call.id, call.name, call.input), id="a")
    (sent,) = to_agentflow([fresh])
    assert sent["tools_calls"] == _ANTHROPIC_TURN["tools_calls"]
    assert sent["reasoning"] == "Two cities."


def test_only_an_assistant_turns_own_calls_go_to_tools_calls() -> None:
    # A remote_tool_call block is AgentFlow's tool node handing a call to the client, in a tool message:
    # in tools_calls, the tool node would run it once more.
    remote = {"type": "remote_tool_call", "id": "r1", "name": "local_fn", "args": {}, "tool_type": "remote"}
    (read,) = from_agentflow([{"role": "tool", "content": [remote]}])
    (remote_call,) = read.content  # the block carries its type
    sent = to_agentflow([
        AssistantMessage(remote_call, ToolUseBlock("c1", "f", {"a": [1]}), id="a"),
        ToolResultMessage(remote_call, ToolUseBlock("c2", "g", {}), id="t"),
    ])
    assert sent[0]["tools_calls"] == [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": [1]}'}}]
    assert "tools_calls" not in sent[1]
    assert "tools_calls" not in to_agentflow([AssistantMessage("no calls", id="a")])[0]


# Message(..., tools_calls=[...]) as AgentFlow's Google converter writes a call (google_genai_converter.py
# _process_function_call_part: the part's thought_signature kept in tools_calls), model_dump(mode="json").
_GEMINI_TURN: dict[str, Any] = {
    "message_id": "g1", "role": "assistant",
    "content": [
        {"type": "reasoning", "summary": "Check the file first.", "details": None},
        {"type": "tool_call", "id": "fc-1", "name": "rm", "args": {"path": "/", "force": 1}, "tool_type": None},
    ],
    "delta": False,
    "tools_calls": [{"id": "fc-1", "function": {"name": "rm", "arguments": '{"path": "/", "force": 1}'}, "type": "function", "thought_signature": "c2lnLTE="}],
    "reasoning": "Check the file first.",
    "timestamp": 1718000000.5, "metadata": {"provider": "google"}, "usages": None, "raw": None, "parsed_content": None,
}


def test_tools_calls_and_reasoning_read_go_back_only_while_the_calls_and_thinking_are_unchanged() -> None:
    (read,) = from_agentflow([copy.deepcopy(_GEMINI_TURN)])
    assert to_agentflow([read]) == [_GEMINI_TURN]  # the thought_signature Gemini needs, kept
    thinking, call = read.content
    assert isinstance(thinking, ThinkingBlock) and isinstance(call, ToolUseBlock)
    refused = read.with_content([TextBlock("I will not do that.")])
    assert not {"tools_calls", "reasoning"} & set(to_agentflow([refused])[0])  # AgentFlow would run what is gone
    # 1 == True in Python, but not to the tool: the call is written afresh.
    for args in ({"path": "/tmp/x", "force": 1}, {"path": "/", "force": True}, {"path": "/", "force": 1.0}):
        edited = read.with_content([thinking, attrs.evolve(call, input=args)])
        (written,) = to_agentflow([edited])
        assert written["tools_calls"] == [{"id": "fc-1", "type": "function", "function": {"name": "rm", "arguments": json.dumps(args)}}]
        assert written["reasoning"] == "Check the file first."
    renamed = read.with_content([ThinkingBlock("Never mind.", thinking.metadata), attrs.evolve(call, id="fc-2")])
    (written,) = to_agentflow([renamed])
    assert written["reasoning"] == "Never mind." and written["tools_calls"][0]["id"] == "fc-2"


# Message.tool_message([ToolResultBlock(call_id="c1", ...), ToolResultBlock(call_id="c2", ...)]) built in
# AgentFlow itself, model_dump(mode="json"): one tool message holding two results.
_TWO_RESULTS: dict[str, Any] = {
    "message_id": "t1", "role": "tool",
    "content": [
        {"type": "tool_result", "call_id": "c1", "output": "sunny", "is_error": False, "status": "completed"},
        {"type": "tool_result", "call_id": "c2", "output": {"error": "timeout"}, "is_error": True, "status": "failed"},
    ],
    "delta": False, "tools_calls": None, "reasoning": None, "timestamp": 1718000002.0, "metadata": {},
    "usages": None, "raw": None, "parsed_content": None,
}


def _results(*states: ToolResultState) -> list[ToolResultBlock]:
    return [ToolResultBlock(f"c{n}", None, TextBlock(f"out {n}"), state=state) for n, state in enumerate(states, 1)]


def test_a_tool_message_holding_several_results_is_written_as_one_for_each() -> None:
    # AgentFlow's converter answers the first call of a tool message alone, as its tool node writes them.
    first, second = _results(ToolResultState.SUCCESS, ToolResultState.ERROR)
    message = ToolResultMessage(first, TextBlock("note"), second, id="t1", name="tools", metadata={"k": 1},
                                timestamp="2024-06-10 09:30:02.000", usage=ChatUsage(3, 4))
    sent = to_agentflow([message])
    assert [m["message_id"] for m in sent] == ["t1", "t1-2"]
    assert [m["metadata"] for m in sent] == [{"k": 1, "agentscope": {"name": "tools", "part": [n, 2]}} for n in (1, 2)]
    # each holding one result, and the blocks before it since the result before (the last, any after it too)
    assert [m["content"] for m in sent] == [
        [{"type": "tool_result", "call_id": "c1", "output": "out 1", "is_error": False, "status": "completed"}],
        [{"type": "text", "text": "note"}, {"type": "tool_result", "call_id": "c2", "output": "out 2", "is_error": True, "status": "failed"}],
    ]
    assert "usages" in sent[0] and "usages" not in sent[1]  # counted once
    assert from_agentflow(sent) == [message]


def test_the_parts_of_a_split_message_are_joined_after_agentflow_dumped_them() -> None:
    # Our two parts, through AgentFlow's Message.model_validate(...).model_dump(mode="json"): its defaults
    # added (delta, tools_calls, annotations on text …), the message still comes back whole.
    dumped = [
        {"message_id": "t1", "role": "tool",
         "content": [{"type": "tool_result", "call_id": "c1", "output": "sunny", "is_error": False, "status": "completed"}],
         "delta": False, "tools_calls": None, "reasoning": None, "timestamp": 1718011802.0,
         "metadata": {"agentscope": {"part": [1, 2]}}, "usages": None, "raw": None, "parsed_content": None},
        {"message_id": "t1-2", "role": "tool",
         "content": [{"type": "text", "text": "Rome:", "annotations": []},
                     {"type": "tool_result", "call_id": "c2", "output": "rainy", "is_error": True, "status": "failed"}],
         "delta": False, "tools_calls": None, "reasoning": None, "timestamp": 1718011802.0,
         "metadata": {"agentscope": {"part": [2, 2]}}, "usages": None, "raw": None, "parsed_content": None},
    ]
    (message,) = from_agentflow(copy.deepcopy(dumped))
    assert message.id == "t1" and message.content == (
        ToolResultBlock("c1", None, TextBlock("sunny"), state=ToolResultState.SUCCESS),
        TextBlock("Rome:"),
        ToolResultBlock("c2", None, TextBlock("rainy"), state=ToolResultState.ERROR),
    )
    assert to_agentflow([message]) == dumped


def test_one_agentflow_message_holding_several_results_stays_one() -> None:
    (message,) = from_agentflow([copy.deepcopy(_TWO_RESULTS)])
    assert len(message.content) == 2
    assert to_agentflow([message]) == [_TWO_RESULTS]
    first, second = message.content
    assert isinstance(second, ToolResultBlock)
    edited = message.with_content([first, attrs.evolve(second, output=(TextBlock("retried"),), state=ToolResultState.SUCCESS)])
    (written,) = to_agentflow([edited])  # still the one message it came as
    assert written["content"][1] == {"type": "tool_result", "call_id": "c2", "output": "retried", "is_error": False, "status": "completed"}


def _split_payload() -> list[dict[str, Any]]:
    message = ToolResultMessage(*_results(ToolResultState.SUCCESS, ToolResultState.SUCCESS, ToolResultState.ERROR), id="t", timestamp=None)
    return list(to_agentflow([message]))


@pytest.mark.parametrize(
    ("change", "count"),
    [
        (lambda p: p[:2], 2),  # a part missing
        (lambda p: [p[1], p[0], p[2]], 3),  # out of order
        (lambda p: [p[0], p[1], {**p[2], "message_id": "other"}], 3),  # another id
        (lambda p: [p[0], {**p[1], "timestamp": 1.0}, p[2]], 3),  # fields the parts do not share
        (lambda p: [p[0], {**p[1], "content": [*p[1]["content"], {"type": "text", "text": "added"}]}, p[2]], 3),
        (lambda p: [p[0], {**p[1], "role": "user", "content": []}, p[2]], 3),
        (lambda p: [{**p[0], "metadata": {"agentscope": {"part": [1, 4]}}}, *p], 2),  # the three after it are whole
    ],
)
def test_parts_that_writing_the_whole_would_not_give_back_are_read_one_for_each(change: Any, count: int) -> None:
    payload = change(_split_payload())
    messages = from_agentflow(copy.deepcopy(payload))
    assert len(messages) == count
    assert to_agentflow(messages) == payload


def test_a_result_status_read_goes_back_only_while_is_error_is_unchanged() -> None:
    # AgentFlow's tool node (and its TypeScript client) write "completed" or "failed" beside is_error.
    payload = [
        {"message_id": "t", "role": "tool", "timestamp": 1.0, "metadata": {},
         "content": [{"type": "tool_result", "call_id": "c1", "output": "ok", "is_error": False, "status": "completed"},
                     {"type": "tool_result", "call_id": "c2", "output": "ok", "is_error": False, "status": "failed"},
                     {"type": "tool_result", "call_id": "c3", "output": "ok", "is_error": False, "status": None},
                     {"type": "tool_result", "call_id": "c4", "output": "ok", "is_error": False}]},
    ]
    (message,) = from_agentflow(copy.deepcopy(payload))
    assert to_agentflow([message]) == payload  # as it came, contradictions too
    flipped = message.with_content([
        attrs.evolve(result, state=ToolResultState.ERROR) for result in message.content if isinstance(result, ToolResultBlock)
    ])
    assert [part["status"] for part in to_agentflow([flipped])[0]["content"]] == ["failed"] * 4


def test_a_timestamp_is_written_in_seconds_and_one_read_in_milliseconds_goes_back_so() -> None:
    # AgentFlow's Message.timestamp is datetime.now().timestamp(); its memory records read it so, and
    # failed on milliseconds ("year 56411 is out of range").
    (written,) = to_agentflow([UserMessage("hi", id="u", timestamp="2024-06-10 09:30:00.250")])
    seconds = time.mktime(time.strptime("2024-06-10 09:30:00", "%Y-%m-%d %H:%M:%S")) + 0.25
    assert type(written["timestamp"]) is float and written["timestamp"] == seconds
    typescript = [{"message_id": "m", "role": "user", "content": [], "timestamp": 1718000000123}]
    (message,) = from_agentflow(copy.deepcopy(typescript))
    assert to_agentflow([message]) == typescript  # the TypeScript client's milliseconds, unchanged
    later = message.__replace__(timestamp="2024-06-10 09:30:00.250")
    assert to_agentflow([later])[0]["timestamp"] == seconds

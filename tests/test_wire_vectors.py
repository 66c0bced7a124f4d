"""Every AgentScope Java vector decodes and encodes back to itself; the Python API builds the same documents.

The vectors (``tests/data/agentscope-java/messages.jsonl``) are real output of the
Java classes.  Fields a case lists under ``"generated"`` (random ids, clock
timestamps) are compared by shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from backends import BACKENDS
from vectors import CASES

from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ChatUsage,
    ContentBlock,
    DataBlock,
    DecodeError,
    GenerateReason,
    HintBlock,
    ImageBlock,
    Msg,
    MsgRole,
    Source,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
    _json,
)

BY_NAME = {case["case"]: case for case in CASES}
KINDS: dict[str, type[Any]] = {"Msg": Msg, "ContentBlock": ContentBlock, "Source": Source, "ChatUsage": ChatUsage}
ROLE_CLASSES: dict[str, type[Msg[Any]]] = {
    "USER": UserMessage,
    "ASSISTANT": AssistantMessage,
    "SYSTEM": SystemMessage,
    "TOOL": ToolResultMessage,
}

SHAPES = {
    "msg_id": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z"),
    "hex_id": re.compile(r"[0-9a-f]{32}\Z"),
    "timestamp": re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\Z"),
}


def shape_of(description: str) -> re.Pattern[str]:
    """The pattern a vector's ``generated`` note describes."""
    if "UUID v4" in description:
        return SHAPES["msg_id"]
    if "32 lowercase hex" in description:
        return SHAPES["hex_id"]
    if "yyyy-MM-dd HH:mm:ss.SSS" in description:
        return SHAPES["timestamp"]
    raise AssertionError(f"unknown generated-field description: {description}")


def assert_matches_vector(document: dict[str, Any], case: dict[str, Any]) -> None:
    """``document`` equals the vector, generated fields compared by their shape."""
    expected = dict(case["json"])
    actual = dict(document)
    for key, description in case.get("generated", {}).items():
        assert isinstance(actual.get(key), str) and shape_of(description).match(actual[key]), (key, actual.get(key))
        assert shape_of(description).match(expected[key])  # the note describes the Java value too
        del expected[key], actual[key]
    assert actual == expected


def test_all_92_cases_are_present() -> None:
    assert len(CASES) == 92
    assert {case["kind"] for case in CASES} == set(KINDS)


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_decoding_then_encoding_gives_the_vector_back(case: dict[str, Any]) -> None:
    kind = KINDS[case["kind"]]
    from_text = kind.from_json(case["json_text"])
    from_dict = kind.from_dict(case["json"])
    assert from_text == from_dict
    # Decoding keeps every value, generated ones included: the document comes back whole.
    assert from_text.to_dict() == case["json"]
    for backend in BACKENDS:  # orjson writes the dict; the standard library, generated text
        with _json.use_backend(backend):
            assert json.loads(from_text.to_json()) == case["json"]
            assert kind.from_json(case["json_text"]) == from_text


@pytest.mark.parametrize("case", [case for case in CASES if case["kind"] == "Msg"], ids=lambda case: case["case"])
def test_a_message_decodes_to_the_class_of_its_role(case: dict[str, Any]) -> None:
    message = Msg.from_json(case["json_text"])
    role = case["json"]["role"]
    if role is None:
        assert type(message) is Msg and message.role is None
    else:
        # As in Java, any role gives its subclass, even for a document a plain Msg wrote.
        assert type(message) is ROLE_CLASSES[role]
        assert message.role is MsgRole(role)


TIMESTAMP = "2025-01-02 03:04:05.678"
USAGE = ChatUsage(120, 45, 7, 1.25)
PNG = Base64Source("image/png", "iVBORw0KGgo=")
CAT = URLSource("https://example.com/cat.png", "image/png")
CLIP = URLSource("https://example.com/clip.mp4")
SEARCH_CALL = ToolUseBlock(
    "call_2", "search", {"limit": 5, "query": "agentscope"}, '{"query":"agentscope","limit":5}',
    {"thoughtSignature": "sig-abc"}, ToolCallState.ASKING,
)

# The same values built through the Python API, for a representative set of cases.
BUILT: dict[str, Callable[[], Any]] = {
    "usage/full": lambda: USAGE,
    "usage/time_small_exponent": lambda: ChatUsage(1, 0, 0, 1e-4),
    "source/base64": lambda: PNG,
    "source/url_no_mime": lambda: CLIP,
    "block/text_special_chars": lambda: TextBlock('héllo "quoted" \\ back\nnew\tline <tag> & / 你好 😀 \u0001'),
    "block/text_control_chars": lambda: TextBlock("esc\u001b bell\u0007 del\u007f ls\u2028 ps\u2029 cr\r ff\f bs\b"),
    "block/thinking": lambda: ThinkingBlock("Let me think..."),
    "block/thinking_with_metadata": lambda: ThinkingBlock("step 1", {"reasoningDetails": [{"type": "summary", "text": "s"}]}),
    "block/data_base64_full": lambda: DataBlock(PNG, "data-1", "cat.png"),
    "block/data_url_no_name": lambda: DataBlock(CAT, "data-2"),
    "block/data_id_generated": lambda: DataBlock(PNG),
    "block/image_base64_pixels": lambda: ImageBlock(PNG, 256, 1024),
    "block/audio_url": lambda: AudioBlock(URLSource("https://example.com/a.mp3", "audio/mpeg")),
    "block/video_all_fields": lambda: VideoBlock(CLIP, 2.5, 64, 128, 2048, 4096),
    "block/tool_use_all_null": lambda: ToolUseBlock(None, None),
    "block/tool_use_state_asking": lambda: SEARCH_CALL,
    "block/tool_use_nested_input": lambda: ToolUseBlock(
        "call_3", "complex", {"big": 12345678901, "list": [1, 2.5, "x", True], "obj": {"a": {"b": "c"}}}
    ),
    "block/tool_result_multi_output": lambda: ToolResultBlock(
        "call_4", "render",
        [TextBlock("Here is the chart"), DataBlock(PNG, "data-9", "chart.png"), ImageBlock(CAT)],
        {"elapsed_ms": 42}, ToolResultState.SUCCESS,
    ),
    "block/tool_result_static_error2": lambda: ToolResultBlock.error("call_7", "boom"),
    "block/tool_result_suspended": lambda: ToolResultBlock.suspended(ToolUseBlock("call_1", "get_weather", {})),
    "block/hint_no_source": lambda: HintBlock("hint-2", "Be concise"),
    "msg/plain_builder_null_role": lambda: Msg(
        TextBlock("no role"), role=None, id="msg-plain-null-role", timestamp=TIMESTAMP
    ),
    "msg/plain_builder_all_optional_set": lambda: Msg(
        "a", "b", role=MsgRole.ASSISTANT, name="bob", id="msg-plain-full", metadata={"k": "v"},
        timestamp=TIMESTAMP, usage=USAGE, generate_reason=GenerateReason.TOOL_CALLS,
    ),
    "msg/user_metadata_number_formats": lambda: UserMessage(
        "numbers", id="msg-u8", timestamp=TIMESTAMP,
        metadata={"small": 1e-5, "negzero": -0.0, "large": 1e21, "whole": 100.0, "long": 9007199254740993, "int": -7},
    ),
    "msg/user_metadata_with_nulls_filtered": lambda: UserMessage(
        "x", id="msg-u5", timestamp=TIMESTAMP, metadata={"keep": "yes", "drop": None}
    ),
    "msg/user_ctor_generated": lambda: UserMessage("generated id and ts", name="alice"),
    "msg/assistant_thinking_text_tool_use": lambda: AssistantMessage(
        ThinkingBlock("I should call a tool"), TextBlock("Let me check."),
        ToolUseBlock("call_1", "get_weather", {"city": "Paris"}), SEARCH_CALL,
        name="Friday", id="msg-a2", timestamp=TIMESTAMP, usage=USAGE, generate_reason=GenerateReason.TOOL_CALLS,
    ),
    "msg/system_full": lambda: SystemMessage(
        "Rule 1", "Rule 2", name="system", id="msg-s2", timestamp=TIMESTAMP, metadata={"origin": "config"}
    ),
    "msg/tool_result_ctor_generated": lambda: ToolResultMessage.of("call_9", "calc", "42"),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_the_python_api_builds_the_vector(name: str) -> None:
    case = BY_NAME[name]
    built = BUILT[name]()
    assert_matches_vector(built.to_dict(), case)
    for backend in BACKENDS:
        with _json.use_backend(backend):
            assert_matches_vector(json.loads(built.to_json()), case)
    if not case.get("generated") and name != "msg/plain_builder_all_optional_set":
        assert KINDS[case["kind"]].from_dict(case["json"]) == built


def test_a_plain_msg_with_a_role_comes_back_as_the_role_class_as_in_java() -> None:
    built = BUILT["msg/plain_builder_all_optional_set"]()
    assert type(built) is Msg
    decoded = Msg.from_json(built.to_json())
    assert type(decoded) is AssistantMessage
    assert AssistantMessage._from_fields(
        built.id, built.name, built.role, built.content, built.metadata, built.timestamp, built.usage
    ) == decoded


def test_shape_comparison_catches_a_wrong_id() -> None:
    case = BY_NAME["msg/user_ctor_generated"]
    document = UserMessage("generated id and ts", name="alice").to_dict()
    assert_matches_vector(document, case)  # as built, the document passes: only the id is wrong below
    with pytest.raises(AssertionError, match=r"^\('id', 'not-a-uuid'\)"):
        assert_matches_vector({**document, "id": "not-a-uuid"}, case)


def test_total_tokens_is_written_and_ignored_on_input() -> None:
    usage = ChatUsage.from_dict({"inputTokens": 3, "outputTokens": 4, "totalTokens": 999})
    assert usage == ChatUsage(3, 4, 0, 0.0)
    assert usage.to_dict()["totalTokens"] == 7


def test_java_null_and_missing_defaults_are_read_as_java_reads_them() -> None:
    # wire-format.md: a null content entry and null metadata values are dropped; missing counts are 0.
    message = Msg.from_dict({"role": "USER", "content": [None, {"type": "text"}], "metadata": {"a": None, "b": 1}})
    assert type(message) is UserMessage
    assert message.content == (TextBlock(""),)
    assert message.metadata == {"b": 1}
    assert (message.id, message.name, message.timestamp, message.usage) == (None, None, None, None)
    assert Msg.from_dict({}).role is None
    assert ToolUseBlock.from_dict({"type": "tool_use"}) == ToolUseBlock(None, None)
    assert ToolResultBlock.from_dict({"type": "tool_result", "state": None}).state is ToolResultState.RUNNING


def test_legacy_media_blocks_read_snake_case_too() -> None:
    image = ImageBlock.from_dict({"type": "image", "source": CAT.to_dict(), "min_pixels": 1, "max_pixels": 2})
    assert image == ImageBlock(CAT, 1, 2)
    video = VideoBlock.from_dict({"type": "video", "max_frames": 3, "total_pixels": 4})
    assert video == VideoBlock(None, max_frames=3, total_pixels=4)
    assert video.to_dict() == {"type": "video", "maxFrames": 3, "totalPixels": 4}


def test_a_camel_case_key_wins_over_its_snake_case_alias_even_as_null() -> None:
    # Java's constructor reads the snake_case key, then sets the camelCase property over it.
    image = ImageBlock.from_dict({"type": "image", "source": CAT.to_dict(), "min_pixels": 1, "minPixels": None})
    assert image.min_pixels is None
    video = VideoBlock.from_dict({"type": "video", "total_pixels": 4, "totalPixels": 5, "max_frames": 6})
    assert (video.total_pixels, video.max_frames) == (5, 6)


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ({"type": "video", "max_frames": "5"}, "max_frames"),
        ({"type": "video", "maxFrames": "5", "max_frames": 3}, "maxFrames"),
        ({"type": "video", "total_pixels": 2**40}, "total_pixels"),
        ({"type": "image", "source": {"type": "url", "url": "u"}, "min_pixels": 1.5}, "min_pixels"),
    ],
)
def test_an_error_in_a_value_read_under_an_alias_names_the_key_it_was_read_under(
    document: dict[str, Any], path: str
) -> None:
    with pytest.raises(DecodeError) as caught:
        ContentBlock.from_dict(document)
    assert caught.value.path == path
    with pytest.raises(DecodeError) as in_a_message:
        Msg.from_json(json.dumps({"role": "USER", "content": [{"type": "text", "text": "a"}, document]}))
    assert in_a_message.value.path == f"content[1].{path}"


def test_an_empty_data_block_id_is_replaced_with_a_fresh_one_as_in_java() -> None:
    first = DataBlock.from_dict({"type": "data", "source": PNG.to_dict(), "id": ""})
    second = DataBlock.from_dict({"type": "data", "source": PNG.to_dict()})
    assert SHAPES["hex_id"].match(first.id) and SHAPES["hex_id"].match(second.id)
    assert first.id != second.id

"""Documents AgentScope Java built with its own constructors and builders read in Python and write back unchanged.

``tests/data/agentscope-java/built_by_java.jsonl`` holds what the real Java
classes' ``toJson()`` wrote (made by ``tools/java_roundtrip``; see the README
beside it).  Every case decodes with the class for its kind and encodes back to
the same JSON value, compared strictly (an int is not a float, ``-0.0`` is not
``0.0``, keys keep their order), under every JSON backend.  The documented
Java-side differences are asserted as what they are, case by case:

- ``totalTokens``: Java sums two ``int`` and the sum wraps; Python writes the true sum.
- ``NaN`` and ``Infinity``: Java writes a NaN or infinite ``double``/``float`` as a
  string, which Python refuses where it expects a number, naming the path.
- Depth: 50 nested tool results are deeper than the default ``DecodeLimits``.
- A plain Java ``Msg`` with a role reads as the role's class, as it does in Java.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from backends import BACKENDS
from strategies import BLOCK_CLASSES
from vectors import KINDS as VECTOR_KINDS
from vectors import json_depth, read_cases

from agentscope_py import (
    AssistantMessage,
    ChatUsage,
    ConfirmResult,
    ContentBlock,
    DecodeError,
    DecodeLimits,
    Msg,
    PermissionRule,
    SystemMessage,
    TextBlock,
    ToolResultMessage,
    UserMessage,
    _json,
)
from agentscope_py import event as ev

CASES = read_cases("built_by_java.jsonl")
BY_NAME = {case["case"]: case for case in CASES}
KINDS: dict[str, type[Any]] = {**VECTOR_KINDS, "ConfirmResult": ConfirmResult, "PermissionRule": PermissionRule}
ROLE_CLASSES: dict[str, type[Msg[Any]]] = {
    "USER": UserMessage, "ASSISTANT": AssistantMessage, "SYSTEM": SystemMessage, "TOOL": ToolResultMessage,
}

#: Java's ``inputTokens + outputTokens`` in ``int`` arithmetic wrapped around.
TOTAL_WRAPPED = {"usage/total_wraps_up", "usage/total_wraps_down"}
#: Java wrote NaN or infinity as a string where a number belongs: the path Python's DecodeError names.
NAN_AS_STRING = {"usage/time_nan": "time", "block/video_fps_nan": "fps", "block/video_fps_infinity": "fps"}
#: 50 tool results nested in one another: deeper than the default DecodeLimits(max_depth=100).
DEEP = {"block/tool_result_nested_50", "msg/assistant_every_block", "event/TOOL_RESULT_DATA_DELTA/nested_50"}
ROUND_TRIPS = [case for case in CASES if case["case"] not in NAN_AS_STRING]


def strict(value: Any) -> str:
    """A JSON value as text that tells apart what ``==`` does not: 1, 1.0 and True; 0.0 and -0.0; key order."""
    return json.dumps(value, ensure_ascii=True)


def java_simple_name(case: dict[str, Any]) -> str:
    name: str = case["java_class"].rsplit(".", 1)[-1]
    return name


def test_the_fixture_covers_every_kind_and_class() -> None:
    assert len(CASES) == 128 and len(BY_NAME) == len(CASES)
    assert {case["kind"] for case in CASES} == set(KINDS)
    built = {java_simple_name(case) for case in CASES}
    event_classes = {cls.__name__ for cls in vars(ev).values() if isinstance(cls, type) and issubclass(cls, ev.AgentEvent)}
    assert {cls.__name__ for cls in BLOCK_CLASSES} | (event_classes - {"AgentEvent"}) <= built
    assert {"Msg", "UserMessage", "AssistantMessage", "SystemMessage", "ToolResultMessage", "ChatUsage"} <= built
    # The differences asserted below name cases that exist: a regenerated fixture cannot drop them unnoticed.
    assert TOTAL_WRAPPED | set(NAN_AS_STRING) | DEEP <= set(BY_NAME)


@pytest.mark.parametrize("case", ROUND_TRIPS, ids=[case["case"] for case in ROUND_TRIPS])
def test_a_java_built_document_decodes_and_encodes_back_to_itself(case: dict[str, Any]) -> None:
    kind = KINDS[case["kind"]]
    text: str = case["json_text"]
    assert json.loads(text) == case["json"]  # the fixture's two forms agree
    limits = DecodeLimits()
    if case["case"] in DEEP:
        with pytest.raises(DecodeError, match="nested deeper than 100 levels"):
            kind.from_json(text)
        limits = DecodeLimits(max_depth=json_depth(case["json"]))
    else:
        assert json_depth(case["json"]) <= 100
    decoded = kind.from_json(text, limits=limits)
    assert kind.from_dict(case["json"], limits=limits) == decoded

    if java_simple_name(case) == "Msg" and case["json"]["role"] is not None:
        assert type(decoded) is ROLE_CLASSES[case["json"]["role"]]  # as Java reads it back
    else:
        assert type(decoded).__name__ == java_simple_name(case)

    expected = case["json"]
    if case["case"] in TOTAL_WRAPPED:
        assert isinstance(decoded, ChatUsage)
        true_sum = decoded.input_tokens + decoded.output_tokens
        assert decoded.total_tokens == true_sum and not -(2**31) <= true_sum < 2**31
        assert expected["totalTokens"] == (true_sum + 2**31) % 2**32 - 2**31  # Java's int sum
        expected = {**expected, "totalTokens": true_sum}

    assert strict(decoded.to_dict()) == strict(expected)
    for backend in BACKENDS:
        with _json.use_backend(backend):
            assert kind.from_json(text, limits=limits) == decoded
            written = decoded.to_json()
            assert strict(json.loads(written)) == strict(expected)
            written.encode("utf-8")  # valid UTF-8 even where Java's String held a lone surrogate
            assert kind.from_json(written, limits=limits) == decoded


@pytest.mark.parametrize("name", sorted(NAN_AS_STRING))
def test_a_nan_or_infinity_java_wrote_as_a_string_is_refused_at_its_path(name: str) -> None:
    case = BY_NAME[name]
    path = NAN_AS_STRING[name]
    assert case["json"][path] in ("NaN", "Infinity")
    for backend in BACKENDS:
        with _json.use_backend(backend):
            with pytest.raises(DecodeError) as raised:
                KINDS[case["kind"]].from_json(case["json_text"])
            assert raised.value.path == path
            assert str(raised.value) == f"{path}: expected a number, got string"


def test_java_types_in_metadata_arrive_as_the_json_jackson_wrote() -> None:
    # Outside the model's number fields a NaN is just the string Jackson wrote, kept as such.
    message = Msg.from_json(BY_NAME["msg/metadata_java_types"]["json_text"])
    assert dict(message.metadata) == {
        "textBlockObj": {"text": "hello 世界"},  # declared Object: Jackson writes no "type"
        "bytes": "AQID/w==",  # byte[] as base64
        "char": "c",
        "short": 7,
        "nanDouble": "NaN",
        "infFloat": "Infinity",
    }


def test_lone_surrogates_java_held_in_a_string_are_read_and_written_escaped() -> None:
    block = ContentBlock.from_json(BY_NAME["block/text_lone_surrogates"]["json_text"])
    assert isinstance(block, TextBlock) and block.text == "a\ud800b \udfff end\udbff"
    assert '"a\\ud800b \\udfff end\\udbff"' in block.to_json()
    metadata = Msg.from_json(BY_NAME["msg/metadata_surrogate_keys"]["json_text"]).metadata
    assert dict(metadata) == {"😀": 1, "lone\ud800": 2, "\udc00": "\ud800"}  # in keys too


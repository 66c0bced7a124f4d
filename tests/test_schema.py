"""The JSON Schema accepts every Java vector and refuses whatever the decoder refuses for its shape."""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extra
import pytest
from hypothesis import given
from strategies import blocks, messages
from vectors import ALL_EVENT_CASES, CASES, mutated_event_vectors, mutated_vectors, read_cases

import agentscope_py
from agentscope_py import (
    ChatUsage,
    ContentBlock,
    DecodeError,
    DecodeLimits,
    Msg,
    MsgRole,
    RoleContentError,
    Source,
    TextBlock,
    ToolUseBlock,
)
from agentscope_py._roles import ALLOWED_BLOCKS
from agentscope_py.schema import DIALECT, json_schema

KINDS: dict[str, type[Any]] = {"Msg": Msg, "ContentBlock": ContentBlock, "Source": Source, "ChatUsage": ChatUsage}
VALIDATORS = {kind: jsonschema.Draft202012Validator(json_schema(root)) for kind, root in KINDS.items()}


@pytest.mark.parametrize("root", [*KINDS.values(), TextBlock, ToolUseBlock])
def test_the_schema_is_a_valid_2020_12_schema(root: type[Any]) -> None:
    schema = json_schema(root)
    assert schema["$schema"] == DIALECT
    jsonschema.Draft202012Validator.check_schema(schema)
    json.dumps(schema)  # publishable as it is


def test_each_union_has_a_discriminator() -> None:
    defs = json_schema(Msg)["$defs"]
    assert defs["Msg"]["discriminator"]["propertyName"] == "role"
    assert defs["ContentBlock"]["discriminator"]["mapping"]["tool_use"] == "#/$defs/ToolUseBlock"
    assert defs["Source"]["discriminator"]["mapping"] == {"url": "#/$defs/URLSource", "base64": "#/$defs/Base64Source"}
    assert defs["TextBlock"]["properties"]["type"] == {"const": "text"}


def _one_ofs(value: object) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        own = [value] if "oneOf" in value else []
        return own + [found for item in value.values() for found in _one_ofs(item)]
    if isinstance(value, list):
        return [found for item in value for found in _one_ofs(item)]
    return []


@pytest.mark.parametrize("root", [Msg, agentscope_py.AgentEvent], ids=lambda root: root.__name__)
def test_every_one_of_has_a_discriminator_naming_exactly_its_alternatives(root: type) -> None:
    one_ofs = _one_ofs(json_schema(root))
    assert len(one_ofs) >= 3
    for one_of in one_ofs:
        refs = {alternative["$ref"] for alternative in one_of["oneOf"]}
        mapped = set(one_of["discriminator"]["mapping"].values())
        # A message without a role has no tag to map: the one alternative a discriminator cannot name.
        assert mapped <= refs and refs - mapped <= {"#/$defs/MsgWithoutRole"}, one_of


def test_the_role_rules_come_from_the_role_table() -> None:
    defs = json_schema(Msg)["$defs"]
    for role, allowed in ALLOWED_BLOCKS.items():
        cls = {MsgRole.USER: "UserMessage", MsgRole.SYSTEM: "SystemMessage"}.get(role)
        if cls is None:
            continue
        items = defs[cls]["properties"]["content"]["items"]["anyOf"][0]
        assert [alternative["$ref"] for alternative in items["oneOf"]] == [f"#/$defs/{block.__name__}" for block in allowed]
        assert items["discriminator"]["propertyName"] == "type"
    system = defs["SystemMessage"]["properties"]["content"]["items"]["anyOf"][0]
    assert system["discriminator"]["mapping"] == {"text": "#/$defs/TextBlock"}
    assert defs["AssistantMessage"]["properties"]["content"]["items"]["anyOf"][0] == {"$ref": "#/$defs/ContentBlock"}


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_every_java_vector_is_valid(case: dict[str, Any]) -> None:
    VALIDATORS[case["kind"]].validate(case["json"])


EVENT_CASES = ALL_EVENT_CASES
EVENT_VALIDATORS = {
    kind: jsonschema.Draft202012Validator(json_schema(getattr(agentscope_py, kind)))
    for kind in {case["kind"] for case in EVENT_CASES}
}


@pytest.mark.parametrize("case", EVENT_CASES, ids=[case["case"] for case in EVENT_CASES])
def test_classes_registered_elsewhere_get_a_schema_too(case: dict[str, Any]) -> None:
    # The events declare their wire format in agentscope_py.event; the schema follows, legacy type names included.
    EVENT_VALIDATORS[case["kind"]].validate(case["json"])
    decoded = getattr(agentscope_py, case["kind"]).from_dict(case["json"])
    assert EVENT_VALIDATORS[case["kind"]].is_valid(decoded.to_dict())


@given(message=messages())
def test_every_document_the_api_writes_is_valid(message: Msg[Any]) -> None:
    VALIDATORS["Msg"].validate(json.loads(message.to_json()))


@given(block=blocks(depth=2))
def test_every_block_the_api_writes_is_valid(block: ContentBlock) -> None:
    VALIDATORS["ContentBlock"].validate(block.to_dict())


#: The most nesting a decoder reads: the schema states no limit, so none refuses a document here.
UNLIMITED = DecodeLimits(max_depth=400)


def refused_by_decoder(root: type[Any], document: Any) -> bool:
    try:
        root.from_dict(document, limits=UNLIMITED)
    except (DecodeError, RoleContentError):
        return True
    return False


def validator(root: type[Any]) -> Any:
    """The schema validator of a class with a wire format: a message, block, event …"""
    return VALIDATORS.get(root.__name__) or EVENT_VALIDATORS[root.__name__]


#: What AgentScope Java itself built (tests/data/agentscope-java/built_by_java.jsonl), but the
#: documents holding NaN or infinity, which Java writes as a string and no Python class reads.
JAVA_BUILT = [case for case in read_cases("built_by_java.jsonl") if "nan" not in case["case"] and "infinity" not in case["case"]]


@pytest.mark.parametrize("case", JAVA_BUILT, ids=[case["case"] for case in JAVA_BUILT])
def test_every_document_java_built_is_valid(case: dict[str, Any]) -> None:
    root = getattr(agentscope_py, case["kind"])
    assert not refused_by_decoder(root, case["json"])
    jsonschema.Draft202012Validator(json_schema(root)).validate(case["json"])


def test_shapes_the_decoder_refuses_the_schema_refuses() -> None:
    refused = [
        {"role": "user"},
        {"role": "USER", "content": "hello"},
        {"role": "USER", "metadata": []},
        {"role": "USER", "content": [{"type": "tool_use"}]},
        {"role": "SYSTEM", "content": [{"type": "data", "source": {"type": "url", "url": "u"}}]},
        {"role": "ASSISTANT", "content": [{"type": "tool_use", "input": "{}"}]},
        {"role": "ASSISTANT", "content": [{"type": "tool_use", "state": "PENDING"}]},
        {"role": "ASSISTANT", "content": [{"type": "data", "source": {"type": "base64", "data": "x"}}]},
        {"role": "ASSISTANT", "content": [{"text": "no type"}]},
        {"role": "ASSISTANT", "usage": {"inputTokens": 1.5}},
        {"role": "TOOL", "content": [{"type": "tool_result", "output": [None]}]},
        {"role": 1},
    ]
    for document in refused:
        assert refused_by_decoder(Msg, document), document
        assert not VALIDATORS["Msg"].is_valid(document), document


@given(mutated=mutated_vectors() | mutated_event_vectors())
def test_whatever_the_decoder_refuses_for_its_shape_the_schema_refuses(mutated: tuple[type[Any], Any]) -> None:
    root, document = mutated
    if refused_by_decoder(root, document):
        assert not validator(root).is_valid(document)


@given(mutated=mutated_vectors() | mutated_event_vectors())
def test_whatever_the_decoder_reads_the_schema_accepts(mutated: tuple[type[Any], Any]) -> None:
    # The other direction: the schema is no stricter than the decoder (it describes what decodes).
    root, document = mutated
    if not refused_by_decoder(root, document):
        assert validator(root).is_valid(document), document


def test_total_tokens_is_ignored_on_input_by_both() -> None:
    for total in (None, "x", 1.5, 7):
        document = {"inputTokens": 1, "outputTokens": 2, "totalTokens": total}
        assert ChatUsage.from_dict(document).total_tokens == 3
        assert VALIDATORS["ChatUsage"].is_valid(document)


@pytest.mark.parametrize(("root", "named"), [(int, "got int"), ("Msg", "got 'Msg' (str)"), (None, "got None")])
def test_a_root_without_a_wire_format_is_refused(root: Any, named: str) -> None:
    with pytest.raises(agentscope_py.ArgumentTypeError, match=rf"json_schema needs a class with a wire format .*{re.escape(named)}"):
        json_schema(root)


@pytest.mark.parametrize("behavior", ["allow", "ALLOW", "Deny", "aSk", "AS\u212a", "nope", ""])
def test_a_permission_behavior_is_accepted_by_both_in_any_ascii_case(behavior: str) -> None:
    from agentscope_py.event import PermissionRule

    document = {"tool_name": "t", "rule_content": None, "behavior": behavior, "source": "s"}
    decodes = not refused_by_decoder(PermissionRule, document)
    assert decodes == (behavior.lower() in ("allow", "deny", "ask") and behavior.isascii())
    assert jsonschema.Draft202012Validator(json_schema(PermissionRule)).is_valid(document) == decodes


# The least integer float() cannot hold: the largest float plus half its last step.
_OVERFLOWS = int(sys.float_info.max) + 2**970


@pytest.mark.parametrize(
    ("number", "decodes", "valid"),
    [
        (sys.float_info.max, True, True),
        (-sys.float_info.max, True, True),
        (_OVERFLOWS, False, False),
        (-_OVERFLOWS, False, False),
        # Rounds down to the largest float, so the decoder takes it; the schema's bound is that float,
        # a number every parser holds (the exact bound has 309 digits): the one number range where the
        # schema is stricter than the decoder.
        (_OVERFLOWS - 1, True, False),
    ],
    ids=["largest float", "its negative", "overflows", "overflows negative", "rounds down to the largest"],
)
def test_a_number_too_large_for_a_float_is_refused_by_both(number: float, decodes: bool, valid: bool) -> None:
    document = {"inputTokens": 1, "time": number}
    decoded = not refused_by_decoder(ChatUsage, document)
    assert (decoded, VALIDATORS["ChatUsage"].is_valid(document)) == (decodes, valid)


# A VideoBlock.fps is a Java float: the least double Java reads as infinity, and the double below it.
_FLOAT_OVERFLOW = 2**128 - 2**103
_BELOW_FLOAT_OVERFLOW = _FLOAT_OVERFLOW - 2**75


@pytest.mark.parametrize(
    ("number", "decodes", "valid"),
    [
        (_BELOW_FLOAT_OVERFLOW, True, True),
        (-_BELOW_FLOAT_OVERFLOW, True, True),
        (_FLOAT_OVERFLOW, False, False),
        # Half a step below the overflow and more: read as the overflow, so refused by both.
        (_FLOAT_OVERFLOW - 2**74, False, False),
        (-(_FLOAT_OVERFLOW - 2**74), False, False),
        (_FLOAT_OVERFLOW - 1, False, False),
        # Just under half a step above the double below: read as it, so taken by the decoder; the
        # schema's bound is that double, as for a double field.
        (_FLOAT_OVERFLOW - 2**74 - 1, True, False),
    ],
    ids=["below", "below negative", "overflow", "half a step under", "its negative", "just under", "rounds down"],
)
def test_a_number_too_large_for_a_java_float_is_refused_by_both(number: int, decodes: bool, valid: bool) -> None:
    document = {"type": "video", "fps": number}
    decoded = not refused_by_decoder(ContentBlock, document)
    assert (decoded, VALIDATORS["ContentBlock"].is_valid(document)) == (decodes, valid)
    assert (decoded, VALIDATORS["ContentBlock"].is_valid(json.loads(json.dumps(document)))) == (decodes, valid)


def _numbers(value: object) -> list[float]:
    if isinstance(value, dict):
        return [number for item in value.values() for number in _numbers(item)]
    if isinstance(value, list):
        return [number for item in value for number in _numbers(item)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


@pytest.mark.parametrize("root", [Msg, ContentBlock, ChatUsage, agentscope_py.AgentEvent], ids=lambda root: root.__name__)
def test_every_number_in_the_schema_survives_a_parser_that_reads_doubles(root: type) -> None:
    # JavaScript's JSON.parse (and so Ajv) reads every number as a double: a bound it cannot hold
    # would become Infinity, and the schema would no longer be a schema.
    numbers = _numbers(json.loads(json.dumps(json_schema(root))))
    assert numbers
    for number in numbers:
        assert math.isfinite(float(number)) and float(number) == number, number


_IMAGE = {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}


@pytest.mark.parametrize(
    "fields",
    [
        {"minPixels": 1, "min_pixels": "junk"},  # the key is read; the alias is not
        {"min_pixels": "junk"},
        {"minPixels": None, "min_pixels": 3},
        {"minPixels": None, "min_pixels": "x"},  # the key is there, even as null: the alias is not read
        {"min_pixels": 3},
    ],
)
def test_an_alias_is_checked_where_the_decoder_reads_it(fields: dict[str, Any]) -> None:
    document = {**_IMAGE, **fields}
    decodes = not refused_by_decoder(ContentBlock, document)
    assert VALIDATORS["ContentBlock"].is_valid(document) == decodes


def test_a_permission_behavior_with_a_trailing_newline_is_refused_by_both() -> None:
    from agentscope_py.event import PermissionRule

    document = {"tool_name": "t", "rule_content": None, "behavior": "allow\n", "source": "s"}
    with pytest.raises(DecodeError, match=r"^behavior: expected one of"):
        PermissionRule.from_dict(document)
    assert not jsonschema.Draft202012Validator(json_schema(PermissionRule)).is_valid(document)

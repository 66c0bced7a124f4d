"""Whatever the Python API can build comes back equal from its JSON, with either JSON backend."""

from __future__ import annotations

import re
from typing import Any

import attrs
import pytest
from backends import BACKENDS
from hypothesis import assume, given
from read_only import assert_read_only
from strategies import blocks, chat_usages, messages, sources, tool_result_blocks

from agentscope_py import (
    ArgumentTypeError,
    AssistantMessage,
    ChatUsage,
    ContentBlock,
    Msg,
    MsgRole,
    Source,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    _json,
)

ROLE_CLASSES: dict[MsgRole, type[Msg[Any]]] = {
    MsgRole.USER: UserMessage,
    MsgRole.ASSISTANT: AssistantMessage,
    MsgRole.SYSTEM: SystemMessage,
    MsgRole.TOOL: ToolResultMessage,
}
# A high surrogate written right before a low one reads back as the one character the
# pair encodes, in every JSON reader (Java's included): two lone surrogates cannot survive
# JSON side by side.  Such draws are set aside.
ADJACENT_SURROGATES = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")


# Hypothesis tests take the backend as a parameter: a fixture is not reset between examples.
each_backend = pytest.mark.parametrize("name", BACKENDS)


def as_decoded(message: Msg[Any]) -> Msg[Any]:
    """What decoding gives back: as in Java, a plain ``Msg`` with a role becomes that role's class."""
    if type(message) is not Msg or message.role is None:
        return message
    return ROLE_CLASSES[message.role]._from_fields(
        message.id, message.name, message.role, message.content, message.metadata, message.timestamp, message.usage
    )


def round_trip_text(obj: Any) -> str:
    text: str = obj.to_json()
    assume(not ADJACENT_SURROGATES.search(text))
    text.encode("utf-8")  # valid UTF-8 whatever the strings held (lone surrogates are escaped)
    return text


@each_backend
@given(message=messages())
def test_messages_of_every_role_round_trip(name: str, message: Msg[Any]) -> None:
    with _json.use_backend(name):
        text = round_trip_text(message)
        decoded = Msg.from_json(text)
        assert decoded == as_decoded(message)
        assert type(decoded).from_json(text) == decoded  # the role class reads its own documents
        assert Msg.from_dict(message.to_dict()) == decoded


@each_backend
@given(block=blocks(depth=3))
def test_blocks_round_trip(name: str, block: ContentBlock) -> None:
    with _json.use_backend(name):
        text = round_trip_text(block)
        assert ContentBlock.from_json(text) == block
        assert type(block).from_json(text) == block
        assert ContentBlock.from_dict(block.to_dict()) == block


@each_backend
@given(result=tool_result_blocks(depth=4))
def test_nested_tool_results_round_trip(name: str, result: ToolResultBlock) -> None:
    with _json.use_backend(name):
        assert ToolResultBlock.from_json(round_trip_text(result)) == result


@each_backend
@given(source=sources())
def test_sources_round_trip(name: str, source: Source) -> None:
    with _json.use_backend(name):
        assert Source.from_json(round_trip_text(source)) == source


@each_backend
@given(usage=chat_usages())
def test_usages_round_trip(name: str, usage: ChatUsage) -> None:
    with _json.use_backend(name):
        assert ChatUsage.from_json(round_trip_text(usage)) == usage


def test_to_dict_is_a_fresh_plain_copy(backend: str) -> None:
    result = ToolResultBlock("c1", "t", [TextBlock("x")], {"nested": {"list": [1, {"a": 2}]}})
    message = AssistantMessage(result, metadata={"k": {"v": [1]}})
    document = message.to_dict()
    assert type(document["metadata"]) is dict and type(document["metadata"]["k"]) is dict
    block = document["content"][0]
    assert type(block["metadata"]["nested"]) is dict and type(block["metadata"]["nested"]["list"][1]) is dict
    assert type(document["metadata"]["k"]["v"]) is list and type(block["metadata"]["nested"]["list"]) is list
    document["metadata"]["k"]["v"].append(2)
    block["output"].clear()
    assert message.metadata["k"]["v"] == [1]
    assert result.output == (TextBlock("x"),) and message.content == (result,)
    assert message.to_dict() != document


def test_decoded_values_are_read_only(backend: str) -> None:
    document = (
        '{"role":"ASSISTANT","metadata":{"tags":["a",{"b":[1,[2]]}],"n":{"l":[]}},"content":['
        '{"type":"tool_use","id":"c","name":"n","input":{"ids":[1,2],"o":{"l":[{"x":[3]}]}},"metadata":{"m":[0]}},'
        '{"type":"thinking","thinking":"t","metadata":{"steps":["a"]}},'
        '{"type":"tool_result","id":"c","name":"n","output":[],"metadata":{"r":[{"s":[]}]}}]}'
    )
    message = Msg.from_json(document)
    assert message.metadata == {"tags": ["a", {"b": [1, [2]]}], "n": {"l": []}}
    assert_read_only(message.metadata)
    call, thinking, result = message.content
    assert isinstance(call, ToolUseBlock) and isinstance(thinking, ThinkingBlock)
    assert isinstance(result, ToolResultBlock)
    for stored in (call.input, call.metadata, thinking.metadata, result.metadata):
        assert_read_only(stored)
    assert hash(message) == hash(Msg.from_json(document))


def test_surrogate_pair_limit_is_real() -> None:
    # The reason for ADJACENT_SURROGATES: JSON has one spelling for a pair and for the character.
    assert TextBlock.from_json(TextBlock("\ud83d\ude00").to_json()) == TextBlock("\U0001f600")


# -- classes the format does not declare --------------------------------------------------


class _GreetingMessage(UserMessage):
    """A subclass that adds behaviour, not state: written as the class it extends."""

    __slots__ = ()

    def greeting(self) -> str:
        return f"hello, {self.get_text_content()}"


class _ShoutingText(TextBlock):
    __slots__ = ()


@attrs.frozen
class _ScoredText(TextBlock):
    score: int = 0


def test_a_subclass_without_new_attributes_is_written_as_its_base(backend: str) -> None:
    message = _GreetingMessage(_ShoutingText("world"), id="m", timestamp="2025-01-01 00:00:00.000")
    plain = UserMessage(TextBlock("world"), id="m", timestamp="2025-01-01 00:00:00.000")
    assert message.to_dict() == plain.to_dict()
    assert Msg.from_json(message.to_json()) == plain
    assert _ShoutingText("x").to_json() == TextBlock("x").to_json()


def test_a_subclass_with_attributes_of_its_own_is_refused_when_written(backend: str) -> None:
    message = AssistantMessage(_ScoredText("x", 3))
    for write in (message.to_json, message.to_dict, _ScoredText("x").to_json):
        with pytest.raises(ArgumentTypeError, match=r"cannot write _ScoredText as JSON: it adds attributes to TextBlock"):
            write()


def test_a_subclass_decodes_through_its_base() -> None:
    with pytest.raises(ArgumentTypeError, match=r"_GreetingMessage has no wire format of its own; decode with UserMessage"):
        _GreetingMessage.from_json(UserMessage("x").to_json())


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (ContentBlock, "ContentBlock is abstract; build one of the block classes"),
        (Source, r"Source is abstract; build a URLSource"),
    ],
)
def test_the_abstract_bases_cannot_be_built(make: Any, expected: str) -> None:
    with pytest.raises(ArgumentTypeError, match=expected):
        make()


def test_a_block_class_of_ones_own_has_no_json_form() -> None:
    @attrs.frozen
    class Sticker(ContentBlock):
        name: str

    message = AssistantMessage(Sticker("cat"))  # an assistant may hold any block in memory
    with pytest.raises(ArgumentTypeError, match=r"cannot write Sticker as JSON: it is not one of the classes"):
        message.to_json()

"""The role table: every role accepts exactly its blocks, on every path that makes a message."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, get_args

import pytest
from strategies import BLOCK_CLASSES, EXAMPLE_BLOCKS, MESSAGE_CLASSES

from agentscope_py import (
    ALLOWED_BLOCKS,
    AssistantBlock,
    AudioBlock,
    ContentBlock,
    DataBlock,
    ImageBlock,
    Msg,
    MsgRole,
    RoleContentError,
    SystemBlock,
    TextBlock,
    ThinkingBlock,
    ToolBlock,
    ToolResultBlock,
    UserBlock,
    VideoBlock,
)

#: What the spec (api.md §4.1) says each role may hold, written out independently of the package's table.
EXPECTED_ALLOWED: dict[MsgRole, set[type[ContentBlock]]] = {
    MsgRole.USER: {TextBlock, DataBlock, ImageBlock, AudioBlock, VideoBlock},
    MsgRole.SYSTEM: {TextBlock},
    MsgRole.ASSISTANT: set(BLOCK_CLASSES),
    MsgRole.TOOL: set(BLOCK_CLASSES),
}

#: How the error words each restricted role's allowance, as Java does.
ALLOWANCE_WORDING = {MsgRole.USER: "text/data/image/audio/video", MsgRole.SYSTEM: "text"}

ALLOWED_PAIRS = [(role, cls) for role in MsgRole for cls in BLOCK_CLASSES if cls in EXPECTED_ALLOWED[role]]
REFUSED_PAIRS = [(role, cls) for role in MsgRole for cls in BLOCK_CLASSES if cls not in EXPECTED_ALLOWED[role]]

MessageMaker = Callable[[MsgRole, list[ContentBlock]], Msg[Any]]


def _pinned_constructor(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return MESSAGE_CLASSES[role](*content)


def _pinned_constructor_with_list(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return MESSAGE_CLASSES[role](content)


def _plain_constructor(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return Msg(*content, role=role)


def _pinned_builder(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return MESSAGE_CLASSES[role].builder().content(content).build()


def _builder_for_role(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return Msg.builder_for_role(role).content(*content).build()


def _plain_builder(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return Msg.builder().role(role).content(*content).build()


def _pinned_with_content(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return MESSAGE_CLASSES[role]("before").with_content(content)


def _plain_with_content(role: MsgRole, content: list[ContentBlock]) -> Msg[Any]:
    return Msg("before", role=role).with_content(content)


PATHS: list[MessageMaker] = [
    _pinned_constructor,
    _pinned_constructor_with_list,
    _plain_constructor,
    _pinned_builder,
    _builder_for_role,
    _plain_builder,
    _pinned_with_content,
    _plain_with_content,
]


def test_the_table_matches_the_spec() -> None:
    assert set(ALLOWED_BLOCKS) == set(MsgRole)
    for role, allowed in ALLOWED_BLOCKS.items():
        accepted = {cls for cls in BLOCK_CLASSES if issubclass(cls, allowed)}
        assert accepted == EXPECTED_ALLOWED[role], role


def test_the_type_aliases_are_the_table() -> None:
    assert set(ALLOWED_BLOCKS[MsgRole.USER]) == set(get_args(UserBlock))
    assert ALLOWED_BLOCKS[MsgRole.SYSTEM] == (SystemBlock,) == (TextBlock,)
    assert ALLOWED_BLOCKS[MsgRole.ASSISTANT] == (AssistantBlock,) == (ContentBlock,)
    assert ALLOWED_BLOCKS[MsgRole.TOOL] == (ToolBlock,) == (ContentBlock,)


def test_the_table_is_read_only() -> None:
    # The rules are the aliases: a table changed at run time would reach neither mypy nor the checks.
    with pytest.raises(TypeError, match=r"'mappingproxy' object does not support item assignment"):
        ALLOWED_BLOCKS[MsgRole.SYSTEM] = (ContentBlock,)  # type: ignore[index]
    assert ALLOWED_BLOCKS[MsgRole.SYSTEM] == (TextBlock,)


@pytest.mark.parametrize("make", PATHS)
@pytest.mark.parametrize(("role", "cls"), ALLOWED_PAIRS)
def test_role_accepts_its_blocks(make: MessageMaker, role: MsgRole, cls: type[ContentBlock]) -> None:
    block = EXAMPLE_BLOCKS[cls]
    msg = make(role, [TextBlock("first"), block])
    assert msg.role is role
    assert msg.content == (TextBlock("first"), block)


@pytest.mark.parametrize("make", PATHS)
@pytest.mark.parametrize(("role", "cls"), REFUSED_PAIRS)
def test_role_refuses_other_blocks(make: MessageMaker, role: MsgRole, cls: type[ContentBlock]) -> None:
    expected = (
        f"{role.value} message may only contain {ALLOWANCE_WORDING[role]} blocks, "
        f"got {cls.__name__} at content[1]"
    )
    with pytest.raises(RoleContentError, match=f"^{re.escape(expected)}$") as caught:
        make(role, [TextBlock("first"), EXAMPLE_BLOCKS[cls]])
    assert caught.value.path == "content[1]"


@pytest.mark.parametrize("make", PATHS)
@pytest.mark.parametrize("role", list(MsgRole))
def test_empty_content_is_valid_for_every_role(make: MessageMaker, role: MsgRole) -> None:
    msg = make(role, [])
    assert msg.content == ()
    assert msg.get_text_content() == ""


def test_the_first_offending_block_is_named() -> None:
    bad = [TextBlock("a"), EXAMPLE_BLOCKS[ImageBlock], TextBlock("b"), EXAMPLE_BLOCKS[ImageBlock]]
    with pytest.raises(RoleContentError, match=r"got ImageBlock at content\[1\]$"):
        _plain_constructor(MsgRole.SYSTEM, bad)


def test_role_content_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="SYSTEM message"):
        _plain_constructor(MsgRole.SYSTEM, [EXAMPLE_BLOCKS[DataBlock]])


@pytest.mark.parametrize("cls", BLOCK_CLASSES)
def test_a_message_without_role_holds_anything(cls: type[ContentBlock]) -> None:
    block = EXAMPLE_BLOCKS[cls]
    assert Msg(block, role=None).content == (block,)
    assert Msg.builder().role(None).content(block).build().content == (block,)


@pytest.mark.parametrize("role", [MsgRole.ASSISTANT, MsgRole.TOOL])
def test_blocks_inside_a_tool_result_are_not_checked_against_the_role(role: MsgRole) -> None:
    # Only a message's own blocks are checked, as in Java: a tool's output may hold anything.
    result = ToolResultBlock("call_1", "render", [EXAMPLE_BLOCKS[ThinkingBlock], EXAMPLE_BLOCKS[ImageBlock]])
    assert _plain_constructor(role, [result]).content == (result,)

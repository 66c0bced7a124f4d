"""Properties of the core model over generated messages and blocks."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import BLOCK_CLASSES, MESSAGE_CLASSES, blocks, blocks_of, json_objects, message_metadata, messages

from agentscope_py import (
    ALLOWED_BLOCKS,
    ContentBlock,
    GenerateReason,
    Msg,
    MsgRole,
    RoleContentError,
    TextBlock,
    ToolUseBlock,
    UserMessage,
)
from agentscope_py.builders import MessageBuilder


def _builder_of(msg: Msg[Any]) -> MessageBuilder[Any, Any]:
    """A builder of the same class as ``msg``."""
    if type(msg) is Msg:
        return Msg.builder().role(msg.role)
    assert msg.role is not None
    return Msg.builder_for_role(msg.role)


@given(messages())
def test_a_message_equals_its_copy_rebuilt_by_a_builder(msg: Msg[Any]) -> None:
    rebuilt = (
        _builder_of(msg)
        .id(msg.id)
        .name(msg.name)
        .content(msg.content)
        .metadata(msg.metadata)
        .timestamp(msg.timestamp)
        .usage(msg.usage)
        .build()
    )
    assert rebuilt == msg
    assert type(rebuilt) is type(msg)


@given(messages())
def test_a_message_equals_its_copy_rebuilt_by_its_constructor(msg: Msg[Any]) -> None:
    fields: dict[str, Any] = {
        "id": msg.id, "name": msg.name, "metadata": msg.metadata, "timestamp": msg.timestamp, "usage": msg.usage,
    }
    if type(msg) is Msg:
        fields["role"] = msg.role
    assert type(msg)(msg.content, **fields) == msg


@given(messages())
def test_a_message_equals_its_with_copies_and_its_clones(msg: Msg[Any]) -> None:
    for same in (
        msg.with_content(msg.content),
        msg.with_metadata(msg.metadata),
        pickle.loads(pickle.dumps(msg)),
        copy.deepcopy(msg),
    ):
        assert same == msg
        assert type(same) is type(msg)
        if _hashable(msg):
            assert hash(same) == hash(msg)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:  # a list among the metadata or tool inputs
        return False
    return True


@given(messages(), st.sampled_from(GenerateReason))
def test_with_generate_reason_changes_only_the_reason(msg: Msg[Any], reason: GenerateReason) -> None:
    copied = msg.with_generate_reason(reason)
    assert copied.get_generate_reason() is reason
    assert type(copied) is type(msg)
    assert copied.with_metadata(msg.metadata) == msg
    assert copied.metadata == {**msg.metadata, Msg.METADATA_GENERATE_REASON: reason.name}


@given(messages())
def test_reading_helpers_agree_with_the_content(msg: Msg[Any]) -> None:
    texts = [block.text for block in msg.content if type(block) is TextBlock]
    assert msg.get_text_content() == "\n".join(texts)
    assert msg.get_content_blocks(ContentBlock) == list(msg.content)
    assert msg.get_first_content_block() == (msg.content[0] if msg.content else None)
    for cls in BLOCK_CLASSES:
        found = msg.get_content_blocks(cls)
        assert found == [block for block in msg.content if type(block) is cls]
        assert msg.has_content_blocks(cls) is bool(found)
        assert msg.get_first_content_block(cls) == (found[0] if found else None)


@given(blocks(depth=2))
def test_a_block_equals_its_evolved_and_pickled_copies(block: ContentBlock) -> None:
    for same in (attrs.evolve(block), pickle.loads(pickle.dumps(block)), copy.deepcopy(block)):
        assert same == block
        assert type(same) is type(block)


@given(json_objects(), message_metadata())
def test_stored_mappings_equal_what_was_given_and_ignore_later_changes(
    tool_input: dict[str, Any], metadata: dict[str, Any]
) -> None:
    expected_input, expected_metadata = copy.deepcopy(tool_input), copy.deepcopy(metadata)
    block = ToolUseBlock("call_1", "search", tool_input, metadata=tool_input)
    msg = UserMessage("x", metadata=metadata)
    _scramble(tool_input)
    _scramble(metadata)
    assert block.input == block.metadata == expected_input
    assert msg.metadata == expected_metadata


def _scramble(value: Any) -> None:
    """Mutate every dict and list inside ``value`` in place."""
    if isinstance(value, dict):
        for item in value.values():
            _scramble(item)
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in value:
            _scramble(item)
        value.append("scrambled")


# -- invalid combinations --------------------------------------------------------------------

RESTRICTED_ROLES = [role for role in MsgRole if ContentBlock not in ALLOWED_BLOCKS[role]]
REFUSED = [
    (role, cls) for role in RESTRICTED_ROLES for cls in BLOCK_CLASSES if not issubclass(cls, ALLOWED_BLOCKS[role])
]


@st.composite
def invalid_content(draw: st.DrawFn) -> tuple[MsgRole, list[ContentBlock], int, type[ContentBlock]]:
    """A role, content that is valid except for one refused block, that block's index and class."""
    role, cls = draw(st.sampled_from(REFUSED))
    content = draw(st.lists(blocks(role), max_size=3))
    index = draw(st.integers(0, len(content)))
    content.insert(index, draw(blocks_of(cls)))
    return role, content, index, cls


def _every_path(role: MsgRole, content: list[ContentBlock]) -> list[Any]:
    pinned = MESSAGE_CLASSES[role]
    return [
        lambda: pinned(content),
        lambda: pinned(*content),
        lambda: Msg(content, role=role),
        lambda: pinned.builder().content(content).build(),
        lambda: Msg.builder_for_role(role).content(content).build(),
        lambda: Msg.builder().role(role).content(content).build(),
        lambda: pinned().with_content(content),
        lambda: Msg(role=role).with_content(content),
    ]


@given(invalid_content())
def test_any_invalid_combination_is_refused_on_every_path(
    case: tuple[MsgRole, list[ContentBlock], int, type[ContentBlock]],
) -> None:
    role, content, index, cls = case
    message = re.escape(f"got {cls.__name__} at content[{index}]")
    for make in _every_path(role, content):
        with pytest.raises(RoleContentError, match=f"^{role.value} message may only contain .*{message}$"):
            make()

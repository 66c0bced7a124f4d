"""Editing what was read from AgentFlow, the Vercel AI SDK and agent-swarm-kit: the edit is written.

Those converters carry the format's fields we have no place for (``null`` where
we write ``[]``, a ``data:`` URL where we write bare base64, a field left out)
and write them back, so that an unedited payload comes back exactly (the
round-trip tests).  A carried field must never undo an edit made since: here a
payload is read, one message edited (its content, name, metadata, usage,
timestamp, a tool call's id and input, a result's id, output and state),
written, and read again: the edit must be there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest
from framework_payloads import (
    agentflow_payloads,
    swarm_kit_payloads,
    vercel_ai_payloads,
)
from hypothesis import given
from hypothesis import strategies as st

from agentscope_py import (
    AssistantMessage,
    Base64Source,
    ChatUsage,
    DataBlock,
    Msg,
    MsgRole,
    TextBlock,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    UserMessage,
)
from agentscope_py.interop import (
    Converted,
    from_agentflow,
    from_swarm_kit,
    from_vercel_ai,
    to_agentflow,
    to_swarm_kit,
    to_vercel_ai,
)

Reader = Callable[[object], list[Msg[Any]]]
Writer = Callable[..., Converted]
#: An edit: the conversation edited, and what must hold of the messages read back from it.
Edit = tuple[list[Msg[Any]], Callable[[list[Msg[Any]]], bool]]

# Every format holds names, text, calls and results; the others only where the format has a place.
_ALL = frozenset({"name", "text", "call", "added_call", "result"})
FORMATS: dict[str, tuple[Reader, Writer, st.SearchStrategy[list[dict[str, Any]]], frozenset[str]]] = {
    "agentflow": (from_agentflow, to_agentflow, agentflow_payloads(), _ALL | {"metadata", "usage", "timestamp", "error"}),
    "vercel_ai": (from_vercel_ai, to_vercel_ai, vercel_ai_payloads(), _ALL | {"metadata", "usage", "timestamp", "error"}),
    "swarm_kit": (from_swarm_kit, to_swarm_kit, swarm_kit_payloads(), _ALL),
}

_USAGE = ChatUsage(input_tokens=7, output_tokens=3, cached_tokens=1)
_TIMESTAMP = "2001-02-03 04:05:06.789"


def _replaced(messages: list[Msg[Any]], index: int, message: Msg[Any]) -> list[Msg[Any]]:
    return [message if at == index else other for at, other in enumerate(messages)]


def _blocks(messages: list[Msg[Any]]) -> list[Any]:
    return [block for message in messages for block in message.content]


def _edit_block(messages: list[Msg[Any]], data: st.DataObject, kind: type[Any], **changes: Any) -> list[Msg[Any]] | None:
    """``messages`` with one block of type ``kind`` (drawn) changed; ``None`` when there is none."""
    places = [(i, j) for i, message in enumerate(messages) for j, block in enumerate(message.content) if isinstance(block, kind)]
    if not places:
        return None
    i, j = data.draw(st.sampled_from(places))
    content = list(messages[i].content)
    content[j] = attrs.evolve(content[j], **changes)
    return _replaced(messages, i, messages[i].with_content(content))


def _draw_edit(fmt: str, kind: str, messages: list[Msg[Any]], data: st.DataObject) -> Edit | None:
    index = data.draw(st.integers(0, len(messages) - 1))
    message = messages[index]
    if kind == "name":
        if fmt == "swarm_kit" and message.role is not MsgRole.ASSISTANT:
            return None  # agentName is the agent whose history it is: a user's or a tool's name has no place
        return _replaced(messages, index, message.__replace__(name="edited-name")), lambda back: any(
            m.name == "edited-name" for m in back
        )
    if kind == "metadata":
        edited = message.with_metadata({**message.metadata, "edited": [1, "x"]})
        return _replaced(messages, index, edited), lambda back: any(m.metadata.get("edited") == [1, "x"] for m in back)
    if kind == "usage":
        return _replaced(messages, index, message.__replace__(usage=_USAGE)), lambda back: any(m.usage == _USAGE for m in back)
    if kind == "timestamp":
        edited = message.__replace__(timestamp=_TIMESTAMP)
        return _replaced(messages, index, edited), lambda back: any(m.timestamp == _TIMESTAMP for m in back)
    if kind == "text":  # all that was there (media, calls, results) replaced by one text
        if message.role is MsgRole.TOOL:
            return None  # a TOOL message's text goes out as another role's message
        edited = message.with_content([TextBlock("edited text")])
        return _replaced(messages, index, edited), lambda back: any(m.content == (TextBlock("edited text"),) for m in back)
    if kind == "call":
        changed = _edit_block(messages, data, ToolUseBlock, id="edited-id", input={"edited": [1]})
        return None if changed is None else (changed, _has_call)
    if kind == "added_call":
        if message.role is not MsgRole.ASSISTANT:
            return None
        edited = message.with_content([*message.content, ToolUseBlock("edited-id", "lookup", {"edited": [1]})])
        return _replaced(messages, index, edited), _has_call
    if kind == "result":
        changed = _edit_block(
            messages, data, ToolResultBlock, id="edited-id", output=(TextBlock("edited output"),), state=ToolResultState.SUCCESS
        )
        return None if changed is None else (changed, lambda back: _has_result(back, ToolResultState.SUCCESS))
    assert kind == "error"
    changed = _edit_block(
        messages, data, ToolResultBlock, id="edited-id", output=(TextBlock("edited output"),), state=ToolResultState.ERROR
    )
    return None if changed is None else (changed, lambda back: _has_result(back, ToolResultState.ERROR))


def _has_call(back: list[Msg[Any]]) -> bool:
    return any(isinstance(b, ToolUseBlock) and b.id == "edited-id" and b.input == {"edited": [1]} for b in _blocks(back))


def _has_result(back: list[Msg[Any]], state: ToolResultState) -> bool:
    return any(
        isinstance(b, ToolResultBlock) and b.id == "edited-id" and b.output == (TextBlock("edited output"),) and b.state is state
        for b in _blocks(back)
    )


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(data=st.data())
def test_an_edit_made_after_reading_is_written(fmt: str, data: st.DataObject) -> None:
    read, write, payloads, holds = FORMATS[fmt]
    messages = read(data.draw(payloads.filter(bool)))
    edit = _draw_edit(fmt, data.draw(st.sampled_from(sorted(holds))), messages, data)
    if edit is None:
        return
    edited, holds_the_edit = edit
    written = write(edited)
    assert holds_the_edit(read(written)), written


# The cases found by an audit, each a field carried as it came (null, [], absent, another spelling).
def test_a_call_added_where_swarm_kit_had_an_empty_or_null_list_is_written() -> None:
    calls: list[Any] | None
    for calls in ([], None):
        (message,) = from_swarm_kit([{"role": "assistant", "agentName": "a", "content": "checking", "mode": "user", "tool_calls": calls}])
        edited = message.with_content([*message.content, ToolUseBlock("t1", "lookup", {"q": "x"})])
        assert to_swarm_kit([edited])[0]["tool_calls"] == [{"id": "t1", "type": "function", "function": {"name": "lookup", "arguments": {"q": "x"}}}]
        assert to_swarm_kit([message])[0]["tool_calls"] == calls  # unedited: as it came


def test_an_image_removed_after_reading_from_swarm_kit_stays_removed() -> None:
    payload = [{"role": "user", "agentName": "u", "content": "look", "mode": "user", "images": ["data:image/png;base64,iVBORw0KGgo="]}]
    (message,) = from_swarm_kit(payload)
    assert "images" not in to_swarm_kit([message.with_content([TextBlock("no image")])])[0]
    other = message.with_content([TextBlock("look"), DataBlock(Base64Source("image/jpeg", "/9j/AAAA"))])
    assert to_swarm_kit([other])[0]["images"] == ["/9j/AAAA"]
    assert to_swarm_kit([message]) == payload


def test_an_id_given_to_a_swarm_kit_result_read_without_one_is_written() -> None:
    (tool,) = from_swarm_kit([{"role": "tool", "agentName": "a", "content": "done", "mode": "tool", "tool_call_id": None}])
    (result,) = tool.content
    assert isinstance(result, ToolResultBlock)
    assert to_swarm_kit([tool.with_content([attrs.evolve(result, id="t1")])])[0]["tool_call_id"] == "t1"


def test_metadata_and_usage_given_to_an_agentflow_message_read_without_them_are_written() -> None:
    (message,) = from_agentflow([{"role": "assistant", "content": [{"type": "text", "text": "hi"}], "usages": None}])
    (written,) = to_agentflow([message.with_metadata({**message.metadata, "topic": "weather"}).__replace__(usage=_USAGE)])
    assert written["metadata"] == {"topic": "weather"}
    assert written["usages"]["prompt_tokens"] == 7
    assert "metadata" not in to_agentflow([message])[0]  # unedited: as it came


def test_fields_given_to_a_vercel_message_read_with_null_provider_options_are_written() -> None:
    (message,) = from_vercel_ai([{"role": "user", "content": [{"type": "text", "text": "hi"}], "providerOptions": None}])
    assert isinstance(message, UserMessage)
    (written,) = to_vercel_ai([message.__replace__(name="alice", usage=_USAGE)])
    assert written["providerOptions"]["agentscope"]["name"] == "alice"


@pytest.mark.parametrize("given_input", ["", None, [1, 2]])
def test_an_input_given_to_a_vercel_call_read_with_no_object_is_written(given_input: Any) -> None:
    (message,) = from_vercel_ai([{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "f", "input": given_input}]}])
    assert isinstance(message, AssistantMessage)
    (call,) = message.content
    assert isinstance(call, ToolUseBlock)
    (written,) = to_vercel_ai([message.with_content([attrs.evolve(call, input={"city": "Paris"})])])
    assert written["content"][0]["input"] == {"city": "Paris"}
    assert to_vercel_ai([message])[0]["content"][0]["input"] == given_input  # unedited: as it came


# -- the digests that tell an edit ----------------------------------------------------------


def test_a_digest_reads_a_value_as_json_whatever_the_order_of_its_keys() -> None:
    from agentscope_py.interop._carry import digest

    assert digest({"a": 1, "b": [None, "x"]}) == digest({"b": [None, "x"], "a": 1})
    # Values JSON writes differently digest differently, containers by their items.
    distinct = [1, 1.0, True, "1", None, "null", [], {}, [[]], ["a", "b"], ["ab"], {"a": "b"}, {"ab": ""}, "\ud800"]
    assert len({digest(value) for value in distinct}) == len(distinct)

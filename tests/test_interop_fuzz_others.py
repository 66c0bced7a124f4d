"""Fuzzing from_agentflow, from_vercel_ai and from_swarm_kit: untrusted payloads never escape as bare exceptions.

Each reader gets arbitrary JSON and valid payloads with one value replaced or
one key deleted.  It must return messages or raise ``DecodeError`` with a path
that starts at ``messages``; and whatever it returns must convert back, to
the very payload it read.  The other way round, whatever a writer writes for
any conversation, its reader reads back.
"""

from __future__ import annotations

import copy
import json
import re
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
from strategies import as_built_in_python, json_values, messages

from agentscope_py import (
    AssistantMessage,
    DataBlock,
    HintBlock,
    DecodeError,
    Msg,
    MsgRole,
    TextBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
)
from agentscope_py.interop import (
    Converted,
    from_agentflow,
    from_anthropic,
    from_openai,
    from_swarm_kit,
    from_vercel_ai,
    to_agentflow,
    to_anthropic,
    to_openai,
    to_swarm_kit,
    to_vercel_ai,
)
from agentscope_py.interop._carried_fields import BOOKKEEPING

Reader = Callable[[object], list[Msg[Any]]]
Writer = Callable[..., Converted]

FORMATS: dict[str, tuple[Reader, Writer, st.SearchStrategy[list[dict[str, Any]]]]] = {
    "agentflow": (from_agentflow, to_agentflow, agentflow_payloads()),
    "vercel_ai": (from_vercel_ai, to_vercel_ai, vercel_ai_payloads()),
    "swarm_kit": (from_swarm_kit, to_swarm_kit, swarm_kit_payloads()),
}
# Values a reader might trip over: wrong types, huge and odd numbers, deep nesting.
_NASTY: st.SearchStrategy[Any] = st.sampled_from([None, True, 0, -1, 2**70, 1e308, -0.0, "", "data:", "data:;base64,", [], {}, [[[[[]]]]], {"type": None}])
_REPLACEMENTS = _NASTY | json_values(max_leaves=6)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value: dict keys and list indexes, outermost first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


def _mutated(payload: Any, path: tuple[Any, ...], replacement: Any, delete: bool) -> Any:
    if not path:
        return replacement
    copied = copy.deepcopy(payload)
    parent = copied
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return copied


def _check(read: Reader, write: Writer, payload: Any) -> None:
    original = copy.deepcopy(payload)
    try:
        messages = read(payload)
    except DecodeError as error:
        assert error.path.startswith("messages"), error.path
        assert str(error)  # says what is wrong
        return
    assert payload == original  # reading never changes its input
    assert write(messages) == original


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(data=st.data())
def test_arbitrary_json_reads_or_raises_decode_error(fmt: str, data: st.DataObject) -> None:
    read, write, _ = FORMATS[fmt]
    payload = data.draw(json_values(max_leaves=20) | st.lists(st.dictionaries(st.sampled_from(["role", "content", "type"]), json_values(max_leaves=6)), max_size=3))
    _check(read, write, payload)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(data=st.data())
def test_mutated_payloads_read_back_exactly_or_raise_decode_error(fmt: str, data: st.DataObject) -> None:
    read, write, payloads = FORMATS[fmt]
    payload = data.draw(payloads.filter(bool))
    path = data.draw(st.sampled_from(_paths(payload)))
    mutated = _mutated(payload, path, data.draw(_REPLACEMENTS), data.draw(st.booleans()))
    _check(read, write, mutated)


def _keys(value: Any) -> set[str]:
    """Every key of every object inside a JSON value."""
    if isinstance(value, dict):
        return set(value).union(*map(_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(_keys, value))
    return set()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(data=st.data())
def test_a_field_added_to_any_object_reads_back_exactly_or_raises_decode_error(fmt: str, data: st.DataObject) -> None:
    # What the reader does not take is kept and written back where it was: a key of another object (an
    # output's "value" beside a denial's reason, "content" beside "output"), of none, or named like an
    # entry of the bookkeeping the carried dicts keep beside the format's own fields, which a field of
    # that name, on a message, a part or anything nested, must not be taken for.
    read, write, payloads = FORMATS[fmt]
    payload = data.draw(payloads.filter(bool))
    objects = [path for path in _paths(payload) if isinstance(_at(payload, path), dict)]
    path = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(BOOKKEEPING)) | st.sampled_from(sorted(_keys(payload) | {"zz"})))
    _check(read, write, _mutated(payload, (*path, key), data.draw(_REPLACEMENTS), False))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _outcome(read: Reader, write: Writer, payload: Any) -> Any:
    try:
        return write(read(payload))
    except DecodeError as error:
        return str(error)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(data=st.data())
def test_a_payload_built_in_python_reads_as_its_json_would(fmt: str, data: st.DataObject) -> None:
    # Tuples for arrays, any mapping for objects, str subclasses for strings: the same messages
    # (written back, the same payload) or the same error.
    read, write, payloads = FORMATS[fmt]
    payload: Any = data.draw(payloads)
    if payload and data.draw(st.booleans()):
        path = data.draw(st.sampled_from(_paths(payload)))
        payload = _mutated(payload, path, data.draw(_REPLACEMENTS), data.draw(st.booleans()))
    assert _outcome(read, write, data.draw(as_built_in_python(payload))) == _outcome(read, write, payload)


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


# Where each reader meets a value nested far past the interpreter's recursion limit.
_DEEP_PAYLOADS = {
    "agentflow": [{"role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c", "content": _deep(100_000)}]}],
    "vercel_ai": [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f",
                                                "output": {"type": "json", "value": _deep(100_000)}}]}],
    "swarm_kit": [{"role": "user", "agentName": "a", "content": "x", "mode": "user", "payload": _deep(100_000)}],
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_deep_nesting_is_a_decode_error(fmt: str) -> None:
    read, _, _ = FORMATS[fmt]
    with pytest.raises(DecodeError) as caught:
        read(_DEEP_PAYLOADS[fmt])
    assert caught.value.path == "messages"


_ANY_CONVERSATION = st.lists(st.one_of([messages(role) for role in MsgRole]), max_size=5)


@pytest.mark.parametrize("policy", ["drop", "text"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
@given(conversation=_ANY_CONVERSATION)
def test_what_a_writer_writes_its_reader_reads_back(fmt: str, policy: str, conversation: list[Msg[Any]]) -> None:
    # Calls and results without an id or a name included: the format requires strings there.
    read, write, _ = FORMATS[fmt]
    out = write(conversation, on_unsupported=policy)
    assert write(read(out)) == out


_NAMELESS = [
    ToolResultMessage(ToolResultBlock("c1", None, TextBlock("x"), state=ToolResultState.SUCCESS)),
    AssistantMessage(ToolUseBlock(None, None, {})),
    ToolResultMessage(ToolResultBlock.text("done")),
]


@pytest.mark.parametrize("message", _NAMELESS, ids=["result-no-name", "call-no-id-or-name", "result-no-id"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_call_or_result_without_id_or_name_is_written_as_its_reader_takes_it(fmt: str, message: Msg[Any]) -> None:
    read, write, _ = FORMATS[fmt]
    if fmt == "swarm_kit" and message is _NAMELESS[2]:
        # agent-swarm-kit would send its model a tool message without tool_call_id: refused, unless a policy says.
        with pytest.raises(UnsupportedContentError, match="without an id"):
            write([message])
        out = write([message], on_unsupported="text")
        assert write(read(out)) == out
        return
    out = write([message])
    assert "null" not in json.dumps(list(out))
    assert write(read(out)) == out


def test_edited_tool_arguments_are_sent_to_every_format() -> None:
    # A call read from OpenAI keeps its raw text; once its input is changed, every writer sends the new input.
    (_, assistant) = from_openai([
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    ])
    call = assistant.content[0]
    assert isinstance(call, ToolUseBlock) and call.content == '{"city": "Paris"}'
    edited = AssistantMessage(attrs.evolve(call, input={"city": "Rome"}))
    unchanged = AssistantMessage(call)
    written = {
        "openai": to_openai([edited], validate=False)[0]["tool_calls"][0]["function"]["arguments"],
        "swarm_kit": to_swarm_kit([edited])[0]["tool_calls"][0]["function"]["arguments"],
        "anthropic": to_anthropic([edited], validate=False)["messages"][0]["content"][0]["input"],
        "vercel_ai": to_vercel_ai([edited])[0]["content"][0]["input"],
    }
    assert {fmt: value if isinstance(value, dict) else json.loads(value) for fmt, value in written.items()} == dict.fromkeys(
        written, {"city": "Rome"}
    )
    # Unchanged, the raw text goes as it came, byte for byte.
    assert to_openai([unchanged], validate=False)[0]["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'
    # Text that holds no object is the call's arguments as they came, whatever the writer.
    broken = ToolUseBlock("c2", "f", {}, "not json")
    assert to_openai([AssistantMessage(broken)], validate=False)[0]["tool_calls"][0]["function"]["arguments"] == "not json"


def test_a_file_id_is_not_sent_as_a_url_to_another_format() -> None:
    # OpenAI's file by id reads as a URL source holding the bare id: only OpenAI can take it back.
    payload = [{"role": "user", "content": [
        {"type": "text", "text": "summarise"},
        {"type": "file", "file": {"file_id": "file-abc123", "filename": "report.pdf"}},
    ]}]
    (user,) = from_openai(payload)
    assert to_openai([user]) == payload
    for write in (to_anthropic, to_agentflow, to_vercel_ai, to_swarm_kit):
        # Every writer says why: the URL has no scheme.
        with pytest.raises(
            UnsupportedContentError,
            match=r"cannot hold a DataBlock by URL \(messages\[0\]\.content\[1\]\): 'file-abc123' has no scheme, so it is a file id",
        ):
            write([user])
    # AgentFlow's own file ids go back to AgentFlow.
    agentflow = [{"message_id": "m", "role": "user", "timestamp": 1718000000000, "metadata": {}, "content": [
        {"type": "image", "media": {"kind": "file_id", "file_id": "img-7", "mime_type": "image/png"}}]}]
    assert to_agentflow(from_agentflow(agentflow)) == agentflow


@pytest.mark.parametrize("url", ["https://[::1/a.png", "https://]/", "http://x\u2101/a.png"])
def test_a_url_urllib_will_not_split_is_passed_on_as_it_came(url: str) -> None:
    # urllib refuses these (a bracket left open, a host that NFKC normalization changes): a converter
    # passes a URL on without judging it, and reads no file extension from it.
    read = [
        from_openai([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]),
        from_anthropic({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": url}}]}]}),
        from_vercel_ai([{"role": "user", "content": [{"type": "image", "image": url}]}]),
        from_agentflow([{"role": "user", "content": [{"type": "audio", "media": {"kind": "url", "url": url}}]}]),
    ]
    assert [message.content[0].source for [message] in read] == [URLSource(url)] * 4  # type: ignore[attr-defined]
    message = UserMessage(DataBlock(URLSource(url)))
    assert to_openai([message])[0]["content"] == [{"type": "image_url", "image_url": {"url": url}}]
    assert to_anthropic([message])["messages"][0]["content"] == [{"type": "image", "source": {"type": "url", "url": url}}]
    assert to_agentflow([message])[0]["content"] == [{"type": "document", "media": {"kind": "url", "url": url}}]
    with pytest.raises(UnsupportedContentError, match=r"cannot hold a DataBlock by URL \(messages\[0\]\.content\[0\]\); pass"):
        to_vercel_ai([message])  # a file part needs the media type the extension would have told


def test_part_fields_are_never_laid_on_another_block_after_an_edit() -> None:
    payload = [{"message_id": "m1", "role": "user", "timestamp": 1718000000000, "metadata": {}, "content": [
        {"type": "text", "text": "What is in this image?"},
        {"type": "image", "media": {"kind": "url", "url": "https://example.com/photo.jpg"}, "alt_text": "A street"},
    ]}]
    (user,) = from_agentflow(payload)
    assert to_agentflow([user]) == payload
    # A block inserted in front: the text at the image's old index is written as the text it is.
    (written,) = to_agentflow([user.with_content(["Context", *user.content])])
    assert written["content"][:2] == [{"type": "text", "text": "Context"}, {"type": "text", "text": "What is in this image?"}]
    vercel = [{"role": "user", "content": [
        {"type": "text", "text": "hi", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
        {"type": "text", "text": "there"},
    ]}]
    (said,) = from_vercel_ai(vercel)
    (moved,) = to_vercel_ai([said.with_content(["Context", *said.content])])
    assert moved["content"][0] == {"type": "text", "text": "Context"}  # not given "hi"'s cache marker


# A value a message cannot store (NaN, infinity, a number beyond what it holds) read from a payload
# is the payload's fault: a DecodeError naming the message it is in, like any other malformed value.
_UNSTORABLE = [
    (from_swarm_kit, '[{"role":"user","agentName":"","content":"hi","mode":"user","payload":NaN}]', "messages[0]",
     "UserMessage.metadata['swarm_kit']['payload'] is nan"),
    (from_agentflow, '[{"role":"user","content":[],"raw":Infinity}]', "messages[0]",
     "UserMessage.metadata['agentflow']['raw'] is inf"),
    (from_vercel_ai, '[{"role":"user","content":"hi","providerOptions":{"x":{"y":NaN}}}]', "messages[0]", "is nan"),
    (from_vercel_ai, '[{"role":"assistant","content":[],"providerOptions":{"agentscope":{"usage":{"time":1e400}}}}]',
     "messages[0].providerOptions.agentscope.usage", "ChatUsage.time must be a finite number"),
    (from_openai, '[{"role":"user","content":"q"},{"role":"user","content":"hi","x":NaN}]', "messages[1]",
     "UserMessage.metadata['openai']['x'] is nan"),
    (from_openai, '[{"role":"assistant","content":[{"type":"text","text":"a","x":Infinity}]}]', "messages[0]", "is inf"),
    (from_anthropic, '[{"role":"user","content":"q"},{"role":"user","content":[{"type":"text","text":"hi","x":NaN}]}]',
     "messages[1]", "is nan"),
]


@pytest.mark.parametrize(("read", "text", "path", "words"), _UNSTORABLE)
def test_a_value_a_message_cannot_store_is_a_decode_error(read: Reader, text: str, path: str, words: str) -> None:
    with pytest.raises(DecodeError) as caught:
        read(json.loads(text))
    assert caught.value.path == path and words in str(caught.value)


@pytest.mark.parametrize(
    ("call", "arguments"),
    [
        (ToolUseBlock("c", "w", {"b": 2}), {"b": 2}),
        (ToolUseBlock("c", "w", {}, '{"a": 1}'), {"a": 1}),  # known only as raw text, as mid-stream
        (ToolUseBlock("c", "w", {"b": 2}, '{"a": 1}'), {"b": 2}),  # the input changed after reading
        (ToolUseBlock("c", "w", {"a": 1}, '{"a" : 1}'), {"a": 1}),
        # Changed to values Python finds equal, which JSON does not: the text says 1, the input true.
        (ToolUseBlock("c", "w", {"a": True}, '{"a": 1}'), {"a": True}),
        (ToolUseBlock("c", "w", {"a": 1.5, "n": 1.0}, '{"a": 1.5, "n": 1}'), {"a": 1.5, "n": 1.0}),
        (ToolUseBlock("c", "w", {}, "  "), {}),
    ],
)
def test_every_format_sends_the_same_arguments(call: ToolUseBlock, arguments: dict[str, Any]) -> None:
    conversation = [AssistantMessage(call)]
    sent = {
        # OpenAI sends the raw text as it is: blank means no arguments there too.
        "openai": json.loads(to_openai(conversation, validate=False)[0]["tool_calls"][0]["function"]["arguments"].strip() or "{}"),
        "anthropic": to_anthropic(conversation, validate=False)["messages"][0]["content"][0]["input"],
        "agentflow": to_agentflow(conversation)[0]["content"][0]["args"],
        "vercel_ai": to_vercel_ai(conversation)[0]["content"][0]["input"],
        "swarm_kit": to_swarm_kit(conversation)[0]["tool_calls"][0]["function"]["arguments"],
    }
    # Compared as JSON: == takes 1 for true.
    assert {fmt: json.dumps(value) for fmt, value in sent.items()} == dict.fromkeys(sent, json.dumps(arguments))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_block_refused_inside_a_tool_result_is_named_by_its_place_in_the_output(fmt: str) -> None:
    _, write, _ = FORMATS[fmt]
    conversation = [
        UserMessage("q"),
        AssistantMessage(ToolUseBlock("c", "f", {})),
        ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("a"), HintBlock("h", "x")], state=ToolResultState.SUCCESS)),
    ]
    with pytest.raises(UnsupportedContentError, match=r"in a tool result's output \(messages\[2\]\.content\[0\]\.output\[1\]\)"):
        write(conversation)
    (note,) = write(conversation, on_unsupported="drop").notes
    assert (note.message_index, note.block_index, note.output_index) == (2, 0, 1)


@pytest.mark.parametrize("write", [to_agentflow, to_swarm_kit, to_anthropic], ids=["agentflow", "swarm_kit", "anthropic"])
def test_a_call_refused_for_its_arguments_says_so(write: Callable[..., Any]) -> None:
    # Each holds arguments as an object: "cannot hold a ToolUseBlock" alone read as no calls at all.
    conversation = [UserMessage("q"), AssistantMessage(ToolUseBlock("c", "f", None, '{"city": ')), ToolResultMessage.of("c", "f", "ok")]
    with pytest.raises(
        UnsupportedContentError,
        match=r"cannot hold a ToolUseBlock whose arguments are not a JSON object \(messages\[1\]\.content\[0\]\)",
    ):
        write(conversation)


def test_a_call_in_a_tool_message_is_refused_for_its_place_by_swarm_kit() -> None:
    # Its other blocks go in a user message, which holds no calls.
    conversation = [
        AssistantMessage(ToolUseBlock("c", "f", {})),
        ToolResultMessage(ToolResultBlock("c", "f", [TextBlock("ok")]), ToolUseBlock("d", "g", {})),
    ]
    with pytest.raises(UnsupportedContentError, match=r"cannot hold a ToolUseBlock in a tool message \(messages\[1\]\.content\[1\]\)"):
        to_swarm_kit(conversation)


@pytest.mark.parametrize(("fmt", "entry"), [("agentflow", "blocks"), ("vercel_ai", "approvals")])
def test_carried_positions_that_are_no_plain_number_are_ignored(fmt: str, entry: str) -> None:
    # "²" is a digit to str.isdigit, but no int: a position under such a key is not one we wrote.
    _, write, _ = FORMATS[fmt]
    message = AssistantMessage("a", metadata={fmt: {entry: {"²": {"type": "annotation"}}}})
    assert write([UserMessage("q"), message], on_unsupported="drop")[1]["content"] in ("a", [{"type": "text", "text": "a"}])


@pytest.mark.parametrize(("fmt", "entry"), [("agentflow", "blocks"), ("vercel_ai", "approvals")])
def test_a_carried_position_past_what_int_reads_is_ignored(fmt: str, entry: str) -> None:
    _, write, _ = FORMATS[fmt]
    message = AssistantMessage("a", metadata={fmt: {entry: {"9" * 5000: {"type": "annotation"}}}})
    assert write([UserMessage("q"), message], on_unsupported="drop")[1]["content"] in ("a", [{"type": "text", "text": "a"}])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize(
    ("payload", "said"),
    [
        ({"role": "user", "content": "hi"}, "got a single message; wrap it in a list: [message]"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "got an object holding one; pass its 'messages'"),
        ({"content": "hi"}, "expected an array, got object"),
    ],
)
def test_an_object_given_for_the_list_says_what_to_pass(fmt: str, payload: dict[str, Any], said: str) -> None:
    read, _, _ = FORMATS[fmt]
    with pytest.raises(DecodeError, match=rf"^messages: .*{re.escape(said)}$"):
        read(payload)

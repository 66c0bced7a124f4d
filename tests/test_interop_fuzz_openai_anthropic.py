"""from_openai and from_anthropic on untrusted input: a clear error or a result, never a crash.

Arbitrary JSON, and valid payloads with one thing broken, either read (and then
convert back without a bare exception) or raise DecodeError with a path, or
UnsupportedContentError for well-formed content the model cannot represent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
from anthropic.types import MessageParam, TextBlockParam
from hypothesis import assume, event, given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam
from provider_payloads import anthropic_payloads, as_openai_reads_them, mutated, openai_payloads
from interop_compare import as_anthropic_takes_them, comparable, conversations_for
from lines_run import lines_run
from sdk_types import conform
from strategies import as_built_in_python, json_values, messages

from agentscope_py import (
    AgentScopeError,
    ArgumentTypeError,
    AssistantMessage,
    ContentBlock,
    ConversationError,
    DecodeError,
    ArgumentValueError,
    HintBlock,
    Msg,
    MsgRole,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py.interop import (
    ConversationProblem,
    OnUnsupported,
    ProblemKind,
    from_anthropic,
    from_openai,
    repair_conversation,
    to_agentflow,
    to_anthropic,
    to_openai,
    to_swarm_kit,
    to_vercel_ai,
    validate_conversation,
)
from agentscope_py.interop import _carry
from agentscope_py.interop._carry import _BOOKKEEPING as _CARRY_BOOKKEEPING
from agentscope_py.interop._carry import fingerprint

Reader = Callable[[Any], list[Msg]]
Writer = Callable[..., Any]

FORMATS: list[tuple[Reader, Writer, st.SearchStrategy[Any]]] = [
    (from_openai, to_openai, openai_payloads()),
    (from_anthropic, to_anthropic, anthropic_payloads()),
]


def read_or_refuse(read: Reader, write: Writer, payload: Any) -> None:
    try:
        messages = read(payload)
    except DecodeError as error:
        assert str(error).startswith(error.path)
        return
    except UnsupportedContentError as error:
        assert "cannot be represented" in str(error) or "not supported" in str(error)
        return
    try:
        write(messages, validate=False)
    except AgentScopeError:
        pass  # refusing what it cannot send is fine; anything else escaping is not


@pytest.mark.parametrize(("read", "write", "payloads"), FORMATS, ids=["openai", "anthropic"])
@given(data=st.data())
def test_arbitrary_json(read: Reader, write: Writer, payloads: st.SearchStrategy[Any], data: st.DataObject) -> None:
    read_or_refuse(read, write, data.draw(json_values()))


def _outcome(read: Reader, payload: Any) -> Any:
    try:
        return comparable(read(payload))
    except AgentScopeError as error:
        return type(error), str(error)


@pytest.mark.parametrize(("read", "write", "payloads"), FORMATS, ids=["openai", "anthropic"])
@given(data=st.data())
def test_a_payload_built_in_python_reads_as_its_json_would(
    read: Reader, write: Writer, payloads: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    # Tuples for arrays, any mapping for objects, str subclasses for strings: the same messages or
    # the same error.
    payload = data.draw(payloads | mutated(payloads))
    assert _outcome(read, data.draw(as_built_in_python(payload))) == _outcome(read, payload)


@pytest.mark.parametrize(("read", "write", "payloads"), FORMATS, ids=["openai", "anthropic"])
@given(data=st.data())
def test_mutated_valid_payloads(read: Reader, write: Writer, payloads: st.SearchStrategy[Any], data: st.DataObject) -> None:
    read_or_refuse(read, write, data.draw(mutated(payloads)))


@pytest.mark.parametrize(("read", "write", "payloads"), FORMATS, ids=["openai", "anthropic"])
@given(data=st.data())
def test_a_field_named_like_a_bookkeeping_entry_travels_as_any_other(
    read: Reader, write: Writer, payloads: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    # metadata["openai"] keeps bookkeeping ("parts", "response" …) beside the format's own fields: a
    # field of the same name, on a message, a part or a call, must come back, not be taken for it.
    # (Anthropic's messages have no fields of their own to carry: only its blocks are tried.)
    payload = data.draw(payloads)
    kinds = ("type", "role") if read is from_openai else ("type",)
    objects = [value for value in _objects(payload) if any(kind in value for kind in kinds)]
    assume(objects)
    target = data.draw(st.sampled_from(objects))
    target[data.draw(st.sampled_from(sorted(_CARRY_BOOKKEEPING)))] = data.draw(json_values(max_leaves=4))
    assert write(read(payload), validate=False) == payload


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects in lists inside ``value``: messages, parts, blocks and tool calls."""
    found = []
    for inner in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        if isinstance(value, list) and isinstance(inner, dict):
            found.append(inner)
        found += _objects(inner)
    return found


@given(json_values())
def test_arbitrary_tool_call_arguments_never_fail_to_read(arguments: Any) -> None:
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]}]
    if isinstance(arguments, str):
        (message,) = from_openai(payload)
        assert to_openai([message], validate=False) == payload
    else:
        with pytest.raises(DecodeError) as caught:
            from_openai(payload)
        assert caught.value.path == "messages[0].tool_calls[0].function.arguments"


def test_deeply_nested_arguments_do_not_blow_the_stack() -> None:
    raw = "[" * 100_000
    payload = [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]}]
    (message,) = from_openai(payload)
    assert message.content[0].content == raw  # type: ignore[attr-defined]


def _deep(depth: int, wrap: Callable[[Any], Any]) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = wrap(value)
    return value


_WRAPS = {"objects": lambda inner: {"a": inner}, "arrays": lambda inner: [inner]}
# Where each reader meets a value nested deeply: fields it carries verbatim.
_DEEP_PAYLOADS: list[tuple[Reader, Writer, Callable[[Any], Any]]] = [
    (from_openai, to_openai, lambda deep: [{"role": "assistant", "content": "x", "reasoning_details": deep}]),
    (from_openai, to_openai, lambda deep: [{"role": "user", "content": [{"type": "text", "text": "x", "prompt_cache_breakpoint": deep}]}]),
    (from_anthropic, to_anthropic, lambda deep: {"messages": [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": deep}]}]}),
    (from_anthropic, to_anthropic, lambda deep: {"system": [{"type": "text", "text": "x", "citations": deep}], "messages": []}),
]


@pytest.mark.parametrize("depth", [491, 1000, 100_000])
@pytest.mark.parametrize("wrap", sorted(_WRAPS))
@pytest.mark.parametrize(("read", "write", "payload"), _DEEP_PAYLOADS)
def test_deep_nesting_reads_back_exactly_or_is_a_decode_error(
    read: Reader, write: Writer, payload: Callable[[Any], Any], wrap: str, depth: int
) -> None:
    given = payload(_deep(depth, _WRAPS[wrap]))
    try:
        messages = read(given)
    except DecodeError as error:
        assert (error.path, str(error)) == ("messages", "messages: the payload is nested too deeply to read")
        return
    assert depth < sys.getrecursionlimit()  # past it: refused, not a RecursionError
    assert write(messages, validate=False) == given


_READ_WRITE: list[tuple[Reader, Writer]] = [(from_openai, to_openai), (from_anthropic, to_anthropic)]
_ANY_CONVERSATION = st.lists(st.one_of([messages(role) for role in MsgRole]), max_size=5)


@pytest.mark.parametrize(("read", "write"), _READ_WRITE, ids=["openai", "anthropic"])
@pytest.mark.parametrize("policy", ["drop", "text"])
@given(conversation=_ANY_CONVERSATION)
def test_any_conversation_converts_under_a_lenient_policy(
    read: Reader, write: Writer, policy: str, conversation: list[Msg]
) -> None:
    out = write(conversation, on_unsupported=policy, validate=False)
    assert all(note.action == ("dropped" if policy == "drop" else "as_text") for note in out.notes)
    assert write(read(out), validate=False) == out  # what a writer writes, its reader reads


_LENIENT: st.SearchStrategy[OnUnsupported] = st.sampled_from(["drop", "text"])


@given(conversation=_ANY_CONVERSATION, policy=_LENIENT)
def test_whatever_the_writers_write_the_sdks_accept(conversation: list[Msg], policy: OnUnsupported) -> None:
    # Under a lenient policy any conversation converts; what comes out must be what the APIs take.
    _conforms(to_openai, to_openai(conversation, on_unsupported=policy, validate=False))
    _conforms(to_anthropic, to_anthropic(conversation, on_unsupported=policy, validate=False))


_TARGET = {to_openai: "OpenAI Chat Completions", to_anthropic: "Anthropic Messages"}


def _conforms(write: Writer, out: Any) -> None:
    """What ``write`` wrote is of its SDK's param types, closed (see ``sdk_types``)."""
    if write is to_openai:
        conform(list(out), list[ChatCompletionMessageParam])
        return
    if "system" in out:
        conform(out["system"], str | list[TextBlockParam])
    conform(out["messages"], list[MessageParam])


# Conversations each format holds as they are: they must convert, and read back equal.
_HELD: dict[Writer, st.SearchStrategy[list[Msg]]] = {
    to_openai: conversations_for("openai").map(as_openai_reads_them),
    to_anthropic: conversations_for("anthropic").map(as_anthropic_takes_them),
}


# Whether an example draws a conversation the format holds: three in four do.  (``st.one_of`` would
# not do: it takes each distinct strategy once, whatever the number of times it is given.)
_MOSTLY_HELD = st.sampled_from([True, True, True, False])


@pytest.mark.parametrize(("read", "write"), _READ_WRITE, ids=["openai", "anthropic"])
@given(data=st.data())
def test_any_conversation_converts_or_is_refused_clearly(read: Reader, write: Writer, data: st.DataObject) -> None:
    held = data.draw(_MOSTLY_HELD)
    conversation = data.draw(_HELD[write] if held else _ANY_CONVERSATION)
    try:
        out = write(conversation)
    except (UnsupportedContentError, ConversationError) as error:
        assert not held, f"refused a conversation the format holds: {error}"
        event(f"refused: {type(error).__name__}")
        # Clearly: the target named, the place given, the way out told.
        assert str(error).startswith(_TARGET[write])
        if isinstance(error, ConversationError) and {p.kind for p in error.problems} == {ProblemKind.NO_MESSAGES}:
            # Nothing to send (the policy may have dropped it all) is no message's fault.
            assert "messages: nothing to send" in str(error) and "Give it a message to send" in str(error)
            return
        assert "messages[" in str(error)
        assert "pass on_unsupported=" in str(error) or "repair_conversation" in str(error)
        if isinstance(error, ConversationError):
            assert error.problems
        return
    event("converted: a conversation the format holds" if held else "converted: any conversation")
    _conforms(write, out)
    if held:
        assert comparable(read(out)) == comparable(conversation)
    else:  # what it wrote, it reads back to what it writes again alike
        assert write(read(out)) == out


_EMPTIED = [UserMessage("hi"), AssistantMessage(ThinkingBlock("x"))]
# A call Anthropic cannot take (raw arguments that are not an object), dropped: its result answers nothing.
_UNCALLED = [
    UserMessage("hi"),
    AssistantMessage(TextBlock("checking"), ToolUseBlock("c", "f", {}, "not json")),
    ToolResultMessage.of("c", "f", "ok"),
]


@pytest.mark.parametrize("write", [to_openai, to_anthropic], ids=["openai", "anthropic"])
def test_a_message_the_policy_empties_is_refused_like_an_empty_one(write: Writer) -> None:
    with pytest.raises(ConversationError, match=r"on_unsupported changed some blocks.*messages\[1\]: assistant message with no content") as caught:
        write(_EMPTIED, on_unsupported="drop")
    assert caught.value.problems == (ConversationProblem(ProblemKind.EMPTY_ASSISTANT_MESSAGE, 1),)
    assert write(_EMPTIED, on_unsupported="text")  # the text stand-in is content
    assert len(write(_EMPTIED, on_unsupported="drop", validate=False).notes) == 1


def test_a_result_whose_call_the_policy_dropped_is_an_orphan() -> None:
    with pytest.raises(ConversationError) as caught:
        to_anthropic(_UNCALLED, on_unsupported="drop")
    assert caught.value.problems == (ConversationProblem(ProblemKind.ORPHAN_TOOL_RESULT, 2, 0, "c"),)


# Blocks neither format holds, each in a turn its role allows: a lenient policy drops them or sends
# them as text.
_UNHELD_BLOCKS: dict[type[Msg], st.SearchStrategy[ContentBlock]] = {
    UserMessage: st.builds(VideoBlock, st.builds(URLSource, st.sampled_from(["https://example.com/v.mp4", "https://example.com/w.webm"]))),
    AssistantMessage: st.builds(HintBlock, st.none(), st.sampled_from(["be brief", "use tools"])),
}


@st.composite
def _held_with_unheld_blocks(draw: st.DrawFn, write: Writer) -> tuple[list[Msg], list[Msg], int]:
    """A conversation ``write``'s format holds; it with blocks the format does not hold added to its
    user and assistant turns (each keeps what it held, so stays valid once they are dropped); and
    how many were added."""
    held = draw(_HELD[write])
    conversation = list(held)
    added = 0
    for index, message in enumerate(conversation):
        blocks = _UNHELD_BLOCKS.get(type(message))
        if blocks is not None:
            content = list(message.content)
            for _ in range(draw(st.integers(min_value=0, max_value=2))):
                content.insert(draw(st.integers(min_value=0, max_value=len(content))), draw(blocks))
                added += 1
            conversation[index] = message.with_content(content)
    return held, conversation, added


@pytest.mark.parametrize(("read", "write"), _READ_WRITE, ids=["openai", "anthropic"])
@pytest.mark.parametrize("policy", ["drop", "text"])
@given(data=st.data())
def test_what_passes_validation_under_a_lenient_policy_reads_back_valid(
    read: Reader, write: Writer, policy: OnUnsupported, data: st.DataObject
) -> None:
    # Mostly a conversation the format holds, with blocks it does not added to its turns: the
    # lenient policy must leave it valid.  The rest: any conversation, which may well be refused.
    held = data.draw(_MOSTLY_HELD)
    if held:
        original, conversation, added = data.draw(_held_with_unheld_blocks(write))
    else:
        conversation = data.draw(_ANY_CONVERSATION)
    try:
        out = write(conversation, on_unsupported=policy)
    except ConversationError as error:
        assert not held, f"on_unsupported={policy!r} left a conversation the format holds invalid: {error}"
        event("refused: ConversationError")
        return
    event("converted: a conversation the format holds" if held else "converted: any conversation")
    _conforms(write, out)
    if held:  # one note for each block added, and only those
        assert len(out.notes) == added
        assert all(note.action == ("dropped" if policy == "drop" else "as_text") for note in out.notes)
        assert {note.block_type for note in out.notes} <= {HintBlock.type, VideoBlock.type}
        if policy == "drop":  # the added blocks gone, nothing else
            assert out == write(original)
    problems = validate_conversation(read(out))
    # What the target takes: OpenAI takes an empty user message and an assistant message of blank text
    # (to_openai refuses one with no content at all), Anthropic neither.
    openai_takes = [ProblemKind.EMPTY_USER_MESSAGE, ProblemKind.EMPTY_ASSISTANT_MESSAGE]
    taken = {ProblemKind.LATE_SYSTEM_MESSAGE, *(openai_takes if write is to_openai else [])}
    assert [p for p in problems if p.kind not in taken] == []


def test_a_part_s_fields_stay_with_its_block_when_the_content_is_edited() -> None:
    user, assistant = from_openai([
        {"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"}},
        ]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}, {"type": "text", "text": "sorry"}]},
    ])
    # A block inserted in front: the detail stays on the image, the refusal marker on "no".
    edited = [user.with_content(["first", *user.content]), assistant.with_content(["well", *assistant.content])]
    written = to_openai(edited, validate=False)
    assert written[0]["content"][2] == {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"}}
    assert written[1]["content"] == [
        {"type": "text", "text": "well"}, {"type": "refusal", "refusal": "no"}, {"type": "text", "text": "sorry"}]
    # A block replaced: the new one gets nothing of the old one's.
    replaced = assistant.with_content(["yes", TextBlock("sorry")])
    assert to_openai([replaced], validate=False)[0]["content"] == [
        {"type": "text", "text": "yes"}, {"type": "text", "text": "sorry"}]
    # Anthropic: a cache marker stays with its block too.
    (system, *_) = from_anthropic({"system": [{"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}], "messages": []})
    moved = to_anthropic([system.with_content(["preface", *system.content])], validate=False)
    assert moved["system"] == [{"type": "text", "text": "preface"}, {"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}]


def test_equal_blocks_keep_their_own_part_fields() -> None:
    # Two equal texts, only the second marked: the mark stays on the second.
    request = {"system": [{"type": "text", "text": "x"}, {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}], "messages": []}
    assert to_anthropic(from_anthropic(request), validate=False) == request
    # Shifted together by a block put in front, equal blocks keep their fields in their order; reordered,
    # each block takes its own back.
    marks = [{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}]
    request = {"system": [{"type": "text", "text": "x", "cache_control": mark} for mark in marks], "messages": []}
    (system,) = from_anthropic(request)
    shifted = to_anthropic([system.with_content(["preface", *system.content])], validate=False)
    assert [part.get("cache_control") for part in shifted["system"]] == [None, *marks]
    request = {"system": [{"type": "text", "text": text, "cache_control": mark} for text, mark in zip("xy", marks)], "messages": []}
    (system,) = from_anthropic(request)
    swapped = to_anthropic([system.with_content(system.content[::-1])], validate=False)
    assert [(part["text"], part["cache_control"]) for part in swapped["system"]] == [("y", marks[1]), ("x", marks[0])]


@pytest.mark.parametrize(("write", "fmt"), [(to_openai, "openai"), (to_anthropic, "anthropic")])
def test_parts_left_without_a_block_look_at_each_block_once(write: Writer, fmt: str) -> None:
    # Equal blocks and twice as many parts for them (keys that are no position): each part left over
    # looked through all the blocks for a free one, quadratic in the blocks.
    def conversation(blocks: int) -> list[Msg]:
        keys = [f"k{index}" for index in range(2 * blocks)]
        carried = {"parts": {key: {"x": 1} for key in keys}, "part_of": {key: fingerprint(TextBlock("a")) for key in keys}}
        return [UserMessage(*["a"] * blocks, metadata={fmt: carried})]

    def work(blocks: int) -> int:
        messages = conversation(blocks)
        return lines_run({_carry.__file__}, lambda: write(messages, validate=False))

    written = write(conversation(3), validate=False)
    parts = written[0]["content"] if write is to_openai else written["messages"][0]["content"]
    assert parts == [{"type": "text", "text": "a", "x": 1}] * 3  # the first three parts take them, in order
    assert work(400) < 6 * work(100)  # four times the blocks: about four times the work, not sixteen


@pytest.mark.parametrize(("write", "fmt"), [(to_openai, "openai"), (to_anthropic, "anthropic")])
def test_a_message_cut_into_turns_has_its_carried_fields_read_once(
    write: Writer, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read for each turn, they were matched against the whole content each time: every block
    # fingerprinted once per turn, quadratic in the blocks.
    fingerprinted: list[object] = []

    def counted(block: Any) -> str:
        fingerprinted.append(block)
        return fingerprint(block)

    monkeypatch.setattr(_carry, "fingerprint", counted)
    content: list[Any] = []
    for index in range(100):
        content += [ToolUseBlock(f"c{index}", "f", {}), ToolResultBlock(f"c{index}", "f", [TextBlock("ok")]), TextBlock(f"t{index}")]
    marked = {fmt: {"parts": {"2": {"cache_control": {"type": "ephemeral"}}}, "part_of": {"2": fingerprint(TextBlock("t0"))}}}
    written = write([UserMessage("q"), AssistantMessage(content, metadata=marked)])
    assert len(fingerprinted) == len(content)
    # The third message (after the first call and its result) holds t0, with the part's field.
    turn = written[3] if write is to_openai else written["messages"][3]
    assert turn["content"][0] == {"type": "text", "text": "t0", "cache_control": {"type": "ephemeral"}}


_TAKE_A_LIST = [to_openai, to_anthropic, to_agentflow, to_vercel_ai, to_swarm_kit, validate_conversation, repair_conversation]


@pytest.mark.parametrize("function", _TAKE_A_LIST, ids=lambda function: function.__name__)
def test_a_single_message_where_a_list_is_expected_says_to_wrap_it(function: Callable[[Any], Any]) -> None:
    with pytest.raises(ArgumentTypeError, match=r"list of messages, got a single UserMessage; wrap it in a list: \[msg\]"):
        function(UserMessage("x"))
    with pytest.raises(ArgumentTypeError, match="list of messages, got None"):
        function(None)
    # Each item is checked alike by all of them: a wrong type is a TypeError, a missing role a ValueError.
    with pytest.raises(ArgumentTypeError, match=r"messages\[1\] must be a Msg, got \{'role': 'user'\} \(dict\)"):
        function([UserMessage("x"), {"role": "user"}])
    with pytest.raises(ArgumentValueError, match=r"messages\[0\] has no role"):
        function([Msg("x", role=None)])
    function([UserMessage("x")])  # the list is what it takes


@pytest.mark.parametrize("write", [to_openai, to_anthropic, to_agentflow, to_vercel_ai, to_swarm_kit])
def test_a_policy_of_the_wrong_type_is_a_type_error_and_an_unknown_one_a_value_error(write: Writer) -> None:
    for wrong in (5, None, ["drop"]):
        with pytest.raises(ArgumentTypeError, match="on_unsupported must be one of"):
            write([UserMessage("hi")], on_unsupported=wrong)
    with pytest.raises(ArgumentValueError, match="got 'Drop'"):
        write([UserMessage("hi")], on_unsupported="Drop")


@pytest.mark.parametrize("write", [to_openai, to_anthropic])
def test_validate_is_a_bool_not_anything_truthy(write: Writer) -> None:
    # "no" from a config file would have validated, 0 would not have.
    for wrong in ("no", 0, None):
        with pytest.raises(ArgumentTypeError, match=rf"^{write.__name__} validate must be a bool, got"):
            write([UserMessage("hi")], validate=wrong)


@pytest.mark.parametrize("key", ["²", "9" * 5000], ids=["superscript", "past int's digit limit"])
@pytest.mark.parametrize(("write", "fmt"), [(to_openai, "openai"), (to_anthropic, "anthropic")])
def test_carried_part_positions_that_are_no_plain_number_are_ignored(write: Writer, fmt: str, key: str) -> None:
    # "²" is a digit to str.isdigit, but no int, and int() refuses 5,000 digits: not positions we wrote.
    message = UserMessage("a", metadata={fmt: {"parts": {key: {"x": 1}}, "part_of": {key: "0"}}})
    assert "x" not in str(write([message]))

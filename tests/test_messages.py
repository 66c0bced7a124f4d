"""Msg and its role-pinned subclasses: construction, reading helpers, copies and immutability."""

from __future__ import annotations

import copy
import gc
import datetime
import enum
import pickle
import re
import uuid
import weakref
from typing import Any

import attrs
import pytest
from strategies import MESSAGE_CLASSES

from agentscope_py import (
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    ChatUsage,
    ContentBlock,
    DataBlock,
    FrozenFieldError,
    GenerateReason,
    ImageBlock,
    MessageMetadataKeys,
    MissingStructuredDataError,
    Msg,
    MsgRole,
    RoleContentError,
    SystemMessage,
    TextBlock,
    TextBlockDeltaEvent,
    ThinkingBlock,
    ToolResultBlock,
    ToolCallState,
    ToolResultMessage,
    ToolUseBlock,
    URLSource,
    UserBlock,
    UserMessage,
)
from agentscope_py._frozen import MAX_STORED_DEPTH
from agentscope_py._serializable import MAX_BLOCK_DEPTH

ROLE_CLASSES = list(MESSAGE_CLASSES.items())
CALL_1 = ToolUseBlock("call_1", "get_weather", {"city": "Paris"})
CALL_2 = ToolUseBlock("call_2", "get_time", {"tz": "CET"})
TURN = AssistantMessage(ThinkingBlock("hm"), TextBlock("a"), CALL_1, TextBlock(""), CALL_2, TextBlock("b"))


def _pinned(cls: type[Msg[Any]], *content: str | ContentBlock, **fields: Any) -> Msg[Any]:
    return cls(*content, **fields)


# -- construction ------------------------------------------------------------------


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_each_subclass_pins_its_role(role: MsgRole, cls: type[Msg[Any]]) -> None:
    msg = _pinned(cls, "hi")
    assert msg.role is role
    assert type(msg) is cls and isinstance(msg, Msg)


def test_strings_become_text_blocks_and_blocks_stay() -> None:
    image = ImageBlock(URLSource("https://example.com/x.png"))
    expected = (TextBlock("a"), image, TextBlock("b"))
    assert UserMessage("a", image, "b").content == expected
    assert UserMessage(["a", image, "b"]).content == expected
    assert UserMessage(("a", image), "b").content == expected
    assert UserMessage(TextBlock("a")).content == (TextBlock("a"),)
    assert UserMessage().content == ()


def test_no_content_is_given_as_none_of_it_not_as_none() -> None:
    # What the refusal of None as the whole content says to do (tests/test_bad_input.py).
    assert UserMessage().content == UserMessage("x").with_content([]).content == UserMessage.builder().content().build().content == ()


def test_every_field_is_taken_from_the_constructor() -> None:
    usage = ChatUsage(3, 4)
    msg = AssistantMessage(
        "x", name="Friday", id="m1", metadata={"k": [1]}, timestamp="2025-01-01 12:00:00.000", usage=usage
    )
    assert (msg.id, msg.name, msg.role, msg.content) == ("m1", "Friday", MsgRole.ASSISTANT, (TextBlock("x"),))
    assert (msg.metadata, msg.timestamp, msg.usage) == ({"k": [1]}, "2025-01-01 12:00:00.000", usage)


def test_id_and_timestamp_are_generated_when_not_given() -> None:
    first, second = UserMessage("a"), UserMessage("a")
    assert first.id and second.id and first.id != second.id
    assert first.timestamp and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}", first.timestamp)
    assert first != second  # different ids


def test_plain_msg_defaults_to_user_and_takes_any_role() -> None:
    assert Msg("hi").role is MsgRole.USER
    assert Msg("hi", role=MsgRole.TOOL).role is MsgRole.TOOL
    assert Msg("hi", role=None).role is None


def test_generate_reason_goes_into_metadata_by_name() -> None:
    caller = {"k": 1}
    msg = AssistantMessage("x", metadata=caller, generate_reason=GenerateReason.TOOL_CALLS)
    assert msg.metadata == {"k": 1, "agentscope_generate_reason": "TOOL_CALLS"}
    assert msg.get_generate_reason() is GenerateReason.TOOL_CALLS
    assert caller == {"k": 1}


def test_none_metadata_values_are_dropped() -> None:
    msg = UserMessage("x", metadata={"gone": None, "kept": 0, "nested": {"inner": None}})
    assert msg.metadata == {"kept": 0, "nested": {"inner": None}}
    assert UserMessage("x", metadata=None).metadata == {}
    # Also from a mapping stored elsewhere, read-only already (a tool input keeps its nulls).
    stored = ToolUseBlock("c", "f", {"gone": None, "kept": 1}).input
    assert UserMessage("x", metadata=stored).metadata == {"kept": 1}
    assert UserMessage("x", metadata=msg.metadata).metadata is msg.metadata  # nothing to drop: taken as it is


def test_tool_result_message_of() -> None:
    msg = ToolResultMessage.of("call_1", "get_weather", "sunny")
    assert msg.content == (ToolResultBlock("call_1", "get_weather", [TextBlock("sunny")]),)
    assert msg.role is MsgRole.TOOL and type(msg) is ToolResultMessage


# -- immutability and value semantics -------------------------------------------------


@pytest.mark.parametrize("field", ["id", "name", "role", "content", "metadata", "timestamp", "usage"])
def test_messages_are_frozen(field: str) -> None:
    msg = UserMessage("x", name="a")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(msg, field, None)
    assert msg.name == "a"


@pytest.mark.parametrize(
    ("value", "field", "how"),
    [
        (UserMessage("x", name="ann"), "name", r"copy\.replace\(msg, name=\.\.\.\) \(msg\.__replace__ before Python 3\.13\), or with_content / with_metadata"),
        (TextBlock("x"), "text", r"attrs\.evolve\(obj, text=\.\.\.\)"),
        (TextBlockDeltaEvent("r", "text", "x"), "delta", r"attrs\.evolve\(obj, delta=\.\.\.\)"),
        (URLSource("u"), "url", r"attrs\.evolve\(obj, url=\.\.\.\)"),
        (ChatUsage(1, 2), "input_tokens", r"attrs\.evolve\(obj, input_tokens=\.\.\.\)"),
    ],
    ids=["message", "block", "event", "source", "usage"],
)
def test_a_field_change_is_refused_with_an_error_of_the_package_saying_what_to_do(value: object, field: str, how: str) -> None:
    name = type(value).__name__
    with pytest.raises(FrozenFieldError, match=rf"^{name} is immutable: its '{field}' cannot be set; make a changed copy with {how}$") as caught:
        setattr(value, field, None)
    # Still attrs' own error, an AttributeError, as code written for frozen attrs classes expects.
    assert {attrs.exceptions.FrozenInstanceError, AttributeError, AgentScopeError} <= set(type(caught.value).__mro__)
    with pytest.raises(FrozenFieldError, match=rf"^{name} is immutable: its '{field}' cannot be deleted"):
        delattr(value, field)
    assert getattr(value, field) is not None
    # A name that is no field gets no advice no copy could follow.
    with pytest.raises(FrozenFieldError, match=rf"^{name} is immutable, and has no field 'nmae'; its fields are "):
        setattr(value, "nmae", None)


def test_a_role_classs_role_is_refused_as_fixed_by_its_class() -> None:
    with pytest.raises(FrozenFieldError, match=r"its 'role' cannot be set; its class fixes it: build a message of another role with Msg\.builder_for_role\(role\)$"):
        UserMessage("x").role = MsgRole.SYSTEM  # type: ignore[misc]


def test_message_metadata_is_read_only() -> None:
    msg = UserMessage("x", metadata={"k": {"inner": [1]}})
    with pytest.raises(TypeError, match="read-only"):
        msg.metadata["k"] = 2  # type: ignore[index]
    with pytest.raises(TypeError, match="read-only"):
        msg.metadata["k"]["inner"] = 2
    assert isinstance(msg.content, tuple)


def test_the_callers_later_mutations_change_nothing() -> None:
    metadata: dict[str, Any] = {"k": {"inner": [1, {"deep": "v"}]}, "flat": 1, "pair": ({"x": 1}, [2])}
    content: list[str | TextBlock] = ["a", TextBlock("b")]
    msg = UserMessage(content, metadata=metadata)
    metadata["flat"] = 2
    metadata["k"]["inner"][1]["deep"] = "changed"
    metadata["k"]["inner"].append(2)
    metadata["pair"][0]["x"] = 2  # a tuple is immutable, the dict inside it is not
    metadata["pair"][1].append(3)
    content.append("c")
    content.clear()
    # The tuple is stored as the JSON array it is written as, so the message equals itself read back.
    assert msg.metadata == {"k": {"inner": [1, {"deep": "v"}]}, "flat": 1, "pair": [{"x": 1}, [2]]}
    assert msg.content == (TextBlock("a"), TextBlock("b"))
    assert Msg.from_json(msg.to_json()) == msg


def test_messages_holding_lists_are_hashable_and_equal_to_themselves_read_back() -> None:
    metadata: dict[str, Any] = {"tags": ["a", "b"], "nested": {"points": [[1, 2], [3, 4]]}, "pair": (1, 2)}
    fields: dict[str, Any] = {"id": "m1", "timestamp": "2025-01-01 12:00:00.000", "metadata": metadata}
    msg = AssistantMessage(ToolUseBlock("c", "n", {"ids": [1, 2]}), **fields)
    assert hash(msg) == hash(AssistantMessage(ToolUseBlock("c", "n", {"ids": [1, 2]}), **fields))
    found: dict[Msg[Any], str] = {msg: "found"}
    assert found[Msg.from_json(msg.to_json())] == "found"
    with pytest.raises(TypeError, match="read-only"):
        msg.metadata["tags"].append("c")
    assert msg.metadata["tags"] == ["a", "b"]


def test_a_plain_msg_equals_its_role_class_with_the_same_fields() -> None:
    # The class is a static view of the role: what Msg.builder() builds equals itself read back from JSON.
    built = Msg.builder().role(MsgRole.ASSISTANT).content(CALL_1).usage(ChatUsage(1, 2)).build()
    read = Msg.from_json(built.to_json())
    assert type(read) is AssistantMessage and type(built) is Msg
    assert read == built and built == read and not read != built
    assert hash(read) == hash(built) and len({read, built}) == 1
    fields: dict[str, Any] = {"id": built.id, "timestamp": built.timestamp, "usage": ChatUsage(1, 2)}
    assert AssistantMessage(CALL_1, **fields) == built
    # Any field, the role included, still tells them apart.
    assert ToolResultMessage(CALL_1, **fields) != built
    assert AssistantMessage(CALL_1, **{**fields, "name": "x"}) != built
    assert AssistantMessage(CALL_1, **{**fields, "usage": None}) != built
    same: dict[str, Any] = {"id": built.id, "timestamp": built.timestamp}
    assert Msg(CALL_1, role=None, **same) != Msg(CALL_1, role=MsgRole.TOOL, **same)
    assert built != built.to_dict() and built.__eq__("text") is NotImplemented
    # A subclass adding fields compares with its own class only, as attrs makes it (else equality
    # would not be transitive: two such messages differing only in the new field would equal one base).

    @attrs.frozen(init=False)
    class Tagged(AssistantMessage):
        tag: str = ""

    tagged = Tagged(CALL_1, **fields)
    object.__setattr__(tagged, "tag", "x")
    assert tagged != built and built != tagged and tagged == tagged


def test_patterns_match_messages_by_field_name_only() -> None:
    message = UserMessage("hi", name="alice")
    match message:
        case UserMessage(name="alice", content=[TextBlock(text)]):
            assert text == "hi"
        case _:
            pytest.fail("keyword patterns should match")
    # A positional pattern would bind the first field, the id, where the constructor takes content.
    with pytest.raises(TypeError, match="accepts 0 positional sub-patterns"):
        match message:
            case UserMessage(_):  # type: ignore[misc]
                pass  # type: ignore[unreachable]


def test_replace_makes_a_checked_copy_of_the_same_class() -> None:
    # copy.replace(msg, ...) calls this on Python 3.13+.
    msg = UserMessage("hi", name="ann", id="m1", timestamp="2025-01-01 12:00:00.000")
    renamed = msg.__replace__(name="bob", content=["hello", TextBlock("there")])
    assert type(renamed) is UserMessage
    assert (renamed.name, renamed.id, renamed.content) == ("bob", "m1", (TextBlock("hello"), TextBlock("there")))
    assert msg.name == "ann" and msg.__replace__() == msg
    plain = Msg("note", role=MsgRole.USER, id="m2")
    with pytest.raises(RoleContentError, match="SYSTEM"):
        plain.__replace__(role=MsgRole.SYSTEM, content=[CALL_1])
    # Refused as the builder's role() refuses it, and as mypy does: a TypeError.
    fixed = r"^UserMessage role is fixed to USER, got <MsgRole.ASSISTANT: 'ASSISTANT'> \(MsgRole\); use Msg.builder_for_role"
    with pytest.raises(ArgumentTypeError, match=fixed):
        msg.__replace__(role=MsgRole.ASSISTANT)  # type: ignore[arg-type]  # refused by mypy too
    with pytest.raises(TypeError, match="unexpected keyword argument 'text'"):
        msg.__replace__(text="x")  # type: ignore[call-arg]
    with pytest.raises(ArgumentTypeError, match="name"):
        msg.__replace__(name=3)  # type: ignore[arg-type]
    # A role that is no MsgRole member is refused as the constructor refuses it, not stored (its rules
    # would go unchecked, and writing the message would fail later).
    with pytest.raises(ArgumentTypeError, match=r"^Msg\.role must be a MsgRole member, got 'SYSTEM' \(str\); use MsgRole\.SYSTEM$"):
        plain.__replace__(role="SYSTEM", content=[CALL_1])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.role must be a MsgRole member, got 3 \(int\)$"):
        msg.__replace__(role=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [UserMessage, AssistantMessage, SystemMessage, ToolResultMessage])
def test_a_role_pinned_constructor_is_named_after_its_class_in_argument_errors(cls: type[Msg[Any]]) -> None:
    # The constructor is shared through a private base class, whose name would mean nothing to a user.
    with pytest.raises(TypeError, match=rf"^{cls.__name__}\.__init__\(\) got an unexpected keyword argument 'role'$"):
        cls("hi", role=MsgRole.USER)  # typed as a Msg here, which takes a role
    assert cls.__init__.__qualname__ == f"{cls.__name__}.__init__"
    assert cls("hi", name="ann").get_text_content() == "hi"


def test_a_subclass_keeps_its_own_constructor_and_its_subclasses_inherit_it() -> None:
    class Greeting(UserMessage):
        __slots__ = ()

        def __init__(self, who: str) -> None:
            super().__init__(f"hello {who}")

    class LoudGreeting(Greeting):
        __slots__ = ()

    class Note(UserMessage):
        __slots__ = ()

    assert Greeting("ann").get_text_content() == LoudGreeting("ann").get_text_content() == "hello ann"
    with pytest.raises(TypeError, match=r"\.Note\.__init__\(\) got an unexpected keyword argument 'role'$"):
        Note("hi", role=MsgRole.USER)  # type: ignore[call-arg]


def test_messages_compare_by_value() -> None:
    fields: dict[str, Any] = {"id": "m1", "timestamp": "2025-01-01 12:00:00.000", "metadata": {"k": 1}}
    assert UserMessage("x", **fields) == UserMessage("x", **fields)
    assert hash(UserMessage("x", **fields)) == hash(UserMessage("x", **fields))
    assert UserMessage("x", **fields) != UserMessage("y", **fields)
    assert UserMessage("x", **fields) != UserMessage("x", name="n", **fields)


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_messages_survive_pickle_copy_and_deepcopy(role: MsgRole, cls: type[Msg[Any]]) -> None:
    msg = _pinned(cls, "x", name="n", metadata={"k": {"v": [1]}}, usage=ChatUsage(1, 2))
    for clone in (pickle.loads(pickle.dumps(msg)), copy.copy(msg), copy.deepcopy(msg)):
        assert clone == msg and type(clone) is cls
        with pytest.raises(TypeError, match="read-only"):
            clone.metadata["k"]["v"] = 2


def test_a_value_as_deep_as_a_message_stores_prints_and_copies() -> None:
    deep: Any = "leaf"
    for level in range(MAX_STORED_DEPTH):  # as deep as a message stores a value
        deep = {"k": deep} if level % 2 else [deep]
    msg = UserMessage("x", metadata={"k": deep})
    assert repr(msg).count("[") == (MAX_STORED_DEPTH + 1) // 2
    clone = copy.deepcopy(msg)
    # What a message holds cannot change, so a deep copy shares it, as for a tuple of strings.
    assert clone == msg and clone.metadata is msg.metadata


def test_a_message_of_tool_results_nested_as_deep_as_it_may_store_copies_as_itself() -> None:
    # Copied block by block, 150 nested results took deepcopy past Python's recursion limit; the
    # message, like every block and event, cannot change, so a copy of any kind is the message itself.
    result = ToolResultBlock.text("leaf")
    for _ in range((MAX_BLOCK_DEPTH - 1) // 2 - 1):  # each result two levels: as deep as a block may be
        result = ToolResultBlock("c", "f", [result])
    with pytest.raises(ArgumentValueError, match="ToolResultBlock.output is nested too deeply"):
        ToolResultBlock("c", "f", [result])
    msg = AssistantMessage(ToolUseBlock("c", "f", {}), result)
    assert copy.deepcopy(msg) is msg and copy.copy(msg) is msg
    assert copy.deepcopy([msg, result])[1] is result  # inside other values too
    for value in (ChatUsage(1, 2), URLSource("https://example.com/a.png"), TextBlockDeltaEvent("r", "text", "x")):
        assert copy.deepcopy(value) is value and copy.copy(value) is value


def test_repr_shows_class_and_fields() -> None:
    msg = SystemMessage("be brief", id="m1", timestamp="2025-01-01 12:00:00.000")
    assert repr(msg) == (
        "SystemMessage(id='m1', name=None, role=<MsgRole.SYSTEM: 'SYSTEM'>, content=(TextBlock(text='be brief'),), "
        "metadata={}, timestamp='2025-01-01 12:00:00.000', usage=None)"
    )


# -- reading helpers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ([], ""),
        (["only"], "only"),
        (["", "Normal text"], "\nNormal text"),
        (["a", ""], "a\n"),
        (["", ""], "\n"),
        ([ThinkingBlock("not text"), CALL_1], ""),
    ],
)
def test_get_text_content_joins_every_text_block(content: list[str | ContentBlock], text: str) -> None:
    assert AssistantMessage(content).get_text_content() == text


def test_get_text_content_skips_other_blocks() -> None:
    assert TURN.get_text_content() == "a\n\nb"


def test_get_content_blocks() -> None:
    assert TURN.get_content_blocks(ContentBlock) == list(TURN.content)
    assert TURN.get_content_blocks(ToolUseBlock) == [CALL_1, CALL_2]
    assert TURN.get_content_blocks(TextBlock) == [TextBlock("a"), TextBlock(""), TextBlock("b")]
    assert TURN.get_content_blocks(DataBlock) == []


@pytest.mark.parametrize("method", ["get_content_blocks", "get_first_content_block", "has_content_blocks"])
@pytest.mark.parametrize("message", [TURN, AssistantMessage()])  # refused also when there is nothing to look at
def test_the_block_lookups_need_a_block_class(method: str, message: Msg[Any]) -> None:
    lookup = getattr(message, method)
    needs = rf"{method} needs a block class such as TextBlock \(or a tuple of them\), got"
    with pytest.raises(ArgumentTypeError, match=rf"{needs} 'TextBlock' \(str\)"):
        lookup("TextBlock")
    # A class that is no block would only ever find nothing: refused too, as is a union holding one.
    with pytest.raises(ArgumentTypeError, match=rf"{needs} the class str, which is no block"):
        lookup(str)
    for not_blocks in [(TextBlock, str), TextBlock | URLSource, ()]:
        with pytest.raises(ArgumentTypeError, match=needs):
            lookup(not_blocks)
    for blocks in [(TextBlock, ToolUseBlock), TextBlock | ToolUseBlock, UserBlock, ContentBlock]:
        lookup(blocks)
    # mypy takes a class or a tuple of them, as isinstance does; a union works at run time.
    assert TURN.get_content_blocks(UserBlock) == TURN.get_content_blocks(TextBlock)  # type: ignore[call-overload]

    class BadHash:
        def __hash__(self) -> int:
            raise ValueError("no hash")

    with pytest.raises(ArgumentTypeError, match=needs):  # whatever it is, what it is not is said
        lookup(BadHash())
    # A block class made at run time is a block class too, and nothing keeps it alive afterwards.
    made = type("MadeNow", (TextBlock,), {"__slots__": ()})
    assert lookup(made) in ([], None, False)
    remembered = weakref.ref(made)
    del made
    gc.collect()
    assert remembered() is None


def test_get_first_content_block() -> None:
    assert TURN.get_first_content_block() == ThinkingBlock("hm")
    assert TURN.get_first_content_block(ToolUseBlock) is CALL_1
    assert TURN.get_first_content_block(ImageBlock) is None
    assert AssistantMessage().get_first_content_block() is None


def test_has_content_blocks() -> None:
    assert TURN.has_content_blocks(ToolUseBlock)
    assert TURN.has_content_blocks(ContentBlock)
    assert not TURN.has_content_blocks(ToolResultBlock)
    assert not AssistantMessage().has_content_blocks(ContentBlock)


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({}, GenerateReason.MODEL_STOP),
        ({"agentscope_generate_reason": "TOOL_CALLS"}, GenerateReason.TOOL_CALLS),
        ({"agentscope_generate_reason": "MAX_ITERATIONS"}, GenerateReason.MAX_ITERATIONS),
        ({"agentscope_generate_reason": "tool_calls"}, GenerateReason.MODEL_STOP),  # case-sensitive, as Java
        ({"agentscope_generate_reason": "NO_SUCH_REASON"}, GenerateReason.MODEL_STOP),
        ({"agentscope_generate_reason": 3}, GenerateReason.MODEL_STOP),
    ],
)
def test_get_generate_reason(metadata: dict[str, Any], reason: GenerateReason) -> None:
    assert AssistantMessage("x", metadata=metadata).get_generate_reason() is reason


@pytest.mark.parametrize(
    ("usage", "metadata", "expected"),
    [
        (None, {}, None),
        (ChatUsage(1, 2, 0, 0.5), {}, ChatUsage(1, 2, 0, 0.5)),
        (ChatUsage(1, 2), {"_chat_usage": ChatUsage(9, 9)}, ChatUsage(1, 2)),  # the field wins
        (None, {"_chat_usage": ChatUsage(9, 8, 7, 6.0)}, ChatUsage(9, 8, 7, 6.0)),
        (
            None,
            {"_chat_usage": {"inputTokens": 10, "outputTokens": 5, "cachedTokens": 2, "time": 1.5}},
            ChatUsage(10, 5, 2, 1.5),
        ),
        (None, {"_chat_usage": {"inputTokens": 10}}, ChatUsage(10, 0, 0, 0.0)),
        (None, {"_chat_usage": {"inputTokens": "10", "outputTokens": True, "time": 2}}, ChatUsage(0, 0, 0, 2.0)),
        (None, {"_chat_usage": "not a usage"}, None),
        # What no Java int or double holds counts as 0 too (it raised, or an OverflowError for the time).
        (
            None,
            {"_chat_usage": {"inputTokens": 3_000_000_000, "outputTokens": 5.9, "cachedTokens": -(2**31) - 1, "time": 10**400}},
            ChatUsage(0, 5, 0, 0.0),
        ),
        (None, {"_chat_usage": {"inputTokens": 2**31 - 1, "outputTokens": 1e300, "time": 10**300}}, ChatUsage(2**31 - 1, 0, 0, 1e300)),
    ],
)
def test_get_chat_usage(usage: ChatUsage | None, metadata: dict[str, Any], expected: ChatUsage | None) -> None:
    msg = AssistantMessage("x", usage=usage, metadata=metadata)
    assert msg.get_chat_usage() == expected
    # Reading caches nothing, unlike Java; a ChatUsage given is kept as the document it is written as.
    stored = {key: value.to_dict() if isinstance(value, ChatUsage) else value for key, value in metadata.items()}
    assert msg.metadata == stored
    assert Msg.from_json(msg.to_json()) == msg


def test_metadata_keeps_enums_and_wire_objects_as_the_json_they_are_written_as() -> None:
    usage = ChatUsage(3, 4)
    msg = UserMessage("x", metadata={"role": MsgRole.USER, "_chat_usage": usage, "states": [ToolCallState.PENDING]})
    assert msg.metadata == {"role": "USER", "_chat_usage": usage.to_dict(), "states": ["pending"]}
    assert msg.get_chat_usage() == usage
    assert Msg.from_json(msg.to_json()) == msg


@attrs.frozen
class _ScoredText(TextBlock):
    score: int = 0


class _Key(str, enum.Enum):
    TRACE = "trace_id"


class _Text(str):
    pass


def test_what_is_stored_is_plain_json() -> None:
    tags = ["a"]
    msg = UserMessage("x", metadata={_Key.TRACE: _Text("t1"), "n": {_Key.TRACE: True}, "tags": tags, "pair": (1, 2.5)})
    tags.append("b")  # the caller's list is not the message's
    assert msg.metadata == {"trace_id": "t1", "n": {"trace_id": True}, "tags": ["a"], "pair": [1, 2.5]}
    assert {type(key) for key in msg.metadata} == {str} and type(msg.metadata["trace_id"]) is str
    assert type(next(iter(msg.metadata["n"]))) is str
    assert hash(msg) == hash(copy.copy(msg)) and Msg.from_json(msg.to_json()) == msg
    decoded = ContentBlock.from_dict({"type": "tool_use", "id": "c", "name": "f", "input": {_Key.TRACE: 1}})
    assert isinstance(decoded, ToolUseBlock) and [type(key) for key in decoded.input] == [str]


def test_fields_store_the_plain_value_of_a_str_or_int_subclass() -> None:
    # As inside metadata: what a field holds is what it writes, with no attribute of the subclass.
    class Tokens(int):
        pass

    block = TextBlock(_Text("hi"))
    msg = AssistantMessage([block], id=_Key.TRACE, name=_Text("bot"), usage=ChatUsage(Tokens(3), Tokens(4)))
    assert type(block.text) is str and type(msg.id) is str and type(msg.name) is str
    assert msg.id == "trace_id"
    assert msg.usage is not None and type(msg.usage.input_tokens) is int and msg.usage.input_tokens == 3
    assert msg.to_dict()["id"] == "trace_id" and type(msg.to_dict()["id"]) is str


@pytest.mark.parametrize(
    ("store", "error", "message"),
    [
        (lambda: UserMessage("x", metadata={"when": [datetime.date(2025, 1, 2)]}), ArgumentTypeError,
         r"UserMessage.metadata\['when'\]\[0\] holds a value of type date, which has no JSON form; store str, int"),
        (lambda: UserMessage("x", metadata={"tags": {"a"}}), ArgumentTypeError, r"UserMessage.metadata\['tags'\] holds a value of type set"),
        (lambda: UserMessage("x", metadata={"k": uuid.uuid4()}), ArgumentTypeError, r"\['k'\] holds a value of type UUID, which has no JSON form"),
        (lambda: ToolUseBlock("c", "f", {"raw": bytearray(b"1")}), ArgumentTypeError, r"ToolUseBlock.input\['raw'\] holds a value of type bytearray"),
        (lambda: UserMessage("x", metadata={"score": float("nan")}), ArgumentValueError, r"UserMessage.metadata\['score'\] is nan"),
        (lambda: AssistantMessage("x", metadata={"s": [{"v": float("inf")}]}), ArgumentValueError, r"AssistantMessage.metadata\['s'\]\[0\]\['v'\] is inf"),
        (lambda: UserMessage("x", metadata={"a": {1: "one"}}), ArgumentTypeError, r"UserMessage.metadata\['a'\] has the key 1; JSON keys are strings"),
        (lambda: UserMessage("x", metadata={"k": [_ScoredText("a", 1)]}), ArgumentTypeError,
         r"UserMessage.metadata\['k'\]\[0\] holds a value of type _ScoredText, which cannot be written \(cannot write _ScoredText"),
    ],
)
def test_values_without_a_json_form_are_refused_when_stored(store: Any, error: type[Exception], message: str) -> None:
    # A stored set or datetime could change under the message, and could not be hashed or written.
    with pytest.raises(error, match=message):
        store()


def test_structured_data_is_a_deep_copy() -> None:
    msg = AssistantMessage("x", metadata={MessageMetadataKeys.STRUCTURED_OUTPUT: {"city": "Paris", "days": [1, 2]}})
    assert msg.has_structured_data()
    data = msg.get_structured_data()
    assert data == {"city": "Paris", "days": [1, 2]}
    assert type(data) is dict and type(data["days"]) is list  # plain values, the caller's to change
    data["days"].append(3)
    data["city"] = "Lyon"
    assert msg.get_structured_data() == {"city": "Paris", "days": [1, 2]}


def test_missing_structured_data_is_a_lookup_error_that_says_what_to_do() -> None:
    msg = AssistantMessage("x", metadata={"other": 1})
    assert not msg.has_structured_data()
    with pytest.raises(MissingStructuredDataError, match=r"'_structured_output'.*has_structured_data\(\)"):
        msg.get_structured_data()
    assert issubclass(MissingStructuredDataError, LookupError)


# -- copies ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_with_generate_reason_returns_a_changed_copy_of_the_same_class(role: MsgRole, cls: type[Msg[Any]]) -> None:
    original = _pinned(cls, "x", name="n", metadata={"k": 1}, usage=ChatUsage(1, 1))
    copied = original.with_generate_reason(GenerateReason.INTERRUPTED)
    assert type(copied) is cls
    assert copied.metadata == {"k": 1, "agentscope_generate_reason": "INTERRUPTED"}
    assert copied.get_generate_reason() is GenerateReason.INTERRUPTED
    assert (copied.id, copied.name, copied.content, copied.timestamp, copied.usage) == (
        original.id, original.name, original.content, original.timestamp, original.usage,
    )
    assert original.metadata == {"k": 1}
    assert original.get_generate_reason() is GenerateReason.MODEL_STOP


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_with_content_returns_a_changed_copy_of_the_same_class(role: MsgRole, cls: type[Msg[Any]]) -> None:
    original = _pinned(cls, "x", name="n", metadata={"k": 1})
    copied = original.with_content([TextBlock("y"), TextBlock("z")])
    assert type(copied) is cls
    assert copied.content == (TextBlock("y"), TextBlock("z"))
    assert (copied.id, copied.name, copied.metadata, copied.timestamp) == (
        original.id, original.name, original.metadata, original.timestamp,
    )
    assert original.content == (TextBlock("x"),)


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_with_metadata_replaces_the_metadata(role: MsgRole, cls: type[Msg[Any]]) -> None:
    original = _pinned(cls, "x", metadata={"k": 1}, generate_reason=GenerateReason.TOOL_CALLS)
    copied = original.with_metadata({"new": 2, "dropped": None})
    assert type(copied) is cls
    assert copied.metadata == {"new": 2}
    assert (copied.id, copied.content, copied.timestamp) == (original.id, original.content, original.timestamp)
    assert original.metadata == {"k": 1, "agentscope_generate_reason": "TOOL_CALLS"}
    assert original.with_metadata(None).metadata == {}


def test_with_content_takes_strings_and_copies_the_callers_list() -> None:
    content: list[str | TextBlock] = ["a", TextBlock("b")]
    copied = SystemMessage("x").with_content(content)
    content.clear()
    assert copied.content == (TextBlock("a"), TextBlock("b"))


@pytest.mark.parametrize("lone", ["hey", TextBlock("hey")], ids=["str", "block"])
def test_with_content_takes_a_lone_item_as_one_block(lone: Any) -> None:
    # Not as an iterable of characters: untyped callers do pass a bare string.
    assert UserMessage("x").with_content(lone).content == (TextBlock("hey"),)


def test_with_metadata_copies_the_callers_dict() -> None:
    metadata: dict[str, Any] = {"k": [1]}
    copied = UserMessage("x").with_metadata(metadata)
    metadata["k"].append(2)
    assert copied.metadata == {"k": [1]}


# -- constants --------------------------------------------------------------------------------


def test_metadata_key_constants() -> None:
    assert Msg.METADATA_GENERATE_REASON == "agentscope_generate_reason"
    assert Msg.METADATA_CONFIRM_RESULTS == "agentscope_confirm_results"
    assert Msg.METADATA_CONFIRM_REQUEST_REPLY_ID == "agentscope_confirm_request_reply_id"
    assert Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID == "agentscope_external_execution_request_reply_id"
    assert Msg.METADATA_SYNTHETIC == "agentscope_synthetic"
    assert Msg.METADATA_REMINDER_KIND == "agentscope_reminder_kind"
    assert MessageMetadataKeys.BYPASS_MULTIAGENT_HISTORY_MERGE == "_bypass_multiagent_history_merge"
    assert MessageMetadataKeys.STRUCTURED_OUTPUT_REMINDER == "_structured_output_reminder"
    assert MessageMetadataKeys.STRUCTURED_OUTPUT_REMINDER_TYPE == "_structured_output_reminder_type"
    assert MessageMetadataKeys.CHAT_USAGE == "_chat_usage"
    assert MessageMetadataKeys.STRUCTURED_OUTPUT == "_structured_output"
    assert MessageMetadataKeys.CACHE_CONTROL == "_cache_control"


def test_a_bool_in_a_usage_map_counts_as_nothing() -> None:
    msg = UserMessage("x", metadata={"_chat_usage": {"time": True, "inputTokens": True}})
    assert msg.get_chat_usage() == ChatUsage(0, 0, 0, 0.0)


def test_with_generate_reason_replaces_an_earlier_reason() -> None:
    msg = AssistantMessage("x", generate_reason=GenerateReason.TOOL_CALLS)
    assert msg.with_generate_reason(GenerateReason.INTERRUPTED).get_generate_reason() is GenerateReason.INTERRUPTED


def test_messages_differing_only_in_timestamp_are_unequal() -> None:
    first = UserMessage("x", id="m1", timestamp="2025-01-01 12:00:00.000")
    second = UserMessage("x", id="m1", timestamp="2025-01-01 12:00:00.001")
    assert first != second and not first == second

"""The message builders: setters, reuse, roles and the tool-result helpers (api.md §4.3)."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import pytest
from strategies import MESSAGE_CLASSES

from agentscope_py import (
    ArgumentValueError,
    ArgumentTypeError,
    AssistantMessage,
    ChatUsage,
    GenerateReason,
    Msg,
    MsgRole,
    RoleContentError,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)
from agentscope_py.builders import MessageBuilder, MsgBuilder, RoleMessageBuilder, ToolResultMessageBuilder

ROLE_CLASSES = list(MESSAGE_CLASSES.items())
TIMESTAMP = "2025-01-01 12:00:00.000"


def test_every_setter_sets_its_field() -> None:
    usage = ChatUsage(1, 2)
    msg = (
        AssistantMessage.builder()
        .id("m1")
        .name("Friday")
        .content(TextBlock("a"), ToolUseBlock("c", "n"))
        .metadata({"k": 1})
        .timestamp(TIMESTAMP)
        .usage(usage)
        .build()
    )
    assert msg == AssistantMessage(
        TextBlock("a"), ToolUseBlock("c", "n"), id="m1", name="Friday", metadata={"k": 1}, timestamp=TIMESTAMP,
        usage=usage,
    )


def test_the_builder_of_a_subclass_builds_that_subclass() -> None:
    class Said(UserMessage):
        __slots__ = ()

    class Answered(ToolResultMessage):
        __slots__ = ()

    assert type(Said.builder().text_content("hi").build()) is Said
    answered = Answered.builder().result("call_1", "search", "found").build()
    assert type(answered) is Answered and [block.id for block in answered.get_content_blocks(ToolResultBlock)] == ["call_1"]
    assert type(ToolResultMessageBuilder().build()) is ToolResultMessage


def test_an_empty_builder_builds_an_empty_message() -> None:
    msg = UserMessage.builder().build()
    assert (msg.name, msg.content, msg.metadata, msg.usage) == (None, (), {}, None)
    assert msg.id and msg.timestamp


def test_content_replaces_and_takes_blocks_or_one_iterable() -> None:
    builder = UserMessage.builder().content(TextBlock("old"))
    assert builder.content(TextBlock("a"), TextBlock("b")).build().content == (TextBlock("a"), TextBlock("b"))
    assert builder.content([TextBlock("c")]).build().content == (TextBlock("c"),)
    assert builder.content().build().content == ()
    # strings are text blocks, as in the constructor
    assert builder.content("d", ["e", TextBlock("f")]).build().content == (TextBlock("d"), TextBlock("e"), TextBlock("f"))


def test_text_content_replaces_the_content_with_one_text_block() -> None:
    builder = UserMessage.builder().content(TextBlock("a"), TextBlock("b")).text_content("only")
    assert builder.build().content == (TextBlock("only"),)


def test_id_none_means_no_id_and_timestamp_none_means_now() -> None:
    msg = UserMessage.builder().id(None).timestamp(None).build()
    assert msg.id is None
    assert msg.timestamp is not None and msg.timestamp != TIMESTAMP


# -- reuse ---------------------------------------------------------------------------------------


def test_each_build_makes_a_new_message_with_a_fresh_id() -> None:
    # Our documented choice; Java gives every build() of one builder the same id.
    builder = UserMessage.builder().text_content("hi")
    first, second = builder.build(), builder.build()
    assert first is not second
    assert first.id != second.id
    assert first.content == second.content


def test_a_set_id_and_timestamp_are_reused() -> None:
    builder = UserMessage.builder().id("m1").timestamp(TIMESTAMP).text_content("hi")
    assert builder.build() == builder.build()


def test_changing_the_builder_after_build_leaves_built_messages_alone() -> None:
    builder = UserMessage.builder().id("m1").text_content("first").metadata({"k": 1})
    first = builder.build()
    builder.text_content("second").metadata({"k": 2}).name("later")
    assert (first.content, first.metadata, first.name) == ((TextBlock("first"),), {"k": 1}, None)
    assert builder.build().get_text_content() == "second"


def _pickled(value: Any) -> Any:
    return pickle.loads(pickle.dumps(value))


@pytest.mark.parametrize("copy_of", [copy.copy, copy.deepcopy, _pickled], ids=["copy", "deepcopy", "pickle"])
def test_a_copied_builder_goes_on_alone_from_where_its_template_was(copy_of: Any) -> None:
    template = ToolResultMessage.builder().name("tools").result("c1", "f", "one")
    fork = copy_of(template).result("c2", "f", "two").name("fork")
    assert [block.id for block in template.build().get_content_blocks(ToolResultBlock)] == ["c1"]
    assert template.build().name == "tools"
    built = fork.build()
    called = [block.id for block in built.get_content_blocks(ToolResultBlock)]
    assert (called, built.name, type(fork)) == (["c1", "c2"], "fork", ToolResultMessageBuilder)
    assert built.id != fork.build().id  # still generated at each build, in the copy too


@pytest.mark.parametrize("copy_of", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
def test_a_copied_block_builder_goes_on_alone(copy_of: Any) -> None:
    template = ToolUseBlock.builder().id("c1").name("search").input({"q": "a"})
    fork = copy_of(template).input({"q": "b"})
    assert template.build() == ToolUseBlock("c1", "search", {"q": "a"})
    assert fork.build() == ToolUseBlock("c1", "search", {"q": "b"})


def test_each_build_validates_again() -> None:
    builder = Msg.builder().content(ToolUseBlock("c", "n"))
    assert builder.role(MsgRole.ASSISTANT).build().role is MsgRole.ASSISTANT
    for _ in range(2):
        with pytest.raises(RoleContentError, match=r"^USER message .* got ToolUseBlock at content\[0\]$"):
            builder.role(MsgRole.USER).build()


def test_a_setter_refuses_a_wrong_type_where_it_is_given() -> None:
    builder = UserMessage.builder().id("u1")
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.id must be a str or None, got 5 \(int\)$"):
        builder.id(5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.name must be a str or None, got b'bob' \(bytes\)$"):
        builder.name(b"bob")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.timestamp must be a str, got 1\.5 \(float\)$"):
        builder.timestamp(1.5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.usage must be a ChatUsage or None, got \{"):
        builder.usage({"inputTokens": 1})  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage\.metadata keys must be str, got key 1 \(int\)$"):
        builder.metadata({1: "x"})  # type: ignore[dict-item]
    assert builder.build().id == "u1"  # the refused calls changed nothing


def test_metadata_that_contains_itself_is_refused_where_it_is_given() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    with pytest.raises(ArgumentValueError, match=r"^UserMessage\.metadata\['self'\] is nested too deeply to store"):
        UserMessage.builder().metadata(looped)


def test_builders_do_not_keep_the_callers_mappings() -> None:
    metadata: dict[str, Any] = {"k": [1]}
    builder = UserMessage.builder().metadata(metadata)
    metadata["added"] = True
    msg = builder.build()
    metadata["k"].append(2)
    assert msg.metadata == {"k": [1]}


# -- generate_reason --------------------------------------------------------------------------


def test_generate_reason_survives_a_later_metadata_call() -> None:
    caller = {"k": 1}
    msg = AssistantMessage.builder().generate_reason(GenerateReason.TOOL_CALLS).metadata(caller).build()
    assert msg.metadata == {"k": 1, "agentscope_generate_reason": "TOOL_CALLS"}
    assert caller == {"k": 1}


def test_generate_reason_after_metadata_is_merged_without_touching_the_callers_dict() -> None:
    caller = {"k": 1}
    msg = AssistantMessage.builder().metadata(caller).generate_reason(GenerateReason.TOOL_SUSPENDED).build()
    assert msg.get_generate_reason() is GenerateReason.TOOL_SUSPENDED
    assert msg.metadata == {"k": 1, "agentscope_generate_reason": "TOOL_SUSPENDED"}
    assert caller == {"k": 1}


def test_generate_reason_wins_over_a_reason_in_the_metadata() -> None:
    msg = (
        AssistantMessage.builder()
        .metadata({"agentscope_generate_reason": "MODEL_STOP"})
        .generate_reason(GenerateReason.MAX_ITERATIONS)
        .build()
    )
    assert msg.get_generate_reason() is GenerateReason.MAX_ITERATIONS


def test_generate_reason_none_forgets_the_reason() -> None:
    msg = AssistantMessage.builder().generate_reason(GenerateReason.TOOL_CALLS).generate_reason(None).build()
    assert msg.metadata == {}


# -- roles -----------------------------------------------------------------------------------------


def test_msg_builder_defaults_to_user_and_builds_plain_msg() -> None:
    msg = Msg.builder().text_content("hi").build()
    assert type(msg) is Msg
    assert msg.role is MsgRole.USER


@pytest.mark.parametrize("role", [*MsgRole, None])
def test_msg_builder_role(role: MsgRole | None) -> None:
    msg = Msg.builder().role(role).build()
    assert type(msg) is Msg
    assert msg.role is role


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_builder_for_role_gives_the_pinned_builder(role: MsgRole, cls: type[Msg[Any]]) -> None:
    builder = Msg.builder_for_role(role)
    assert isinstance(builder, RoleMessageBuilder)
    msg = builder.text_content("hi").build()
    assert type(msg) is cls and msg.role is role


def test_builder_for_no_role_gives_the_plain_builder() -> None:
    builder = Msg.builder_for_role(None)
    assert type(builder) is MsgBuilder
    assert builder.build().role is MsgRole.USER


def test_builder_for_role_refuses_a_string() -> None:
    expected = r"role must be a MsgRole member, got 'USER' \(str\); use MsgRole\.USER"
    with pytest.raises(ArgumentTypeError, match=expected):
        Msg.builder_for_role("USER")  # type: ignore[call-overload]


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_pinned_builders_build_their_class(role: MsgRole, cls: type[Msg[Any]]) -> None:
    builder = cls.builder()
    assert isinstance(builder, MessageBuilder)
    assert type(builder.build()) is cls


def _set_role(builder: RoleMessageBuilder[Any, Any], role: MsgRole) -> None:
    builder.role(role)  # type: ignore[arg-type]  # mypy refuses it too: see tests/typing/fail


@pytest.mark.parametrize(
    ("role", "cls", "new_role"),
    [(role, cls, new_role) for role, cls in ROLE_CLASSES for new_role in [*MsgRole, None] if new_role is not role],
)
def test_pinned_builders_cannot_change_role(role: MsgRole, cls: type[Msg[Any]], new_role: MsgRole | None) -> None:
    builder: MessageBuilder[Any, Any] = cls.builder()
    assert isinstance(builder, RoleMessageBuilder)
    with pytest.raises(ArgumentTypeError, match=rf"^{cls.__name__} role is fixed to {role.value}, got .*; use Msg.builder\(\)"):
        _set_role(builder, new_role)  # type: ignore[arg-type]


@pytest.mark.parametrize(("role", "cls"), ROLE_CLASSES)
def test_code_for_any_message_class_may_set_a_pinned_builders_own_role(role: MsgRole, cls: type[Msg[Any]]) -> None:
    # Typed as any message class's builder, the call type-checks: the pinned class takes its own role.
    def make(message_class: type[Msg[Any]], message_role: MsgRole) -> Msg[Any]:
        return message_class.builder().role(message_role).build()

    made = make(cls, role)
    assert type(made) is cls and made.role is role


def test_builder_repr_shows_what_was_set() -> None:
    builder = SystemMessage.builder().name("sys").text_content("be brief")
    assert repr(builder) == (
        "RoleMessageBuilder(msg_cls=SystemMessage, id=<generated>, name='sys', role=SYSTEM, "
        "content=(TextBlock(text='be brief'),), metadata={}, timestamp=<generated>, usage=None, generate_reason=None)"
    )
    assistant = AssistantMessage.builder().usage(ChatUsage(1, 2)).generate_reason(GenerateReason.TOOL_CALLS).timestamp("t")
    assert "timestamp='t', usage=ChatUsage(input_tokens=1, output_tokens=2, cached_tokens=0, time=0.0), " \
        "generate_reason=TOOL_CALLS)" in repr(assistant)
    huge = UserMessage.builder().id("i" * 10_000).metadata({"k": "v" * 100_000}).content(TextBlock("t" * 100_000))
    assert len(repr(huge)) < 500 and "(100,000 characters)" in repr(huge)


# -- ToolResultMessage builder -------------------------------------------------------------


def test_tool_result_builder_result_appends_both_forms() -> None:
    block = ToolResultBlock.text("first")
    msg = ToolResultMessage.builder().result(block).result("call_2", "get_time", "noon").build()
    assert type(msg) is ToolResultMessage
    assert msg.content == (block, ToolResultBlock("call_2", "get_time", TextBlock("noon")))


def test_tool_result_builder_results_replaces() -> None:
    builder = ToolResultMessage.builder().result("call_1", "a", "x")
    replaced = [ToolResultBlock.text("y"), ToolResultBlock.error("z")]
    assert builder.results(*replaced).build().content == tuple(replaced)
    assert builder.results(replaced[:1]).build().content == (replaced[0],)
    assert builder.results().build().content == ()
    # Results only, as result() takes (mypy refuses both); content(...) takes any block.
    for not_results, got in [
        ((TextBlock("x"),), r"TextBlock\(text='x'\) \(TextBlock\) at \[0\]"),
        (("text",), r"'text' \(str\) at \[0\]"),  # as given, not the TextBlock content(...) would make of it
        (([replaced[0], TextBlock("x")],), r"TextBlock\(text='x'\) \(TextBlock\) at \[1\]"),
    ]:
        with pytest.raises(ArgumentTypeError, match=rf"results\(\) takes ToolResultBlocks, got {got}; content\(\.\.\.\) takes any block"):
            builder.results(*not_results)  # type: ignore[arg-type]
    assert builder.build().content == ()  # a refused call changed nothing
    # A set has no order, and a dict's items would be its keys: both refused, as content(...) refuses them.
    with pytest.raises(ArgumentTypeError, match=r"results\(\) takes ToolResultBlocks, got .*a set has no order: give a list"):
        builder.results({replaced[0]})  # mypy takes it: a set is an Iterable
    with pytest.raises(ArgumentTypeError, match=r"results\(\) takes ToolResultBlocks, got \{'a': .* \(dict\)$"):
        builder.results({"a": replaced[0]})  # type: ignore[dict-item]
    with pytest.raises(ArgumentTypeError, match=r"got ToolResultBlockBuilder\(.*\) at \[0\]; that is a builder: call \.build\(\) on it$"):
        builder.results(ToolResultBlock.builder())  # type: ignore[arg-type]


def test_tool_result_builder_appends_after_content() -> None:
    msg = ToolResultMessage.builder().content(TextBlock("note")).result("c", "n", "r").build()
    assert msg.content == (TextBlock("note"), ToolResultBlock("c", "n", TextBlock("r")))


@pytest.mark.parametrize(
    ("args", "got"),
    [
        ((), "nothing"),
        (("call_1",), "'call_1' (str)"),
        ((TextBlock("x"),), "TextBlock(text='x') (TextBlock)"),
        ((ToolResultBlock.builder(),), "ToolResultBlockBuilder(id=None, name=None) (ToolResultBlockBuilder); that is a builder: call .build() on it"),
    ],
)
def test_tool_result_builder_result_refuses_other_arguments(args: tuple[Any, ...], got: str) -> None:
    builder: Any = ToolResultMessage.builder()
    usage = re.escape("result() takes a ToolResultBlock or (tool_call_id, tool_name, result_text)")
    with pytest.raises(ArgumentTypeError, match=usage):
        builder.result(*args)
    with pytest.raises(ArgumentTypeError, match=rf"got {re.escape(got)}$"):
        builder.result(*args)


def test_tool_result_builder_is_the_role_builder_of_tool() -> None:
    assert isinstance(ToolResultMessage.builder(), ToolResultMessageBuilder)
    assert isinstance(Msg.builder_for_role(MsgRole.TOOL), ToolResultMessageBuilder)


def test_generate_reason_none_clears_a_reason_set_before() -> None:
    builder = AssistantMessage.builder().generate_reason(GenerateReason.TOOL_CALLS)
    assert builder.generate_reason(None).build().metadata == {}

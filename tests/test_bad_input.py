"""Wrong input is refused at once, with an error that names the argument and what it expects."""

from __future__ import annotations

import datetime
import re
import sys
import copy
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import agentscope_py
from agentscope_py import (
    AssistantMessage,
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    AudioBlock,
    Base64Source,
    ChatUsage,
    ConfirmResult,
    DataBlock,
    GenerateReason,
    DecodeError,
    HintBlock,
    ImageBlock,
    MissingStructuredDataError,
    Msg,
    MsgRole,
    RequireExternalExecutionEvent,
    RoleContentError,
    StreamError,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    SystemMessage,
    ToolResultMessage,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserConfirmResultEvent,
    UserMessage,
    VideoBlock,
)
from agentscope_py import errors
from agentscope_py._frozen import MAX_STORED_DEPTH
from agentscope_py._shown import SHOWN, shown

SOURCE = URLSource("https://example.com/a.png")


def _of(value: object) -> Any:
    """``value``, hidden from mypy: the call it goes into is wrong on purpose."""
    return value


# What each kind of argument must be, as the errors word it.
STR = "must be a str"
OPTIONAL_STR = "must be a str or None"
INT = "must be an int"
NUMBER = "must be a number"
MAPPING = "must be a mapping with str keys"
KEYS = "keys must be str"
MEDIA_SOURCE = "must be a URLSource or Base64Source"
CONTENT_ITEM = "must be a str or a content block instance"
# None as the whole content (Java reads a null list as empty), which no item is.
CONTENT_NONE = ("must be blocks or strings, or one iterable of them", "; pass no content, or [], for none")
OUTPUT = "must be a content block or an iterable of them"


def _enum_hint(enum_name: str, value: str) -> str:
    return f"; use {enum_name}.{value.upper()}"


# (argument, what it must be, the bad value as the message shows it, the call, anything after).
# Mypy refuses each call too, so ``_of`` hides the bad values: these tests are about untyped callers.
CASES: list[tuple[str, str, str, Callable[[], object], str]] = [
    # str fields
    ("TextBlock.text", STR, "3 (int)", lambda: TextBlock(_of(3)), ""),
    ("TextBlock.text", STR, "None (NoneType)", lambda: TextBlock(_of(None)), ""),
    ("ThinkingBlock.thinking", STR, "b't' (bytes)", lambda: ThinkingBlock(_of(b"t")), ""),
    ("HintBlock.id", OPTIONAL_STR, "1 (int)", lambda: HintBlock(_of(1), "h"), ""),
    ("DataBlock.id", OPTIONAL_STR, "5 (int)", lambda: DataBlock(SOURCE, _of(5)), ""),
    ("URLSource.url", STR, "None (NoneType)", lambda: URLSource(_of(None)), ""),
    ("Base64Source.data", STR, "b'AA==' (bytes)", lambda: Base64Source("image/png", _of(b"AA==")), ""),
    # sources
    ("DataBlock.source", MEDIA_SOURCE, "'https://x' (str)", lambda: DataBlock(_of("https://x")), ""),
    ("ImageBlock.source", MEDIA_SOURCE, "{'url': 'u'} (dict)", lambda: ImageBlock(_of({"url": "u"})), ""),
    ("AudioBlock.source", MEDIA_SOURCE, "TextBlock(text='a') (TextBlock)", lambda: AudioBlock(_of(TextBlock("a"))), ""),
    ("VideoBlock.source", MEDIA_SOURCE, "'v.mp4' (str)", lambda: VideoBlock(_of("v.mp4")), ""),
    # numbers: a bool is not an int here
    ("ImageBlock.min_pixels", INT, "True (bool)", lambda: ImageBlock(SOURCE, _of(True)), ""),
    ("VideoBlock.max_frames", INT, "1.5 (float)", lambda: VideoBlock(max_frames=_of(1.5)), ""),
    ("VideoBlock.fps", NUMBER, "'2' (str)", lambda: VideoBlock(fps=_of("2")), ""),
    ("ChatUsage.input_tokens", INT, "True (bool)", lambda: ChatUsage(_of(True)), ""),
    ("ChatUsage.time", NUMBER, "False (bool)", lambda: ChatUsage(time=_of(False)), ""),
    # enums
    (
        "ToolUseBlock.state", "must be a ToolCallState member", "'pending' (str)",
        lambda: ToolUseBlock("c", "n", state=_of("pending")), _enum_hint("ToolCallState", "pending"),
    ),
    (
        "ToolResultBlock.state", "must be a ToolResultState member",
        "<ToolCallState.FINISHED: 'finished'> (ToolCallState)",
        lambda: ToolResultBlock("c", "n", state=_of(ToolCallState.FINISHED)), "",
    ),
    ("Msg.role", "must be a MsgRole member", "3 (int)", lambda: Msg("x", role=_of(3)), ""),
    (
        "UserMessage generate_reason", "must be a GenerateReason member", "'MODEL_STOP' (str)",
        lambda: UserMessage("x", generate_reason=_of("MODEL_STOP")), _enum_hint("GenerateReason", "MODEL_STOP"),
    ),
    # mappings
    ("ToolUseBlock.input", MAPPING, "[('a', 1)] (list)", lambda: ToolUseBlock("c", "n", _of([("a", 1)])), ""),
    ("ToolUseBlock.input", KEYS, "key 1 (int)", lambda: ToolUseBlock("c", "n", _of({1: "x"})), ""),
    (
        "ToolUseBlock.metadata", KEYS, "key ('a',) (tuple)",
        lambda: ToolUseBlock("c", "n", metadata=_of({("a",): 1})), "",
    ),
    ("ToolResultBlock.metadata", MAPPING, "'k' (str)", lambda: ToolResultBlock("c", "n", metadata=_of("k")), ""),
    ("ThinkingBlock.metadata", MAPPING, "[1] (list)", lambda: ThinkingBlock("t", _of([1])), ""),
    ("UserMessage.metadata", MAPPING, "'k' (str)", lambda: UserMessage("x", metadata=_of("k")), ""),
    ("UserMessage.metadata", KEYS, "key 2 (int)", lambda: UserMessage("x", metadata=_of({"a": 1, 2: 3})), ""),
    # content items
    (
        "UserMessage content[1]", CONTENT_ITEM, "the class ImageBlock itself (pass an instance)",
        lambda: UserMessage(TextBlock("a"), _of(ImageBlock)), "",
    ),
    ("UserMessage content[1]", CONTENT_ITEM, "3 (int)", lambda: UserMessage("a", _of(3)), ""),
    # an enum class iterates over its members: named as the class given, not as its members
    (
        "UserMessage content[0]", CONTENT_ITEM, "the class MsgRole itself (pass an instance)",
        lambda: UserMessage(_of(MsgRole)), "",
    ),
    (
        "ToolUseBlock.state", "must be a ToolCallState member", "the class ToolCallState itself (pass an instance)",
        lambda: ToolUseBlock.builder().state(_of(ToolCallState)).build(), "",
    ),
    ("UserMessage content[1]", CONTENT_ITEM, "None (NoneType)", lambda: UserMessage(["a", _of(None)]), ""),
    ("UserMessage content", CONTENT_NONE[0], "None", lambda: UserMessage(_of(None)), CONTENT_NONE[1]),
    # bytes of any container are one bad item, not a run of ints
    ("UserMessage content[0]", CONTENT_ITEM, "bytearray(b'hi') (bytearray)", lambda: UserMessage(_of(bytearray(b"hi"))), ""),
    ("ToolResultBlock.output", OUTPUT, "bytearray(b'hi') (bytearray)", lambda: ToolResultBlock("c", "n", _of(bytearray(b"hi"))), ""),
    (
        "UserMessage content[1]", CONTENT_ITEM, "{'type': 'text'} (dict)",
        lambda: UserMessage(["a", _of({"type": "text"})]), "; a mapping is no block: ContentBlock.from_dict reads a block's JSON",
    ),
    (  # a set's order changes from run to run, so would the message's
        "SystemMessage content[0]", CONTENT_ITEM, "{'a'} (set)",
        lambda: SystemMessage(_of({"a"})), "; a set has no order, and content does: give a list",
    ),
    (
        "ToolResultBlock.output", OUTPUT, "frozenset({TextBlock(text='a')}) (frozenset)",
        lambda: ToolResultBlock("c", "n", _of(frozenset({TextBlock("a")}))), "; a set has no order, and content does: give a list",
    ),
    (
        "ToolResultBlock.output[0]", "must be a content block", "3 (int)",
        lambda: ToolResultBlock("c", "n", [_of(3)]), "",
    ),
    (
        "ToolResultBlock.output", OUTPUT, "the class TextBlock itself (pass an instance)",
        lambda: ToolResultBlock("c", "n", _of(TextBlock)), "",
    ),
    (  # not blocks: no word of ContentBlock.from_dict for a mapping
        "ConfirmResult.rules", "must be an iterable of PermissionRule", "{'x': 1} (dict)",
        lambda: ConfirmResult(True, None, rules=_of({"x": 1})), "",
    ),
    (
        "UserConfirmResultEvent.confirm_results", "must be an iterable of ConfirmResult", "frozenset() (frozenset)",
        lambda: UserConfirmResultEvent("r", _of(frozenset())), "; a set has no order: give a list",
    ),
    ("ToolResultBlock.output", OUTPUT, "'text' (str)", lambda: ToolResultBlock("c", "n", _of("text")), ": wrap text in a TextBlock"),
    # a builder given without its build() call, and a role given as content (Java's order)
    (
        "UserMessage content[0]", CONTENT_ITEM, "TextBlockBuilder(text='hi') (TextBlockBuilder)",
        lambda: UserMessage(_of(TextBlock.builder().text("hi"))), "; that is a builder: call .build() on it",
    ),
    (
        "ToolResultBlock.output[0]", "must be a content block", "TextBlockBuilder(text='x') (TextBlockBuilder)",
        lambda: ToolResultBlock("c", "n", [_of(TextBlock.builder().text("x"))]), "; that is a builder: call .build() on it",
    ),
    (
        "ToolResultBlock.output", OUTPUT, "TextBlockBuilder(text='x') (TextBlockBuilder)",
        lambda: ToolResultBlock("c", "n", _of(TextBlock.builder().text("x"))), "; that is a builder: call .build() on it",
    ),
    (
        "tool_calls[0]", "must be a ToolUseBlock", "ToolUseBlockBuilder(id='c', name=None) (ToolUseBlockBuilder)",
        lambda: RequireExternalExecutionEvent("r", [_of(ToolUseBlock.builder().id("c"))]), "; that is a builder: call .build() on it",
    ),
    (
        "DataBlock.source", "must be a URLSource or Base64Source", "URLSourceBuilder(url='x') (URLSourceBuilder)",
        lambda: DataBlock(_of(URLSource.builder().url("x"))), "; that is a builder: call .build() on it",
    ),
    (
        "AssistantMessage.usage", "must be a ChatUsage or None", "ChatUsageBuilder() (ChatUsageBuilder)",
        lambda: AssistantMessage.builder().usage(_of(ChatUsage.builder())), "; that is a builder: call .build() on it",
    ),
    (
        "Msg content[1]", CONTENT_ITEM, "<MsgRole.ASSISTANT: 'ASSISTANT'> (MsgRole)",
        lambda: Msg("hi", _of(MsgRole.ASSISTANT)),
        "; a role is not content: Msg takes it as role=..., and each role has its class (AssistantMessage(...))",
    ),
    # message fields
    ("UserMessage.name", OPTIONAL_STR, "3 (int)", lambda: UserMessage("x", name=_of(3)), ""),
    ("UserMessage.id", OPTIONAL_STR, "3 (int)", lambda: UserMessage("x", id=_of(3)), ""),
    (
        "UserMessage.timestamp", OPTIONAL_STR, "datetime.datetime(2020, 1, 1, 0, 0) (datetime)",
        lambda: UserMessage("x", timestamp=_of(datetime.datetime(2020, 1, 1))), "",
    ),
    ("UserMessage.usage", "must be a ChatUsage or None", "{} (dict)", lambda: UserMessage("x", usage=_of({})), ""),
    # builders and copies
    ("UserMessage content", CONTENT_NONE[0], "None", lambda: UserMessage.builder().content(_of(None)), CONTENT_NONE[1]),
    ("UserMessage content", CONTENT_NONE[0], "None", lambda: UserMessage("x").with_content(_of(None)), CONTENT_NONE[1]),
    ("UserMessage.metadata", MAPPING, "[1] (list)", lambda: UserMessage.builder().metadata(_of([1])), ""),
    ("UserMessage.id", OPTIONAL_STR, "3 (int)", lambda: UserMessage.builder().id(_of(3)).build(), ""),
    ("UserMessage text_content", STR, "None (NoneType)", lambda: UserMessage.builder().text_content(_of(None)), ""),
    ("result_text", STR, "3 (int)", lambda: ToolResultMessage.builder().result("c", "n", _of(3)), ""),
    ("result_text", STR, "42 (int)", lambda: ToolResultMessage.of("c", "n", _of(42)), ""),
    ("TextBlock.text", STR, "3 (int)", lambda: TextBlock.builder().text(_of(3)).build(), ""),
    ("ChatUsage.input_tokens", INT, "1.5 (float)", lambda: ChatUsage.builder().input_tokens(_of(1.5)).build(), ""),
    ("UserMessage content[0]", CONTENT_ITEM, "3 (int)", lambda: UserMessage("x").with_content([_of(3)]), ""),
    ("UserMessage.metadata", MAPPING, "[1] (list)", lambda: UserMessage("x").with_metadata(_of([1])), ""),
    (
        "UserMessage generate_reason", "must be a GenerateReason member", "'X' (str)",
        lambda: UserMessage("x").with_generate_reason(_of("X")),
        "; the members are " + ", ".join(reason.name for reason in GenerateReason),
    ),
]


@pytest.mark.parametrize(("arg", "must", "got", "make", "hint"), CASES, ids=[case[0] for case in CASES])
def test_wrong_types_name_the_argument_and_what_it_expects(
    arg: str, must: str, got: str, make: Callable[[], object], hint: str
) -> None:
    with pytest.raises(ArgumentTypeError) as info:
        make()
    assert str(info.value) == f"{arg} {must}, got {got}{hint}"


def test_long_bad_values_are_shortened_in_the_message() -> None:
    with pytest.raises(ArgumentTypeError) as info:
        TextBlock(_of(["x" * 100]))
    assert str(info.value) == f"TextBlock.text must be a str, got ['{'x' * 48}'…(100 ... (list)"
    # An int too long for Python to print is given by its size, not a ValueError from repr.
    with pytest.raises(ArgumentTypeError, match=r"UserMessage\.name must be a str or None, got <an int of 16,610 bits> \(int\)"):
        UserMessage("hi", name=10**5000)  # type: ignore[arg-type]


def test_a_hostile_document_is_not_echoed_whole_into_the_error() -> None:
    # A decoder's errors end up in logs: a megabyte tag, enum value or key shows its start and length.
    huge = "A" * 1_000_000
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: agentscope_py.ContentBlock.from_dict({"type": huge}), "unknown ContentBlock type 'AAAA"),
        (lambda: agentscope_py.AgentEvent.from_dict({"type": huge}), "unknown AgentEvent type 'AAAA"),
        (lambda: Msg.from_dict({"role": huge}), "unknown Msg role 'AAAA"),
        (lambda: agentscope_py.ToolUseBlock.from_dict({"type": "tool_use", "state": huge}), "expected one of"),
        (lambda: Msg.from_dict({"role": "USER", "metadata": {huge: float("nan")}}), 'metadata["AAAA'),
    ]
    for decode, start in cases:
        with pytest.raises(DecodeError) as info:
            decode()
        assert start in str(info.value) and "…(1,000,000 characters)" in str(info.value)
        assert len(str(info.value)) < 1000  # the known values listed, and the start of the bad one
    with pytest.raises(DecodeError, match=r"^metadata: object keys must be strings, got number <an int of 16,610 bits>$"):
        Msg.from_dict({"role": "USER", "metadata": {10**5000: 1}})


def _nested(depth: int, make: Callable[[Any], Any]) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = make(value)
    return value


@pytest.mark.parametrize(
    ("lookup", "message"),
    [
        (lambda: MsgRole("user"), "'user' is not a value of MsgRole; values are case-sensitive: use MsgRole.USER (value 'USER')"),
        (lambda: ToolCallState("PENDING"), "use ToolCallState.PENDING (value 'pending')"),
        (lambda: agentscope_py.ToolResultState("Success"), "use ToolResultState.SUCCESS (value 'success')"),
        (lambda: agentscope_py.GenerateReason("stop"), "the values are 'MODEL_STOP', 'TOOL_CALLS'"),
        (lambda: MsgRole(None), "None is not a value of MsgRole; the values are 'USER', 'ASSISTANT', 'SYSTEM', 'TOOL'"),
        (lambda: agentscope_py.AgentEventType("agent_start"), "use AgentEventType.AGENT_START"),
        (lambda: agentscope_py.AgentEventType("RUN_STARTED"), "legacy name of AGENT_START: use AgentEventType.from_value('RUN_STARTED')"),
        (lambda: agentscope_py.AgentEventType(["a"]), "['a'] is not a value of AgentEventType"),
        (lambda: agentscope_py.PermissionBehavior("allowed"), "the values are 'allow', 'deny', 'ask', 'passthrough'"),
        (lambda: agentscope_py.AnomalyKind("LATE_EVENT"), "use AnomalyKind.LATE_EVENT"),
    ],
)
def test_an_enum_looked_up_by_a_wrong_value_names_the_member_meant(lookup: Callable[[], object], message: str) -> None:
    # Still a ValueError, as any enum raises, so code catching that goes on working.
    with pytest.raises(ArgumentValueError, match=re.escape(message)):
        lookup()
    assert issubclass(ArgumentValueError, ValueError)
    assert agentscope_py.PermissionBehavior("ALLOW") is agentscope_py.PermissionBehavior.ALLOW  # case-insensitive, as in Java


@pytest.mark.parametrize("make", [lambda inner: {"a": inner}, lambda inner: [inner]], ids=["objects", "arrays"])
def test_values_nested_past_the_recursion_limit_are_refused_when_stored_and_written(make: Callable[[Any], Any]) -> None:
    too_deep = _nested(sys.getrecursionlimit() + 100, make)
    with pytest.raises(ArgumentValueError, match=r"UserMessage.metadata\['k'\] is nested too deeply to store"):
        UserMessage("x", metadata={"k": too_deep})
    with pytest.raises(ArgumentValueError, match=r"ToolUseBlock.input\['k'\] is nested too deeply"):
        ToolUseBlock("c", "n", {"k": too_deep})
    stored = UserMessage("x", metadata={"k": _nested(200, make)})
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)  # as if the message were written from deep inside a call stack
    try:
        for write in (stored.to_json, stored.to_dict):
            with pytest.raises(ArgumentValueError, match="cannot write UserMessage as JSON: it is nested too deeply"):
                write()
    finally:
        sys.setrecursionlimit(limit)


def test_a_failed_builder_call_leaves_the_builder_as_it_was() -> None:
    builder = UserMessage.builder().id("m1").content(TextBlock("ok"))
    with pytest.raises(ArgumentTypeError, match=r"^UserMessage content\[1\] must be a str or a content block instance, got 3 \(int\)$"):
        builder.content(TextBlock("a"), _of(3))
    assert builder.build().content == (TextBlock("ok"),)


def test_a_refused_copy_leaves_the_original_alone() -> None:
    original = UserMessage("x", metadata={"k": 1})
    with pytest.raises(RoleContentError):
        original.with_content([_of(ToolUseBlock("c", "n"))])
    assert original.content == (TextBlock("x"),) and original.metadata == {"k": 1}


# -- the exception hierarchy (api.md §6) -----------------------------------------------------


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (ArgumentTypeError, TypeError),
        (ArgumentValueError, ValueError),
        (RoleContentError, ValueError),
        (DecodeError, ValueError),
        (MissingStructuredDataError, LookupError),
        (UnsupportedContentError, ValueError),
        (StreamError, Exception),
    ],
)
def test_every_error_is_an_agentscope_error_and_the_builtin_users_expect(
    error: type[Exception], builtin: type[Exception]
) -> None:
    assert issubclass(error, AgentScopeError)
    assert issubclass(error, builtin)
    assert getattr(agentscope_py, error.__name__) is error is getattr(errors, error.__name__)


def test_decode_error_keeps_its_path() -> None:
    error = DecodeError("expected a str", "content[2].source.media_type")
    assert str(error) == "content[2].source.media_type: expected a str"
    assert (error.path, error.reason) == ("content[2].source.media_type", "expected a str")
    assert str(DecodeError("not JSON")) == "not JSON" and DecodeError("not JSON").path == ""


def _wrong_types() -> list[tuple[str, Callable[[], object]]]:
    from agentscope_py import AssistantMessage, DecodeLimits, MessageAssembler, events_from_message
    from agentscope_py.sse import encode_events

    return [
        ("chunk_size must be an int", lambda: events_from_message(AssistantMessage("x"), chunk_size=_of("4"))),
        ("retry must be an int", lambda: list(encode_events([], retry=_of("5")))),
        ("DecodeLimits.max_depth must be an int", lambda: DecodeLimits(max_depth=_of("5"))),
        ("DecodeLimits.max_bytes must be an int", lambda: DecodeLimits(max_bytes=_of(1.5))),
        ("strict must be a bool", lambda: MessageAssembler(strict=_of("yes"))),
    ]


@pytest.mark.parametrize(("message", "call"), _wrong_types())
def test_a_wrong_type_is_a_type_error_wherever_it_is_given(message: str, call: Callable[[], object]) -> None:
    with pytest.raises(ArgumentTypeError, match=message):
        call()


@pytest.mark.parametrize(
    ("given", "hint"),
    [("user", "; use MsgRole.USER"), ("Assistant", "; use MsgRole.ASSISTANT"), ("robot", "; the members are USER, ASSISTANT, SYSTEM, TOOL")],
)
def test_a_string_for_an_enum_gets_the_member_it_names(given: str, hint: str) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Msg("hi", role=_of(given))
    assert str(caught.value).endswith(hint)


@pytest.mark.parametrize("make", [lambda inner: {"a": inner}, lambda inner: [inner]], ids=["objects", "arrays"])
def test_a_stored_value_nests_at_most_the_stored_depth_so_that_it_hashes(make: Callable[[Any], Any]) -> None:
    deepest = UserMessage("x", metadata={"k": _nested(MAX_STORED_DEPTH, make)})
    assert hash(deepest) == hash(copy.copy(deepest))
    with pytest.raises(ArgumentValueError, match=rf"metadata\['k'\] is nested too deeply to store \(deeper than {MAX_STORED_DEPTH} levels"):
        UserMessage("x", metadata={"k": _nested(MAX_STORED_DEPTH + 1, make)})


@pytest.mark.parametrize("make", [lambda inner: {"a": inner}, lambda inner: [inner]], ids=["objects", "arrays"])
def test_a_stored_value_put_inside_another_counts_its_levels(make: Callable[[Any], Any]) -> None:
    # Shared as it is, not copied: it was within the limit where it was stored, and went past it
    # inside the next (each turn keeping the last one's metadata under a key of its own).
    stored = UserMessage("x", metadata={"k": _nested(MAX_STORED_DEPTH - 1, make)}).metadata["k"]
    assert hash(UserMessage("x", metadata={"k": make(stored)}))  # as deep as a value is stored
    with pytest.raises(ArgumentValueError, match=rf"metadata\['k'\] is nested too deeply to store \(deeper than {MAX_STORED_DEPTH} levels"):
        UserMessage("x", metadata={"k": make(make(stored))})
    with pytest.raises(ArgumentValueError, match=r"ToolUseBlock.input\['k'\] is nested too deeply"):
        ToolUseBlock("c", "n", {"k": make(make(stored))})
    turn = UserMessage("x")
    for _ in range(MAX_STORED_DEPTH):
        turn = UserMessage("x", metadata={"parent": turn.metadata})
    with pytest.raises(ArgumentValueError, match=r"metadata\['parent'\] is nested too deeply"):
        UserMessage("x", metadata={"parent": turn.metadata})


def test_a_value_is_shown_whole_up_to_twice_the_shown_length() -> None:
    at_limit = "x" * (2 * SHOWN)
    assert shown(at_limit) == repr(at_limit)
    longer = "x" * (2 * SHOWN + 1)
    assert shown(longer) == f"{longer[:SHOWN]!r}…({len(longer):,} characters)"


def test_a_small_message_or_block_is_shown_as_its_repr() -> None:
    reply = AssistantMessage("hi", ToolUseBlock("c1", "search", {"q": [1, 2]}), metadata={"k": "v"})
    assert shown(reply) == repr(reply)
    assert shown(reply.content) == repr(reply.content)
    assert shown((TextBlock("a"),)) == "(TextBlock(text='a'),)"
    picture = UserMessage(DataBlock(Base64Source("image/png", "A" * 500)))
    assert shown(picture) == repr(picture)  # the data elided as its repr elides it


def test_an_error_about_a_huge_message_never_renders_it_whole() -> None:
    huge = UserMessage("x" * 5_000_000, metadata={"notes": ["y" * 1_000_000] * 20})
    assert len(shown(huge)) < 3_000
    tracemalloc.start()
    try:
        with pytest.raises(ArgumentTypeError, match=r"got UserMessage\(id='[^']*', na\.\.\. \(UserMessage\)$"):
            ToolResultMessage(huge)  # type: ignore[arg-type]  # a message where blocks go
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # a repr would have taken 25 MB and more

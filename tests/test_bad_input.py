"""Wrong input is refused at once, with an error that names the argument and what it expects."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest

import agentscope_py
from agentscope_py import (
    AgentScopeError,
    ArgumentTypeError,
    ArgumentValueError,
    AudioBlock,
    ChatUsage,
    DataBlock,
    DecodeError,
    HintBlock,
    ImageBlock,
    MissingStructuredDataError,
    Msg,
    RoleContentError,
    Source,
    StreamError,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolUseBlock,
    UnsupportedContentError,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py import errors

SOURCE = URLSource("https://example.com/a.png")
SOURCE_EXPECTED = "must be a URLSource or Base64Source"

# (what is wrong, how it is written, the whole error message).  Mypy refuses each of these
# calls too, so ``_of`` hides the bad values' types: these tests are about untyped callers.
def _cases() -> list[tuple[str, Callable[[], object], str]]:
    return [
        # text and other str fields
        ("non-str text", lambda: TextBlock(_of(3)), "TextBlock.text must be a str, got 3 (int)"),
        ("None text", lambda: TextBlock(_of(None)), "TextBlock.text must be a str, got None (NoneType)"),
        ("bytes thinking", lambda: ThinkingBlock(_of(b"t")), "ThinkingBlock.thinking must be a str, got b't' (bytes)"),
        ("int hint", lambda: HintBlock(_of(1), "h"), "HintBlock.id must be a str or None, got 1 (int)"),
        ("int data id", lambda: DataBlock(SOURCE, _of(5)), "DataBlock.id must be a str or None, got 5 (int)"),
        ("int url", lambda: URLSource(_of(7)), "URLSource.url must be a str, got 7 (int)"),
        ("None url", lambda: URLSource(_of(None)), "URLSource.url must be a str, got None (NoneType)"),
        # sources
        ("str source", lambda: DataBlock(_of("https://x")), f"DataBlock.source {SOURCE_EXPECTED}, got 'https://x' (str)"),
        ("dict source", lambda: ImageBlock(_of({"url": "u"})), f"ImageBlock.source {SOURCE_EXPECTED}, got {{'url': 'u'}} (dict)"),
        ("base Source", lambda: AudioBlock(Source()), f"AudioBlock.source {SOURCE_EXPECTED}, got Source() (Source)"),
        ("str video source", lambda: VideoBlock(_of("v.mp4")), f"VideoBlock.source {SOURCE_EXPECTED}, got 'v.mp4' (str)"),
        # numbers
        ("bool for int", lambda: ImageBlock(SOURCE, _of(True)), "ImageBlock.min_pixels must be an int, got True (bool)"),
        ("float for int", lambda: VideoBlock(max_frames=_of(1.5)), "VideoBlock.max_frames must be an int, got 1.5 (float)"),
        ("str for float", lambda: VideoBlock(fps=_of("2")), "VideoBlock.fps must be a number, got '2' (str)"),
        ("bool tokens", lambda: ChatUsage(_of(True)), "ChatUsage.input_tokens must be an int, got True (bool)"),
        ("bool time", lambda: ChatUsage(time=_of(False)), "ChatUsage.time must be a number, got False (bool)"),
        # enums
        (
            "str state",
            lambda: ToolUseBlock("c", "n", state=_of("pending")),
            "ToolUseBlock.state must be a ToolCallState member, got 'pending' (str); "
            "to convert a string use ToolCallState('pending') or ToolCallState[...]",
        ),
        (
            "other enum state",
            lambda: ToolResultBlock("c", "n", state=_of(ToolCallState.FINISHED)),
            "ToolResultBlock.state must be a ToolResultState member, got <ToolCallState.FINISHED: 'finished'> (ToolCallState)",
        ),
        ("int role", lambda: Msg("x", role=_of(3)), "Msg.role must be a MsgRole member, got 3 (int)"),
        # mappings
        ("list input", lambda: ToolUseBlock("c", "n", _of([("a", 1)])), "ToolUseBlock.input must be a mapping with str keys, got [('a', 1)] (list)"),
        ("int input key", lambda: ToolUseBlock("c", "n", _of({1: "x"})), "ToolUseBlock.input keys must be str, got key 1 (int)"),
        ("tuple metadata key", lambda: ToolUseBlock("c", "n", metadata=_of({("a",): 1})), "ToolUseBlock.metadata keys must be str, got key ('a',) (tuple)"),
        ("list thinking metadata", lambda: ThinkingBlock("t", _of([1])), "ThinkingBlock.metadata must be a mapping with str keys, got [1] (list)"),
        ("str message metadata", lambda: UserMessage("x", metadata=_of("k")), "UserMessage.metadata must be a mapping with str keys, got 'k' (str)"),
        ("int message metadata key", lambda: UserMessage("x", metadata=_of({"a": 1, 2: 3})), "UserMessage.metadata keys must be str, got key 2 (int)"),
        # content items
        (
            "class for a block",
            lambda: UserMessage(TextBlock("a"), _of(ImageBlock)),
            "UserMessage content[1] must be a str or a content block instance, "
            "got the class ImageBlock (pass an instance, e.g. ImageBlock(...))",
        ),
        ("int among content", lambda: UserMessage("a", _of(3)), "UserMessage content[1] must be a str or a content block instance, got 3 (int)"),
        ("None among content", lambda: UserMessage(["a", _of(None)]), "UserMessage content[1] must be a str or a content block instance, got None (NoneType)"),
        ("None content", lambda: UserMessage(_of(None)), "UserMessage content[0] must be a str or a content block instance, got None (NoneType)"),
        ("dict among content", lambda: UserMessage(["a", _of({"type": "text"})]), "UserMessage content[1] must be a str or a content block instance, got {'type': 'text'} (dict)"),
        ("int in output", lambda: ToolResultBlock("c", "n", [_of(3)]), "ToolResultBlock.output[0] must be a content block, got 3 (int)"),
        (
            "class as output",
            lambda: ToolResultBlock("c", "n", _of(TextBlock)),
            "ToolResultBlock.output must be a content block or an iterable of them, "
            "got the class TextBlock (pass an instance, e.g. TextBlock(...))",
        ),
        ("str as output", lambda: ToolResultBlock("c", "n", _of("text")), "ToolResultBlock.output must be a content block or an iterable of them, got 'text' (str)"),
        # message fields
        ("int name", lambda: UserMessage("x", name=_of(3)), "UserMessage.name must be a str or None, got 3 (int)"),
        ("int id", lambda: UserMessage("x", id=_of(3)), "UserMessage.id must be a str or None, got 3 (int)"),
        (
            "datetime timestamp",
            lambda: UserMessage("x", timestamp=_of(datetime.datetime(2020, 1, 1))),
            "UserMessage.timestamp must be a str or None, got datetime.datetime(2020, 1, 1, 0, 0) (datetime)",
        ),
        ("dict usage", lambda: UserMessage("x", usage=_of({})), "UserMessage.usage must be a ChatUsage or None, got {} (dict)"),
        (
            "str generate reason",
            lambda: UserMessage("x", generate_reason=_of("MODEL_STOP")),
            "UserMessage generate_reason must be a GenerateReason member, got 'MODEL_STOP' (str); "
            "to convert a string use GenerateReason('MODEL_STOP') or GenerateReason[...]",
        ),
        # builders and copies
        ("builder content None", lambda: UserMessage.builder().content(_of(None)), "UserMessage content[0] must be a str or a content block instance, got None (NoneType)"),
        ("builder metadata list", lambda: UserMessage.builder().metadata(_of([1])), "UserMessage.metadata must be a mapping with str keys, got [1] (list)"),
        ("builder id int", lambda: UserMessage.builder().id(_of(3)).build(), "UserMessage.id must be a str or None, got 3 (int)"),
        ("builder usage str", lambda: UserMessage.builder().usage(_of("x")).build(), "UserMessage.usage must be a ChatUsage or None, got 'x' (str)"),
        ("builder text None", lambda: UserMessage.builder().text_content(_of(None)), "UserMessage text_content must be a str, got None (NoneType)"),
        ("builder result text", lambda: ToolResultMessage.builder().result("c", "n", _of(3)), "result_text must be a str, got 3 (int)"),
        ("with_content int", lambda: UserMessage("x").with_content([_of(3)]), "UserMessage content[0] must be a str or a content block instance, got 3 (int)"),
        ("with_metadata list", lambda: UserMessage("x").with_metadata(_of([1])), "UserMessage.metadata must be a mapping with str keys, got [1] (list)"),
        ("with_generate_reason str", lambda: UserMessage("x").with_generate_reason(_of("X")), "UserMessage generate_reason must be a GenerateReason member, got 'X' (str); to convert a string use GenerateReason('X') or GenerateReason[...]"),
    ]


def _of(value: object) -> Any:
    """``value``, hidden from mypy: the call it goes into is wrong on purpose."""
    return value


CASES = _cases()


@pytest.mark.parametrize(("_what", "make", "message"), CASES, ids=[what for what, _, _ in CASES])
def test_wrong_types_name_the_argument_and_what_it_expects(
    _what: str, make: Callable[[], object], message: str
) -> None:
    with pytest.raises(ArgumentTypeError) as info:
        make()
    assert str(info.value) == message


def test_long_bad_values_are_shortened_in_the_message() -> None:
    with pytest.raises(ArgumentTypeError) as info:
        TextBlock(_of(["x" * 100]))
    assert str(info.value) == f"TextBlock.text must be a str, got ['{'x' * 55}... (list)"


def test_a_failed_builder_call_leaves_the_builder_as_it_was() -> None:
    builder = UserMessage.builder().id("m1").content(TextBlock("ok"))
    with pytest.raises(ArgumentTypeError):
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


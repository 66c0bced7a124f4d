"""Sources, ChatUsage and the message-level enums (api.md §1 and §2)."""

from __future__ import annotations

import enum
import pickle

import attrs
import pytest

from agentscope_py import (
    ArgumentValueError,
    Base64Source,
    ChatUsage,
    DataBlock,
    DecodeError,
    GenerateReason,
    Msg,
    MsgRole,
    Source,
    ToolCallState,
    ToolResultState,
    URLSource,
    UserMessage,
)

# -- enums -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("enum_cls", "members", "lower_case_values"),
    [
        (MsgRole, ["USER", "ASSISTANT", "SYSTEM", "TOOL"], False),
        (
            GenerateReason,
            [
                "MODEL_STOP",
                "TOOL_CALLS",
                "STRUCTURED_OUTPUT",
                "TOOL_SUSPENDED",
                "REASONING_STOP_REQUESTED",
                "ACTING_STOP_REQUESTED",
                "PERMISSION_ASKING",
                "MIDDLEWARE_STOP_REQUESTED",
                "ALL_TOOLS_DENIED",
                "INTERRUPTED",
                "MAX_ITERATIONS",
            ],
            False,
        ),
        (ToolCallState, ["PENDING", "ASKING", "ALLOWED", "SUBMITTED", "FINISHED"], True),
        (ToolResultState, ["SUCCESS", "ERROR", "INTERRUPTED", "DENIED", "RUNNING"], True),
    ],
)
def test_enum_members_order_and_values(
    enum_cls: type[enum.Enum], members: list[str], lower_case_values: bool
) -> None:
    assert issubclass(enum_cls, enum.Enum)
    assert [member.name for member in enum_cls] == members
    expected_values = [name.lower() if lower_case_values else name for name in members]
    assert [member.value for member in enum_cls] == expected_values
    for member in enum_cls:
        assert enum_cls(member.value) is member


# -- sources -------------------------------------------------------------------------


def test_url_source() -> None:
    source = URLSource("https://example.com/a.png")
    assert (source.url, source.mime_type) == ("https://example.com/a.png", None)
    assert URLSource("u", "image/png").mime_type == "image/png"
    assert URLSource.type == "url"
    assert isinstance(source, Source)


def test_base64_source() -> None:
    source = Base64Source("image/png", "iVBORw0KGgo=")
    assert (source.media_type, source.data) == ("image/png", "iVBORw0KGgo=")
    assert Base64Source.type == "base64"
    assert isinstance(source, Source)


@pytest.mark.parametrize("source", [URLSource("u", "image/png"), Base64Source("image/png", "AA==")])
def test_sources_are_frozen_values(source: Source) -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(source, attrs.fields(type(source))[0].name, "other")
    assert attrs.evolve(source) == source
    assert hash(attrs.evolve(source)) == hash(source)
    assert pickle.loads(pickle.dumps(source)) == source
    assert source != attrs.evolve(source, **{attrs.fields(type(source))[0].name: "other"})


def test_source_reprs() -> None:
    assert repr(URLSource("u")) == "URLSource(url='u', mime_type=None)"
    assert repr(Base64Source("image/png", "AA==")) == "Base64Source(media_type='image/png', data='AA==')"


def test_missing_required_source_fields_are_refused() -> None:
    with pytest.raises(TypeError, match=r"URLSource.__init__\(\) missing 1 required positional argument: 'url'"):
        URLSource()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"Base64Source.__init__\(\) missing 1 required positional argument: 'data'"):
        Base64Source("image/png")  # type: ignore[call-arg]


# -- ChatUsage -------------------------------------------------------------------------


def test_chat_usage_defaults_and_total() -> None:
    assert ChatUsage() == ChatUsage(0, 0, 0, 0.0)
    usage = ChatUsage(input_tokens=10, output_tokens=5, cached_tokens=3, time=1.5)
    assert usage.total_tokens == 15  # cached tokens are part of the input, not added again
    with pytest.raises(AttributeError):
        usage.total_tokens = 1  # type: ignore[misc]


def test_chat_usage_time_given_as_int_is_a_float() -> None:
    assert type(ChatUsage(time=2).time) is float


def test_chat_usages_add_field_by_field() -> None:
    total = ChatUsage(10, 5, 2, 1.5) + ChatUsage(1, 2, 3, 0.25)
    assert total == ChatUsage(11, 7, 5, 1.75)
    assert sum([ChatUsage(1, 1), ChatUsage(2, 2)], ChatUsage()) == ChatUsage(3, 3)
    assert sum([ChatUsage(1, 1), ChatUsage(2, 2)]) == ChatUsage(3, 3)  # sum() starts from 0


def test_chat_usage_refuses_to_add_other_things() -> None:
    # Python's own refusal: ChatUsage's __add__/__radd__ return NotImplemented rather than raise.
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'ChatUsage' and 'int'"):
        ChatUsage() + 1  # type: ignore[operator]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'int' and 'ChatUsage'"):
        1 + ChatUsage()  # only the 0 sum() starts from
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'bool' and 'ChatUsage'"):
        False + ChatUsage()
    with pytest.raises(TypeError, match=r'can only concatenate str \(not "ChatUsage"\) to str'):
        "0" + ChatUsage()  # type: ignore[operator]


def test_chat_usage_is_a_frozen_value() -> None:
    usage = ChatUsage(1, 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        usage.input_tokens = 3  # type: ignore[misc]
    assert usage == ChatUsage(1, 2) and hash(usage) == hash(ChatUsage(1, 2))
    assert repr(usage) == "ChatUsage(input_tokens=1, output_tokens=2, cached_tokens=0, time=0.0)"


@pytest.mark.parametrize("count", [2**31, -(2**31) - 1])
def test_a_token_count_is_a_java_int(count: int) -> None:
    with pytest.raises(ArgumentValueError, match=rf"ChatUsage.input_tokens must be from -2147483648 to 2147483647 .*got {count}"):
        ChatUsage(count)
    with pytest.raises(ArgumentValueError, match="ChatUsage.output_tokens must be from"):
        ChatUsage(0, 2**30) + ChatUsage(0, 2**30)
    assert ChatUsage(2**31 - 1).input_tokens == 2**31 - 1
    # An int past Python's limit on digits to print is said by its size, not left to fail the message.
    with pytest.raises(ArgumentValueError, match=r"ChatUsage.cached_tokens must be from .* got <an int of 16,610 bits>$"):
        ChatUsage(0, 0, 10**5000)


@pytest.mark.parametrize("text", ["2147483648", "-2147483649", "1e300", "3e9"])
def test_a_count_beyond_a_java_int_is_refused_when_read(backend: str, text: str) -> None:
    with pytest.raises(DecodeError, match=r"^inputTokens: .* is out of the range of a Java int"):
        ChatUsage.from_json('{"inputTokens":' + text + "}")
    with pytest.raises(DecodeError, match=r"^content\[0\]\.minPixels: .* is out of the range of a Java int"):
        Msg.from_json('{"role":"USER","content":[{"type":"image","source":{"type":"url","url":"u"},"minPixels":' + text + "}]}")


@pytest.mark.parametrize(("value", "words"), [(float("inf"), "got inf"), (float("nan"), "got nan"), (10**400, "an int of 1329 bits")])
def test_a_time_is_a_finite_number(value: float, words: str) -> None:
    with pytest.raises(ArgumentValueError, match=rf"ChatUsage.time must be .*{words}"):
        ChatUsage(time=value)
    assert ChatUsage(time=2).time == 2.0 and type(ChatUsage(time=2).time) is float


def test_a_long_base64_source_shows_its_start_and_length() -> None:
    # Printed whole, an image's megabytes of base64 bury the conversation around it.
    short = Base64Source("image/png", "iVBORw0KGgo=")
    assert repr(short) == "Base64Source(media_type='image/png', data='iVBORw0KGgo=')"
    long = Base64Source("image/png", "A" * 5_000_000)
    assert repr(long) == f"Base64Source(media_type='image/png', data={'A' * 48!r}…(5,000,000 characters))"
    assert len(repr(UserMessage(DataBlock(long)))) < 400
    inline = URLSource("data:image/png;base64," + "A" * 5_000_000)
    assert repr(inline) == f"URLSource(url={('data:image/png;base64,' + 'A' * 26)!r}…(5,000,022 characters), mime_type=None)"
    signed = "https://example.com/cat.png?" + "&".join(f"sig{i}=abcdef" for i in range(40))
    assert repr(URLSource(signed)) == f"URLSource(url={signed!r}, mime_type=None)"  # another URL is shown whole
    huge = "https://example.com/?q=" + "a" * 5_000
    assert repr(URLSource(huge)) == f"URLSource(url={huge[:48]!r}…(5,023 characters), mime_type=None)"  # up to 4096
    assert long == Base64Source("image/png", "A" * 5_000_000)  # only the repr is short


@pytest.mark.parametrize(
    ("url", "whole"),
    [
        ("https://example.com/?q=" + "a" * (4096 - 23), True),  # 4096 characters: up to the bound, whole
        ("https://example.com/?q=" + "a" * (4097 - 23), False),
        ("DATA:image/png;base64," + "A" * 200, False),  # a scheme is case-insensitive
        ("Data:text/plain," + "a" * 200, False),
        ("dataset-" + "x" * 232, True),  # a relative URL that merely begins with "data"
        ("https://x/dataset-" + "x" * 222, True),
    ],
    ids=["4096 characters", "4097 characters", "DATA:", "Data:", "relative dataset-", "https dataset-"],
)
def test_a_url_source_shows_its_url_whole_unless_it_is_inline_data_or_past_4096_characters(url: str, whole: bool) -> None:
    shown_url = repr(url) if whole else f"{url[:48]!r}…({len(url):,} characters)"
    assert repr(URLSource(url)) == f"URLSource(url={shown_url}, mime_type=None)"

"""The one reader of raw tool-call arguments, shared by the assembler and the converters."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscope_py import ToolUseBlock, _tool_arguments
from agentscope_py._frozen import MAX_STORED_DEPTH
from agentscope_py._tool_arguments import StreamedArguments, parse_tool_arguments
from agentscope_py.interop import from_openai
from read_only import assert_read_only
from strategies import json_objects


@pytest.fixture(params=["orjson", "json"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "json":
        monkeypatch.setattr(_tool_arguments, "_orjson_loads", None)
    else:
        assert _tool_arguments._orjson_loads is not None, "orjson is a dev dependency"
    return str(request.param)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"q": "kittens", "limit": 5}', {"q": "kittens", "limit": 5}),
        ('{"big": 123456789012345678901234567890}', {"big": 123456789012345678901234567890}),
        ('{"neg": -9223372036854775809, "f": 1.5}', {"neg": -9223372036854775809, "f": 1.5}),
        ('{"s": "\\ud800"}', {"s": "\ud800"}),
        ('{"nested": {"a": [1, {"b": 2.0}]}}', {"nested": {"a": [1, {"b": 2.0}]}}),
        ("{}", {}),
    ],
)
def test_objects_read_exactly_whatever_the_backend(backend: str, raw: str, expected: dict[str, object]) -> None:
    value, problem = parse_tool_arguments(raw)
    assert problem is None
    assert value == expected
    assert json.dumps(value) == json.dumps(expected)  # ints stay ints, exactly
    assert_read_only(value)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"q": ', "not valid JSON (it begins an object but does not end with '}')"),
        ('{"q": 1} {', "not valid JSON (it begins an object but does not end with '}')"),
        ('{"q": 1}\n\t', None),  # JSON whitespace after the object is fine
        ('{"q": 1,}', "not valid JSON"),
        ("", "not valid JSON"),
        ("[1, 2]", "a JSON list, not an object"),
        ('"text"', "a JSON str, not an object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to parse"),
        # Parsed, but deeper than a block stores: as unusable, not an error (the assembler raised it).
        ('{"a":' * 450 + "1" + "}" * 450, f"nested too deeply to store (deeper than {MAX_STORED_DEPTH} levels)"),
        # Not JSON, though Python's json reads them; a message holding nan or inf cannot be written.
        ('{"x": NaN}', "not valid JSON (NaN is not JSON)"),
        ('{"x": [-Infinity]}', "not valid JSON (-Infinity is not JSON)"),
        ('{"x": {"y": 1e400}}', "not valid JSON (1e400 is out of range for a number)"),
    ],
)
def test_text_holding_no_object_gives_empty_input_and_says_why(backend: str, raw: str, reason: str | None) -> None:
    value, problem = parse_tool_arguments(raw)
    if reason is None:
        assert problem is None and value == {"q": 1}
        return
    assert value == {}
    assert problem is not None and problem.startswith(reason)


@given(json_objects())
def test_any_json_object_reads_back_equal(obj: dict[str, object]) -> None:
    text = json.dumps(obj)
    value, problem = parse_tool_arguments(text)
    assert problem is None
    assert json.dumps(value) == text
    assert_read_only(value)


# -- arguments still streaming -------------------------------------------------------------------

_NESTING_TEXT = st.text(alphabet='{}[]"\\:, ab', max_size=8)


@given(
    st.one_of(json_objects(), st.dictionaries(_NESTING_TEXT, _NESTING_TEXT, max_size=4)),
    st.lists(st.integers(min_value=0), max_size=12),
)
def test_streamed_arguments_are_unfinished_exactly_while_something_is_left_open(
    obj: dict[str, object], cuts: list[int]
) -> None:
    # Whatever the fragments (empty ones too, as providers stream them): a prefix said to be unfinished
    # cannot parse, and the whole text is finished.
    text = json.dumps(obj, ensure_ascii=False)
    points = sorted([0, len(text), *(cut % (len(text) + 1) for cut in cuts)])
    fragments = [text[start:end] for start, end in zip(points, points[1:])]
    streamed = StreamedArguments()
    for count in range(1, len(fragments) + 1):
        prefix = fragments[:count]
        if streamed.unfinished(prefix):
            assert parse_tool_arguments("".join(prefix))[1] is not None
    assert not streamed.unfinished(fragments)
    assert not StreamedArguments().unfinished([text])


def test_an_escape_split_from_what_it_escapes_is_read_across_fragments() -> None:
    streamed = StreamedArguments()
    assert streamed.unfinished(['{"a": "\\', '"', "}"])  # the quote is escaped: the string goes on
    assert not streamed.unfinished(['{"a": "\\', '"', "}", '"}'])
    # An empty fragment between the backslash and what it escapes changes nothing.
    assert not StreamedArguments().unfinished(['{"a":"x\\', "", '"y"}'])


BIG = 123456789012345678901234567890  # past 64 bits: orjson alone would read it as a float


@pytest.mark.parametrize(
    "arguments",
    [
        {"big": BIG, "s": "x"},  # a float-looking value beside a plain one
        {"s": "x", "nested": {"big": BIG, "t": "y"}},
        {"list": [BIG, "y"]},
    ],
)
def test_a_huge_integer_beside_other_values_stays_an_exact_int(arguments: dict[str, object]) -> None:
    payload = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": json.dumps(arguments)}}],
        }
    ]
    [message] = from_openai(payload)
    [call] = message.get_content_blocks(ToolUseBlock)
    assert call.input == arguments
    assert json.dumps(dict(call.input)) == json.dumps(arguments)  # ints stay ints, exactly

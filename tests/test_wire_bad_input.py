"""The decoder is an attack surface: whatever it is given, it returns a value or raises DecodeError
(RoleContentError for a role violation) naming where the problem is."""

from __future__ import annotations

import codecs
import copy
import itertools
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import as_built_in_python, json_values
from vectors import mutated_event_vectors, mutated_vectors

from agentscope_py import (
    AgentEvent,
    AgentResultEvent,
    ArgumentTypeError,
    ArgumentValueError,
    AssistantMessage,
    ChatUsage,
    ContentBlock,
    DecodeError,
    DecodeLimits,
    ImageBlock,
    Msg,
    MsgRole,
    RoleContentError,
    Source,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    UserMessage,
    _ids,
)
from agentscope_py._serializable import DEPTH_CEILING, MAX_BLOCK_DEPTH

ROOTS: list[type[Any]] = [Msg, ContentBlock, Source, ChatUsage, TextBlock, UserMessage]

PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}


def message(*content: Any, **fields: Any) -> dict[str, Any]:
    return {"id": "m1", "name": None, "role": "USER", "content": list(content), "metadata": {}, **fields}


def decode_error(root: type[Any], document: Any) -> DecodeError:
    """The DecodeError for ``document``, read both as a dict and as JSON text (same error both ways)."""
    with pytest.raises(DecodeError) as from_dict:
        root.from_dict(document)
    with pytest.raises(DecodeError) as from_json:
        root.from_json(json.dumps(document))
    assert str(from_dict.value) == str(from_json.value)
    return from_dict.value


# -- documents of the wrong shape: (root, document, path, words in the message) ----------

WRONG_SHAPES: list[tuple[type[Any], Any, str, str]] = [
    (Msg, [], "", "expected a JSON object for Msg, got array; a JSON array of them is read with Msg.from_json_list(text)"),
    (AgentEvent, [{}], "", "got array; a JSON array of them is read with AgentEvent.from_json_list(text)"),
    (Msg, "hello", "", "got string"),
    (Msg, 42, "", "got number"),
    (Msg, None, "", "got null"),
    (ContentBlock, {"text": "no type"}, "", "missing required key 'type'"),
    (ContentBlock, {"type": "video_call"}, "type", "unknown ContentBlock type 'video_call'"),
    (ContentBlock, {"type": "TEXT"}, "type", "did you mean 'text'?"),
    (ContentBlock, {"type": 3}, "type", "got 3"),
    (Msg, {"role": "TOOL", "content": [{"type": ["text"]}]}, "content[0].type", "naming the ContentBlock"),
    (Msg, {"role": {"USER": 1}}, "role", "expected a string naming the Msg"),
    (Msg, message(role="user"), "role", "did you mean 'USER'?"),
    (Msg, {"role": "ASSISTANT", "content": [{"type": "tool_use", "state": "PENDING"}]}, "content[0].state",
     "did you mean 'pending'?"),
    (Msg, message(content="hello"), "content", "expected an array, got string"),
    (Msg, message(content={"type": "text"}), "content", "expected an array, got object"),
    (Msg, message({"type": "text"}, "text"), "content[1]", "expected an object, got string"),
    (Msg, message(metadata=["a"]), "metadata", "expected an object, got array"),
    (Msg, {"role": "ASSISTANT", "content": [{"type": "tool_use", "input": "{\"q\": 1}"}]}, "content[0].input",
     "expected an object, got string"),
    (Msg, message({"type": "text"}, {"type": "text"}, {"type": "data", "source": {"type": "base64", "data": "x"}}),
     "content[2].source", "missing required key 'media_type'"),
    (Msg, message({"type": "image", "source": {"type": "url"}}), "content[0].source", "missing required key 'url'"),
    (Msg, message({"type": "image", "source": {"type": "url", "url": None}}), "content[0].source.url",
     "expected a string, got null"),
    (Msg, message({"type": "data"}), "content[0]", "missing required key 'source'"),
    (Msg, message({"type": "image", "source": {"type": "ftp"}}), "content[0].source.type", "unknown Source type 'ftp'"),
    (ContentBlock, {"type": "text", "text": 5}, "text", "expected a string, got number"),
    (ContentBlock, {"type": "hint", "id": []}, "id", "expected a string, got array"),
    (ContentBlock, {"type": "image", "source": PNG, "minPixels": 1.5}, "minPixels", "expected an integer"),
    (ContentBlock, {"type": "video", "fps": True}, "fps", "expected a number, got boolean"),
    (ContentBlock, {"type": "video", "fps": 1e39}, "fps", "1e+39 is more than a Java float holds (3.4028235e38 at most)"),
    (ContentBlock, {"type": "video", "fps": -3.4028235677973366e38}, "fps", "more than a Java float holds"),
    (ContentBlock, {"type": "tool_result", "output": [{"type": "text", "text": False}]}, "output[0].text",
     "expected a string, got boolean"),
    (ContentBlock, {"type": "tool_result", "output": [None]}, "output[0]", "expected an object, got null"),
    (ContentBlock, {"type": "thinking", "metadata": "x"}, "metadata", "expected an object, got string"),
    (ChatUsage, {"inputTokens": "10"}, "inputTokens", "expected an integer, got string"),
    (ChatUsage, {"inputTokens": True}, "inputTokens", "expected an integer, got boolean"),
    (ChatUsage, {"time": "fast"}, "time", "expected a number, got string"),
    (ChatUsage, {"time": 10**400}, "time", "out of the range of a float"),
    (Msg, message(usage=[]), "usage", "expected an object, got array"),
    (Msg, message(usage={"time": {}}), "usage.time", "expected a number, got object"),
    (Msg, message(timestamp=20250102), "timestamp", "expected a string, got number"),
    (TextBlock, {"type": "tool_use"}, "type", "expected 'text' for TextBlock, got 'tool_use'"),
    (UserMessage, {"role": "ASSISTANT"}, "role", "expected 'USER' for UserMessage, got 'ASSISTANT'"),
    (UserMessage, {"content": []}, "role", "expected 'USER' for UserMessage, got no 'role'"),
    (UserMessage, {"role": None}, "role", "expected 'USER' for UserMessage, got null"),
    (URLSource, {"type": "base64"}, "type", "expected 'url' for URLSource, got 'base64'"),
    (TextBlock, {"type": "tool_use", "id": 5}, "type", "expected 'text' for TextBlock, got 'tool_use'"),
    (UserMessage, {"role": "SYSTEM", "content": [{"type": "tool_use"}]}, "role", "expected 'USER' for UserMessage, got 'SYSTEM'"),
    (ContentBlock, {"type": None}, "type", "got null"),
    (Msg, {"role": True}, "role", "got boolean"),
]


@pytest.mark.parametrize(("root", "document", "path", "words"), WRONG_SHAPES)
def test_a_wrong_shape_is_a_decode_error_at_its_path(
    backend: str, root: type[Any], document: Any, path: str, words: str
) -> None:
    error = decode_error(root, document)
    assert error.path == path
    assert words in error.reason
    assert str(error) == (f"{path}: {error.reason}" if path else error.reason)


class _Tag(str):
    pass


@pytest.mark.parametrize(
    ("root", "document", "words"),
    [
        (TextBlock, {"type": _Tag("data")}, "type: expected 'text' for TextBlock, got 'data'"),
        (UserMessage, {"role": MsgRole.SYSTEM, "content": [{"type": "tool_use"}]}, "role: expected 'USER' for UserMessage, got 'SYSTEM'"),
        (UserMessage, {"role": _Tag("SYSTEM"), "content": [{"type": "tool_use"}]}, "role: expected 'USER' for UserMessage, got 'SYSTEM'"),
    ],
)
def test_a_tag_given_as_a_str_subclass_or_an_enum_member_is_checked_as_its_json_is(
    root: type[Any], document: dict[str, Any], words: str
) -> None:
    # from_dict reads a str subclass as a string and an enum member as its value, the class's tag check
    # first among them: the other member's document was read on, and refused for something else.
    with pytest.raises(DecodeError) as caught:
        root.from_dict(document)
    assert str(caught.value) == words


def test_the_error_reads_as_the_issue_promises() -> None:
    error = decode_error(
        Msg, message({"type": "text"}, {"type": "text"}, {"type": "data", "source": {"type": "base64", "data": "x"}})
    )
    assert str(error) == "content[2].source: missing required key 'media_type'"


def test_paths_reach_into_free_form_values() -> None:
    with pytest.raises(DecodeError) as error:
        ContentBlock.from_dict({"type": "tool_use", "input": {"a": [{"weird key": [1, 2, float("inf")]}]}})
    assert str(error.value) == 'input.a[0]["weird key"][2]: inf is not a JSON number, nor is one past a double\'s range (such as 1e400)'
    with pytest.raises(DecodeError) as error:
        ToolResultBlock.from_dict({"type": "tool_result", "metadata": {"a": [{"k": object()}]}})
    assert error.value.path == "metadata.a[0].k"


@pytest.mark.parametrize(
    "text",
    ['{"role":', "", "   ", "nul", '{"a":1,}', "{'a': 1}", '{"a": 1} trailing', '{"a":"\\x"}'],
)
def test_malformed_json_is_a_decode_error(backend: str, text: str) -> None:
    with pytest.raises(DecodeError, match="malformed JSON") as error:
        Msg.from_json(text)
    assert error.value.path == ""


def test_a_role_violation_is_a_role_content_error(backend: str) -> None:
    document = {"role": "SYSTEM", "content": [{"type": "text"}, {"type": "tool_use"}]}
    with pytest.raises(RoleContentError, match=r"SYSTEM message may only contain text blocks, got ToolUseBlock at content\[1\]"):
        Msg.from_json(json.dumps(document))
    with pytest.raises(RoleContentError, match="USER message may only contain text/data/image/audio/video blocks"):
        Msg.from_dict(message({"type": "hint"}))


# -- depth and size ---------------------------------------------------------------------


def nested_results(depth: int) -> dict[str, Any]:
    """A tool result holding a tool result … ``depth`` deep, built without recursion."""
    document: dict[str, Any] = {"type": "text", "text": "bottom"}
    for _ in range(depth):
        document = {"type": "tool_result", "output": [document]}
    return document


def nested_results_text(depth: int) -> str:
    return '{"type":"tool_result","output":[' * depth + '{"type":"text","text":"bottom"}' + "]}" * depth


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_tool_results_nested_far_too_deep_are_refused(backend: str, depth: int) -> None:
    with pytest.raises(DecodeError, match="nested"):
        ContentBlock.from_json(nested_results_text(depth))
    with pytest.raises(DecodeError, match="nested"):
        Msg.from_dict({"role": "TOOL", "content": [nested_results(depth)]})


def test_free_form_values_nested_too_deep_are_refused(backend: str) -> None:
    deep: Any = "bottom"
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(DecodeError, match=r"nested deeper than 100 levels") as error:
        ContentBlock.from_dict({"type": "tool_use", "input": {"a": deep}})
    assert error.value.path.startswith("input.a[0][0]")
    # Refused by the parser or, if it copes, by the decoder: either way a DecodeError about nesting.
    with pytest.raises(DecodeError, match="nested"):
        Msg.from_json('{"metadata":{"a":' + "[" * 10_000 + "]" * 10_000 + "}}")


def test_the_depth_limit_is_exact_and_configurable(backend: str) -> None:
    # A result in a result adds 2 levels (the object and its output array); the top object counts 1.
    fits = nested_results(49)  # 1 + 2 * 49 = 99 levels, the text block inside makes 100
    assert ContentBlock.from_json(json.dumps(fits)) == ContentBlock.from_dict(fits)
    with pytest.raises(DecodeError, match="max_depth"):
        ContentBlock.from_dict(nested_results(50))
    deeper = DecodeLimits(max_depth=MAX_BLOCK_DEPTH)
    assert isinstance(ContentBlock.from_json(nested_results_text(198), limits=deeper), ToolResultBlock)
    # Past what a block may be, a document is refused whatever the limit, as the block's own
    # construction refuses it (a message holding it, and its events, could not be read back).
    with pytest.raises(DecodeError, match=r"^ToolResultBlock.output is nested too deeply: the block's JSON would be 399"):
        ContentBlock.from_json(nested_results_text(199), limits=DecodeLimits(max_depth=DEPTH_CEILING))
    with pytest.raises(DecodeError, match="nested deeper than 5 levels"):
        ContentBlock.from_dict(nested_results(3), limits=DecodeLimits(max_depth=5))


def test_a_document_as_deep_as_the_deepest_limit_reads_and_hashes(backend: str) -> None:
    # At the ceiling, as deep as the documents of what the API builds go (the result event of a
    # message holding the deepest block), a document reads on every backend, from the deep end of a
    # caller's stack too, and what it holds hashes; one level more is refused where it is.
    limits = DecodeLimits(max_depth=DEPTH_CEILING)
    deepest = ToolResultBlock.text("bottom")
    for _ in range((MAX_BLOCK_DEPTH - 1) // 2 - 1):  # each result adds two levels
        deepest = ToolResultBlock("c", "f", [deepest])
    fits = AgentResultEvent(AssistantMessage(deepest)).to_json()
    read = AgentEvent.from_json(fits, limits=limits)
    assert hash(read) == hash(AgentEvent.from_json(fits, limits=limits))
    assert hash(AgentEvent.from_dict(json.loads(fits), limits=limits)) == hash(read)
    # The text at the bottom made an image: its source object is a level more.
    bottom = '{"type":"text","text":"bottom"}'
    assert fits.count(bottom) == 1
    too_deep = fits.replace(bottom, '{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}')
    with pytest.raises(DecodeError, match=f"nested deeper than {DEPTH_CEILING} levels") as caught:
        AgentEvent.from_json(too_deep, limits=limits)
    assert caught.value.path.startswith("result.content[0].output[0].output[0]")
    assert caught.value.path.endswith(".source")
    # No limit reads it, so the error does not ask for a higher one; below the ceiling it does.
    assert caught.value.reason.endswith("the most DecodeLimits allows: this library cannot read the document")
    with pytest.raises(DecodeError, match=rf"pass limits=DecodeLimits\(max_depth=\.\.\.\) to accept more \(at most {DEPTH_CEILING}\)"):
        AgentEvent.from_json(fits, limits=DecodeLimits(max_depth=DEPTH_CEILING - 1))

    def from_deep_in_the_stack(frames: int) -> AgentEvent:
        return from_deep_in_the_stack(frames - 1) if frames else AgentEvent.from_json(fits, limits=limits)

    assert from_deep_in_the_stack(150) == read


@pytest.mark.parametrize("depth", [0, 401, -1])
def test_depth_limits_are_bounded(depth: int) -> None:
    with pytest.raises(ArgumentValueError, match="max_depth"):
        DecodeLimits(max_depth=depth)
    with pytest.raises(ArgumentValueError, match="max_bytes"):
        DecodeLimits(max_bytes=0)


def test_a_50_mb_string_is_read_within_the_default_limit_and_refused_under_a_lower_one(backend: str) -> None:
    big = "x" * (50 * 1024 * 1024)
    text = '{"type":"text","text":"' + big + '"}'
    assert TextBlock.from_json(text).text == big
    with pytest.raises(DecodeError, match=r"over the limit of 1048576; pass limits=DecodeLimits\(max_bytes=\.\.\.\)"):
        TextBlock.from_json(text, limits=DecodeLimits(max_bytes=1024 * 1024))
    with pytest.raises(DecodeError, match="bytes, over the limit"):
        TextBlock.from_json(text.encode(), limits=DecodeLimits(max_bytes=1024 * 1024))


def test_a_buffer_over_the_limit_is_refused_before_it_is_copied() -> None:
    # A bytearray or memoryview is read as bytes: a copy, which a document over the limit never needs.
    document = bytearray(b'{"type":"text","text":"' + b"x" * (20 * 1024 * 1024 + 3) + b'"}')  # 4-byte multiple
    limits = DecodeLimits(max_bytes=1024 * 1024)
    for buffer in (document, memoryview(document), memoryview(document).cast("I")):  # the last: 4-byte items
        tracemalloc.start()
        try:
            with pytest.raises(DecodeError, match=f"the document is {len(document)} bytes, over the limit"):
                TextBlock.from_json(buffer, limits=limits)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1024 * 1024, type(buffer)


def test_a_released_memoryview_is_a_decode_error(backend: str) -> None:
    view = memoryview(b'{"type":"text","text":"x"}')
    view.release()  # its owner is done with it: reading it raises ValueError
    for read in (TextBlock.from_json, TextBlock.from_json_list):
        with pytest.raises(DecodeError, match="^expected JSON text as str or UTF-8 bytes, got a released memoryview$"):
            read(view)


# -- tolerance ----------------------------------------------------------------------------


def test_duplicate_keys_resolve_as_in_python_and_jackson_the_last_wins(backend: str) -> None:
    assert ContentBlock.from_json('{"type":"text","text":"a","text":"b"}') == TextBlock("b")
    assert ContentBlock.from_json('{"type":"tool_use","type":"text","text":"x"}') == TextBlock("x")


def test_unknown_keys_are_ignored_at_every_level(backend: str) -> None:
    document = message(
        {"type": "text", "text": "hi", "annotations": [1]},
        {"type": "image", "source": {**PNG, "sha256": "abc"}, "alt": "cat"},
        future_field={"x": 1},
    )
    decoded = Msg.from_json(json.dumps(document))
    assert decoded.get_text_content() == "hi"
    assert "future_field" not in decoded.to_dict()
    assert decoded.content[1] == ImageBlock(Source.from_dict(PNG))


def test_bytes_are_read_as_utf_8(backend: str) -> None:
    text = '{"type":"text","text":"héllo 😀"}'
    for data in (text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        assert ContentBlock.from_json(data) == TextBlock("héllo 😀")
    with pytest.raises(DecodeError, match="not valid UTF-8"):
        ContentBlock.from_json(b'{"type":"text","text":"\xff"}')
    with pytest.raises(DecodeError, match="not valid UTF-8"):
        ContentBlock.from_json(text.encode("utf-16"))
    with pytest.raises(DecodeError, match="expected JSON text as str or UTF-8 bytes, got int"):
        ContentBlock.from_json(42)  # type: ignore[arg-type]


def test_a_byte_order_mark_before_utf_8_bytes_is_skipped_and_named_in_text(backend: str) -> None:
    from agentscope_py.event import AgentEndEvent, AgentEvent

    # Skipped as Jackson and json.loads skip it: what a file saved with one holds.
    text = '{"type":"text","text":"héllo"}'
    assert ContentBlock.from_json(codecs.BOM_UTF8 + text.encode()) == TextBlock("héllo")
    event = AgentEvent.from_json(codecs.BOM_UTF8 + AgentEndEvent("r").to_json().encode())
    assert isinstance(event, AgentEndEvent) and event.reply_id == "r"
    with pytest.raises(DecodeError, match=r"not valid UTF-8 \(invalid start byte at byte 26\)"):
        ContentBlock.from_json(codecs.BOM_UTF8 + b'{"type":"text","text":"\xff"}')  # counted from the first byte
    # In text it is a character, which no JSON document starts with: named, with what to do.
    with pytest.raises(DecodeError, match=r"^the document starts with a byte order mark \(U\+FEFF\): remove it"):
        ContentBlock.from_json("\ufeff" + text)


@pytest.mark.parametrize(
    ("value", "words"),
    [(object(), r"expected a JSON value \(dict, list, str, int, float, bool or None\), got object"), ({1: "a"}, "object keys must be strings"),
     (float("nan"), "nan is not a JSON number"), ({"a"}, "got set"), (b"a", "got bytes")],
)
def test_from_dict_accepts_only_json_values(value: Any, words: str) -> None:
    with pytest.raises(DecodeError, match=words) as error:
        ContentBlock.from_dict({"type": "tool_use", "input": {"key": value}})
    assert error.value.path.startswith("input.key")


# -- documents built in Python --------------------------------------------------------------


# A data block without an id gets a fresh generated one each time it is read.
DATA_BLOCK_WITHOUT_ID = {"type": "data", "source": {"type": "url", "url": "https://example.com/cat.png", "mime_type": "image/png"}}


def _outcome(decode: Any, document: Any) -> Any:
    counter = _ids._hex_counter
    _ids._hex_counter = itertools.count(1)  # a data block without an id gets the same fresh one on every reading
    try:
        return decode(document)
    except ACCEPTED as error:
        return type(error), str(error)
    finally:
        _ids._hex_counter = counter


@st.composite
def built_in_python(draw: st.DrawFn) -> tuple[type[Any], Any, Any]:
    """A mutated Java vector's root and document, and that document as a Python program may build it."""
    root, document = draw(mutated_vectors() | mutated_event_vectors())
    return root, document, draw(as_built_in_python(document))


@given(case=built_in_python())
@example(case=(ContentBlock, DATA_BLOCK_WITHOUT_ID, dict(DATA_BLOCK_WITHOUT_ID)))
def test_a_document_built_in_python_reads_as_its_json_would(case: tuple[type[Any], Any, Any]) -> None:
    # Any mapping is an object, a tuple an array, a str subclass a string: the same value, or
    # the same error (never "expected an object, got object").
    root, document, built = case
    assert _outcome(root.from_dict, built) == _outcome(root.from_dict, document)


def test_a_message_reads_back_from_a_document_holding_another_messages_values() -> None:
    source = UserMessage("hi", metadata={"tags": ["a", {"b": (1, 2)}]}, id="m", timestamp="t")
    document = {"role": MsgRole.USER, "content": source.content[0].to_dict(), "metadata": source.metadata}
    document["content"] = (document["content"],)
    assert Msg.from_dict({**document, "id": "m", "timestamp": "t"}) == source


def _error(decode: Callable[[Any], object], value: object) -> str:
    with pytest.raises(DecodeError) as caught:
        decode(value)
    return str(caught.value)


@pytest.mark.parametrize(
    ("built", "text"),
    [
        ((1, 2), "[1, 2]"),  # a tuple is an array
        (MsgRole.USER, '"USER"'),  # an enum member counts as its value: a string
    ],
)
def test_a_document_that_is_no_object_is_named_by_its_json_kind(built: object, text: str) -> None:
    expected = _error(Msg.from_json, text)
    assert _error(Msg.from_dict, built) == expected
    assert ("got array; a JSON array of them is read with" in expected) if isinstance(built, tuple) else expected.endswith("got string")


@pytest.mark.parametrize("limits", [5, {"max_depth": 5}, None])
def test_limits_must_be_decode_limits(limits: Any) -> None:
    words = r"limits must be a DecodeLimits, got \w+; e.g. limits=DecodeLimits"
    with pytest.raises(ArgumentTypeError, match=words):
        Msg.from_json('{"role": "USER"}', limits=limits)
    with pytest.raises(ArgumentTypeError, match=words):
        Msg.from_dict({"role": "USER"}, limits=limits)


def test_a_decoding_failure_leaves_the_input_untouched(backend: str) -> None:
    document = message({"type": "text", "text": "a"}, {"type": "data", "source": {"type": "url"}})
    before = copy.deepcopy(document)
    with pytest.raises(DecodeError):
        Msg.from_dict(document)
    assert document == before


# -- fuzzing --------------------------------------------------------------------------------

ACCEPTED = (DecodeError, RoleContentError)


def decode_everything(document: Any) -> None:
    """Decode ``document`` as every root, as a dict and as text; only the accepted errors may escape."""
    for root in ROOTS:
        for decode in (root.from_dict, lambda value, root=root: root.from_json(json.dumps(value))):
            try:
                decoded = decode(document)
            except ACCEPTED:
                continue
            assert isinstance(decoded, root)
            decoded.to_dict()  # what was accepted can be written again


@given(document=json_values(max_leaves=30))
def test_fuzz_arbitrary_json_values(document: Any) -> None:
    decode_everything(document)


@given(mutated=mutated_vectors())
def test_fuzz_mutated_java_vectors(mutated: tuple[type[Any], Any]) -> None:
    root, document = mutated
    decode_everything(document)
    try:
        root.from_dict(document)
    except ACCEPTED:
        pass


@given(data=st.binary(max_size=64) | st.text(max_size=64))
def test_fuzz_arbitrary_text(data: bytes | str) -> None:
    for root in ROOTS:
        try:
            decoded = root.from_json(data)
        except ACCEPTED:
            continue
        assert isinstance(decoded, root)
        decoded.to_dict()  # what was accepted can be written again


@pytest.mark.parametrize("name", ["msgspec", "orjson", "json"])
def test_running_out_of_memory_is_a_decode_error(name: str) -> None:
    # Four million empty arrays: 12 MB of text, several hundred MB once read; the process gets 256 MB.
    script = (
        "import resource\n"
        "from agentscope_py import DecodeError, Msg, _json\n"
        f"_json.set_backend({name!r})\n"
        "document = '{\"role\":\"USER\",\"metadata\":{\"a\":[' + '[],' * 4_000_000 + '0]}}'\n"
        "resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))\n"
        "try:\n    Msg.from_json(document)\nexcept DecodeError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("the document needs more memory than there is to read it")


def test_a_huge_number_as_a_tag_is_named_by_its_size() -> None:
    # repr() of an int past 4300 digits is refused by Python itself.
    with pytest.raises(DecodeError, match=r"^type: expected a string naming the ContentBlock .* got a number of 16610 bits$"):
        ContentBlock.from_dict({"type": 10**5000})


def test_a_concrete_events_tag_error_names_the_tag_it_is_written_with() -> None:
    from agentscope_py.event import AgentEvent, AgentStartEvent, DataBlockStartEvent

    with pytest.raises(DecodeError, match=r"^type: expected 'AGENT_START' for AgentStartEvent, got 'AGENT_END'$"):
        AgentStartEvent.from_json('{"type":"AGENT_END"}')
    with pytest.raises(DecodeError, match=r"expected 'DATA_BLOCK_START' for DataBlockStartEvent"):
        DataBlockStartEvent.from_json('{"type":"AGENT_END"}')
    assert isinstance(AgentEvent.from_json('{"type":"REPLY_START"}'), AgentStartEvent)  # the alias still reads


def test_bytes_that_are_not_utf_8_are_refused_wherever_they_are(backend: str) -> None:
    # msgspec skips a key no field has unread: its bytes are checked all the same, as the others do.
    for document in (b'{"role":"USER","zz":"\xff"}', b'{"role":"USER","metadata":{},"zz":"\xed\xa0\x80"}'):
        with pytest.raises(DecodeError, match="not valid UTF-8"):
            Msg.from_json(document)


def test_an_integer_too_long_to_write_is_refused_when_stored_and_when_read(backend: str) -> None:
    huge = 10**4300  # 4,301 digits: past what str() writes by default
    with pytest.raises(ArgumentValueError, match=r"metadata\['a'\] is an integer of more than 4300 digits"):
        UserMessage("x", metadata={"a": huge})
    with pytest.raises(ArgumentValueError, match=r"input\['a'\]\[0\] is an integer of more than 4300 digits"):
        ToolUseBlock("c", "f", {"a": [huge]})
    with pytest.raises(DecodeError, match=r"^metadata\.a: an integer of more than 4300 digits"):
        Msg.from_dict({"role": "USER", "metadata": {"a": huge}})
    # In the same words on every Python version (Python's own message changed in 3.11).
    with pytest.raises(DecodeError, match=r"^an integer of more than 4300 digits, which Python will not read"):
        Msg.from_json('{"role":"USER","metadata":{"a":' + "9" * 5000 + "}}")
    assert UserMessage("x", metadata={"a": 10**1000}).metadata["a"] == 10**1000  # long, but writable


@pytest.mark.parametrize(("value", "fits"), [(2147483647.0, True), (-2147483648.0, True), (2147483648.0, False)])
def test_a_whole_float_reads_as_an_int_up_to_the_java_bounds(value: float, fits: bool) -> None:
    if fits:
        assert ChatUsage.from_dict({"inputTokens": value}).input_tokens == int(value)
    else:
        with pytest.raises(DecodeError, match="Java int"):
            ChatUsage.from_dict({"inputTokens": value})


def test_the_depth_limit_counts_arrays_as_it_counts_objects() -> None:
    limits = DecodeLimits(max_depth=5)

    def document(arrays: int) -> dict[str, Any]:  # the message 1, its metadata 2, then the arrays
        return {"role": "USER", "content": [], "metadata": {"a": json.loads("[" * arrays + "]" * arrays)}}

    Msg.from_dict(document(3), limits=limits)
    with pytest.raises(DecodeError, match="nested deeper than 5 levels"):
        Msg.from_dict(document(4), limits=limits)


# -- arrays of documents -----------------------------------------------------------------


def test_an_array_of_messages_reads_as_a_list(backend: str) -> None:
    history = [UserMessage("Bonjour ?", name="alice"), Msg.from_dict({"role": "ASSISTANT", "content": []})]
    text = json.dumps([message.to_dict() for message in history])
    assert json.loads(Msg.to_json_list(history)) == json.loads(text)
    assert Msg.to_json_list(iter(history)) == Msg.to_json_list(history) and Msg.to_json_list([]) == "[]"
    assert Msg.from_json_list(Msg.to_json_list(history)) == history
    assert Msg.from_json_list(text) == history
    assert Msg.from_json_list(text.encode()) == history
    assert Msg.from_json_list("[]") == []
    assert UserMessage.from_json_list(text[: text.index("}, {") + 1] + "]") == history[:1]
    events = AgentEvent.from_json_list(json.dumps([{"type": "AGENT_END", "id": "e1", "source": None}]))
    assert [event.id for event in events] == ["e1"]


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        # What json.loads of a body would let escape, refused as the decoder refuses it.
        ("not json", DecodeError, "^malformed JSON"),
        ("[" * 100_000 + "]" * 100_000, DecodeError, "nested too deeply"),
        ('{"role": "USER"}', DecodeError, "^expected a JSON array of Msg documents, got object$"),
        ("[1]", DecodeError, r"^\[0\]: expected a JSON object for Msg, got number$"),
        ('[{"role": "USER", "content": []}, {"role": "user"}]', DecodeError, r"^\[1\]\.role: unknown Msg role 'user'"),
        (
            '[{"role": "SYSTEM", "content": [{"type": "tool_use", "id": "c", "name": "n"}]}]',
            RoleContentError,
            r"^\[0\]: SYSTEM message may only contain text blocks, got ToolUseBlock at content\[0\]$",
        ),
        ('[{"role": "ASSISTANT", "content": []}]', DecodeError, r"^\[0\]\.role: expected 'USER' for UserMessage"),
    ],
)
def test_an_array_that_is_no_array_of_messages_is_refused_saying_where(
    backend: str, text: str, error: type[Exception], message: str
) -> None:
    root = UserMessage if "expected 'USER'" in message else Msg
    with pytest.raises(error, match=message):
        root.from_json_list(text)


@pytest.mark.parametrize(
    ("root", "items", "message"),
    [
        (Msg, "hi", r"^Msg\.to_json_list takes an iterable of Msg, got 'hi' \(str\)$"),
        (Msg, {"role": "USER"}, r"^Msg\.to_json_list takes an iterable of Msg, got \{'role': 'USER'\} \(dict\)$"),
        (Msg, [UserMessage("a"), UserMessage("b").to_dict()], r"^Msg\.to_json_list: item \[1\] must be an instance of Msg, got \{"),
        (UserMessage, [UserMessage("a"), AssistantMessage("b")], r"^UserMessage\.to_json_list: item \[1\] must be an instance of UserMessage, got AssistantMessage"),
        (AgentEvent, [UserMessage("a")], r"^AgentEvent\.to_json_list: item \[0\] must be an instance of AgentEvent, got UserMessage"),
    ],
)
def test_writing_an_array_refuses_what_is_no_list_of_the_class(root: Any, items: Any, message: str) -> None:
    with pytest.raises(ArgumentTypeError, match=message):
        root.to_json_list(items)


def test_an_array_counts_one_level_and_its_text_the_size_limit() -> None:
    message = UserMessage("hi")
    text = f"[{message.to_json()}]"
    needed = 3  # the message, its content, the text block: as from_json counts them
    assert Msg.from_json(message.to_json(), limits=DecodeLimits(max_depth=needed)) == message
    with pytest.raises(DecodeError, match=rf"^\[0\]\.content: nested deeper than {needed} levels"):
        Msg.from_json_list(text, limits=DecodeLimits(max_depth=needed))
    assert Msg.from_json_list(text, limits=DecodeLimits(max_depth=needed + 1)) == [message]
    with pytest.raises(DecodeError, match=rf"^the document is {len(text)} characters, over the limit of 10"):
        Msg.from_json_list(text, limits=DecodeLimits(max_bytes=10))
    with pytest.raises(ArgumentTypeError, match="limits must be a DecodeLimits"):
        Msg.from_json_list(text, limits=5)  # type: ignore[arg-type]


@given(data=st.binary(max_size=64) | st.text(max_size=64), document=json_values(max_leaves=30))
def test_fuzz_arrays(data: bytes | str, document: Any) -> None:
    for text in (data, json.dumps([document]), json.dumps(document)):
        for root in ROOTS:
            try:
                decoded = root.from_json_list(text)
            except ACCEPTED:
                continue
            assert all(isinstance(value, root) for value in decoded)


@pytest.mark.parametrize(
    ("document", "message", "path"),
    [
        ({"role": "USER", "content": [None, {"type": "hint"}]}, r"^USER message .* got HintBlock at content\[1\]$", "content[1]"),
        (
            {"role": "SYSTEM", "content": [None, None, {"type": "text"}, {"type": "tool_use", "id": "c", "name": "n"}]},
            r"^SYSTEM message .* got ToolUseBlock at content\[3\]$",
            "content[3]",
        ),
        (
            {"type": "AGENT_RESULT", "result": {"role": "USER", "content": [None, {"type": "hint"}]}},
            r"^result: USER message .* got HintBlock at content\[1\]$",
            "result.content[1]",
        ),
    ],
)
def test_a_role_error_names_the_block_where_the_document_places_it(
    backend: str, document: dict[str, Any], message: str, path: str
) -> None:
    # Null entries of content are left out (as Java does); the index is the document's, as a DecodeError's is.
    root = AgentEvent if "type" in document else Msg
    for decode in (root.from_dict, lambda document: root.from_json(json.dumps(document))):
        with pytest.raises(RoleContentError, match=message) as caught:
            decode(document)
        assert caught.value.path == path  # from the document's root, as a DecodeError's
    with pytest.raises(RoleContentError) as in_array:
        root.from_json_list(json.dumps([document]))
    assert in_array.value.path == f"[0].{path}"

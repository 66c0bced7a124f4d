"""The standard library, orjson and msgspec give the same documents and read documents the same way."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from backends import BACKENDS
from hypothesis import given
from strategies import messages
from vectors import mutated_event_vectors, mutated_vectors

from agentscope_py import (
    ArgumentValueError,
    ChatUsage,
    ContentBlock,
    DecodeError,
    Msg,
    MsgRole,
    RoleContentError,
    TextBlock,
    ToolUseBlock,
    UserMessage,
    _ids,
    _json,
)


def encode_with(name: str, obj: Any) -> str:
    with _json.use_backend(name):
        text: str = obj.to_json()
        return text


def state() -> tuple[str, bool]:
    return _json.backend_name(), _json.typed_reading


def test_msgspec_is_the_default_when_installed_and_each_backend_can_be_chosen() -> None:
    assert _json.HAVE_ORJSON and _json.HAVE_MSGSPEC
    assert state() == ("msgspec", True)
    with _json.use_backend("json"):
        assert state() == ("json", False)
        with _json.use_backend("orjson"):
            assert state() == ("orjson", False)
        assert state() == ("json", False)
    assert state() == ("msgspec", True)


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="available"):
        with _json.use_backend("simplejson"):
            pass


@given(message=messages())
def test_every_backend_writes_the_same_document(message: Msg[Any]) -> None:
    texts = [encode_with(name, message) for name in BACKENDS]
    assert all(json.loads(text) == json.loads(json.dumps(message.to_dict())) for text in texts)
    for name in BACKENDS:
        with _json.use_backend(name):
            first, *others = (Msg.from_json(text) for text in texts)
            assert all(other == first for other in others)


def test_non_ascii_is_written_as_is_and_lone_surrogates_escaped(backend: str) -> None:
    text = TextBlock("你好 😀 é \ud800 x\udfffy").to_json()
    assert "你好 😀 é" in text
    assert "\\ud800" in text and "\\udfff" in text
    text.encode("utf-8")
    assert TextBlock.from_json(text) == TextBlock("你好 😀 é \ud800 x\udfffy")
    assert TextBlock.from_json(text.encode("utf-8")) == TextBlock("你好 😀 é \ud800 x\udfffy")


def test_numbers_survive_exactly(backend: str) -> None:
    metadata = {"big": 2**70, "neg": -(2**70), "u64": 2**64 - 1, "negzero": -0.0, "large": 1e21, "tiny": 5e-324}
    decoded = UserMessage("n", metadata=metadata).to_json()
    back = Msg.from_json(decoded).metadata
    assert back == metadata
    assert type(back["big"]) is int and type(back["neg"]) is int and type(back["large"]) is float
    assert math.copysign(1.0, back["negzero"]) == -1.0


def test_big_integers_in_text_are_read_exactly(backend: str) -> None:
    # orjson reads integers beyond 64 bits as floats; the decoder notices and reads them again exactly.
    value = 123456789012345678901234567890
    block = ToolUseBlock.from_json('{"type":"tool_use","input":{"n":%d,"f":1e300}}' % value)
    assert block.input["n"] == value and type(block.input["n"]) is int
    assert block.input["f"] == 1e300
    # ... also where it is refused: the error names the number orjson could not read as an int.
    with pytest.raises(DecodeError, match=r"^inputTokens: a number of 65 bits is out of the range of a Java int"):
        ChatUsage.from_json('{"inputTokens": 18446744073709551617}')


def _generated_as_such(value: object) -> str:
    """``repr(value)`` with the ids and times this process generated for what the document left out
    (each decode makes its own) written as placeholders."""
    text = repr(value)
    text = re.sub(re.escape(_ids._hex_prefix) + "[0-9a-f]{16}", "<generated id>", text)
    text = re.sub(re.escape(_ids._msg_prefix) + "[0-9a-f]{12}", "<generated id>", text)
    return re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\.\d{3}Z?", "<time>", text)


@given(mutated=mutated_vectors() | mutated_event_vectors())
def test_every_backend_reads_alike_and_words_the_same_errors(mutated: tuple[type[Any], Any]) -> None:
    root, document = mutated
    text = json.dumps(document)
    outcomes = []
    for name in BACKENDS:
        with _json.use_backend(name):
            try:
                outcomes.append(_generated_as_such(root.from_json(text)))
            except (DecodeError, RoleContentError) as error:
                outcomes.append(_generated_as_such((type(error), str(error))))
    assert outcomes == [outcomes[0]] * len(outcomes)


def test_a_big_integer_in_an_error_is_quoted_exactly_by_every_backend(backend: str) -> None:
    # orjson reads 2**64 as a float; the error must not say 1.8446744073709552e+19.
    with pytest.raises(DecodeError, match="got 18446744073709551616$"):
        ContentBlock.from_json('{"type": 18446744073709551616}')


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_refused_where_they_are_stored(backend: str, value: float) -> None:
    with pytest.raises(ArgumentValueError, match="JSON cannot represent"):
        UserMessage("x", metadata={"bad": [value]})
    with pytest.raises(ArgumentValueError, match="ChatUsage.time"):
        ChatUsage(time=value)


@pytest.mark.parametrize("text", ['{"type":"text","text":NaN}', '{"type":"text","x":Infinity}', '[-Infinity]'])
def test_non_finite_constants_are_refused_on_input(backend: str, text: str) -> None:
    with pytest.raises(DecodeError, match="malformed JSON"):
        TextBlock.from_json(text)


def test_integers_python_cannot_write_as_text_are_refused_when_stored(backend: str) -> None:
    # Refused where they are given, with their path, not later by to_json on every backend.
    with pytest.raises(ArgumentValueError, match=r"metadata\['huge'\] is an integer of more than"):
        UserMessage("x", metadata={"huge": 10**5000})


def test_an_int_subclass_too_long_to_write_is_refused_when_stored_as_an_int_is(backend: str) -> None:
    class Count(int):
        pass

    with pytest.raises(ArgumentValueError, match=r"metadata\['huge'\]\[0\] is an integer of more than"):
        UserMessage("x", metadata={"huge": [Count(10**5000)]})
    stored = UserMessage("x", metadata={"n": Count(7)}).metadata["n"]
    assert stored == 7 and type(stored) is int


def test_text_of_a_str_or_bytes_subclass_reads_alike(backend: str) -> None:
    # numpy.str_ and the like: msgspec refuses subclasses, so every backend reads the plain text.
    class Text(str):
        pass

    class Data(bytes):
        pass

    document = UserMessage("hi", id="m", timestamp="t").to_json()
    assert Msg.from_json(Text(document)) == Msg.from_json(Data(document.encode())) == Msg.from_json(document)


def test_objects_with_a_wire_format_are_written_in_it_inside_metadata(backend: str) -> None:
    # Java keeps a ChatUsage under metadata["_chat_usage"] and writes it as a map.
    message = UserMessage("x", metadata={"_chat_usage": ChatUsage(1, 2, 0, 0.5), "tags": ("a", "b")})
    document = json.loads(message.to_json())
    assert document["metadata"] == {
        "_chat_usage": {"inputTokens": 1, "outputTokens": 2, "cachedTokens": 0, "time": 0.5, "totalTokens": 3},
        "tags": ["a", "b"],
    }
    assert Msg.from_json(message.to_json()).get_chat_usage() == ChatUsage(1, 2, 0, 0.5)


def test_a_msgspec_older_than_the_floor_is_left_unused(tmp_path: Path) -> None:
    # Before 0.21 msgspec's errors are no ValueError and it misreads some tagged unions; one found
    # installed must not take over from_json.  A stand-in package of that version shows it.
    (tmp_path / "msgspec").mkdir()
    (tmp_path / "msgspec" / "__init__.py").write_text('__version__ = "0.20.0"\n', encoding="utf-8")
    script = (
        "from agentscope_py import DecodeError, Msg, UserMessage, _json\n"
        "assert Msg.from_json(UserMessage('hi', id='m', timestamp='t').to_json()).id == 'm'\n"
        "assert not _json.HAVE_MSGSPEC and _json.backend_name() in ('orjson', 'json')\n"
        "try:\n    Msg.from_json('{')\nexcept DecodeError:\n    print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr


def test_orjson_reads_the_int_just_below_int64_exactly() -> None:
    # orjson reads it as a float; the decoder must notice and read the text again.
    with _json.use_backend("orjson"):
        msg = Msg.from_json('{"role":"USER","content":[],"metadata":{"n":-9223372036854775809}}')
    assert msg.metadata["n"] == -9223372036854775809 and type(msg.metadata["n"]) is int


def test_the_standard_library_backend_allows_only_json_whitespace_after_the_value() -> None:
    # JSON whitespace is space, tab, LF and CR: a trailing form feed makes the text no JSON.
    with _json.use_backend("json"):
        with pytest.raises(DecodeError, match="malformed JSON"):
            Msg.from_json('{"role": "USER", "content": []}\x0c')
        assert Msg.from_json('{"role": "USER", "content": []}\r\n').role is MsgRole.USER

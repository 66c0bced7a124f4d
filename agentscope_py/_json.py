"""JSON text in and out: orjson when it is installed, the standard library otherwise.

Both backends produce the same documents (compared as parsed values) and read
the same documents the same way, but for what lies under a key no field has (an
integer past Python's digit limit, nesting between the two parsers' depth
limits: docs/wire-format.md, "JSON backends").  Where orjson cannot do what the
wire format needs, the standard library takes over for that one call:

- writing: orjson refuses lone surrogates and integers beyond 64 bits;
- reading: orjson refuses escaped lone surrogates (``"\\ud800"``), and reads
  integers beyond 64 bits as floats, which the decoder detects and asks for a
  re-read (:class:`InexactNumber`).

Lone surrogates are written as ``\\uXXXX`` escapes, so the output is always
valid UTF-8.  NaN and infinities have no JSON form and are refused.

With msgspec 0.21 or newer installed, the ``msgspec`` backend (the default then) also reads
``from_json`` documents of the message model straight into typed structures
(``agentscope_py._codec._typed``); it writes and parses everything else as the
``orjson`` backend does, or as the standard library when orjson is missing.
"""

from __future__ import annotations

import codecs
import importlib.util
import json
import re
from json.encoder import (  # type: ignore[attr-defined]
    c_encode_basestring,
    c_make_encoder,
    py_encode_basestring,
)
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ._frozen import int_digit_limit
from .errors import DecodeError

__all__ = [
    "HAVE_MSGSPEC",
    "HAVE_ORJSON",
    "MSGSPEC_FLOOR",
    "InexactNumber",
    "backend_name",
    "drop_msgspec",
    "dumps",
    "encode_str",
    "encode_value",
    "escape_surrogates",
    "has_lone_surrogate",
    "loads",
    "loads_exactly",
    "loads_inexact",
    "set_backend",
    "typed_reading",
    "use_backend",
    "write_text",
]

try:
    import orjson
except ImportError:  # the standard library serves alone
    HAVE_ORJSON = False
else:
    HAVE_ORJSON = True

# Found, not imported: msgspec loads with the codec, at the first JSON call.
HAVE_MSGSPEC = importlib.util.find_spec("msgspec") is not None


class InexactNumber(Exception):
    """Raised by the decoder when orjson may have read a big integer as a float: read again exactly."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_default(value: object) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# The C encoder made once and reused: JSONEncoder.encode builds one per call, which costs
# a third of the time on a message.  It gets only trees the codec built, which hold no cycles,
# so it skips the cycle check (markers=None).  Where there is no C encoder, JSONEncoder serves.
_stdlib_encode: Callable[[Any], str]
if c_make_encoder is not None:
    _encode_chunks = c_make_encoder(None, _no_default, c_encode_basestring, None, ":", ",", False, False, False)

    def _c_encode(value: Any) -> str:
        return "".join(_encode_chunks(value, 0))

    _stdlib_encode = _c_encode
else:  # other Python implementations
    _stdlib_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with raw lone surrogates written as ``\\uXXXX`` escapes, so it encodes to UTF-8.

    The standard library (``ensure_ascii=False``) and :func:`encode_str` leave them
    raw; in JSON text a raw surrogate can only be inside a string, where the
    escape means the same code point.
    """
    return _LONE_SURROGATE.sub(_escape_surrogate, text) if has_lone_surrogate(text) else text


#: A str as a JSON string literal, non-ASCII as it is (lone surrogates raw: see escape_surrogates).
encode_str: Callable[[str], str] = c_encode_basestring or py_encode_basestring
#: A tree of plain values as JSON text, by the standard library (lone surrogates raw).
encode_value = _stdlib_encode


def _stdlib_dumps(value: Any) -> str:
    return escape_surrogates(_stdlib_encode(value))


def has_lone_surrogate(text: str) -> bool:
    # str.isascii is O(n) in C and true for most documents: skip the regex then.
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_STDLIB_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_scan_once = _STDLIB_DECODER.scan_once  # type: ignore[attr-defined]  # set by __init__, undeclared in typeshed


def _stdlib_loads(text: str | bytes) -> Any:
    """Parse with the standard library; every fault becomes a :class:`DecodeError`."""
    try:
        if isinstance(text, bytes):
            # JSON on the wire is UTF-8 (json.loads would guess); a byte order mark before it is
            # skipped, as Jackson and json.loads skip it.  orjson and msgspec refuse it, and end here.
            text = text.decode("utf-8-sig")
        # The scanner called directly reads a document a fifth faster than decode(), which
        # also matches the whitespace before and after it.  Its faults are decode()'s own
        # (decode() calls it); where it stops short, decode() reads the text again to say why.
        try:
            value, end = _scan_once(text, 0)
        except StopIteration:  # no value at the very start: leading whitespace, or none at all
            return _STDLIB_DECODER.decode(text)
        if end != len(text) and text[end:].strip(" \t\n\r"):  # more than JSON whitespace after the value
            return _STDLIB_DECODER.decode(text)  # which decode() refuses, saying where
        return value
    except UnicodeDecodeError as error:
        skipped = isinstance(text, bytes) and text.startswith(codecs.BOM_UTF8)  # the decoder counts after it
        at = error.start + (len(codecs.BOM_UTF8) if skipped else 0)
        raise DecodeError(f"the document is not valid UTF-8 ({error.reason} at byte {at})") from None
    except RecursionError:
        raise DecodeError("the document is nested too deeply for the JSON parser (about 1000 levels)") from None
    except ValueError as error:  # JSONDecodeError, the int digit limit, NaN/Infinity
        if not isinstance(error, json.JSONDecodeError) and "integer string conversion" in str(error):
            # Said in our words: Python's differ between versions, and the JSON is well formed.
            raise DecodeError(
                f"an integer of more than {int_digit_limit()} digits, which Python will not read as a number "
                "(sys.set_int_max_str_digits raises the limit)"
            ) from None
        if text[:1] == "\ufeff":  # as text, where it is a character no JSON value starts with
            raise DecodeError(
                "the document starts with a byte order mark (U+FEFF): remove it, or read the file it came from "
                "with encoding='utf-8-sig'"
            ) from None
        raise DecodeError(f"malformed JSON: {error}") from None


def _orjson_dumps(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return _stdlib_dumps(value)  # lone surrogates, big ints; raises on what neither can write


def _orjson_loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # Escaped lone surrogates, which orjson refuses; the standard library words real faults.
        return _stdlib_loads(text)
    except SystemError as error:  # orjson's way of running out of memory
        if isinstance(error.__cause__ or error.__context__, MemoryError):
            raise MemoryError from None
        raise


_Backend = tuple[Callable[[Any], str], Callable[[str | bytes], Any], bool, bool, bool]
# name -> (dumps, loads, whether loads may read a big integer as a float, whether to write text
# directly, whether from_json reads typed structures with msgspec)
_BACKENDS: dict[str, _Backend] = {"json": (_stdlib_dumps, _stdlib_loads, False, True, False)}
if HAVE_ORJSON:
    _BACKENDS["orjson"] = (_orjson_dumps, _orjson_loads, True, False, False)
if HAVE_MSGSPEC:
    _BACKENDS["msgspec"] = (*_BACKENDS["orjson" if HAVE_ORJSON else "json"][:4], True)

_current = "msgspec" if HAVE_MSGSPEC else "orjson" if HAVE_ORJSON else "json"
# Variables rather than functions, rebound by set_backend: a call through them costs nothing extra.
#: Compact JSON text of a tree of plain dicts, lists and scalars (values the encoder made).
dumps: Callable[[Any], str]
#: The parsed value of JSON text; malformed text raises :class:`DecodeError`.
loads: Callable[[str | bytes], Any]
#: Whether ``loads`` may read an integer beyond 64 bits as a float (orjson does):
#: the decoder then raises :class:`InexactNumber` and the text is read again with ``loads_exactly``.
loads_inexact: bool
#: Whether the codec's generated text writers beat ``dumps`` of a tree: true for the standard
#: library, whose ``dumps`` walks the tree in Python-object terms; orjson is faster on trees.
write_text: bool
#: Whether ``from_json`` first tries msgspec's typed reading (see ``_codec._typed``).
typed_reading: bool
dumps, loads, loads_inexact, write_text, typed_reading = _BACKENDS[_current]
loads_exactly = _stdlib_loads


def backend_name() -> str:
    """``"msgspec"``, ``"orjson"`` or ``"json"``: the backend in use."""
    return _current


def set_backend(name: str) -> str:
    """Use backend ``name`` from now on; returns the one it replaces (tests and benchmarks compare them).

    The backend is the whole process's, and a call already decoding reads the variables as it goes:
    switch it only while no other thread encodes or decodes."""
    global _current, dumps, loads, loads_inexact, write_text, typed_reading
    if name not in _BACKENDS:
        raise ValueError(f"unknown or unavailable JSON backend {name!r}; available: {sorted(_BACKENDS)}")
    previous, _current = _current, name
    dumps, loads, loads_inexact, write_text, typed_reading = _BACKENDS[name]
    return previous


#: The oldest msgspec typed reading works with: before 0.21 its errors are no ValueError, and it
#: misreads tagged unions whose members share fields (an image block read as another block).
MSGSPEC_FLOOR = (0, 21)


def drop_msgspec() -> None:
    """Serve as if msgspec were not installed: the codec calls this for one older than ``MSGSPEC_FLOOR``."""
    global HAVE_MSGSPEC
    HAVE_MSGSPEC = False
    _BACKENDS.pop("msgspec", None)
    if _current == "msgspec":
        set_backend("orjson" if HAVE_ORJSON else "json")


@contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Use backend ``name`` inside the ``with`` block (for every thread: see :func:`set_backend`)."""
    previous = set_backend(name)
    try:
        yield
    finally:
        set_backend(previous)

"""The JSON codec: AgentScope Java's wire format for every class that declares it.

How a class is written and read is *declared*, once, as a :class:`WireClass`
(its fields as :class:`WireField`\\ s, each with a kind from ``_kinds``); a
base class whose documents name their concrete class is a :class:`WireUnion`.
From the declarations come the functions generated for each class
(``_compile``: an encoder to plain values, a writer straight to JSON text for
the standard-library backend, a decoder) and the JSON Schema
(``agentscope_py.schema``), so none of them can disagree with another.
``_model`` declares usage, sources, blocks and messages; ``_kinds`` the kinds
of values a field may hold; ``_values`` free-form JSON (metadata, tool inputs).
With msgspec installed, ``_typed`` generates from the same declarations a
faster way for ``from_json`` to read text, which hands back to the generic
decoder whatever it cannot vouch for.

Adding classes (the events do this in ``agentscope_py.event``)
----------------------------------------------------------------

1. Inherit :class:`~agentscope_py._serializable.JsonSerializable` in the base
   class: that gives ``to_dict``/``to_json``/``from_dict``/``from_json``.
2. Declare and register each concrete class, then the union::

       from agentscope_py._codec import Enum, Float, Int, JsonObject, ListOf, Nested, Str
       from agentscope_py._codec import WireClass, WireField, WireUnion, register, register_union

       register(WireClass(
           TextBlockDeltaEvent,
           (
               WireField("id", "id", Str(), nullable=True, omit="null"),
               WireField("created_at", "createdAt", Str(), nullable=True, omit="null"),
               WireField("reply_id", "replyId", Str(), nullable=True, omit="null"),
               WireField("metadata", "metadata", JsonObject(), nullable=True, omit="empty"),
               ...
           ),
           tag="TEXT_BLOCK_DELTA",           # written first as "type"
       ))
       register_union(WireUnion(AgentEvent, "type", {"TEXT_BLOCK_DELTA": TextBlockDeltaEvent, ...}))

   ``Nested(ChatUsage)``, ``Nested(Msg)``, ``Nested(ContentBlock)`` and
   ``ListOf(ToolUseBlock)`` reuse the registered formats; a nested class that is
   a union member (``ToolUseBlock``) is checked to be of that member.  A class
   that is not in a union (``ConfirmResult``) is registered with no ``tag``.
   ``build`` (default: the class) receives the decoded fields as keywords named
   after ``WireField.attr``.
3. Nothing else: the decoder's limits, error paths, both JSON backends and the
   schema apply to the new classes as they are.  Duplicate keys in a document
   resolve as in Python and Jackson (the last one wins), so Java's repeated
   ``"type"`` reads as it is.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .. import _json
from .._checks import describe, is_iterable_of_items, unordered_hint
from .._reader import item, json_kind
from .._serializable import DecodeLimits, install_codec
from ..errors import AgentScopeError, ArgumentTypeError, ArgumentValueError, DecodeError, RoleContentError
from . import _model  # noqa: F401  # registers the message model
from ._compile import register, register_union
from ._kinds import Bool, Enum, Float, Int, JsonObject, JsonValue, ListOf, Nested, Str
from ._registry import DECODERS, ENCODERS, TYPED_DECODERS, WRITERS, Decoder
from ._spec import WireClass, WireField, WireUnion
from ._values import Context, role_error_within, within

if _json.HAVE_MSGSPEC:
    import msgspec

    if tuple(int(part) for part in re.findall(r"\d+", msgspec.__version__)[:2]) < _json.MSGSPEC_FLOOR:
        _json.drop_msgspec()
if _json.HAVE_MSGSPEC:
    from ._typed import Fallback, typed_decoder

__all__ = [
    "Bool",
    "Enum",
    "Float",
    "Int",
    "JsonObject",
    "JsonValue",
    "ListOf",
    "Nested",
    "Str",
    "WireClass",
    "WireField",
    "WireUnion",
    "from_dict",
    "from_json",
    "from_json_list",
    "register",
    "register_union",
    "to_dict",
    "to_json",
    "to_json_list",
]

_T = TypeVar("_T")
_R = TypeVar("_R")


def to_dict(obj: object) -> dict[str, Any]:
    try:
        return ENCODERS[type(obj)](obj)
    except RecursionError:
        raise _too_deep_to_write(obj) from None


def to_json(obj: object) -> str:
    try:
        if _json.write_text:
            return _json.escape_surrogates(WRITERS[type(obj)](obj))
        return _json.dumps(ENCODERS[type(obj)](obj))
    except ValueError as error:
        if isinstance(error, AgentScopeError):
            raise
        # Python's own limit: an int of more than 4300 digits has no text form by default.
        raise ArgumentValueError(f"cannot write {type(obj).__name__} as JSON: {error}") from None
    except RecursionError:
        raise _too_deep_to_write(obj) from None


def to_json_list(cls: type[_T], items: Iterable[_T]) -> str:
    given: object = items  # whatever the annotation says: this is the check that it holds
    if not is_iterable_of_items(given):
        raise ArgumentTypeError(
            f"{cls.__name__}.to_json_list takes an iterable of {cls.__name__}, got {describe(given)}"
            f"{unordered_hint(given, blocks=False)}"
        )
    written = []
    for index, obj in enumerate(items):
        if not isinstance(obj, cls):
            raise ArgumentTypeError(
                f"{cls.__name__}.to_json_list: item [{index}] must be an instance of {cls.__name__}, got {describe(obj)}"
            )
        written.append(to_json(obj))
    return f"[{','.join(written)}]"


def _too_deep_to_write(obj: object) -> ArgumentValueError:
    return ArgumentValueError(
        f"cannot write {type(obj).__name__} as JSON: it is nested too deeply (past Python's recursion limit)"
    )


def from_dict(cls: type[_T], data: object, limits: DecodeLimits) -> _T:
    return _decode(_decoder(cls), cls, data, _context(limits.max_depth, False))


def from_json(cls: type[_T], text: object, limits: DecodeLimits) -> _T:
    # One function, not a wrapper around another, with the common case of _parsed_and_decoded and
    # _decode written out: the calls cost some percent of reading a message.
    try:
        if type(text) is not str and type(text) is not bytes:
            text = _as_text(text, limits)
        if len(text) > limits.max_bytes:
            raise _too_large(text, limits)
        if _json.typed_reading:
            typed = TYPED_DECODERS.get(cls, _NOT_MADE)
            if typed is _NOT_MADE:
                typed = typed_decoder(cls)
            if typed is not None and (type(text) is not bytes or _is_utf8(text)):
                ctx = _EXACT_CONTEXTS.get(limits.max_depth) or _context(limits.max_depth, False)
                try:
                    return typed(text, ctx)  # type: ignore[no-any-return]
                except Fallback:  # refused, or not vouched for: the generic decoder reads it and says why
                    pass
        if _json.loads_inexact:
            return _parsed_and_decoded(_decode, cls, text, limits)
        decode = DECODERS.get(cls) or _decoder(cls)
        data = _json.loads(text)
        ctx = _EXACT_CONTEXTS.get(limits.max_depth) or _context(limits.max_depth, False)
        if type(data) is not dict:
            return _decode(decode, cls, data, ctx)  # which says what the document is instead
        return decode(data, ctx, ctx.max_depth - 1)  # type: ignore[no-any-return]
    except MemoryError:
        raise _out_of_memory() from None
    except RecursionError:  # max_depth bounds the recursion; this guards a caller already deep in the stack
        raise DecodeError("the document is nested too deeply for the remaining Python stack") from None


def from_json_list(cls: type[_T], text: object, limits: DecodeLimits) -> list[_T]:
    try:
        if type(text) is not str and type(text) is not bytes:
            text = _as_text(text, limits)
        if len(text) > limits.max_bytes:
            raise _too_large(text, limits)
        return _parsed_and_decoded(_decode_list, cls, text, limits)
    except MemoryError:
        raise _out_of_memory() from None


def _parsed_and_decoded(
    decode_value: Callable[[Decoder, type[_T], Any, Context], _R], cls: type[_T], text: str | bytes, limits: DecodeLimits
) -> _R:
    """``text`` parsed, then decoded by ``decode_value`` with ``cls``'s decoder."""
    decode = DECODERS.get(cls) or _decoder(cls)
    data = _json.loads(text)
    exact = _EXACT_CONTEXTS.get(limits.max_depth) or _context(limits.max_depth, False)
    if not _json.loads_inexact:
        return decode_value(decode, cls, data, exact)
    try:
        return decode_value(decode, cls, data, _context(limits.max_depth, True))
    except (_json.InexactNumber, DecodeError):
        # orjson read a big integer as a float, which the error may quote: read the text exactly.
        return decode_value(decode, cls, _json.loads_exactly(text), exact)


def _size(text: str | bytes | bytearray | memoryview) -> int:
    """Characters of a ``str``, bytes of the rest (a memoryview's items may be wider than a byte)."""
    return text.nbytes if isinstance(text, memoryview) else len(text)


def _too_large(text: str | bytes | bytearray | memoryview, limits: DecodeLimits) -> DecodeError:
    unit = "characters" if isinstance(text, str) else "bytes"
    return DecodeError(
        f"the document is {_size(text)} {unit}, over the limit of {limits.max_bytes}; "
        "pass limits=DecodeLimits(max_bytes=...) to accept it"
    )


def _out_of_memory() -> DecodeError:
    return DecodeError(
        "the document needs more memory than there is to read it (many small arrays or objects can take "
        "fifty times the size of their text); pass limits=DecodeLimits(max_bytes=...) to refuse it sooner"
    )


def _is_utf8(data: bytes) -> bool:
    # msgspec checks the bytes of the strings it reads, not of those it skips (under a key no field
    # has): the other backends refuse a document that is not UTF-8 wherever the fault is.
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decoder(cls: type[_T]) -> Decoder:
    decode = DECODERS.get(cls)
    if decode is None:
        base = next((base for base in cls.__mro__ if base in DECODERS), None)
        advice = "" if base is None else f"; decode with {base.__name__}.from_dict or .from_json"
        raise ArgumentTypeError(f"{cls.__name__} has no wire format of its own{advice}")
    return decode


def _as_text(text: object, limits: DecodeLimits) -> str | bytes:
    """JSON text as exactly ``str`` or ``bytes``: the parsers differ on subclasses (msgspec refuses them)."""
    if isinstance(text, str):
        return str.__str__(text)
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            too_large = _size(text) > limits.max_bytes  # refused before it is copied
        except ValueError:  # a memoryview released by its owner: there is nothing left to read
            raise DecodeError("expected JSON text as str or UTF-8 bytes, got a released memoryview") from None
        if too_large:
            raise _too_large(text, limits)
        return bytes(text)
    raise DecodeError(f"expected JSON text as str or UTF-8 bytes, got {type(text).__name__}")


_CONTEXTS: dict[tuple[int, bool], Context] = {}
_EXACT_CONTEXTS: dict[int, Context] = {}  # max depth -> its context for exactly read numbers


def _context(max_depth: int, inexact_ints: bool) -> Context:
    # Contexts are immutable; the few distinct ones are shared rather than made per call.
    key = (max_depth, inexact_ints)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _CONTEXTS[key] = Context(max_depth, inexact_ints)
        if not inexact_ints:
            _EXACT_CONTEXTS[max_depth] = ctx
    return ctx


_NOT_MADE: Any = object()  # a class whose typed decoder is not made yet


def _decode(decode: Decoder, cls: type[_T], data: object, ctx: Context) -> _T:
    if type(data) is not dict:
        if not isinstance(data, Mapping):
            # An array is most often a whole history or stream, saved in one document.
            hint = (
                f"; a JSON array of them is read with {cls.__name__}.from_json_list(text)"
                if isinstance(data, (list, tuple))
                else ""
            )
            raise DecodeError(f"expected a JSON object for {cls.__name__}, got {json_kind(data)}{hint}")
        data = dict(data)
    try:
        return decode(data, ctx, ctx.max_depth - 1)  # type: ignore[no-any-return]
    except RecursionError:  # max_depth bounds the recursion; this guards a caller already deep in the stack
        raise DecodeError("the document is nested too deeply for the remaining Python stack") from None


def _decode_list(decode: Decoder, cls: type[_T], data: object, ctx: Context) -> list[_T]:
    if type(data) is not list:
        raise DecodeError(f"expected a JSON array of {cls.__name__} documents, got {json_kind(data)}")
    depth = ctx.max_depth - 2  # the array is a level, and so is each document in it
    decoded: list[_T] = []
    try:
        for index, document in enumerate(data):
            if type(document) is not dict:
                got = json_kind(document)
                raise DecodeError(f"expected a JSON object for {cls.__name__}, got {got}", item("", index))
            if depth < 0:
                raise within(ctx.too_deep(), item("", index))
            try:
                decoded.append(decode(document, ctx, depth))
            except DecodeError as error:
                raise within(error, item("", index)) from None
            except RoleContentError as error:
                raise role_error_within(error, item("", index)) from None
    except RecursionError:
        raise DecodeError("the document is nested too deeply for the remaining Python stack") from None
    return decoded


install_codec(sys.modules[__name__])  # this module implements the Codec protocol

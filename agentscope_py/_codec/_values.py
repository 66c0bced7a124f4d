"""Free-form JSON values (metadata, tool inputs) in both directions, and decoding state.

``freeze`` checks an untrusted parsed value and turns its dicts and lists into
read-only :class:`FrozenDict` and :class:`FrozenList` for storage (the way out
is ``_frozen.thawed``: a stored value holds nothing but JSON).  It recurses two
Python frames per level of objects (one per level of arrays) and stops at the
configured depth, never more than ``DEPTH_CEILING`` (what it stores deeper than
a message or block may hold, their constructors refuse).  Error paths are
assembled on the way out of the recursion, so a valid document never pays for them.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .._frozen import (
    EMPTY,
    INT_BOUND,
    LONG_INT_PROBLEM,
    FrozenDict,
    FrozenList,
    int_digit_limit,
    int_too_long,
)
from .._json import InexactNumber
from .._reader import as_plain, json_kind
from .._serializable import DEPTH_CEILING
from .._shown import SHOWN, shown
from ..errors import DecodeError, RoleContentError

__all__ = ["Context", "freeze", "freeze_object", "join_path", "key_path", "role_error_within", "within"]

# Integers of more than 64 bits: orjson reads them as floats (see _json).
_ORJSON_INT_LIMIT = float(2**63)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Context:
    """What a decoding run needs besides the document: its limits and where the values came from."""

    __slots__ = ("max_depth", "inexact_ints")

    def __init__(self, max_depth: int, inexact_ints: bool) -> None:
        self.max_depth = max_depth
        self.inexact_ints = inexact_ints

    def too_deep(self) -> DecodeError:
        if self.max_depth < DEPTH_CEILING:
            advice = f"pass limits=DecodeLimits(max_depth=...) to accept more (at most {DEPTH_CEILING})"
        else:
            advice = "the most DecodeLimits allows: this library cannot read the document"
        return DecodeError(f"nested deeper than {self.max_depth} levels; {advice}")

    def check_float(self, value: float, path: str) -> None:
        """Refuse what JSON cannot hold; ask for an exact re-read of a float orjson made from a big int."""
        if self.inexact_ints and abs(value) >= _ORJSON_INT_LIMIT and value.is_integer():
            raise InexactNumber
        if math.isinf(value):  # also a number written past a double's range: the parsers read it so
            raise DecodeError(f"{value} is not a JSON number, nor is one past a double's range (such as 1e400)", path)
        if math.isnan(value):
            raise DecodeError(f"{value} is not a JSON number", path)


# -- paths ----------------------------------------------------------------------


def key_path(key: str) -> str:
    """The path step of an object key: ``name``, or ``["odd key"]`` when it is not an identifier."""
    if len(key) > 2 * SHOWN:  # a path is for reading: a hostile key may be megabytes
        return f"[{_quote(key[:SHOWN])}…({len(key):,} characters)]"
    return key if _IDENTIFIER.match(key) else f"[{_quote(key)}]"


def _quote(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def join_path(outer: str, inner: str) -> str:
    if not inner:
        return outer
    if not outer or inner.startswith("["):
        return outer + inner
    return f"{outer}.{inner}"


def within(error: DecodeError, outer: str) -> DecodeError:
    """``error`` re-anchored inside the value at ``outer``."""
    return DecodeError(error.reason, join_path(outer, error.path))


def role_error_within(error: RoleContentError, outer: str) -> RoleContentError:
    """``error`` of a message nested at ``outer`` (an event's result, an array's item): its text
    says where the message is, its path leads from the document's root to the block."""
    return RoleContentError(f"{outer}: {error}", join_path(outer, error.path))


# -- decoding -----------------------------------------------------------------------


def freeze(value: Any, ctx: Context, depth: int) -> Any:
    """An untrusted JSON value as stored: dicts become FrozenDict, lists FrozenList; anything not JSON is refused.

    ``depth`` is how many more containers may be entered.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -INT_BOUND < value < INT_BOUND or not int_too_long(value):
            return value
        raise DecodeError(LONG_INT_PROBLEM.format(int_digit_limit()))
    if kind is float:
        ctx.check_float(value, "")
        return value
    if kind is dict:
        return freeze_object(value, ctx, depth)
    if kind is list:
        if depth <= 0:
            raise ctx.too_deep()
        items = []
        for index, item in enumerate(value):
            try:
                items.append(freeze(item, ctx, depth - 1))
            except DecodeError as error:
                raise within(error, f"[{index}]") from None
        return FrozenList(items)
    plain = as_plain(value)  # a mapping, a tuple, a str enum: read as the JSON it stands for
    if type(plain) is not kind:
        return freeze(plain, ctx, depth)
    raise DecodeError(f"expected a JSON value (dict, list, str, int, float, bool or None), got {kind.__name__}")


def freeze_object(value: dict[Any, Any], ctx: Context, depth: int) -> FrozenDict:
    """:func:`freeze` of a value known to be a dict (a metadata or tool input field)."""
    if depth <= 0:
        raise ctx.too_deep()
    for key, item in value.items():  # the common case first: plain string keys, small scalar values
        kind = type(item)
        if type(key) is not str or not (kind is str or (kind is int and -INT_BOUND < item < INT_BOUND) or kind is bool or item is None):
            break
    else:
        return FrozenDict(value) if value else EMPTY
    frozen = {}
    for key, item in value.items():
        if type(key) is not str and type(key := as_plain(key)) is not str:
            raise DecodeError(f"object keys must be strings, got {json_kind(key)} {shown(key)}")
        try:
            frozen[key] = freeze(item, ctx, depth - 1)
        except DecodeError as error:
            raise within(error, key_path(key)) from None
    return FrozenDict(frozen)

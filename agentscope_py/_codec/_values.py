"""Free-form JSON values (metadata, tool inputs) in both directions, and decoding state.

``thaw`` turns a stored value into fresh plain dicts and lists for output;
``freeze`` checks an untrusted parsed value and turns its dicts and lists into
read-only :class:`FrozenDict` and :class:`FrozenList` for storage.  Both
recurse one Python frame per nesting level; ``freeze`` stops at the configured
depth.  Error paths are assembled on the way out of the recursion, so a valid
document never pays for them.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .._frozen import EMPTY, FrozenDict, FrozenList
from .._json import InexactNumber
from .._reader import as_plain, json_kind
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError

__all__ = ["Context", "freeze", "freeze_object", "join_path", "key_path", "thaw", "within"]

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
        return DecodeError(
            f"nested deeper than {self.max_depth} levels; pass limits=DecodeLimits(max_depth=...) to accept more"
        )

    def check_float(self, value: float, path: str) -> None:
        """Refuse what JSON cannot hold; ask for an exact re-read of a float orjson made from a big int."""
        if self.inexact_ints and abs(value) >= _ORJSON_INT_LIMIT and value.is_integer():
            raise InexactNumber
        if not math.isfinite(value):
            raise DecodeError(f"{value} is not a JSON number", path)


# -- paths ----------------------------------------------------------------------


def key_path(key: str) -> str:
    """The path step of an object key: ``name``, or ``["odd key"]`` when it is not an identifier."""
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


# -- decoding -----------------------------------------------------------------------


def freeze(value: Any, ctx: Context, depth: int) -> Any:
    """An untrusted JSON value as stored: dicts become FrozenDict, lists FrozenList; anything not JSON is refused.

    ``depth`` is how many more containers may be entered.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
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
    for item in value.values():  # the common case first: scalar values
        kind = type(item)
        if not (kind is str or kind is int or kind is bool or item is None):
            break
    else:
        try:  # passed as keywords, the keys are checked to be strings in C, faster than in the loop
            return FrozenDict(**value) if value else EMPTY
        except TypeError:
            pass  # a key that is not a string: the loop below says which
    frozen = {}
    for key, item in value.items():
        if type(key) is not str and type(key := as_plain(key)) is not str:
            raise DecodeError(f"object keys must be strings, got {json_kind(key)} {key!r}")
        try:
            frozen[key] = freeze(item, ctx, depth - 1)
        except DecodeError as error:
            raise within(error, key_path(key)) from None
    return FrozenDict(frozen)


# -- encoding -----------------------------------------------------------------------


class _Unencodable(Exception):
    """Raised deep inside ``thaw``; carries the path steps collected on the way out."""

    def __init__(self, value: object, problem: str) -> None:
        self.value = value
        self.problem = problem
        self.steps: list[str] = []


def thaw(value: Any, where: str, encoders: Mapping[type, Callable[[Any], dict[str, Any]]]) -> Any:
    """``value`` as fresh plain JSON values; ``where`` names the field for errors (``"Msg.metadata"``).

    Objects the codec knows (a ``ChatUsage`` kept in metadata, say) are written in
    their own format, enums as their value, tuples as arrays.
    """
    if type(value) is FrozenDict:  # the common case first: str keys, scalar values
        for key, item in value.items():
            kind = type(item)
            if type(key) is not str or not (kind is str or kind is int or kind is bool or item is None):
                break
        else:
            return dict(value)
    try:
        return _thaw(value, encoders)
    except _Unencodable as error:
        path = "".join(reversed(error.steps))
        raise (ArgumentValueError if isinstance(error.value, float) else ArgumentTypeError)(
            f"{where}{path} {error.problem}; store str, int, finite float, bool, None, lists and dicts"
        ) from None


def _thaw(value: Any, encoders: Mapping[type, Callable[[Any], dict[str, Any]]]) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        raise _Unencodable(value, f"is {value}, which JSON cannot represent")
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Unencodable(key, f"has the key {key!r}; JSON keys are strings")
            try:
                out[key] = _thaw(item, encoders)
            except _Unencodable as error:
                error.steps.append(f"[{key!r}]")
                raise
        return out
    if isinstance(value, (list, tuple)):
        items = []
        for index, item in enumerate(value):
            try:
                items.append(_thaw(item, encoders))
            except _Unencodable as error:
                error.steps.append(f"[{index}]")
                raise
        return items
    encoder = encoders.get(kind)
    if encoder is not None:
        return encoder(value)
    if isinstance(value, enum.Enum):
        return _thaw(value.value, encoders)
    if isinstance(value, (str, int, float)):  # str/int/float subclasses: write the plain value
        return _thaw((str if isinstance(value, str) else float if isinstance(value, float) else int)(value), encoders)
    raise _Unencodable(value, f"holds a {kind.__name__}, which has no JSON form")

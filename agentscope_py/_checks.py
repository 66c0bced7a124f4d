"""Argument checks shared by every constructor.

Each function takes the value and the qualified argument name (``"TextBlock.text"``)
and returns the value to store, or raises an error that names the argument and
what it expects.  They are attrs converters in partial form, see ``_blocks.py``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from ._enums import member_by_folding
from ._frozen import (
    EMPTY,
    INT_BOUND,
    MAX_STORED_DEPTH,
    FrozenDict,
    NoJsonForm,
    copy_json_value,
    stored_nesting,
)
from ._shown import shown
from .errors import ArgumentTypeError, ArgumentValueError

# Values that need neither copying nor dropping (an int too, within INT_BOUND).
_PLAIN_TYPES = frozenset({str, float, bool})


class NestedTooDeeply(ArgumentValueError):
    """A value given to store is nested past the recursion limit.  Its own class so that the readers
    of untrusted payloads, which build objects from what they read, can report a :class:`DecodeError`."""


__all__ = [
    "JAVA_FLOAT_OVERFLOW",
    "JAVA_INT_MAX",
    "JAVA_INT_MIN",
    "NestedTooDeeply",
    "describe",
    "check_enum",
    "check_float",
    "check_int",
    "check_mapping",
    "check_optional_int",
    "check_optional_float",
    "check_optional_java_float",
    "check_optional_str",
    "check_str",
]

_E = TypeVar("_E", bound=enum.Enum)


class Sentinel:
    """A default that stands for "not given", shown by its name in signatures (``help()``, IDEs)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        if name in _SENTINELS:
            raise ValueError(f"there is a sentinel named {name} already")
        self._name = name
        _SENTINELS[name] = self

    def __repr__(self) -> str:
        return self._name

    # Compared by identity wherever it is used: a copy (copy.deepcopy of a builder holding it) or an
    # unpickled one (a pickled builder) must be the sentinel itself.
    def __copy__(self) -> Sentinel:
        return self

    def __deepcopy__(self, memo: object) -> Sentinel:
        return self

    def __reduce__(self) -> tuple[Callable[[str], Sentinel], tuple[str]]:
        return _sentinel, (self._name,)


_SENTINELS: dict[str, Sentinel] = {}


def _sentinel(name: str) -> Sentinel:
    return _SENTINELS[name]


def describe(value: object) -> str:
    """``'abc' (str)``: a short, safe rendering of a bad value for an error message."""
    if isinstance(value, type):
        return f"the class {value.__name__} itself (pass an instance)"
    # Not repr: a message's may be megabytes, to be cut to sixty characters; and three levels, of which
    # sixty characters show less, bound the work for a value whose parts are shared (20 keys each
    # holding one dict, ten levels down, are 20**10 paths to render).
    text = shown(value, levels=3)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _fail(arg: str, expected: str, value: object) -> ArgumentTypeError:
    return ArgumentTypeError(f"{arg} must be {expected}, got {describe(value)}")


def check_bool(value: object, arg: str) -> bool:
    if type(value) is bool:  # exactly: 0 and 1 are ints, not flags
        return value
    raise _fail(arg, "a bool", value)


# A subclass (a str enum member, say) is stored as its plain value, as inside metadata: what the
# object holds is what it writes, and no attribute of the subclass rides along into a frozen object.


def check_str(value: object, arg: str) -> str:
    if isinstance(value, str):
        return str.__str__(value)
    raise _fail(arg, "a str", value)


def check_optional_str(value: object, arg: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return str.__str__(value)
    raise _fail(arg, "a str or None", value)


#: The range of Java's ``int``: AgentScope Java reads every integer field of the model as one
#: (token counts, pixel limits, iterations), and refuses a document with a number beyond it.
JAVA_INT_MIN, JAVA_INT_MAX = -(2**31), 2**31 - 1


def check_int(value: object, arg: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if JAVA_INT_MIN <= value <= JAVA_INT_MAX:
            return int.__index__(value)
        raise ArgumentValueError(
            f"{arg} must be from {JAVA_INT_MIN} to {JAVA_INT_MAX} (a Java int, as AgentScope Java reads it), got {shown(value)}"
        )
    raise _fail(arg, "an int", value)


def check_optional_int(value: object, arg: str) -> int | None:
    if value is None:
        return None
    return check_int(value, arg)


def check_float(value: object, arg: str, *, stored: bool = True) -> float:
    """``value`` as a finite float; ``stored``: it is a field written as JSON, which says why."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an int beyond the floats
            raise ArgumentValueError(f"{arg} must be a number a float can hold, got an int of {int(value).bit_length()} bits") from None
        if number - number == 0.0:  # finite: NaN and the infinities have no JSON form
            return number
        why = " (JSON has no NaN or infinity)" if stored else ""
        raise ArgumentValueError(f"{arg} must be a finite number{why}, got {value!r}")
    raise _fail(arg, "a number", value)


def check_optional_float(value: object, arg: str) -> float | None:
    if value is None:
        return None
    return check_float(value, arg)


#: The least magnitude Java reads into a ``float`` as infinity (which it writes back as the string
#: ``"Infinity"``, no JSON number): ``Float.MAX_VALUE`` plus half its last step.  Anything smaller
#: rounds to a finite float, ``Float.MAX_VALUE`` (written ``3.4028235E38``) at most.
JAVA_FLOAT_OVERFLOW = 2.0**128 - 2.0**103


def check_optional_java_float(value: object, arg: str) -> float | None:
    number = check_optional_float(value, arg)
    if number is not None and not -JAVA_FLOAT_OVERFLOW < number < JAVA_FLOAT_OVERFLOW:
        raise ArgumentValueError(f"{arg} must be a number a Java float holds (3.4028235e38 at most), got {value!r}")
    return number


def check_enum(value: object, enum_cls: type[_E], arg: str) -> _E:
    if isinstance(value, enum_cls):
        return value
    hint = ""
    if isinstance(value, str):
        member = member_by_folding(enum_cls, value)
        if member is not None:
            hint = f"; use {enum_cls.__name__}.{member.name}"
        else:
            hint = f"; the members are {', '.join(m.name for m in enum_cls)}"
    raise ArgumentTypeError(
        f"{arg} must be a {enum_cls.__name__} member, got {describe(value)}{hint}"
    )


def check_mapping(value: object, arg: str, *, drop_none: bool = False, depth: int = MAX_STORED_DEPTH) -> FrozenDict:
    """A read-only copy of a str-keyed mapping (``None`` reads as empty), whose values nest at most
    ``depth`` levels (see ``MAX_STORED_DEPTH``)."""
    if value is None or value is EMPTY:
        return EMPTY
    # Stored already, within the depth (counted once per mapping); with no None to drop (a scan in C:
    # a message rebuilt from a stored mapping, as the assembler's snapshots are, would otherwise walk
    # every key in Python each time).
    if type(value) is FrozenDict and stored_nesting(value) <= depth + 1 and (not drop_none or None not in value.values()):
        return value
    if type(value) is not dict and not isinstance(value, Mapping):
        raise _fail(arg, "a mapping with str keys", value)
    if not value:
        return EMPTY
    for key, item in value.items():
        kind = type(item)
        # item - item: 0.0 for a finite float, NaN (true) for NaN and the infinities; an int past 64 bits
        # may be too long to write (copy_json_value tells).  Strings, the most values, pay no more.
        if (
            type(key) is not str
            or (kind not in _PLAIN_TYPES and not (kind is int and -INT_BOUND < item < INT_BOUND))
            or (kind is float and item - item)
        ):
            break
    else:  # str keys and scalar values only, the common case: one C-level copy
        return FrozenDict(value)
    copied = {}
    for key, item in value.items():
        if type(key) is not str:
            if not isinstance(key, str):
                raise ArgumentTypeError(f"{arg} keys must be str, got key {describe(key)}")
            key = str.__str__(key)  # a str enum member or other subclass: its plain text
        if item is None and drop_none:
            continue
        try:
            copied[key] = copy_json_value(item, depth)
        except NoJsonForm as error:
            error.steps.append(f"[{key!r}]")
            raise error.error(arg) from None
        except RecursionError:
            raise NestedTooDeeply(
                f"{arg}[{key!r}] is nested too deeply to store (deeper than {depth} levels, "
                "or than the Python stack left allows)"
            ) from None
    return FrozenDict(copied) if copied else EMPTY


def is_iterable_of_items(value: object) -> bool:
    """True for the lists, tuples and other iterables a content argument may be given as: not a
    string or bytes (of any container), a mapping, a set (whose order changes from run to run), or
    a class (an enum class iterates over its members: given for a member, it is a mistake to name)."""
    return (
        isinstance(value, Iterable)
        and not isinstance(value, (str, bytes, bytearray, memoryview, Mapping, set, frozenset))
        and not isinstance(value, type)
    )


def unbuilt_hint(value: object) -> str:
    """For a builder given where what it builds belongs: the ``.build()`` call it is missing."""
    return "; that is a builder: call .build() on it" if callable(getattr(type(value), "build", None)) else ""


def unordered_hint(value: object, *, blocks: bool = True) -> str:
    """Why ``value``, refused by :func:`is_iterable_of_items`, is not items, when it is not plain;
    ``blocks``: the items wanted are content blocks (a mapping may be one's JSON)."""
    if isinstance(value, (set, frozenset)):
        return "; a set has no order, and content does: give a list" if blocks else "; a set has no order: give a list"
    if isinstance(value, Mapping) and blocks:
        return "; a mapping is no block: ContentBlock.from_dict reads a block's JSON"
    return unbuilt_hint(value)

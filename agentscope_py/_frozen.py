"""Read-only containers for the metadata, inputs and values that blocks and messages hold."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from ._serializable import MAX_BLOCK_DEPTH, JsonSerializable
from .errors import ArgumentTypeError, ArgumentValueError, ReadOnlyError

__all__ = [
    "EMPTY",
    "INT_BOUND",
    "LONG_INT_PROBLEM",
    "EVENT_STORED_DEPTH",
    "MAX_STORED_DEPTH",
    "FrozenDict",
    "FrozenList",
    "NoJsonForm",
    "copy_json_value",
    "frozen_flat",
    "int_digit_limit",
    "int_too_long",
    "thawed",
]


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses to change after it is built.

    A dict subclass rather than ``MappingProxyType`` so that it pickles, and the
    ``json`` module and orjson serialize it as they are, with no copy.
    """

    __slots__ = ("_nesting",)
    _nesting: int  # see stored_nesting: set once first asked for

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise ReadOnlyError(
            "this mapping is read-only, as messages, blocks and events never change: build a new object with "
            "the change, such as msg.with_metadata({**msg.metadata, key: value}) or "
            "attrs.evolve(block, input={**block.input, key: value}); .copy() gives a plain dict, plain all the way "
            "down, to change"
        )

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def copy(self) -> dict[str, Any]:
        """A plain, mutable copy, nested values too: what to change and store again."""
        return thawed(self)  # type: ignore[no-any-return]

    def __hash__(self) -> int:  # type: ignore[override]
        # Hashable when its values are, as a tuple is.
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Callable[[Any, int], Any], tuple[dict[str, Any], int]]:
        # Pickled plain and frozen again when loaded: reduced level by level, a value nested as
        # deeply as a message may store it would take pickle past Python's recursion limit.
        return (copy_json_value, (thawed(self), _REFROZEN_DEPTH))

    # Nothing in it can change, so a copy is itself, as for a tuple of strings: copy.deepcopy of a
    # message costs nothing here, however deep its metadata.
    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict:
        return self


class FrozenList(list[Any]):
    """A ``list`` that refuses to change after it is built.

    A list subclass rather than a tuple so that it still compares equal to the
    list it was made from (``block.input == {"ids": [1, 2]}``), and serializes
    as a JSON array everywhere a list does.
    """

    __slots__ = ("_nesting",)
    _nesting: int  # see stored_nesting: set once first asked for

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise ReadOnlyError(
            "this list is read-only, as messages, blocks and events never change: build a new object with "
            "the change, such as msg.with_metadata({**msg.metadata, key: [*items, item]}); .copy() gives a plain "
            "list, plain all the way down, to change"
        )

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def copy(self) -> list[Any]:
        """A plain, mutable copy, nested values too: what to change and store again."""
        return thawed(self)  # type: ignore[no-any-return]

    def __hash__(self) -> int:  # type: ignore[override]
        # Hashable when its items are, as a tuple is: a message holding a list can be a dict key.
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Callable[[Any, int], Any], tuple[list[Any], int]]:  # see FrozenDict.__reduce__
        return (copy_json_value, (thawed(self), _REFROZEN_DEPTH))

    def __copy__(self) -> FrozenList:  # see FrozenDict.__copy__
        return self

    def __deepcopy__(self, memo: object) -> FrozenList:
        return self


EMPTY = FrozenDict()


class NoJsonForm(Exception):
    """Raised from inside a value that has no JSON form; the path to it is collected on the way out."""

    def __init__(self, value: object, problem: str, *, out_of_range: bool = False) -> None:
        self.value = value
        self.problem = problem
        self.out_of_range = out_of_range  # a value of a JSON type, but one JSON cannot hold (NaN)
        self.steps: list[str] = []

    def error(self, where: str) -> ArgumentTypeError | ArgumentValueError:
        """The error to raise for the value stored at ``where`` (``"UserMessage.metadata"``)."""
        kind = ArgumentValueError if self.out_of_range else ArgumentTypeError
        path = "".join(reversed(self.steps))
        return kind(f"{where}{path} {self.problem}; store str, int, finite float, bool, None, lists and dicts")


#: How deep a value stored in a mapping (metadata, a tool's input) may nest, itself one level: so
#: that the documents of whatever holds it read back (a block holds the mapping one level down, see
#: ``MAX_BLOCK_DEPTH``), and well within what hashing it recurses through (a FrozenList's hash takes
#: two steps of Python's recursion limit, 1000, per level).
MAX_STORED_DEPTH = MAX_BLOCK_DEPTH - 2
#: How deep an event's stored values may nest: two levels more than a message's or a block's, as the
#: events that stream them carry their metadata (and a call's input) inside entries of their own
#: (``{"agentscope_message": {"metadata": ...}}``); still within what a reader takes.
EVENT_STORED_DEPTH = MAX_STORED_DEPTH + 2
# A stored mapping holds values nested up to EVENT_STORED_DEPTH below itself: read back from a
# pickle, it is frozen again from its own level, one more.
_REFROZEN_DEPTH = EVENT_STORED_DEPTH + 1

#: What is wrong with an integer :func:`int_too_long` refuses, given the limit.
LONG_INT_PROBLEM = "an integer of more than {} digits, which Python will not write as text"
#: Integers inside ``(-INT_BOUND, INT_BOUND)`` are never too long to write: the check is skipped.
INT_BOUND = 2**63


def int_digit_limit() -> int:
    """The most digits Python writes an integer with (``sys.set_int_max_str_digits``); 0 for no limit."""
    return getattr(sys, "get_int_max_str_digits", int)()  # 3.10 has none: 0


def int_too_long(value: int) -> bool:
    """Whether Python refuses to write ``value`` as decimal text (more than :func:`int_digit_limit`
    digits), so no JSON text of it can be made.  Costly only for an integer that long."""
    limit = int_digit_limit()
    if not limit or value.bit_length() * 0.30103 + 1 < limit:
        return False
    try:
        str(value)
    except ValueError:
        return True
    return False


def copy_json_value(value: Any, depth: int = MAX_STORED_DEPTH) -> Any:
    """``value`` as it is stored: a copy the caller's later mutations cannot reach, made of JSON only.

    Stored as the JSON it will be written as, so that a message equals itself
    read back and hashes by value: mappings become read-only :class:`FrozenDict`,
    lists and tuples read-only :class:`FrozenList`, an enum member its value, a
    ``str``, ``int`` or ``float`` subclass (a key too) the plain value, and an
    object with a wire format (a ``ChatUsage`` under ``"_chat_usage"``, say) its
    document.  Anything else (a ``set``, a ``datetime``, NaN) raises :class:`NoJsonForm`;
    nesting deeper than ``depth`` raises ``RecursionError``, as running out of stack does.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -INT_BOUND < value < INT_BOUND or not int_too_long(value):
            return value
        raise NoJsonForm(value, f"is {LONG_INT_PROBLEM.format(int_digit_limit())}", out_of_range=True)
    if kind is float:
        if value - value == 0.0:  # finite: inf - inf and NaN - NaN are NaN
            return value
        raise NoJsonForm(value, f"is {value}, which JSON cannot represent", out_of_range=True)
    if kind is FrozenDict or kind is FrozenList:  # made by this function, or read by the decoder
        # Shared, not copied; but counted: a stored value within the limit, put inside another
        # (a message's metadata under a key of the next's), may take it past.
        if stored_nesting(value) > depth:
            raise RecursionError("nested too deeply to store")
        return value
    if isinstance(value, enum.Enum):  # before the scalars: a str or int enum is one too
        return copy_json_value(value.value, depth)
    if depth <= 0 and isinstance(value, (Mapping, list, tuple)):
        raise RecursionError("nested too deeply to store")
    if isinstance(value, Mapping):
        frozen = {}
        for key, item in value.items():
            if type(key) is not str:
                if not isinstance(key, str):
                    raise NoJsonForm(key, f"has the key {key!r}; JSON keys are strings")
                key = str.__str__(key)
            try:
                frozen[key] = copy_json_value(item, depth - 1)
            except NoJsonForm as error:
                error.steps.append(f"[{key!r}]")
                raise
        return FrozenDict(frozen)
    if isinstance(value, (list, tuple)):
        items = []
        for index, item in enumerate(value):
            try:
                items.append(copy_json_value(item, depth - 1))
            except NoJsonForm as error:
                error.steps.append(f"[{index}]")
                raise
        return FrozenList(items)
    if isinstance(value, JsonSerializable):
        try:
            document = value.to_dict()
        except (ArgumentTypeError, ArgumentValueError) as error:  # a class of its own: no wire format
            raise NoJsonForm(value, f"holds a value of type {kind.__name__}, which cannot be written ({error})") from None
        return copy_json_value(document, depth)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return copy_json_value(int.__index__(value))  # checked as a plain int is: it may be too long
    if isinstance(value, float):
        return copy_json_value(float.__float__(value))
    raise NoJsonForm(value, f"holds a value of type {kind.__name__}, which has no JSON form")


def frozen_flat(value: Mapping[str, Any]) -> FrozenDict:
    """``value``, whose values are all scalars, stored: its nesting (one level) known at once, so
    that a check of it later walks nothing."""
    frozen = FrozenDict(value)
    object.__setattr__(frozen, "_nesting", 1)
    return frozen


def stored_nesting(value: FrozenDict | FrozenList) -> int:
    """The levels of objects and arrays in a stored value, itself included: walked once, then kept
    on each container, as nothing in it can change."""
    try:
        return value._nesting
    except AttributeError:
        pass
    deepest = 0
    for item in value.values() if isinstance(value, FrozenDict) else value:
        kind = type(item)
        if kind is FrozenDict or kind is FrozenList:
            deepest = max(deepest, stored_nesting(item))
    object.__setattr__(value, "_nesting", deepest + 1)
    return deepest + 1


def thawed(value: Any) -> Any:
    """A deep copy of a stored JSON value in plain, mutable ``dict`` and ``list`` (anything else shared)."""
    kind = type(value)
    # Exact types first: the abstract Mapping check is slow, and a stored value's mappings and lists
    # are FrozenDict and FrozenList.  Loops, not comprehensions, and scalars copied in the loop: one
    # Python frame per level of nesting, as copy_json_value takes, so whatever was stored thaws.
    if kind is FrozenDict or kind is dict:
        plain = {}
        for key, item in value.items():
            item_kind = type(item)
            if item_kind is str or item_kind is int or item is None or item_kind is bool or item_kind is float:
                plain[key] = item
            else:
                plain[key] = thawed(item)
        return plain
    if kind is FrozenList or kind is list:
        items = []
        for item in value:
            item_kind = type(item)
            if item_kind is str or item_kind is int or item is None or item_kind is bool or item_kind is float:
                items.append(item)
            else:
                items.append(thawed(item))
        return items
    if isinstance(value, Mapping):  # another mapping (the interop converters thaw what they read)
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thawed(item) for item in value]
    return value

"""Read-only containers for the metadata, inputs and values that blocks and messages hold."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, NoReturn

from ._serializable import JsonSerializable

__all__ = ["FrozenDict", "FrozenList", "EMPTY", "copy_json_value", "thawed"]


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses to change after it is built.

    A dict subclass rather than ``MappingProxyType`` so that it pickles, and the
    ``json`` module and orjson serialize it as they are, with no copy.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "this mapping is read-only; build a new object with the changed mapping "
            "(for example msg.with_metadata({**msg.metadata, 'key': value}))"
        )

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        # Hashable when its values are, as a tuple is.
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return dict.__repr__(self)


class FrozenList(list[Any]):
    """A ``list`` that refuses to change after it is built.

    A list subclass rather than a tuple so that it still compares equal to the
    list it was made from (``block.input == {"ids": [1, 2]}``), and serializes
    as a JSON array everywhere a list does.
    """

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "this list is read-only; build a new object with the changed list "
            "(for example msg.with_metadata({**msg.metadata, 'tags': [*msg.metadata['tags'], 'new']}))"
        )

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        # Hashable when its items are, as a tuple is: a message holding a list can be a dict key.
        return hash(tuple(self))

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return (FrozenList, (list(self),))


EMPTY = FrozenDict()

_SCALARS = (str, int, float, bool, type(None))


def copy_json_value(value: Any) -> Any:
    """Copy the lists and dicts inside ``value`` so the caller's later mutations cannot reach us.

    Stored as the JSON it will be written as, so that a message equals itself
    read back: mappings become read-only :class:`FrozenDict`, lists and tuples
    read-only :class:`FrozenList`, an enum member its value, and an object with a
    wire format (a ``ChatUsage`` under ``"_chat_usage"``, say) its document.
    Anything else is shared (and refused when written).
    """
    if isinstance(value, enum.Enum):  # tested first: a str or int enum is a scalar too
        return copy_json_value(value.value)
    if isinstance(value, _SCALARS) or isinstance(value, (FrozenDict, FrozenList)):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: copy_json_value(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return FrozenList(map(copy_json_value, value))
    if isinstance(value, JsonSerializable):
        return copy_json_value(value.to_dict())
    return value


def thawed(value: Any) -> Any:
    """A deep copy of a stored JSON value in plain, mutable ``dict`` and ``list`` (anything else shared)."""
    if isinstance(value, Mapping):
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thawed(item) for item in value]
    return value

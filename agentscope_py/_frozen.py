"""Read-only mappings for the metadata, inputs and values that blocks and messages hold."""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["FrozenDict", "EMPTY", "copy_json_value"]


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


EMPTY = FrozenDict()

_SCALARS = (str, int, float, bool, type(None))


def copy_json_value(value: Any) -> Any:
    """Copy the lists and dicts inside ``value`` so the caller's later mutations cannot reach us.

    Dicts become read-only :class:`FrozenDict`; lists stay lists (a tuple would no
    longer compare equal to the list the caller gave) and tuples stay tuples, with
    their items copied.  Anything else is shared.
    """
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, dict):
        return FrozenDict({k: copy_json_value(v) for k, v in value.items()})
    if isinstance(value, list):
        return [copy_json_value(v) for v in value]
    if type(value) is tuple:  # immutable itself, but it may hold the caller's dicts and lists
        return tuple(copy_json_value(v) for v in value)
    return value

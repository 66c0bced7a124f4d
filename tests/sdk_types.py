"""Checking converter output against the provider SDKs' param types, as a closed check.

The SDKs type a request as TypedDicts, which say which keys an object has and
which of them it must have.  pydantic validates them openly: it ignores a key
the type does not define (a stream's tool-call ``index`` written back, a
citation's ``file_id``), and validates an ``Iterable[...]`` field only as it is
iterated.  ``conform`` checks every key instead: one the type does not define,
a ``Required`` one missing, a value of the wrong kind, all the way down.

The SDK modules use ``from __future__ import annotations``, so a TypedDict's
``__required_keys__`` cannot see ``Required[...]`` inside its string
annotations (it says no key of a ``total=False`` TypedDict is required): the
keys are read from the resolved hints instead.
"""

from __future__ import annotations

import collections.abc
import functools
import types
from collections.abc import Collection
from typing import Any, Literal, Union

import typing_extensions
from typing_extensions import NotRequired, ReadOnly, Required, TypeAliasType, get_args, get_origin, is_typeddict

__all__ = ["conform", "problems"]

_WRAPPERS = (Required, NotRequired, ReadOnly, typing_extensions.Annotated)
_ARRAYS = (collections.abc.Iterable, collections.abc.Sequence, list)
_OBJECTS = (collections.abc.Mapping, dict)
# JSON's scalars, each with the Python types that write it: a bool is no number here.
_SCALARS: dict[type, tuple[type, ...]] = {str: (str,), bool: (bool,), int: (int,), float: (int, float)}


def conform(value: Any, tp: Any, *, allow: Collection[str] = ()) -> None:
    """Assert that ``value`` is a ``tp``, closed: ``allow`` names keys tolerated wherever a TypedDict
    does not define them (a payload's own fields, which the converters carry on by design)."""
    found = problems(value, tp, "$", frozenset(allow))
    assert not found, "\n".join(found)


def problems(value: Any, tp: Any, path: str, allow: frozenset[str] = frozenset()) -> list[str]:
    """What keeps ``value`` (at ``path``) from being a ``tp``; empty when it is one."""
    origin = get_origin(tp)
    if tp is Any or tp is object:
        return []
    if tp is type(None):
        return [] if value is None else [f"{path}: expected null, got {_kind(value)}"]
    if isinstance(tp, TypeAliasType):
        return problems(value, tp.__value__, path, allow)
    if origin in _WRAPPERS:
        return problems(value, get_args(tp)[0], path, allow)
    if origin is Union or isinstance(tp, types.UnionType):
        return _union(value, get_args(tp), path, allow)
    if origin is Literal:
        if any(type(value) is type(option) and value == option for option in get_args(tp)):
            return []
        return [f"{path}: expected one of {list(get_args(tp))}, got {value!r}"]
    if is_typeddict(tp):
        return _typed_dict(value, tp, path, allow)
    if origin in _ARRAYS:
        if type(value) is not list:
            return [f"{path}: expected an array, got {_kind(value)}"]
        (item,) = get_args(tp) or (Any,)
        return [problem for index, inner in enumerate(value) for problem in problems(inner, item, f"{path}[{index}]", allow)]
    if origin in _OBJECTS or tp in _OBJECTS:
        if type(value) is not dict:
            return [f"{path}: expected an object, got {_kind(value)}"]
        inner_type = (get_args(tp) or (str, Any))[1]
        return [problem for key, inner in value.items() for problem in problems(inner, inner_type, f"{path}.{key}", allow)]
    if tp in _SCALARS:
        if type(value) in _SCALARS[tp]:
            return []
        return [f"{path}: expected {tp.__name__}, got {_kind(value)}"]
    if isinstance(tp, type) and origin is None:  # a class no JSON value is (bytes, a pydantic model)
        return [] if isinstance(value, tp) else [f"{path}: expected {tp.__name__}, got {_kind(value)}"]
    # A type form this check does not know: fail loudly, rather than let anything through.
    return [f"{path}: cannot check a value against {tp!r}"]


def _union(value: Any, options: tuple[Any, ...], path: str, allow: frozenset[str]) -> list[str]:
    """Nothing when ``value`` is one of the ``options``; else what keeps it from the one it looks meant
    to be: of those of its JSON kind, the TypedDict whose ``type`` or ``role`` it has, else the closest."""
    results = [problems(value, option, path, allow) for option in options]
    if any(not found for found in results):
        return []
    ranked = sorted(
        zip(options, results),
        key=lambda pair: (not _same_kind(value, pair[0]), not _tagged_as(value, pair[0]), len(pair[1])),
    )
    return ranked[0][1]


def _same_kind(value: Any, tp: Any) -> bool:
    """Whether ``tp`` takes values of ``value``'s JSON kind (an array for a list, say)."""
    while isinstance(tp, TypeAliasType) or get_origin(tp) in _WRAPPERS:
        tp = tp.__value__ if isinstance(tp, TypeAliasType) else get_args(tp)[0]
    origin = get_origin(tp)
    if type(value) is list:
        return origin in _ARRAYS
    if type(value) is dict:
        return is_typeddict(tp) or origin in _OBJECTS or tp in _OBJECTS
    return not (is_typeddict(tp) or origin in _ARRAYS or origin in _OBJECTS)


def _tagged_as(value: Any, tp: Any) -> bool:
    """Whether ``value`` has the ``type`` or ``role`` of the TypedDict ``tp``."""
    if not (is_typeddict(tp) and type(value) is dict):
        return False
    hints = _hints(tp)
    tags = [key for key in ("type", "role") if key in hints and key in value]
    return bool(tags) and all(not problems(value[key], hints[key], "") for key in tags)


def _typed_dict(value: Any, tp: Any, path: str, allow: frozenset[str]) -> list[str]:
    if type(value) is not dict:
        return [f"{path}: expected an object ({tp.__name__}), got {_kind(value)}"]
    hints = _hints(tp)
    found = [f"{path}: {tp.__name__} requires {key!r}" for key in _required_keys(tp) if key not in value]
    for key, inner in value.items():
        if key in hints:
            found += problems(inner, hints[key], f"{path}.{key}", allow)
        elif key not in allow:
            found.append(f"{path}: {tp.__name__} has no key {key!r}")
    return found


@functools.cache
def _hints(tp: Any) -> dict[str, Any]:
    return typing_extensions.get_type_hints(tp, include_extras=True)


@functools.cache
def _required_keys(tp: Any) -> frozenset[str]:
    # Each key as the class that declared it has it (its totality), unless its own hint says otherwise.
    required = set()
    for key, hint in _hints(tp).items():
        origin = get_origin(hint)
        if origin is Required or (origin is not NotRequired and key in tp.__required_keys__):
            required.add(key)
    return frozenset(required)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


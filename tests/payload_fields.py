"""Payloads with one field added to one of their objects: what a reader does not read goes back as it came."""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable
from typing import Any

import pytest


def object_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every object in ``value``, itself first."""
    if isinstance(value, dict):
        return [path, *(inner for key, item in value.items() for inner in object_paths(item, (*path, key)))]
    if isinstance(value, list):
        return [inner for index, item in enumerate(value) for inner in object_paths(item, (*path, index))]
    return []


def with_field(payload: Any, path: tuple[Any, ...], key: str, value: Any) -> Any:
    """A copy of ``payload`` whose object at ``path`` also holds ``key``; ``None`` if it has it already."""
    changed = copy.deepcopy(payload)
    target = changed
    for step in path:
        target = target[step]
    if key in target:
        return None
    target[key] = value
    return changed


def extra_field_cases(
    name: str, payloads: Iterable[Any], keys: Iterable[str], read: Collection[tuple[tuple[Any, ...], str]] = ()
) -> list[Any]:
    """Each payload with each of ``keys`` added to each of its objects (as ``"x"``), but the ``read`` ones
    (path, key), as parameters named after where the key went."""
    return [
        pytest.param(changed, id=f"{name}{index}-{'.'.join(map(str, path))}-{key}")
        for index, payload in enumerate(payloads)
        for path in object_paths(payload)
        for key in keys
        if (path, key) not in read and (changed := with_field(payload, path, key, "x")) is not None
    ]

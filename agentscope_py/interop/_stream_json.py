"""A streamed event or chunk copied as plain JSON, checked as it is copied: the stream relays gather
what they are fed without changing the caller's objects."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from .._reader import as_plain, at, item, json_kind
from .._serializable import DEFAULT_LIMITS
from .._shown import shown
from ..errors import DecodeError

__all__ = [
    "json_copy",
    "time_as_json",
]


_MAX_INDEX = 2**31 - 1  # past any list a stream builds: an index beyond it is a fault, not a position


def json_copy(value: Any) -> Any:
    """A streamed event or chunk ``value`` as plain JSON (dicts, lists, str, int, finite float, bool,
    None; a date or time as its text, see ``time_as_json``), copied, so that gathering it never changes
    the caller's; what is no JSON, or nests deeper than the decoder's default limit, is a
    :class:`DecodeError` at its path. In a list of indexed objects (a stream's
    way of saying where a delta goes) every entry must carry an index from 0 to a Java int's max."""
    try:
        return _json_copy(value, DEFAULT_LIMITS.max_depth)
    except _NotJson as error:
        path = ""
        for step in reversed(error.steps):  # the path is made only for an error: most values have none
            path = at(path, step) if isinstance(step, str) else item(path, step)
        raise DecodeError(error.problem, path) from None


def time_as_json(value: datetime.date | datetime.time) -> str:
    """A date or time as the text the JSON it was parsed from held: ISO 8601, ``Z`` for UTC, as the
    SDKs' ``model_dump(mode="json")`` writes them (a ``Container``'s ``expires_at`` is a ``datetime``
    in its plain ``model_dump()``)."""
    text = value.isoformat()
    if isinstance(value, (datetime.datetime, datetime.time)) and value.utcoffset() == datetime.timedelta(0):
        return text[:-6] + "Z"  # for "+00:00"
    return text


class _NotJson(Exception):
    def __init__(self, problem: str) -> None:
        self.problem = problem
        self.steps: list[str | int] = []  # from the value at fault out, collected on the way


def _json_copy(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if value - value != 0.0:  # inf - inf and NaN - NaN are NaN
            raise _NotJson(f"{value} is not a JSON number")
        return value
    if kind is not dict and kind is not list and kind is not tuple:
        if isinstance(value, Mapping):
            return _json_copy(dict(value), depth)
        if isinstance(value, (datetime.date, datetime.time)):  # in an SDK event's model_dump()
            return time_as_json(value)
        plain = as_plain(value)  # a str subclass or an enum member, in a chunk built in Python
        if plain is value:
            raise _NotJson(f"expected a JSON value, got {kind.__name__}")
        return _json_copy(plain, depth)
    if depth <= 0:
        raise _NotJson(f"nested deeper than {DEFAULT_LIMITS.max_depth} levels")
    if kind is dict:
        copy = {}
        for key, entry in value.items():
            if type(key) is not str:
                raise _NotJson(f"object keys must be strings, got {json_kind(key)} {shown(key)}")
            try:
                copy[key] = _json_copy(entry, depth - 1)
            except _NotJson as error:
                error.steps.append(key)
                raise
        return copy
    entries = []
    for position, entry in enumerate(value):
        try:
            entries.append(_json_copy(entry, depth - 1))
        except _NotJson as error:
            error.steps.append(position)
            raise
    if any(type(entry) is dict and "index" in entry for entry in entries):
        for position, entry in enumerate(entries):
            problem = _index_problem(entry)
            if problem is not None:
                fault = _NotJson(problem)
                fault.steps += ["index", position] if type(entry) is dict and "index" in entry else [position]
                raise fault
    return entries


def _index_problem(entry: object) -> str | None:
    """What is wrong with an entry of a list of indexed objects, if anything."""
    if type(entry) is not dict:
        return f"expected an object, got {json_kind(entry)}"
    if "index" not in entry:
        return "missing required key 'index'"
    index = entry["index"]
    if type(index) is not int:
        return f"expected an integer, got {json_kind(index)}"
    if not 0 <= index <= _MAX_INDEX:
        return f"expected an index from 0 to {_MAX_INDEX}, got {index}"
    return None

"""Reading untrusted, already-parsed JSON values with errors that say where.

Shared by the wire codec and the interop converters: every function takes the
value and its path (``"content[2].source"``) and returns the value with the
expected type or raises :class:`DecodeError` naming the path.  Paths are
built only when something is wrong or a container is entered, never per
scalar.

A value is read by its JSON kind, as :func:`json_kind` names it: a document
built in Python may hold any mapping where JSON has an object (a message's
read-only metadata, say), a tuple where it has an array, or a str enum where it
has a string (an enum member counts as its value), and reads as the plain value
(:func:`as_plain`).  The exact types a JSON parser makes are tested first, so
parsed documents never pay for this.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from .errors import DecodeError

__all__ = [
    "as_plain",
    "at",
    "item",
    "json_kind",
    "opt_bool",
    "opt_dict",
    "opt_int",
    "opt_list",
    "opt_number",
    "opt_str",
    "req",
    "req_bool",
    "req_dict",
    "req_int",
    "req_list",
    "req_number",
    "req_str",
]


def at(path: str, key: str) -> str:
    """The path of ``key`` inside the object at ``path``."""
    return f"{path}.{key}" if path else key


def item(path: str, index: int) -> str:
    """The path of element ``index`` of the array at ``path``."""
    return f"{path}[{index}]"


def json_kind(value: object) -> str:
    """How a JSON reader would name the value's type: object, array, string, …"""
    if isinstance(value, enum.Enum):  # written as its value
        value = value.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def as_plain(value: Any) -> Any:
    """``value`` as the plain type of its JSON kind: a mapping as a ``dict``, a tuple or list as a
    ``list``, a subclass of ``str``, ``int`` or ``float`` as that type, an enum member as its value;
    anything else as it is.  Only the outermost value: the items inside are read where they are."""
    if isinstance(value, enum.Enum):  # written as its value
        value = value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):  # a bool is an int, but no subclass of it exists
        return value
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return value


def _wrong(expected: str, value: object, path: str) -> DecodeError:
    return DecodeError(f"expected {expected}, got {json_kind(value)}", path)


def req(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """``obj[key]``; a missing key is an error at ``path`` (the object's own path)."""
    try:
        return obj[key]
    except KeyError:
        raise DecodeError(f"missing required key '{key}'", path) from None


def req_dict(value: object, path: str) -> dict[str, Any]:
    if type(value) is dict or type(value := as_plain(value)) is dict:
        return value
    raise _wrong("an object", value, path)


def opt_dict(value: object, path: str) -> dict[str, Any] | None:
    return None if value is None else req_dict(value, path)


def req_list(value: object, path: str) -> list[Any]:
    if type(value) is list or type(value := as_plain(value)) is list:
        return value
    raise _wrong("an array", value, path)


def opt_list(value: object, path: str) -> list[Any] | None:
    return None if value is None else req_list(value, path)


def req_str(value: object, path: str) -> str:
    if type(value) is str or type(value := as_plain(value)) is str:
        return value
    raise _wrong("a string", value, path)


def opt_str(value: object, path: str) -> str | None:
    return None if value is None else req_str(value, path)


def req_int(value: object, path: str) -> int:
    if type(value) is int or type(value := as_plain(value)) is int:
        return value
    # Java writes whole numbers as 1.0 when the field is a double; accept those for ints too.
    if type(value) is float and value.is_integer():
        return int(value)
    raise _wrong("an integer", value, path)


def opt_int(value: object, path: str) -> int | None:
    return None if value is None else req_int(value, path)


def req_number(value: object, path: str) -> float:
    if type(value) is float or type(value := as_plain(value)) is float:
        return value
    if type(value) is int:
        try:
            return float(value)
        except OverflowError:
            raise DecodeError(f"an integer of {value.bit_length()} bits is out of the range of a float", path) from None
    raise _wrong("a number", value, path)


def opt_number(value: object, path: str) -> float | None:
    return None if value is None else req_number(value, path)


def req_bool(value: object, path: str) -> bool:
    if type(value) is bool:
        return value
    raise _wrong("a boolean", value, path)


def opt_bool(value: object, path: str) -> bool | None:
    return None if value is None else req_bool(value, path)

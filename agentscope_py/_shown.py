"""Values as reprs and error messages show them: bounded, and never raising on what the library holds.

A value can be megabytes (an image as base64, a field of a hostile document),
hold thousands of items, or be an integer too long for Python to print.  Shown
whole it buries the log it lands in, or raises while an error is being worded;
these show the start of a long string and its length, the first items of a long
list or dict and their count, and a long integer by its size.
"""

from __future__ import annotations

from itertools import islice

import attrs

__all__ = ["SHOWN", "elided", "shown"]

#: How many characters of a long string are shown.
SHOWN = 48
# How many items of a list or dict are shown, and how deep: what lies beyond is counted, not shown.
_SHOWN_ITEMS = 20
_SHOWN_LEVELS = 20


def elided(text: str) -> str:
    """``repr(text)``, or for a long ``text`` its start and its length."""
    if len(text) <= 2 * SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}…({len(text):,} characters)"


def shown(value: object, level: int = 0, levels: int = _SHOWN_LEVELS) -> str:
    """``repr(value)``, with long strings, lists, tuples and dicts shortened (also inside one another,
    and inside messages, blocks and events, down to ``levels`` levels), and an integer too long to
    print given by its size."""
    if isinstance(value, str):
        return elided(str.__str__(value))
    if isinstance(value, dict):
        if level >= levels:
            return f"{{…({_items(len(value))})}}"
        items = [
            f"{shown(key, level + 1, levels)}: {shown(item, level + 1, levels)}"
            for key, item in islice(value.items(), _SHOWN_ITEMS)
        ]
        return "{" + ", ".join(items) + _more(len(value)) + "}"
    if isinstance(value, list):
        if level >= levels:
            return f"[…({_items(len(value))})]"
        items = [shown(item, level + 1, levels) for item in islice(value, _SHOWN_ITEMS)]
        return "[" + ", ".join(items) + _more(len(value)) + "]"
    if type(value) is tuple:  # a message's content
        if level >= levels:
            return f"(…({_items(len(value))}))"
        items = [shown(item, level + 1, levels) for item in islice(value, _SHOWN_ITEMS)]
        return "(" + ", ".join(items) + ("," if len(value) == 1 else "") + _more(len(value)) + ")"
    cls = type(value)
    if attrs.has(cls) and cls.__module__.startswith("agentscope_py."):
        return _shown_fields(value, cls, level, levels)  # a message, block or event, as attrs writes its repr
    try:
        return repr(value)
    except ValueError:  # an int past Python's limit on digits to print, or a container holding one
        if isinstance(value, int):
            return f"<an int of {value.bit_length():,} bits>"
        return f"<a {type(value).__name__} holding an int too long to print>"


def _shown_fields(value: object, cls: type[attrs.AttrsInstance], level: int, levels: int) -> str:
    if level >= levels:
        return f"{cls.__name__}(…)"
    fields = []
    for field in attrs.fields(cls):
        if field.repr:
            item = getattr(value, field.name)
            fields.append(f"{field.name}={field.repr(item) if callable(field.repr) else shown(item, level + 1, levels)}")
    return f"{cls.__name__}({', '.join(fields)})"


def _more(count: int) -> str:
    return f", …({_items(count)})" if count > _SHOWN_ITEMS else ""


def _items(count: int) -> str:
    return "1 item" if count == 1 else f"{count:,} items"

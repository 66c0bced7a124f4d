"""Values as reprs and error messages show them: bounded, and never raising.

A value can be megabytes (an image as base64, a field of a hostile document)
or an integer too long for Python to print.  Shown whole it buries the log it
lands in, or raises while an error is being worded; these show the start of a
long string and its length, and a long integer by its size.
"""

from __future__ import annotations

__all__ = ["SHOWN", "elided", "shown"]

#: How many characters of a long string are shown.
SHOWN = 48
# How deep into dicts and lists ``shown`` elides: deeper, the built-in repr takes over, so that a
# value nested hundreds of levels costs no Python stack frame per level.
_ELIDED_LEVELS = 20


def elided(text: str) -> str:
    """``repr(text)``, or for a long ``text`` its start and its length."""
    if len(text) <= 2 * SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}…({len(text):,} characters)"


def shown(value: object, level: int = 0) -> str:
    """``repr(value)``, its long strings elided (also inside dicts and lists), and an integer too
    long to print given by its size."""
    if isinstance(value, str):
        return elided(str.__str__(value))
    if level < _ELIDED_LEVELS:
        if isinstance(value, dict):
            inner = level + 1
            return "{" + ", ".join(f"{shown(key, inner)}: {shown(item, inner)}" for key, item in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(shown(item, level + 1) for item in value) + "]"
    try:
        return repr(value)
    except ValueError:  # an int past Python's limit on digits to print, or a container holding one
        if isinstance(value, int):
            return f"<an int of {value.bit_length():,} bits>"
        return f"<a {type(value).__name__} holding an int too long to print>"

"""Checking converter output against the provider SDKs' param types, all the way down.

pydantic validates a field typed ``Iterable[...]`` lazily: ``validate_python``
returns an iterator that checks each item only when it is read.  The SDKs type
message content, content parts and tool calls that way, so a bare
``validate_python`` checks nothing inside them; ``validate`` reads every such
iterator, so that each part is checked.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

__all__ = ["validate"]


def validate(adapter: TypeAdapter[Any], value: Any) -> None:
    """Validate ``value`` with ``adapter``, nested iterables included (raises ``ValidationError``)."""
    _consume(adapter.validate_python(value))


def _consume(value: Any) -> None:
    if isinstance(value, (str, bytes)):
        return
    if isinstance(value, dict):
        for item in value.values():
            _consume(item)
    elif hasattr(value, "__iter__"):  # a list, or the lazy iterator pydantic made for an Iterable field
        for item in value:
            _consume(item)

"""The tables every generated encoder and decoder looks classes up in (filled by ``_compile``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from ..errors import ArgumentTypeError
from ._values import Context

if TYPE_CHECKING:  # the declarations refer to kinds, which refer to these tables
    from ._spec import WireClass, WireUnion

__all__ = [
    "CLASSES",
    "CLASS_DECODERS",
    "DECODERS",
    "ENCODERS",
    "TAG_TABLES",
    "TYPED_DECODERS",
    "TYPED_LOCK",
    "UNIONS",
    "WRITERS",
    "Decoder",
    "Encoder",
    "WritersByClass",
]

Encoder = Callable[[Any], dict[str, Any]]
Decoder = Callable[[dict[str, Any], Context, int], Any]
_F = TypeVar("_F")


class WritersByClass(dict[type, _F]):
    """Class → the function that writes its instances.

    A subclass that adds no attributes to a registered class (``class
    MyMessage(UserMessage)`` with methods of its own) is written as that class:
    the format has a place for everything it holds.  Any other class is refused
    with an error saying why, where a plain dict would raise ``KeyError``.
    """

    __slots__ = ()

    def __missing__(self, cls: type) -> _F:
        for base in cls.__mro__[1:]:
            if dict.__contains__(self, base):
                if _attribute_names(cls) != _attribute_names(base):
                    raise ArgumentTypeError(
                        f"cannot write {cls.__name__} as JSON: it adds attributes to {base.__name__}, "
                        f"which the wire format has no place for; convert it to a {base.__name__} first"
                    )
                function = self[cls] = self[base]
                return function
        raise ArgumentTypeError(
            f"cannot write {cls.__name__} as JSON: it is not one of the classes the wire format knows "
            "(messages, blocks, sources, ChatUsage and events)"
        )


def _attribute_names(cls: type) -> list[str]:
    return [attribute.name for attribute in attrs.fields(cls)] if attrs.has(cls) else []


#: Class → its encoder (to a tree of plain values).
ENCODERS: WritersByClass[Encoder] = WritersByClass()
#: Class → its writer (straight to JSON text; see _json.write_text).
WRITERS: WritersByClass[Callable[[Any], str]] = WritersByClass()
#: Class asked for → the decoder that returns an instance of it (through its union, if it has one).
DECODERS: dict[type, Decoder] = {}
#: Decoders of documents already known to be of exactly this class.
CLASS_DECODERS: dict[type, Decoder] = {}
#: Union base → its tag key and the class decoder of each tag (unions without a default only).
TAG_TABLES: dict[type, tuple[str, dict[Any, Decoder]]] = {}
#: The declarations, for the schema.
CLASSES: dict[type, WireClass] = {}
UNIONS: dict[type, WireUnion] = {}
#: Class → its typed decoder (msgspec; ``None``: its documents take the generic path), made by
#: ``_typed`` on first use from the declarations: emptied by every registration, which may change them.
TYPED_DECODERS: dict[type, Callable[[str | bytes, Context], Any] | None] = {}
#: Held while a typed decoder is made (which registers a module for a moment: one at a time) and
#: while a registration empties the table, so that none made from the declarations it replaced stays.
TYPED_LOCK = threading.Lock()

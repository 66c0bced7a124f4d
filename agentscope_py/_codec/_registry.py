"""The tables every generated encoder and decoder looks classes up in (filled by ``_compile``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._values import Context

if TYPE_CHECKING:  # the declarations refer to kinds, which refer to these tables
    from ._spec import WireClass, WireUnion

__all__ = ["CLASSES", "CLASS_DECODERS", "DECODERS", "ENCODERS", "TAG_TABLES", "UNIONS", "WRITERS", "Decoder", "Encoder"]

Encoder = Callable[[Any], dict[str, Any]]
Decoder = Callable[[dict[str, Any], Context, int], Any]

#: Class → its encoder (to a tree of plain values).
ENCODERS: dict[type, Encoder] = {}
#: Class → its writer (straight to JSON text; see _json.write_text).
WRITERS: dict[type, Callable[[Any], str]] = {}
#: Class asked for → the decoder that returns an instance of it (through its union, if it has one).
DECODERS: dict[type, Decoder] = {}
#: Decoders of documents already known to be of exactly this class.
CLASS_DECODERS: dict[type, Decoder] = {}
#: Union base → its tag key and the class decoder of each tag (unions without a default only).
TAG_TABLES: dict[type, tuple[str, dict[Any, Decoder]]] = {}
#: The declarations, for the schema.
CLASSES: dict[type, WireClass] = {}
UNIONS: dict[type, WireUnion] = {}

"""Declarations of how a class looks on the wire: the one source of the encoder, decoder and schema."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from ._kinds import Kind

__all__ = ["NO_DEFAULT", "WireClass", "WireField", "WireUnion"]


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: A field without a default: its key must be present and, unless nullable, not null.
NO_DEFAULT: Any = _NoDefault()


@attrs.frozen
class WireField:
    """One JSON key of a class.

    - ``attr``: the attribute read on output and the keyword passed to ``build`` on input.
    - ``key``: the JSON key; ``aliases`` are other keys accepted on input (tried after ``key``).
    - ``nullable``: ``None`` is a value of the field (written as null unless ``omit`` says otherwise).
    - ``required``: the key must be present on input (and not null, unless ``nullable``).
    - ``default``: what a missing or null key reads as; unset, it is the attrs default of
      ``attr`` when there is one, else ``None`` for a nullable field.
    - ``omit``: ``"null"`` leaves the key out when the value is ``None``; ``"empty"`` also
      when it is an empty mapping or list.
    - ``read``: ``False`` for a key written but ignored on input (``totalTokens``).
    """

    attr: str
    key: str
    kind: Kind
    nullable: bool = False
    required: bool = False
    default: Any = NO_DEFAULT
    omit: Literal["never", "null", "empty"] = "never"
    aliases: tuple[str, ...] = ()
    read: bool = True


@attrs.frozen
class WireClass:
    """A class and its fields, in output order.

    ``tag`` is the discriminator value the class writes first under ``tag_key``
    (``{"type": "text", ...}``); ``None`` when a field carries it (a message's
    ``role``) or the class is not part of a union.  ``build`` makes an instance
    from the decoded fields, given positionally in declaration order; by default
    an attrs class is built from its fields as ``__init__`` would (see ``_compile``),
    any other class is called with the fields as keywords.
    """

    cls: type
    fields: tuple[WireField, ...]
    tag: str | None = None
    tag_key: str = "type"
    build: Callable[..., Any] | None = None


@attrs.frozen
class WireUnion:
    """A base class whose documents name their concrete class under ``key``.

    ``members`` maps each tag value to its class; ``default`` is the class of a
    document whose tag is missing or null (``None``: that is an error).
    """

    base: type
    key: str
    members: Mapping[str, type]
    default: type | None = None

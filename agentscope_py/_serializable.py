"""The JSON methods of the model classes, and the limits that guard decoding.

Messages, blocks, sources, usage and events inherit :class:`JsonSerializable`,
so mypy and readers see ``to_dict``/``to_json``/``from_dict``/``from_json`` on
every class.  The methods delegate to the codec (``agentscope_py._codec``),
which installs itself here when it is imported: by the first JSON call, or by
whatever imports it first (the events do).  The model therefore never imports
the codec at module level: data flows blocks → messages → codec, and a method
call costs one attribute lookup rather than a function-local import.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, Protocol, TypeVar

import attrs
from typing_extensions import Self

from .errors import ArgumentTypeError, ArgumentValueError, FrozenFieldError

__all__ = [
    "DEFAULT_LIMITS",
    "DEPTH_CEILING",
    "MAX_BLOCK_DEPTH",
    "DecodeLimits",
    "JsonSerializable",
    "check_limits",
    "install_codec",
]

_T = TypeVar("_T")

#: The most ``DecodeLimits.max_depth`` may be: as deep as the documents of what the API builds go.
#: The decoder takes at most two Python stack frames per level (an object in metadata), which keeps
#: the deepest document inside the default recursion limit (1000).
DEPTH_CEILING = 400
#: How deep a block's document may be, so that whatever holds it reads back: a message holds its
#: blocks two levels down (its ``content`` array), and an ``AgentResultEvent`` the message one more.
#: A stored value may be two levels less (``_frozen.MAX_STORED_DEPTH``): it sits in a mapping inside
#: a block, and an ``AgentStartEvent`` holds a message's metadata three levels down.
MAX_BLOCK_DEPTH = DEPTH_CEILING - 3


def _check_depth(instance: DecodeLimits, attribute: attrs.Attribute[int], value: int) -> None:
    if type(value) is not int:
        raise ArgumentTypeError(f"DecodeLimits.max_depth must be an int, got {value!r} ({type(value).__name__})")
    if not 1 <= value <= DEPTH_CEILING:
        raise ArgumentValueError(f"DecodeLimits.max_depth must be an int from 1 to {DEPTH_CEILING}, got {value!r}")


def _check_bytes(instance: DecodeLimits, attribute: attrs.Attribute[int], value: int) -> None:
    if type(value) is not int:
        raise ArgumentTypeError(f"DecodeLimits.max_bytes must be an int, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ArgumentValueError(f"DecodeLimits.max_bytes must be a positive int, got {value!r}")


@attrs.frozen
class DecodeLimits:
    """How much a decoder accepts before it refuses a document with a :class:`DecodeError`.

    ``max_depth``: the deepest nesting of JSON objects and arrays (the top-level
    object counts 1; each tool result nested in another adds 2).  At most 400.
    ``max_bytes``: the largest JSON text ``from_json`` reads, in bytes for
    ``bytes`` input and in characters for ``str``.  ``from_dict`` applies only
    ``max_depth``: a dict already in memory has cost what it costs.
    """

    max_depth: int = attrs.field(default=100, validator=_check_depth)
    max_bytes: int = attrs.field(default=64 * 1024 * 1024, validator=_check_bytes)


DEFAULT_LIMITS = DecodeLimits()


def check_limits(limits: object) -> None:
    if not isinstance(limits, DecodeLimits):
        raise ArgumentTypeError(
            f"limits must be a DecodeLimits, got {type(limits).__name__}; e.g. limits=DecodeLimits(max_depth=200)"
        )


class Codec(Protocol):
    """What the codec provides to the model classes (the ``_codec`` package implements it)."""

    def to_dict(self, obj: object) -> dict[str, Any]: ...
    def to_json(self, obj: object) -> str: ...
    def to_json_list(self, cls: type[_T], items: Iterable[_T]) -> str: ...
    def from_dict(self, cls: type[_T], data: object, limits: DecodeLimits) -> _T: ...
    def from_json(self, cls: type[_T], text: str | bytes | bytearray | memoryview, limits: DecodeLimits) -> _T: ...
    def from_json_list(
        self, cls: type[_T], text: str | bytes | bytearray | memoryview, limits: DecodeLimits
    ) -> list[_T]: ...


class _InstalledOnFirstUse:
    """Stands in for the codec until the first JSON call, which imports it.

    Importing the codec generates an encoder and a decoder for every class, a
    quarter of the package's import time: a program that never touches JSON
    should not pay for it, and one that does pays once.
    """

    def __getattr__(self, name: str) -> Any:
        importlib.import_module("._codec", __package__)  # calls install_codec
        if isinstance(_codec, _InstalledOnFirstUse):
            raise RuntimeError("agentscope_py._codec did not install itself")
        return getattr(_codec, name)


_codec: Codec = _InstalledOnFirstUse()  # replaced by install_codec when the codec is imported


def install_codec(codec: Codec) -> None:
    """Called once by ``agentscope_py._codec``."""
    global _codec
    _codec = codec


def _refuse_change(obj: Any, name: str, *value: object) -> NoReturn:
    cls = type(obj)
    fields = [field.name for field in attrs.fields(cls)]
    if name not in fields:  # a typo, or a class attribute: no copy can change it either
        raise FrozenFieldError(f"{cls.__name__} is immutable, and has no field {name!r}; its fields are {', '.join(fields)}")
    if name == "role" and getattr(cls, "_ROLE", None) is not None:
        how = "its class fixes it: build a message of another role with Msg.builder_for_role(role)"
    elif hasattr(obj, "with_content"):  # a message
        how = f"make a changed copy with copy.replace(msg, {name}=...) (msg.__replace__ before Python 3.13), or with_content / with_metadata"
    else:
        how = f"make a changed copy with attrs.evolve(obj, {name}=...)"
    done = "set" if value else "deleted"
    raise FrozenFieldError(f"{cls.__name__} is immutable: its {name!r} cannot be {done}; {how}")


class JsonSerializable:
    """``to_dict``/``to_json`` and the ``from_dict``/``from_json`` class methods, in AgentScope Java's format."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Each class attrs makes frozen gets attrs' refusal of a field change, a bare FrozenInstanceError:
        # this one is of the package's hierarchy too, and says what to do instead.  Set by setattr(),
        # not assigned: pyright reads an assignment as a __setattr__ of the class, which would let
        # it take any attribute name written to an instance (and count every subclass's type unknown).
        if "__attrs_attrs__" in cls.__dict__:
            setattr(cls, "__setattr__", _refuse_change)
            setattr(cls, "__delattr__", _refuse_change)

    # Every class with this base is immutable all the way down (its containers are tuples and frozen
    # mappings), so a copy is itself, as for a tuple of strings.  Copied field by field, a message
    # holding tool results nested as deeply as it may store them took deepcopy past Python's
    # recursion limit.
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: object) -> Self:
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON document as fresh, plain dicts and lists (mutating it cannot affect this object)."""
        return _codec.to_dict(self)

    def to_json(self) -> str:
        """The JSON text, compact, non-ASCII characters written as they are."""
        return _codec.to_json(self)

    @classmethod
    def to_json_list(cls, items: Iterable[Self]) -> str:
        """The JSON array of ``items`` (a history, as Java writes a ``List<Msg>``): what
        :meth:`from_json_list` reads back.  Each item must be an instance of this class."""
        return _codec.to_json_list(cls, items)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, limits: DecodeLimits = DEFAULT_LIMITS) -> Self:
        """Decode a parsed JSON document into an instance of this class (or its subclass named by the
        document's ``"type"``/``"role"``); raises :class:`~agentscope_py.DecodeError` when it is not one."""
        if limits is not DEFAULT_LIMITS:
            check_limits(limits)
        return _codec.from_dict(cls, data, limits)

    @classmethod
    def from_json(cls, text: str | bytes | bytearray | memoryview, *, limits: DecodeLimits = DEFAULT_LIMITS) -> Self:
        """Like :meth:`from_dict`, from JSON text (bytes, in any of Python's byte containers, must be UTF-8)."""
        if limits is not DEFAULT_LIMITS:
            check_limits(limits)
        return _codec.from_json(cls, text, limits)

    @classmethod
    def from_json_list(
        cls, text: str | bytes | bytearray | memoryview, *, limits: DecodeLimits = DEFAULT_LIMITS
    ) -> list[Self]:
        """Like :meth:`from_json`, from a JSON array of documents (a history, as Java writes a
        ``List<Msg>``): the list of what they decode to.  An error's path starts at the item's
        index (``[2].content[0]``); the array counts one level of ``limits.max_depth``."""
        if limits is not DEFAULT_LIMITS:
            check_limits(limits)
        return _codec.from_json_list(cls, text, limits)

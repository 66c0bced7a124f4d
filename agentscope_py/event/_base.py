"""``AgentEvent``, the base of every streaming event, and how event fields are checked.

Events are frozen attrs classes.  Java mutates an event in place
(``withSource``, ``withMetadata``); here those helpers return a copy that keeps
the ``id`` and ``created_at``, so an event can be shared between threads and
used as a dict key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

import attrs
from typing_extensions import Self

from .._blocks import ContentBlock
from .._checks import check_mapping, describe, is_iterable_of_items, unbuilt_hint, unordered_hint
from .._fields import checked_fields, register_converter
from .._frozen import EVENT_STORED_DEPTH
from .._ids import new_event_time, new_hex_id
from .._serializable import JsonSerializable
from .._shown import shown
from .._usage import ChatUsage
from ..errors import ArgumentTypeError
from ._types import AgentEventType

__all__ = ["AgentEvent", "event_fields", "optional_instance", "to_tuple"]

_COMMON_FIELDS = ("id", "created_at", "source", "metadata")
# What Java's String.isBlank skips (Character.isWhitespace): the Unicode space, line and paragraph
# separators but the no-break ones (U+00A0, U+2007, U+202F), and the ASCII controls below.  Python's
# str.strip() skips those three and U+0085 too: a key of them is blank to Python, not to Java.
_JAVA_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
)
_T = TypeVar("_T")


def event_fields(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]:  # type: ignore[type-arg]
    """The field transformer of every event class.

    It moves the common fields after the event's own ones, so reprs read
    ``TextBlockDeltaEvent(reply_id='r1', block_id='text', delta='Hel', id=…)``,
    and makes each field's repr elide long strings: a data delta, or a custom
    event carrying an image block, is megabytes of base64.  Fields are checked
    from their annotations, as blocks are, but only on the concrete classes
    (those with a ``type``): a shared field declared on an abstract base is then
    checked under the name of the class the user built.
    """
    own = [field for field in fields if field.name not in _COMMON_FIELDS]
    common = [field for field in fields if field.name in _COMMON_FIELDS]
    ordered = [field.evolve(repr=shown) for field in own + common]
    return checked_fields(cls, ordered) if "type" in vars(cls) else ordered


def _event_metadata(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    # Java omits empty metadata from JSON; storing it as None keeps decode(encode(e)) == e.
    if value is None:
        return None
    checked = check_mapping(value, "AgentEvent.metadata", depth=EVENT_STORED_DEPTH)
    return checked or None


# attrs gives these to every event's __init__, whose module need not import Mapping: as objects,
# not text, typing.get_type_hints can read them there.
_event_metadata.__annotations__ = {"value": Mapping[str, Any] | None, "return": Mapping[str, Any] | None}


@attrs.frozen(field_transformer=event_fields)
class AgentEvent(JsonSerializable):
    """One step of an agent's streamed reply; the base of the 31 event classes.

    ``id`` (32 hex characters) and ``created_at`` (ISO-8601 UTC) are generated
    unless given; a decoded document without them leaves them ``None``, as in
    Java.  ``source`` is the sub-agent path (``"main/researcher"``; ``None`` for
    the top-level agent).  ``type`` is fixed per class.
    """

    type: ClassVar[AgentEventType]
    METADATA_TASK_ID: ClassVar[str] = "taskId"
    METADATA_PARENT_SESSION_ID: ClassVar[str] = "parentSessionId"

    id: str | None = attrs.field(factory=new_hex_id, kw_only=True)
    created_at: str | None = attrs.field(factory=new_event_time, kw_only=True)
    source: str | None = attrs.field(default=None, kw_only=True)
    metadata: Mapping[str, Any] | None = attrs.field(default=None, kw_only=True, converter=_event_metadata)

    def __attrs_pre_init__(self) -> None:
        if not hasattr(self, "type"):
            raise ArgumentTypeError(
                f"{type(self).__name__} is abstract; build one of the event classes, "
                "e.g. TextBlockDeltaEvent('r1', 'text', 'Hel')"
            )

    def with_source(self, source: str | None) -> Self:
        """A copy tagged with the sub-agent path ``source`` (same id and time)."""
        return attrs.evolve(self, source=source)

    def with_metadata(self, metadata: Mapping[str, Any] | None) -> Self:
        """A copy whose metadata is ``metadata`` (empty or ``None`` clears it)."""
        return attrs.evolve(self, metadata=metadata)

    def with_metadata_entry(self, key: str | None, value: Any) -> Self:
        """A copy with ``metadata[key] = value``; a ``None`` value removes the key.

        As in Java, a ``None`` or blank key changes nothing (``self`` is returned).
        """
        if key is None:
            return self
        if not isinstance(key, str):
            raise ArgumentTypeError(
                f"{type(self).__name__}.with_metadata_entry key must be a str or None, got {describe(key)}"
            )
        if not key.strip(_JAVA_WHITESPACE):
            return self
        entries = dict(self.metadata or {})
        if value is None:
            entries.pop(key, None)
        else:
            entries[key] = value
        return attrs.evolve(self, metadata=entries)


# -- converters for the event field types ------------------------------------------
# Registered by annotation, so a field's annotation is the whole statement of what it accepts.


def to_tuple(value: Iterable[_T] | None, item_type: type[_T], arg: str) -> tuple[_T, ...]:
    """What a list field stores: ``None`` is empty (as in Java), any iterable of
    ``item_type`` becomes a tuple."""
    if value is None:
        return ()
    if type(value) is tuple and all(type(item) is item_type for item in value):
        return value
    what = item_type.__name__
    if not is_iterable_of_items(value):
        hint = unordered_hint(value, blocks=issubclass(item_type, ContentBlock))
        raise ArgumentTypeError(f"{arg} must be an iterable of {what}, got {describe(value)}{hint}")
    items = tuple(value)
    for index, item in enumerate(items):
        if not isinstance(item, item_type):
            raise ArgumentTypeError(f"{arg}[{index}] must be a {what}, got {describe(item)}{unbuilt_hint(item)}")
    return items


def optional_instance(item_type: type[Any], what: str) -> Callable[[Any, str], Any]:
    """A check for a nullable field holding an instance of ``item_type``."""

    def check(value: Any, arg: str) -> Any:
        if value is None or isinstance(value, item_type):
            return value
        raise ArgumentTypeError(f"{arg} must be {what} or None, got {describe(value)}")

    return check


def _check_bool(value: Any, arg: str) -> bool:
    raise ArgumentTypeError(f"{arg} must be a bool, got {describe(value)}")


register_converter("bool", (bool,), _check_bool)
register_converter("ChatUsage | None", (type(None), ChatUsage), optional_instance(ChatUsage, "a ChatUsage"))

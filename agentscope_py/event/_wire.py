"""How events look on the wire, declared for the shared codec (``agentscope_py._codec``).

Events need no hand-written field list: each event's wire fields are derived
from its attrs fields.  The JSON key is the camelCase field name; the kind of
value comes from the annotation (one table below); and every field follows the
same Java rules: null fields are left out (``@JsonInclude(NON_NULL)``), an
empty ``metadata`` too, and a missing or null key reads as the field's default
(``0`` for counts, ``None`` for the generated ``id`` and ``createdAt``).  The
order is Java's: ``type``, ``id``, ``createdAt``, the event's own fields,
``source``, ``metadata`` (``metadata`` before ``source`` for the tool-result
events, whose constructors take it).
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from .._blocks import ContentBlock, ToolResultBlock, ToolUseBlock
from .._codec import (
    Bool,
    Enum,
    Int,
    JsonObject,
    ListOf,
    Nested,
    Str,
    WireClass,
    WireField,
    WireUnion,
    register,
    register_union,
)
from .._codec._kinds import Kind, Schemas
from .._codec._spec import NO_DEFAULT
from .._enums import GenerateReason, ToolResultState
from .._frozen import EVENT_STORED_DEPTH
from .._messages import Msg
from .._usage import ChatUsage
from . import _block_events, _hitl_events, _lifecycle, _tool_events
from ._base import AgentEvent
from ._permission import ConfirmResult, PermissionBehavior, PermissionRule
from ._types import LEGACY_ALIASES

__all__: list[str] = []


class _CaseInsensitiveEnum(Enum):
    """An enum Java reads case-insensitively (``PermissionBehavior``): ``"ALLOW"`` is ``allow``.

    ASCII letters only, so that the schema can list every spelling.  Java's
    ``toLowerCase`` also folds the Kelvin sign (U+212A) to ``k``, and reads
    ``"AS\u212a"`` as ``ask``; no producer writes that."""

    def lookup(self, table: str, var: str) -> str:
        # Folded for the lookup alone: an error quotes the value as the document wrote it.
        return f"{table}.get({var}.lower()) if type({var}) is str and {var}.isascii() else None"

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        # Every spelling, listed: exact where a pattern's "$" would also take a trailing newline
        # (Python's re, which validators use), and the values are short.
        spellings = {
            "".join(letters)
            for value in self.by_value
            for letters in itertools.product(*({c.lower(), c.upper()} for c in value))
        }
        return {"enum": sorted(spellings)}


STR = Str()
OBJECT = JsonObject(EVENT_STORED_DEPTH)

# An event field's annotation → its kind of JSON value.
_KINDS: dict[str, Kind] = {
    "str": STR,
    "str | None": STR,
    "int": Int(),
    "Mapping[str, Any]": OBJECT,
    "Mapping[str, Any] | None": OBJECT,
    "ChatUsage | None": Nested(ChatUsage),
    "Msg | None": Nested(Msg),
    "ContentBlock | None": Nested(ContentBlock),
    "ToolResultState | None": Enum(ToolResultState),
    "GenerateReason": Enum(GenerateReason),
    "tuple[ToolUseBlock, ...]": ListOf(ToolUseBlock),
    "tuple[ToolResultBlock, ...]": ListOf(ToolResultBlock),
    "tuple[ConfirmResult, ...]": ListOf(ConfirmResult),
}

_LEADING = ("id", "created_at")
_TRAILING = ("source", "metadata")
# Jackson writes a constructor's properties first, in its order; these take metadata last.
_METADATA_IN_CONSTRUCTOR = (
    _tool_events.ToolResultStartEvent,
    _tool_events.ToolResultTextDeltaEvent,
    _tool_events.ToolResultDataDeltaEvent,
    _tool_events.ToolResultEndEvent,
)


def _camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def _event_field(cls: type, attribute: attrs.Attribute) -> WireField:  # type: ignore[type-arg]
    annotation = str(attribute.type)  # a string: the event modules use postponed annotations
    kind = _KINDS.get(annotation)
    if kind is None:
        raise TypeError(f"no wire kind for {cls.__name__}.{attribute.name}: {attribute.type}; add it to _KINDS")
    if isinstance(attribute.default, attrs.Factory):  # type: ignore[arg-type]
        default = None  # a generated value (id, created_at) is not invented when decoding, as in Java
    elif annotation == "int" and attribute.default is attrs.NOTHING:
        default = 0  # a Java int
    else:
        default = NO_DEFAULT  # the attrs default, else None, which the field's converter maps
    return WireField(
        attribute.name,
        _camel_case(attribute.name),
        kind,
        nullable=True,
        default=default,
        omit="empty" if attribute.name == "metadata" else "null",
    )


def event_wire_class(cls: type[AgentEvent]) -> WireClass:
    """The wire declaration of an event class, derived from its attrs fields."""
    attributes = attrs.fields_dict(cls)
    own = [name for name in attributes if name not in _LEADING + _TRAILING]
    trailing = _TRAILING[::-1] if cls in _METADATA_IN_CONSTRUCTOR else _TRAILING
    ordered = [*_LEADING, *own, *trailing]
    return WireClass(cls, tuple(_event_field(cls, attributes[name]) for name in ordered), tag=cls.type.value)


def _event_classes() -> list[type[AgentEvent]]:
    modules = (_lifecycle, _block_events, _tool_events, _hitl_events)
    return [getattr(module, name) for module in modules for name in module.__all__]


register(
    WireClass(
        PermissionRule,
        (
            WireField("tool_name", "tool_name", STR, required=True),
            WireField("rule_content", "rule_content", STR, nullable=True),
            WireField("behavior", "behavior", _CaseInsensitiveEnum(PermissionBehavior), required=True),
            WireField("source", "source", STR, required=True),
        ),
    ),
    # Not an event: no NON_NULL in Java, so a null tool call or rule list is written as null.
    WireClass(
        ConfirmResult,
        (
            WireField("confirmed", "confirmed", Bool(), nullable=True, default=False),
            WireField("tool_call", "toolCall", Nested(ToolUseBlock), nullable=True),
            WireField("rules", "rules", ListOf(PermissionRule), nullable=True),
        ),
    ),
)
_EVENT_CLASSES = _event_classes()
register(*(event_wire_class(cls) for cls in _EVENT_CLASSES))
_BY_TYPE = {cls.type: cls for cls in _EVENT_CLASSES}
register_union(
    WireUnion(
        AgentEvent,
        "type",
        {
            **{event_type.value: cls for event_type, cls in _BY_TYPE.items()},
            # Older producers' names decode too; output always uses the current name.
            **{alias: _BY_TYPE[event_type] for alias, event_type in LEGACY_ALIASES.items()},
        },
    )
)

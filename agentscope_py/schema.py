"""JSON Schema (draft 2020-12) of the wire format, generated from the codec's declarations.

The schema is derived from the same :class:`~agentscope_py._codec.WireClass`
declarations the encoder and decoder are generated from, so it describes what
the decoder accepts: a document the decoder refuses for its shape (a missing
key, a wrong type, an unknown ``type`` or a block the role does not allow) is
refused by the schema too.  What the schema cannot say is left to the decoder:
the nesting and size limits of :class:`~agentscope_py.DecodeLimits`.

Each union (blocks by ``"type"``, sources by ``"type"``, messages by ``"role"``)
is a ``oneOf`` with an OpenAPI-style ``discriminator`` annotation::

    >>> from agentscope_py import Msg
    >>> from agentscope_py.schema import json_schema
    >>> json_schema(Msg)["$defs"]["Msg"]["discriminator"]["propertyName"]
    'role'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._codec._compile import field_default
from ._codec._kinds import Schemas
from ._codec._registry import CLASSES, UNIONS
from ._codec._spec import NO_DEFAULT, WireClass, WireField, WireUnion
from ._checks import describe
from ._messages import Msg
from ._serializable import JsonSerializable
from .errors import ArgumentTypeError

__all__ = ["DIALECT", "json_schema"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema(root: type[JsonSerializable] = Msg) -> dict[str, Any]:
    """The JSON Schema of documents that decode to ``root`` (``Msg``, ``ContentBlock``, ``TextBlock``,
    ``Source``, ``ChatUsage``, or any class registered with the codec, such as the events).

    A fresh dict each call; ``json.dumps`` it to publish it.
    """
    given: object = root  # typed as a class, but callers without mypy may pass anything
    if not isinstance(given, type) or (given not in CLASSES and given not in UNIONS):
        raise ArgumentTypeError(
            "json_schema needs a class with a wire format (Msg, ContentBlock, TextBlock, Source, "
            f"ChatUsage, an event class), got {given.__name__ if isinstance(given, type) else describe(given)}"
        )
    builder = _Builder()
    reference = builder.ref(root)
    return {
        "$schema": DIALECT,
        "title": f"AgentScope {root.__name__} (wire format shared with AgentScope Java)",
        **reference,
        "$defs": dict(sorted(builder.defs.items())),
    }


class _Builder:
    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self.schemas = Schemas(self.ref, lambda base, members: self._union(UNIONS[base], members))
        # A class whose tag is a field (a message's role) gets that field pinned by its union.
        self.pinned: dict[type, tuple[str, str | None]] = {}
        # Every tag a class is read under: its own first, then any other names a union gives it.
        self.tags: dict[type, list[str]] = {}
        for union in UNIONS.values():
            for tag, member in union.members.items():
                own = CLASSES[member].tag
                if own is not None:
                    self.tags.setdefault(member, [own])
                    if tag != own:
                        self.tags[member].append(tag)
                if CLASSES[member].tag is None:
                    self.pinned[member] = (union.key, tag)
            if union.default is not None:
                self.pinned[union.default] = (union.key, None)

    def ref(self, cls: type) -> dict[str, Any]:
        """A reference to the documents of ``cls``: its union if it is a union's base, else its own."""
        if cls in UNIONS:
            return self._define(cls.__name__, lambda: self._union(UNIONS[cls]))
        return self._class_ref(cls)

    def _class_ref(self, cls: type) -> dict[str, Any]:
        if cls not in CLASSES:
            raise TypeError(f"{cls.__name__} has no wire format")
        # A union's base may also be its default member (Msg): the member gets its own name.
        name = f"{cls.__name__}WithoutRole" if cls in UNIONS else cls.__name__
        return self._define(name, lambda: self._class(CLASSES[cls]))

    def _define(self, name: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if name not in self.defs:
            self.defs[name] = {}  # reserve first: definitions may refer to each other
            self.defs[name] = make()
        return {"$ref": f"#/$defs/{name}"}

    def _union(self, union: WireUnion, only: tuple[type, ...] = ()) -> dict[str, Any]:
        """The union's ``oneOf`` and its discriminator; with ``only``, narrowed to those members (the
        blocks a role allows)."""
        # A class may answer to several tags (legacy names): it is one alternative, listed once.
        members = list(dict.fromkeys([*union.members.values(), *([] if union.default is None else [union.default])]))
        tags = list(union.members.items())
        if only:
            members = [member for member in members if member in only]
            tags = [(tag, member) for tag, member in tags if member in only]
        return {
            "oneOf": [self._class_ref(member) for member in members],
            "discriminator": {
                "propertyName": union.key,
                "mapping": {tag: self._class_ref(member)["$ref"] for tag, member in tags},
            },
        }

    def _class(self, spec: WireClass) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        if spec.tag is not None:
            tags = self.tags.get(spec.cls, [spec.tag])
            properties[spec.tag_key] = {"const": spec.tag} if len(tags) == 1 else {"enum": tags}
            required.append(spec.tag_key)
        aliased: list[dict[str, Any]] = []
        for field in spec.fields:
            properties[field.key] = self._field(spec, field)
            aliased += self._aliases(spec, field)
            if field.read and _required(spec, field):
                required.append(field.key)
        pinned = self.pinned.get(spec.cls)
        if pinned is not None:
            key, tag = pinned
            properties[key] = {"type": "null"} if tag is None else {"const": tag}
            if tag is not None:
                required.append(key)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        if aliased:
            schema["allOf"] = aliased
        return schema

    def _aliases(self, spec: WireClass, field: WireField) -> list[dict[str, Any]]:
        """The decoder reads an alias (``min_pixels``) only where the key (``minPixels``) is absent
        and the aliases before it are absent or null: each alias is checked only then."""
        value = self._field(spec, field)
        conditions = []
        for index, alias in enumerate(field.aliases):
            unread = [{"not": {"required": [field.key]}}, *(_absent_or_null(key) for key in field.aliases[:index])]
            conditions.append({"if": {"allOf": unread}, "then": {"properties": {alias: value}}})
        return conditions

    def _field(self, spec: WireClass, field: WireField) -> dict[str, Any]:
        schema = field.kind.schema(self.schemas)
        if not field.read:
            # Any value decodes, since none is read: the schema describes the documents that decode.
            written = schema.get("type", "any JSON value")
            return {"readOnly": True, "description": f"written on output ({written}), ignored on input: any value is accepted"}
        if field.nullable or not _required(spec, field):  # null reads as None or as the default
            schema = _or_null(schema)
        return schema


def _absent_or_null(key: str) -> dict[str, Any]:
    return {"anyOf": [{"not": {"required": [key]}}, {"properties": {key: {"type": "null"}}}]}


def _required(spec: WireClass, field: WireField) -> bool:
    return field.required or field_default(spec, field) is NO_DEFAULT


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and set(schema) <= {"type", "items"}:
        return {**schema, "type": [kind, "null"]}
    if "enum" in schema:
        return {"enum": [*schema["enum"], None]}
    if not schema:
        return schema  # any value already
    return {"anyOf": [schema, {"type": "null"}]}

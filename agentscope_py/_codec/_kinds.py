"""What a field's value is on the wire: how each kind is encoded, written, decoded and described.

A kind contributes four things from one definition: an expression that turns
a stored value into a plain JSON value, one that writes it as JSON text,
statements that check and convert a parsed value, and its JSON Schema.  The
code generator (``_compile``) splices the first three into the functions of
each class; ``agentscope_py.schema`` calls the fourth.  A kind never sees
``None``: null handling belongs to the field (``WireField``).
"""

from __future__ import annotations

import enum
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .. import _json
from .._checks import JAVA_INT_MAX, JAVA_INT_MIN
from .._frozen import EMPTY, MAX_STORED_DEPTH, stored_nesting, thawed
from .._reader import as_plain, item, json_kind, req_bool, req_dict, req_list, req_number, req_str
from .._shown import elided
from ..errors import ArgumentValueError, DecodeError, RoleContentError
from ._registry import DECODERS, ENCODERS, TAG_TABLES, WRITERS
from ._values import Context, freeze, freeze_object, role_error_within, within

__all__ = ["Bool", "Enum", "Float", "Int", "JsonObject", "JsonValue", "Kind", "ListOf", "Nested", "Str"]


class CodeGen:
    """Names the objects generated code refers to; ``ref`` returns a name valid in that code."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}

    def ref(self, obj: object, hint: str) -> str:
        for name, known in self.namespace.items():
            if known is obj:
                return name
        name = f"_{hint}_{len(self.namespace)}"
        self.namespace[name] = obj
        return name


class Schemas:
    """What a kind needs to write its schema: a ``$ref`` to the definition of a class or union, and
    the schema of a union narrowed to some of its members (``union(base, members)``)."""

    def __init__(
        self,
        ref: Callable[[type], dict[str, Any]],
        union: Callable[[type, tuple[type, ...]], dict[str, Any]],
    ) -> None:
        self.ref = ref
        self.union = union


class Kind:
    """The base of every kind; a subclass defines ``write`` and ``decode``, and ``encode``/``schema``
    where the value is not written as it is stored or the schema is not ``{"type": json_type}``."""

    #: The JSON Schema type of the value ("string", "object" …); the decoder's errors use it too.
    json_type: str = ""

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        """An expression turning the stored value ``expr`` into a plain JSON value; ``where`` names the
        field in errors."""
        return expr

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        """An expression turning the stored value ``expr`` into JSON text (what ``encode`` gives, written)."""
        raise NotImplementedError

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        """Statements that check the parsed, non-null value in ``var`` and replace it with the stored value."""
        raise NotImplementedError

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        return {"type": self.json_type}


class Str(Kind):
    json_type = "string"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(_json.encode_str, 'encode_str')}({expr})"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return [f"if type({var}) is not str: {var} = {gen.ref(req_str, 'req_str')}({var}, {path!r})"]


def _read_int(value: object, path: str, ctx: Context) -> int:
    value = as_plain(value)
    if type(value) is float and value.is_integer():
        # Java writes a whole number held in a double as 1.0: accept that for an int.
        ctx.check_float(value, path)
        if JAVA_INT_MIN <= value <= JAVA_INT_MAX:
            return int(value)
    elif type(value) is int:
        if JAVA_INT_MIN <= value <= JAVA_INT_MAX:
            return value
    else:
        raise DecodeError(f"expected an integer, got {json_kind(value)}", path)
    shown = repr(value) if abs(value) < 2**64 else f"a number of {int(value).bit_length()} bits"
    raise DecodeError(f"{shown} is out of the range of a Java int, which AgentScope Java reads it as", path)


class Int(Kind):
    """An integer field: a Java ``int`` (``_checks.JAVA_INT_MIN`` to ``JAVA_INT_MAX``)."""

    json_type = "integer"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(int.__repr__, 'int_repr')}({expr})"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        in_range = f"{JAVA_INT_MIN} <= {var} <= {JAVA_INT_MAX}"
        return [f"if type({var}) is not int or not {in_range}: {var} = {gen.ref(_read_int, 'read_int')}({var}, {path!r}, ctx)"]

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        return {"type": "integer", "minimum": JAVA_INT_MIN, "maximum": JAVA_INT_MAX}


def _finite(value: float, where: str) -> float:
    if value - value == 0.0:  # false for NaN and the infinities
        return value
    raise ArgumentValueError(f"{where} is {value}, which JSON cannot represent")


def _beyond_java_float(value: float, path: str) -> DecodeError:
    return DecodeError(f"{value!r} is more than a Java float holds (3.4028235e38 at most)", path)


class Float(Kind):
    """A number field: a Java ``double``; with ``overflow`` (``JAVA_FLOAT_OVERFLOW``), a Java
    ``float``, refusing the magnitudes that Java would read as infinity."""

    json_type = "number"

    def __init__(self, overflow: float | None = None) -> None:
        self.overflow = overflow

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        if self.overflow is not None:
            # The double below the overflow, not the overflow as an exclusive bound: a number written
            # less than half a step below the overflow is read as the overflow, and refused.  Numbers
            # that round down to this double, less than half a step above it, the schema refuses and
            # the decoder takes, as below.
            largest = math.nextafter(self.overflow, 0.0)
            return {"type": "number", "minimum": -largest, "maximum": largest}
        # The largest double, not the least number that overflows one (half a step above it): that
        # bound has 309 digits, which a parser reading numbers as doubles turns into infinity, and
        # Ajv then refuses the schema.  Only numbers that round down to the largest double fall
        # between the two: the decoder takes them, the schema does not.
        return {"type": "number", "minimum": -sys.float_info.max, "maximum": sys.float_info.max}

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(_finite, 'finite')}({expr}, {where!r})"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(float.__repr__, 'float_repr')}({self.encode(expr, gen, where)})"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        lines = [
            f"if type({var}) is not float: {var} = {gen.ref(req_number, 'req_number')}({var}, {path!r})",
            f"if {var} - {var} != 0.0: ctx.check_float({var}, {path!r})",
        ]
        if self.overflow is not None:
            beyond = f"{gen.ref(_beyond_java_float, 'beyond_java_float')}({var}, {path!r})"
            lines.append(f"if not {-self.overflow!r} < {var} < {self.overflow!r}: raise {beyond}")
        return lines


class Bool(Kind):
    json_type = "boolean"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(('false', 'true'), 'bool_text')}[{expr}]"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return [f"if type({var}) is not bool: {gen.ref(req_bool, 'req_bool')}({var}, {path!r})"]


def _enum_member(values: dict[str, enum.Enum], value: object, path: str) -> enum.Enum:
    """The member named by a value that is not a plain string of one (a str enum, say), or the error."""
    value = as_plain(value)
    member = values.get(value) if type(value) is str else None
    if member is not None:
        return member
    choices = ", ".join(repr(name) for name in values)
    if type(value) is not str:
        raise DecodeError(f"expected one of {choices}, got {json_kind(value)}", path)
    raise DecodeError(f"expected one of {choices}, got {elided(value)}{near_miss(value, values)}", path)


def near_miss(value: str, names: Iterable[str]) -> str:
    """``"; values are case-sensitive: did you mean 'ask'?"`` when ``value`` is one of ``names`` but
    for case, or for a letter that only looks like the ASCII one (the Kelvin sign lowers to "k")."""
    why = "values are case-sensitive" if value.isascii() else "it holds a letter that is not ASCII"
    lowered = value.lower()
    return next((f"; {why}: did you mean {name!r}?" for name in names if name.lower() == lowered), "")


class Enum(Kind):
    """An enum written as its ``value`` (``"USER"``, ``"pending"``)."""

    json_type = "string"

    def __init__(self, enum_cls: type[enum.Enum]) -> None:
        self.enum_cls = enum_cls
        self.by_value: dict[str, enum.Enum] = {member.value: member for member in enum_cls}

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{expr}.value"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        text = {member: _json.encode_str(value) for value, member in self.by_value.items()}
        return f"{gen.ref(text, self.enum_cls.__name__ + '_text')}[{expr}]"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        table = gen.ref(self.by_value, self.enum_cls.__name__)
        return [
            f"member = {self.lookup(table, var)}",
            f"{var} = {gen.ref(_enum_member, 'enum_member')}({table}, {var}, {path!r}) if member is None else member",
        ]

    def lookup(self, table: str, var: str) -> str:
        """The expression of the member a plain string ``var`` names in ``table``, else ``None``."""
        return f"{table}.get({var}) if type({var}) is str else None"

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        return {"enum": list(self.by_value)}


class JsonObject(Kind):
    """A free-form object (metadata, tool input): any JSON inside, stored read-only, its values nested
    at most ``stored_depth`` levels, as the class's constructor takes them (``MAX_STORED_DEPTH``)."""

    json_type = "object"

    def __init__(self, stored_depth: int = MAX_STORED_DEPTH) -> None:
        self.stored_depth = stored_depth

    def too_deep_to_store(self, var: str, depth: str, gen: CodeGen) -> str:
        """The condition that the stored ``var`` nests deeper than its class stores: looked at only
        where the levels left to the document (``depth``) would let it, never with the default limits."""
        levels = self.stored_depth + 1  # the object itself, and its values
        return f"{depth} > {levels} and {gen.ref(stored_nesting, 'stored_nesting')}({var}) > {levels}"

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"({gen.ref(thawed, 'thawed')}({expr}) if {expr} else {{}})"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        plain = f"{gen.ref(thawed, 'thawed')}({expr})"
        return f"({gen.ref(_json.encode_value, 'encode_value')}({plain}) if {expr} else '{{}}')"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return [
            f"if type({var}) is not dict: {var} = {gen.ref(req_dict, 'req_dict')}({var}, {path!r})",
            # An empty object is a level too: it is only taken as it is where one more level fits.
            f"if not {var} and depth > 0: {var} = {gen.ref(EMPTY, 'EMPTY')}",
            "else:",
            *(f"    {line}" for line in _guarded(f"{var} = {gen.ref(freeze_object, 'freeze_object')}({var}, ctx, depth)", path, gen)),
            f"    if {self.too_deep_to_store(var, 'depth', gen)}:",
            f"        raise {gen.ref(DecodeError, 'DecodeError')}("
            f"{f'nested too deeply to store (a value deeper than {self.stored_depth} levels)'!r}, {path!r})",
        ]


class JsonValue(JsonObject):
    """Any JSON value, stored as :func:`freeze` leaves it."""

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(thawed, 'thawed')}({expr})"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(_json.encode_value, 'encode_value')}({self.encode(expr, gen, where)})"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return _guarded(f"{var} = {gen.ref(freeze, 'freeze')}({var}, ctx, depth)", path, gen)

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        return {}


def _guarded(statement: str, path: str, gen: CodeGen) -> list[str]:
    # Errors raised inside a nested value get this field's path in front.
    return [
        "try:",
        f"    {statement}",
        f"except {gen.ref(DecodeError, 'DecodeError')} as error:",
        f"    raise {gen.ref(within, 'within')}(error, {path!r}) from None",
    ]


class Nested(Kind):
    """An object of a registered class or union (``source``, ``usage``, an event's ``result``)."""

    json_type = "object"

    def __init__(self, target: type) -> None:
        self.target = target

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(ENCODERS, 'encoders')}[type({expr})]({expr})"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        return f"{gen.ref(WRITERS, 'writers')}[type({expr})]({expr})"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return [
            f"if type({var}) is not dict: {var} = {gen.ref(req_dict, 'req_dict')}({var}, {path!r})",
            f"if depth <= 0: raise {gen.ref(within, 'within')}(ctx.too_deep(), {path!r})",
            *_guarded(f"{var} = {gen.ref(DECODERS, 'decoders')}[{gen.ref(self.target, self.target.__name__)}]({var}, ctx, depth - 1)", path, gen),
            # A message nested in an event (a result): its role error says where the message is.
            f"except {gen.ref(RoleContentError, 'RoleContentError')} as error:",
            f"    raise {gen.ref(role_error_within, 'role_error_within')}(error, {path!r}) from None",
        ]

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        return schemas.ref(self.target)


_NO_TAG_TABLE: tuple[str, dict[Any, Any]] = ("", {})


class WithoutNulls(list[Any]):
    """Items decoded from an array whose null entries were left out (a message's content), and
    where each stood in it (``indices``): a role error names a block as the document places it."""

    __slots__ = ("indices",)

    def __init__(self, items: list[Any], indices: list[int]) -> None:
        super().__init__(items)
        self.indices = indices


class ListOf(Kind):
    """An array of objects of a registered class or union (``content``, ``output``).

    ``drop_nulls``: null entries are skipped, as Java does for message content;
    otherwise they are an error.  ``schema_members`` narrows the items in the
    schema only (the role rules are checked in ``_roles``; the schema repeats them).
    """

    json_type = "array"

    def __init__(self, target: type, *, drop_nulls: bool = False, schema_members: tuple[type, ...] = ()) -> None:
        self.target = target
        self.drop_nulls = drop_nulls
        self.schema_members = schema_members

    def encode(self, expr: str, gen: CodeGen, where: str) -> str:
        encoders = gen.ref(ENCODERS, "encoders")
        return f"[{encoders}[type(x)](x) for x in {expr}]"

    def write(self, expr: str, gen: CodeGen, where: str) -> str:
        writers = gen.ref(WRITERS, "writers")
        return f"'[' + ','.join([{writers}[type(x)](x) for x in {expr}]) + ']'"

    def decode(self, var: str, path: str, gen: CodeGen) -> list[str]:
        return [f"{var} = {gen.ref(self._decode_items, 'decode_items')}({var}, ctx, depth, {path!r})"]

    def _decode_items(self, value: Any, ctx: Context, depth: int, path: str) -> list[Any]:
        if type(value) is not list:
            value = req_list(value, path)
        # The array, then the objects in it: anything else is no level (dropped, or refused as no object).
        if depth <= 0 or (depth == 1 and any(isinstance(raw, Mapping) for raw in value)):
            raise within(ctx.too_deep(), path)
        # A union's members are picked here rather than through its decoder: one call less per item.
        key, members = TAG_TABLES.get(self.target, _NO_TAG_TABLE)
        if members:
            # Every item an object naming a member: the common case, in one pass.  A plain loop,
            # not a comprehension: no function call, and the items made so far say where it stopped.
            decoded: list[Any] = []
            append = decoded.append
            try:
                for raw in value:
                    append(members[raw[key]](raw, ctx, depth - 2))
                return decoded
            except DecodeError as error:  # inside an item, which has said where: add which item
                raise within(error, item(path, len(decoded))) from None
            except (KeyError, TypeError):
                pass  # an item that is not an object naming a member: the loop below says which
        decode = DECODERS[self.target]
        items: list[Any] = []
        indices: list[int] = []
        for index, raw in enumerate(value):
            if raw is None and self.drop_nulls:
                continue
            if type(raw) is not dict:
                raw = req_dict(raw, item(path, index))
            tag = raw.get(key)
            try:
                items.append((members.get(tag, decode) if type(tag) is str else decode)(raw, ctx, depth - 2))
            except DecodeError as error:
                raise within(error, item(path, index)) from None
            indices.append(index)
        return items if len(items) == len(value) else WithoutNulls(items, indices)

    def schema(self, schemas: Schemas) -> dict[str, Any]:
        if self.schema_members:
            items = schemas.union(self.target, self.schema_members)
        else:
            items = schemas.ref(self.target)
        if self.drop_nulls:
            items = {"anyOf": [items, {"type": "null"}]}
        return {"type": "array", "items": items}

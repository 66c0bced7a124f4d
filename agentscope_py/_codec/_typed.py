"""Typed reading with msgspec, when it is installed: JSON text straight into checked structures.

msgspec parses JSON text into structs, checking every type and enum value on
the way, in C.  The structs here are generated from the same declarations as
the generic decoder (``_compile``), and so are the functions that turn a struct
into our object: they skip the checks msgspec made and keep the rest (nesting
depth, free-form values, the role rules, the models' own checks).

The typed path never has the last word on a bad document.  Whatever msgspec
refuses, and whatever the conversion cannot vouch for, raises :class:`Fallback`,
and the generic decoder reads the document again and words the error with its
path.  So both paths accept the same documents and give equal objects (tested
on every Java vector, generated messages and mutated documents).  A class whose
declaration the structs cannot mirror (a key also read under an alias) is left
out: documents of it, or holding it, go the generic way.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs
import msgspec

from .._checks import JAVA_INT_MAX, JAVA_INT_MIN
from .._frozen import EMPTY, FrozenDict
from ..errors import AgentScopeError
from ._compile import construct_statements, field_default
from ._kinds import Bool, CodeGen, Enum, Float, Int, JsonObject, JsonValue, Kind, ListOf, Nested, Str
from ._registry import CLASSES, TYPED_DECODERS, TYPED_LOCK, UNIONS
from ._spec import NO_DEFAULT, WireClass, WireField, WireUnion
from ._values import Context, freeze, freeze_object

__all__ = ["Fallback", "typed_decoder"]

TypedDecoder = Callable[[str | bytes, Context], Any]


class Fallback(Exception):
    """The typed path cannot vouch for this document: the generic decoder reads it."""


class _Unsupported(Exception):
    """A declaration the structs cannot mirror."""


_SCALARS: dict[type, str] = {Str: "str", Int: "int", Float: "float", Bool: "bool", JsonValue: "Any"}


def typed_decoder(cls: type) -> TypedDecoder | None:
    """The typed decoder of ``cls`` (a registered class or union base), made on first use; ``None``
    when its documents, or documents nested in them, have a shape the structs cannot mirror."""
    with TYPED_LOCK:
        if cls not in TYPED_DECODERS:
            try:
                TYPED_DECODERS[cls] = _Generator().decoder(cls)
            except _Unsupported:
                TYPED_DECODERS[cls] = None
        return TYPED_DECODERS[cls]  # read under the lock: a registration empties the table


def _union_of(cls: type) -> WireUnion | None:
    """The union ``cls`` is a member of: the generic decoder reads it through that union."""
    return next((union for union in UNIONS.values() if cls in union.members.values()), None)


class _Generator:
    """Writes the struct classes and the conversion functions reachable from one class, as source
    code: an annotation may then name a struct defined further down (a tool result holds blocks)."""

    def __init__(self) -> None:
        self.gen = CodeGen()  # the conversion functions' namespace
        self.table: dict[Any, Callable[..., Any]] = {}  # struct class -> its conversion
        self.table_name = self.gen.ref(self.table, "convert")
        self.fallback = f"raise {self.gen.ref(Fallback, 'Fallback')}"
        self.structs: list[str] = []  # source: struct classes and union aliases
        self.functions: list[str] = []  # source: conversion functions
        self.entries: dict[str, str] = {}  # struct name -> the name of its conversion
        self.annotations: dict[type, str] = {}  # class or union base -> the annotation naming it
        self.unions_done: dict[type, list[tuple[str, WireClass]]] = {}  # tagged union -> (struct, member)
        self.enums: dict[str, type] = {}  # the enums the structs hold, by the name annotations use

    def decoder(self, cls: type) -> TypedDecoder:
        root = self.annotation(cls)
        # msgspec resolves the structs' string annotations in their module when a decoder is made
        # for them: the module need only be importable until then.
        module = types.ModuleType(f"{__name__}_{cls.__name__}")
        module.__dict__.update(msgspec=msgspec, Any=Any, Union=typing.Union, **self.enums)
        sys.modules[module.__name__] = module
        try:
            exec(compile("\n\n".join(self.structs), f"<{module.__name__}>", "exec"), module.__dict__)
            parse = msgspec.json.Decoder(module.__dict__[root]).decode
        finally:
            del sys.modules[module.__name__]
        # The conversions name the struct classes (``if item_type is S1_TextBlock``).
        self.gen.namespace.update((name, module.__dict__[name]) for name in self.entries)
        exec(compile("\n".join(self.functions), f"<agentscope_py typed conversion: {cls.__name__}>", "exec"), self.gen.namespace)
        for struct, function in self.entries.items():
            self.table[module.__dict__[struct]] = self.gen.namespace[function]
        return _top_level(parse, self.table, cls)

    # -- structs ----------------------------------------------------------------------

    def annotation(self, target: type) -> str:
        """The annotation of a value decoded as ``target``: a struct, or a union of structs."""
        known = self.annotations.get(target)
        if known is not None:
            return known
        union = UNIONS.get(target) or _union_of(target)
        if union is None:
            spec = CLASSES.get(target)
            if spec is None:
                raise _Unsupported(target.__name__)
            name = self.annotations[target] = self.struct(spec, None, None)
            self.entries[name] = self.conversion(spec, name)
            return name
        if union.base is not target:  # a member read on its own goes through its union, as generically
            name = self.annotations[target] = self.annotation(union.base)
            return name
        if all(CLASSES[member].tag is not None for member in union.members.values()):
            name = self.annotations[target] = f"U_{target.__name__}"
            members, tags = [], []
            for tag, member in union.members.items():
                try:
                    struct = self.struct(CLASSES[member], union.key, tag)
                except _Unsupported:
                    continue  # msgspec refuses its tag, so documents holding one go the generic way
                self.entries[struct] = self.conversion(CLASSES[member], struct)
                members.append(struct)
                tags.append(tag)
            if not members:
                raise _Unsupported(target.__name__)
            self.structs.append(f"{name} = Union[{', '.join(members)}]")
            self.unions_done[target] = [(struct, CLASSES[union.members[tag]]) for struct, tag in zip(members, tags)]
            return name
        return self.field_tagged(union)

    def field_tagged(self, union: WireUnion) -> str:
        """A union whose tag is a field every member declares alike (a message's role): one struct,
        read once, and the member chosen by that field's value when the object is built."""
        if union.default is None or any(CLASSES[member].tag is not None for member in union.members.values()):
            raise _Unsupported(union.base.__name__)
        specs = [CLASSES[member] for member in (*union.members.values(), union.default)]
        if len({_reading(spec) for spec in specs}) != 1:
            raise _Unsupported(union.base.__name__)
        default = CLASSES[union.default]
        name = self.annotations[union.base] = self.struct(default, None, None)
        tag_attr = next((field.attr for field in default.fields if field.key == union.key), None)
        if tag_attr is None:
            raise _Unsupported(union.base.__name__)
        tag_kind = next(field.kind for field in default.fields if field.attr == tag_attr)
        if type(tag_kind) is not Enum:
            raise _Unsupported(union.base.__name__)
        function = f"convert_{name}"
        body, values = self.reading(default, "s", "depth", "")
        lines = [f"def {function}(s, ctx, depth):", *(f"    {line}" for line in body), f"    tag = s.{tag_attr}"]
        for tag, member in union.members.items():  # members compared by identity: hashing an enum runs Python
            value = self.gen.ref(tag_kind.by_value[tag], tag)
            lines.append(f"    if tag is {value}: return {self.build_call(CLASSES[member], values)}")
        lines.append(f"    return {self.build_call(default, values)}  # no tag")
        self.functions.append("\n".join(lines) + "\n")
        self.entries[name] = function
        return name

    def struct(self, spec: WireClass, tag_key: str | None, tag: str | None) -> str:
        name = f"S{len(self.structs)}_{spec.cls.__name__}"
        self.structs.append("")  # holds the place (and the name's number) while nested structs are written
        place = len(self.structs) - 1
        options = "" if tag is None else f", tag_field={tag_key!r}, tag={tag!r}"
        # gc=False: a struct lives only until its object is built and holds no cycles.
        lines = [f"class {name}(msgspec.Struct, kw_only=True, gc=False{options}):"]
        for field in _read_fields(spec):
            if field.aliases:
                raise _Unsupported(f"{spec.cls.__name__}.{field.attr} is also read as {field.aliases}")
            annotation = f"{self.kind_annotation(field.kind)} | None"
            default = "None" if field.key == field.attr else f"msgspec.field(default=None, name={field.key!r})"
            lines.append(f"    {field.attr}: {annotation!r} = {default}")
        if len(lines) == 1:
            lines.append("    pass")
        self.structs[place] = "\n".join(lines)
        return name

    def kind_annotation(self, kind: Kind) -> str:
        if type(kind) is Float and kind.overflow is not None:
            raise _Unsupported("a Java float: msgspec would not check its range")
        scalar = _SCALARS.get(type(kind))
        if scalar is not None:
            return scalar
        if type(kind) is Enum:  # msgspec reads an enum by its value, in C
            name = f"E_{kind.enum_cls.__name__}"
            self.enums[name] = kind.enum_cls
            return name
        if type(kind) is JsonObject:
            return "dict[str, Any]"
        if type(kind) is Nested:
            return self.annotation(kind.target)
        if type(kind) is ListOf:
            return f"list[{self.annotation(kind.target)}]"
        raise _Unsupported(type(kind).__name__)

    # -- conversion -------------------------------------------------------------------

    def conversion(self, spec: WireClass, struct: str) -> str:
        """A function turning a ``struct`` into ``spec.cls``, as the generic decoder would build it."""
        function = f"convert_{struct}"
        body, result = self.building(spec, "s", "depth", "")
        self.functions.append(f"def {function}(s, ctx, depth):\n" + "".join(f"    {line}\n" for line in [*body, f"return {result}"]))
        return function

    def building(self, spec: WireClass, source: str, depth: str, prefix: str) -> tuple[list[str], str]:
        """Statements turning the struct in ``source`` into ``spec.cls`` (``depth`` names the depth
        left; every variable made starts with ``prefix``), and the expression of the result."""
        body, values = self.reading(spec, source, depth, prefix)
        built, result = self.built(spec, values, prefix)
        return [*body, *built], result

    def reading(self, spec: WireClass, source: str, depth: str, prefix: str) -> tuple[list[str], dict[str, str]]:
        """Statements reading the fields of the struct in ``source``, and the variable holding each."""
        body: list[str] = []
        values: dict[str, str] = {}
        for index, field in enumerate(_read_fields(spec)):
            var = f"{prefix}f{index}"
            body += [f"{var} = {source}.{field.attr}", *self.read_field(spec, field, var, depth)]
            values[field.attr] = var
        return body, values

    def built(self, spec: WireClass, values: dict[str, str], prefix: str) -> tuple[list[str], str]:
        """Statements building ``spec.cls`` from the variables read, and the expression of the result."""
        gen = self.gen
        if spec.build is None and attrs.has(spec.cls):
            return construct_statements(spec.cls, values, gen, into=f"{prefix}o"), f"{prefix}o"
        if spec.build is None:
            return [], f"{gen.ref(spec.cls, 'build')}({', '.join(f'{a}={v}' for a, v in values.items())})"
        return [], f"{gen.ref(spec.build, 'build')}({', '.join(values.values())})"

    def build_call(self, spec: WireClass, values: dict[str, str]) -> str:
        """The expression building ``spec.cls`` with nothing but a call."""
        built, result = self.built(spec, values, "")
        if built:
            raise _Unsupported(f"{spec.cls.__name__} is built in statements")
        return result

    def read_field(self, spec: WireClass, field: WireField, var: str, depth: str) -> list[str]:
        """``_compile._decode_field`` without the type checks msgspec made."""
        default = field_default(spec, field)
        convert = self.read_kind(field.kind, var, depth)
        if field.required or default is NO_DEFAULT:
            # msgspec reads a missing key as null; only the generic decoder tells them apart.
            return [f"if {var} is None: {self.fallback}", *convert]
        if default is not None:
            first = f"if {var} is None: {var} = {self.gen.ref(default, 'default')}"
            return [first, "else:", *(f"    {line}" for line in convert)] if convert else [first]
        return [f"if {var} is not None:", *(f"    {line}" for line in convert)] if convert else []

    def read_kind(self, kind: Kind, var: str, depth: str) -> list[str]:
        """What the kind's decoder does beyond checking the type (``_kinds``)."""
        gen = self.gen
        if type(kind) is JsonObject:
            # An empty object is a level too: freeze_object refuses it where no more levels fit.
            return [
                f"{var} = {gen.ref(_freeze_parsed, 'freeze_parsed')}({var}, ctx, {depth}) if {var} or {depth} <= 0 else {gen.ref(EMPTY, 'EMPTY')}",
                f"if {kind.too_deep_to_store(var, depth, gen)}: {self.fallback}",
            ]
        if type(kind) is JsonValue:
            return [f"{var} = {gen.ref(freeze, 'freeze')}({var}, ctx, {depth})"]
        if type(kind) is Nested:
            return [
                f"if {depth} <= 0: {self.fallback}",
                f"{var} = {self.table_name}[type({var})]({var}, ctx, {depth} - 1)",
                *self.member_check(kind.target, f"not isinstance({var}, {{}})"),
            ]
        if type(kind) is ListOf:
            items = self.items_inline(kind.target, var, depth) or [
                f"{var} = [{self.table_name}[type(x)](x, ctx, {depth} - 2) for x in {var}]"
            ]
            return [
                f"if {depth} <= 0 or ({depth} == 1 and {var}): {self.fallback}",
                *items,
                *self.member_check(kind.target, f"not all(isinstance(x, {{}}) for x in {var})"),
            ]
        if type(kind) is Int:  # msgspec reads any 64-bit int; the generic decoder refuses one beyond Java's
            return [f"if not {JAVA_INT_MIN} <= {var} <= {JAVA_INT_MAX}: {self.fallback}"]
        return []

    def items_inline(self, target: type, var: str, depth: str) -> list[str]:
        """The items of a list of union members (a message's content) converted in the loop itself,
        each member's statements written out: a call and a lookup less per item, most of what a
        block costs beside its slots.  Empty when ``target``'s members are not all known yet (a
        union holding itself), or when a member would inline a list again."""
        members = self.unions_done.get(target)
        if not members or depth != "depth":
            return []
        item, left = f"{var}_item", f"{var}_depth"
        lines = [f"{left} = {depth} - 2", f"{var}_items = []", f"for {item} in {var}:", f"    {var}_type = type({item})"]
        keyword = "if"
        for struct, spec in members:
            if any(type(field.kind) is ListOf for field in spec.fields):
                continue  # a tool result: its own items stay a call away
            body, result = self.building(spec, item, left, f"{var}_{struct}_")
            lines.append(f"    {keyword} {var}_type is {struct}:")
            lines += [f"        {line}" for line in [*body, f"{var}_items.append({result})"]]
            keyword = "elif"
        lines += [
            "    else:",
            f"        {var}_items.append({self.table_name}[{var}_type]({item}, ctx, {left}))",
            f"{var} = {var}_items",
        ]
        return lines

    def member_check(self, target: type, test: str) -> list[str]:
        # A union member asked for by name: the generic decoder refuses another member.
        if _union_of(target) is None:
            return []
        return [f"if {test.format(self.gen.ref(target, target.__name__))}: {self.fallback}"]


def _read_fields(spec: WireClass) -> list[WireField]:
    return [field for field in spec.fields if field.read]


def _reading(spec: WireClass) -> tuple[object, ...]:
    """What decides how a class's fields are read: classes alike in it are read by the same statements."""
    return tuple(
        (field.attr, field.key, type(field.kind), getattr(field.kind, "target", None), field.required, id(field_default(spec, field)))
        for field in _read_fields(spec)
    )


def _freeze_parsed(value: dict[str, Any], ctx: Context, depth: int) -> FrozenDict:
    """:func:`freeze_object` of an object msgspec parsed, which has checked its scalars: keys are
    strings, numbers finite, integers within the digits Python writes (it refuses longer ones).
    Only the objects and arrays it holds need freezing, and most tool inputs hold none."""
    if depth <= 0:
        raise ctx.too_deep()
    for item in value.values():
        kind = type(item)
        if kind is dict or kind is list:
            return freeze_object(value, ctx, depth)
    return FrozenDict(value)


def _top_level(parse: Callable[[str | bytes], Any], table: dict[Any, Callable[..., Any]], cls: type) -> TypedDecoder:
    def decode(text: str | bytes, ctx: Context) -> Any:
        try:
            struct = parse(text)
        except (ValueError, RecursionError):  # msgspec's errors, and UnicodeDecodeError, are ValueErrors
            raise Fallback from None
        try:
            value = table[type(struct)](struct, ctx, ctx.max_depth - 1)
        except (AgentScopeError, RecursionError):
            raise Fallback from None
        if not isinstance(value, cls):
            raise Fallback
        return value

    return decode

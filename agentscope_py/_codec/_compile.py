"""The registry of wire classes, and the encoder and decoder generated for each.

``register`` turns a :class:`WireClass` into three functions specialised for it:
the encoder is one dict display over the attributes, the writer one f-string
of JSON text, and the decoder reads each key once, checks its type inline and
builds the instance without repeating those checks (converters that do more
than check a type still run; a message goes through ``Msg._from_decoded``, so
the role rules are checked where they always are).  Generating the code, as
attrs does for ``__init__``, removes the per-field loop and indirection that
dominate a generic codec's time.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import attrs

from .. import _json
from .._fields import construction_steps
from .._reader import as_plain, item, json_kind
from .._shown import elided, shown
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError
from ._kinds import CodeGen, Enum, Kind, ListOf, near_miss
from ._registry import (
    CLASS_DECODERS,
    CLASSES,
    DECODERS,
    ENCODERS,
    TAG_TABLES,
    TYPED_DECODERS,
    TYPED_LOCK,
    UNIONS,
    WRITERS,
    Decoder,
    Encoder,
)
from ._spec import NO_DEFAULT, WireClass, WireField, WireUnion
from ._values import Context, within

__all__ = ["construct_statements", "field_default", "register", "register_union"]


def register(*specs: WireClass) -> None:
    """Make ``specs`` encodable and decodable; a class registered again is replaced."""
    for spec in specs:
        CLASSES[spec.cls] = spec
        ENCODERS[spec.cls] = _compile_encoder(spec)
        WRITERS[spec.cls] = _compile_writer(spec)
        CLASS_DECODERS[spec.cls] = DECODERS[spec.cls] = _compile_decoder(spec)
    _forget_typed_decoders()


def register_union(union: WireUnion) -> None:
    """Decode ``union.base`` (and each member asked for by name) by the document's tag."""
    members = [*union.members.values(), *([] if union.default is None else [union.default])]
    missing = [cls.__name__ for cls in members if cls not in CLASS_DECODERS]
    if missing:
        raise TypeError(f"register the members of the {union.base.__name__} union first: {', '.join(missing)}")
    UNIONS[union.base] = union
    decode = _union_decoder(union)
    for tag, member in union.members.items():
        # A member's own tag, which it is written with, rather than one of its legacy aliases.
        DECODERS[member] = _checked(decode, member, union, CLASSES[member].tag or tag)
    if union.default is not None and union.default is not union.base:
        DECODERS[union.default] = _checked(decode, union.default, union, None)
    DECODERS[union.base] = decode
    if union.default is None:
        TAG_TABLES[union.base] = (union.key, {tag: CLASS_DECODERS[cls] for tag, cls in union.members.items()})
    else:
        TAG_TABLES.pop(union.base, None)
    _forget_typed_decoders()


def _forget_typed_decoders() -> None:
    """Empty the typed decoders, made from the declarations a registration has just changed; once
    any being made from the ones before is done (it holds the lock), so that it does not stay."""
    with TYPED_LOCK:
        TYPED_DECODERS.clear()


# -- decoding by tag ------------------------------------------------------------------


def _union_decoder(union: WireUnion) -> Decoder:
    key = union.key
    table = {tag: CLASS_DECODERS[cls] for tag, cls in union.members.items()}
    default = None if union.default is None else CLASS_DECODERS[union.default]

    def decode(document: dict[str, Any], ctx: Context, depth: int) -> Any:
        tag = document.get(key)
        if tag is None:
            if default is None:
                if key in document:
                    raise _unknown_tag(union, None)
                raise DecodeError(f"missing required key '{key}'")
            return default(document, ctx, depth)
        member = table.get(tag) if type(tag) is str else None
        if member is None:
            tag = as_plain(tag)  # a str subclass or an enum member, in a document built in Python
            member = table.get(tag) if type(tag) is str else None
            if member is None:
                raise _unknown_tag(union, tag)
        return member(document, ctx, depth)

    return decode


def _unknown_tag(union: WireUnion, tag: object) -> DecodeError:
    # The tags members are written with: legacy aliases, read too, are not what to write.
    known = ", ".join(sorted(name for name, member in union.members.items() if CLASSES[member].tag in (name, None)))
    if type(tag) is not str:
        # A number as written (by its size when too long to print); anything else by its JSON kind: an
        # array quoted would read differently built in Python ((), []) than parsed, and may be long.
        if isinstance(tag, (int, float)) and not isinstance(tag, bool):
            try:
                got = repr(tag)
            except ValueError:  # an int past Python's limit on digits to print
                got = f"a number of {int(tag).bit_length()} bits"
        else:
            got = json_kind(tag)
        return DecodeError(f"expected a string naming the {union.base.__name__} (one of {known}), got {got}", union.key)
    hint = near_miss(tag, union.members)
    return DecodeError(f"unknown {union.base.__name__} {union.key} {elided(tag)} (known: {known}){hint}", union.key)


def _checked(decode: Decoder, cls: type, union: WireUnion, tag: str | None) -> Decoder:
    """``decode``, refusing a document of another member (``TextBlock.from_dict`` of a tool call):
    by its tag before anything else is read, so that the error is about the tag."""
    key, members = union.key, union.members
    wanted = "null" if tag is None else repr(tag)

    def decode_member(document: dict[str, Any], ctx: Context, depth: int) -> Any:
        given = document.get(key)
        if type(given) is not str and isinstance(given, (str, enum.Enum)):  # read as its JSON would read
            given = as_plain(given)
        if type(given) is str and members.get(given, cls) is not cls:  # another member's tag
            raise DecodeError(f"expected {wanted} for {cls.__name__}, got {elided(given)}", key)
        value = decode(document, ctx, depth)
        if isinstance(value, cls):
            return value
        got = f"no {key!r}" if key not in document else "null" if document[key] is None else shown(as_plain(document[key]))
        raise DecodeError(f"expected {wanted} for {cls.__name__}, got {got}", key)

    return decode_member


# -- code generation ------------------------------------------------------------------


def _compile(source: str, gen: CodeGen, name: str) -> Any:
    exec(compile(source, f"<agentscope_py codec: {name}>", "exec"), gen.namespace)
    return gen.namespace[name]


def _compile_encoder(spec: WireClass) -> Encoder:
    gen = CodeGen()
    owner = spec.cls.__name__
    literal: list[str] = []
    if spec.tag is not None:
        literal.append(f"{spec.tag_key!r}: {spec.tag!r}")
    statements: list[str] = []
    for field in spec.fields:
        value = f"o.{field.attr}"
        encoded = field.kind.encode(value, gen, f"{owner}.{field.attr}")
        if field.nullable and encoded != value:
            encoded = f"(None if {value} is None else {encoded})"
        if field.omit == "never" and not statements:
            literal.append(f"{field.key!r}: {encoded}")
            continue
        if field.omit == "never":
            statements.append(f"d[{field.key!r}] = {encoded}")
        else:
            test = f"{value} is not None" if field.omit == "null" else value
            statements.append(f"if {test}: d[{field.key!r}] = {field.kind.encode(value, gen, f'{owner}.{field.attr}')}")
    name = f"encode_{owner}"
    body = [f"d = {{{', '.join(literal)}}}", *statements, "return d"]
    return _compile(f"def {name}(o):\n" + "".join(f"    {line}\n" for line in body), gen, name)  # type: ignore[no-any-return]


def _compile_writer(spec: WireClass) -> Callable[[Any], str]:
    """The encoder's twin that writes JSON text directly, for the standard-library backend.

    Keys and punctuation are constants of the generated code; only values are
    written at run time, so no intermediate dicts are built and walked.
    """
    gen = CodeGen()
    owner = spec.cls.__name__
    # (constant JSON text before the value, expression writing the value or None, test to omit it or None)
    parts: list[tuple[str, str | None, str | None]] = []
    if spec.tag is not None:
        parts.append((f"{_json.encode_str(spec.tag_key)}:{_json.encode_str(spec.tag)}", None, None))
    for field in spec.fields:
        value = f"o.{field.attr}"
        written = field.kind.write(value, gen, f"{owner}.{field.attr}")
        if field.nullable and field.omit == "never":
            written = f"('null' if {value} is None else {written})"
        test = {"never": None, "null": f"{value} is not None", "empty": value}[field.omit]
        parts.append((f"{_json.encode_str(field.key)}:", written, test))
    name = f"write_{owner}"
    if all(test is None for _, _, test in parts):
        # One f-string: the constant text and the values are joined in a single step.
        text = ",".join(
            constant.replace("{", "{{").replace("}", "}}") + ("" if value_text is None else f"{{{value_text}}}")
            for constant, value_text, _ in parts
        )
        body = [f'return f"""{{{{{text}}}}}"""']
    else:
        body = ["p = []"]
        for constant, value_text, omit_test in parts:
            piece = repr(constant) if value_text is None else f"{constant!r} + {value_text}"
            body.append(f"p.append({piece})" if omit_test is None else f"if {omit_test}: p.append({piece})")
        body.append("return '{' + ','.join(p) + '}'")
    return _compile(f"def {name}(o):\n" + "".join(f"    {line}\n" for line in body), gen, name)  # type: ignore[no-any-return]


_EXPECTED = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
}


def _expected(kind: Kind) -> str:
    if isinstance(kind, Enum):
        return "one of " + ", ".join(repr(value) for value in kind.by_value)
    return _EXPECTED.get(kind.json_type, "a JSON value")


def field_default(spec: WireClass, field: WireField) -> Any:
    """What a missing or null key reads as (``NO_DEFAULT``: it must be present and non-null)."""
    if field.default is not NO_DEFAULT:
        return field.default
    if attrs.has(spec.cls):
        attribute = attrs.fields_dict(spec.cls).get(field.attr)
        if attribute is not None and attribute.default is not attrs.NOTHING:
            if isinstance(attribute.default, attrs.Factory):  # type: ignore[arg-type]
                raise TypeError(f"give {spec.cls.__name__}.{field.attr} an explicit WireField default")
            return attribute.default
    return None if field.nullable else NO_DEFAULT


def _decode_field(spec: WireClass, field: WireField, v: str, gen: CodeGen) -> list[str]:
    lines = [f"{v} = d.get({field.key!r})"]
    # Java applies the written key after the constructor's alias: present, even as null, it wins.
    lines += [f"if {v} is None and {field.key!r} not in d: {v} = d.get({alias!r})" for alias in field.aliases]
    default = field_default(spec, field)
    keys = (field.key, *field.aliases)
    convert = _items_inline(field.kind, v, field.key, gen) or field.kind.decode(v, field.key, gen)
    if field.aliases:  # an error names the key the value was read under
        convert = [
            "try:",
            *(f"    {line}" for line in convert),
            f"except {gen.ref(DecodeError, 'DecodeError')} as error:",
            f"    raise {gen.ref(_under_key_read, 'under_key_read')}(error, d, {keys!r}) from None",
        ]
    if field.required or default is NO_DEFAULT:
        present = " or ".join(f"{key!r} in d" for key in keys)
        missing = f"raise {gen.ref(DecodeError, 'DecodeError')}(\"missing required key '{field.key}'\")"
        null = (
            "pass"
            if field.nullable
            else f"raise {gen.ref(DecodeError, 'DecodeError')}({'expected ' + _expected(field.kind) + ', got null'!r}, {field.key!r})"
        )
        lines += [f"if {v} is None:", f"    if not ({present}): {missing}", f"    {null}"]
    elif default is not None:
        lines += [f"if {v} is None:", f"    {v} = {gen.ref(default, 'default')}"]
    else:  # null reads as None, as it is
        return [*lines, f"if {v} is not None:", *(f"    {line}" for line in convert)]
    lines += ["else:", *(f"    {line}" for line in convert)]
    return lines


def _under_key_read(error: DecodeError, document: dict[str, Any], keys: tuple[str, ...]) -> DecodeError:
    """``error``, raised at the first of ``keys``, moved to the one of them the value was read under
    (the first present, as ``_decode_field`` reads them: a key, then its aliases while it is absent)."""
    read = keys[0] if keys[0] in document else next(key for key in keys[1:] if document.get(key) is not None)
    return DecodeError(error.reason, read + error.path[len(keys[0]) :])


def _items_inline(kind: Kind, v: str, path: str, gen: CodeGen) -> list[str]:
    """For a list of union members whose union is registered (a message's content): the items
    decoded in the loop itself, each member's statements written out, which saves a call and a
    lookup per item.  The loop rebinds ``d`` and ``depth``, so the members' statements read as in
    their own decoders.  Anything unusual (not a list, too deep, an item naming no member) goes to
    ``ListOf._decode_items``, which words the error.  Empty when this does not apply."""
    if type(kind) is not ListOf or kind.target not in UNIONS or kind.target not in TAG_TABLES:
        return []
    union = UNIONS[kind.target]
    decode_items = f"{gen.ref(kind._decode_items, 'decode_items')}({v}, ctx, depth, {path!r})"
    members = gen.ref(TAG_TABLES[kind.target][1], "members")
    lines = [
        f"if type({v}) is list and depth > 1:",
        f"    {v}_d, {v}_depth, {v}_items = d, depth, []",
        "    depth -= 2",
        "    try:",
        f"        for d in {v}:",
        f"            tag = d[{union.key!r}]",
    ]
    keyword = "if"
    for tag, member in union.members.items():
        spec = CLASSES[member]
        if any(type(field.kind) is ListOf for field in spec.fields):
            continue  # a tool result: its own items stay a call away
        lines.append(f"            {keyword} tag == {tag!r}:")
        lines += [f"                {line}" for line in [*_decoding(spec, gen, f"{v}_{member.__name__}_"), f"{v}_items.append({v}_{member.__name__}_o)"]]
        keyword = "elif"
    lines += [
        "            else:",
        f"                {v}_items.append({members}[tag](d, ctx, depth))",
        f"    except {gen.ref(DecodeError, 'DecodeError')} as error:  # inside an item, which said where",
        f"        raise {gen.ref(within, 'within')}(error, {gen.ref(item, 'item')}({path!r}, len({v}_items))) from None",
        "    except (KeyError, TypeError):  # an item that is not an object naming a member",
        f"        {v}_items = None",
        "    finally:",
        f"        d, depth = {v}_d, {v}_depth",
        f"    {v} = {decode_items} if {v}_items is None else {v}_items",
        "else:",
        f"    {v} = {decode_items}",
    ]
    return lines


def _decoding(spec: WireClass, gen: CodeGen, prefix: str) -> list[str]:
    """Statements reading the document ``d`` as ``spec.cls`` into the variable ``{prefix}o``."""
    body: list[str] = []
    values: dict[str, str] = {}
    for index, field in enumerate(field for field in spec.fields if field.read):
        body += _decode_field(spec, field, f"{prefix}f{index}", gen)
        values[field.attr] = f"{prefix}f{index}"
    if spec.build is None and attrs.has(spec.cls):
        build = construct_statements(spec.cls, values, gen, into=f"{prefix}o")
    elif spec.build is None:
        arguments = ", ".join(f"{attr}={value}" for attr, value in values.items())
        build = [f"{prefix}o = {gen.ref(spec.cls, 'build')}({arguments})"]
    else:
        build = [f"{prefix}o = {gen.ref(spec.build, 'build')}({', '.join(values.values())})"]
    errors = gen.ref((ArgumentTypeError, ArgumentValueError), "model_errors")
    return [
        *body,
        "try:",
        *(f"    {line}" for line in build),
        f"except {errors} as error:",  # a model invariant the JSON types cannot express
        f"    raise {gen.ref(DecodeError, 'DecodeError')}(str(error)) from None",
    ]


def _compile_decoder(spec: WireClass) -> Decoder:
    gen = CodeGen()
    name = f"decode_{spec.cls.__name__}"
    body = [*_decoding(spec, gen, ""), "return o"]
    return _compile(f"def {name}(d, ctx, depth):\n" + "".join(f"    {line}\n" for line in body), gen, name)  # type: ignore[no-any-return]


def construct_statements(cls: type, values: dict[str, str], gen: CodeGen, into: str = "o") -> list[str]:
    """Statements making an attrs instance, in the variable ``into``, from decoded ``values``
    (attribute → variable).

    The decoder has checked every type, so the converters that only check a type
    are skipped; any other converter (a generated id, a list made a tuple) runs
    as in ``__init__``, and so does ``__attrs_post_init__``.  Attributes the document
    does not carry take their default.
    """
    lines = [f"{into} = {gen.ref(object.__new__, 'new')}({gen.ref(cls, cls.__name__)})"]
    for attribute, setter, converter in construction_steps(cls):
        value = values.get(attribute.name)
        if value is None:
            if attribute.default is attrs.NOTHING or isinstance(attribute.default, attrs.Factory):  # type: ignore[arg-type]
                raise TypeError(f"{cls.__name__}.{attribute.name} needs a WireField or a plain default")
            value = gen.ref(attribute.default, "default")
        if converter is not None:
            value = f"{gen.ref(converter, 'convert')}({value})"
        lines.append(f"{gen.ref(setter, 'set_' + attribute.name)}({into}, {value})")
    if hasattr(cls, "__attrs_post_init__"):  # a check across fields (how deep results nest), as __init__ runs it
        lines.append(f"{into}.__attrs_post_init__()")
    return lines

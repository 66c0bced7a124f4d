"""``checked_fields``: the attrs field transformer every block, source and usage class uses.

Classes are declared ``@attrs.frozen(field_transformer=checked_fields)``.  Fields
are checked from their annotations: the transformer picks the converter for each
field's declared type, so the annotation is the single statement of what a field
accepts.  A field whose type has no converter here fails at import, not silently
at run time; a field that needs more than a type check declares its own
converter and is left alone.

Converters test the exact type inline and only call the full check (which
builds the error message) when that fast test fails: construction is the hot
path of the whole library.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from . import _checks
from ._enums import ToolCallState, ToolResultState

__all__ = [
    "checked_fields",
    "construction_steps",
    "is_type_check",
    "mark_type_checks",
    "register_converter",
    "unchecked_init",
]

Converter = Callable[[Any], Any]
_T = TypeVar("_T")

# The converters that only check a type (a frozen mapping counts: it passes as it is).
# The decoder, which has checked the type already, skips them; see _codec._compile.
_TYPE_CHECKS: set[Converter] = set()


def is_type_check(converter: object) -> bool:
    """Whether ``converter`` returns every value of its field's type unchanged."""
    return converter in _TYPE_CHECKS


def mark_type_checks(*converters: Converter) -> None:
    """Mark hand-written converters as ones that return every value of their field's type unchanged."""
    _TYPE_CHECKS.update(converters)


def _exact(exact: tuple[type, ...], check: Callable[[Any, str], Any]) -> Callable[[str], Converter]:
    """A converter factory: values of the ``exact`` types pass as they are, others go to ``check``."""

    def factory(arg: str) -> Converter:
        def convert(value: Any) -> Any:
            if type(value) in exact:
                return value
            return check(value, arg)

        _TYPE_CHECKS.add(convert)
        return convert

    return factory


def _optional(exact: tuple[type, ...], check: Callable[[Any, str], Any]) -> Callable[[str], Converter]:
    return _exact((type(None), *exact), check)


def _java_int(*, optional: bool) -> Callable[[str], Converter]:
    """A converter factory for an integer field: an int in Java's range passes as it is (and ``None``
    when ``optional``); anything else goes to the check that words the error."""
    low, high = _checks.JAVA_INT_MIN, _checks.JAVA_INT_MAX
    check = _checks.check_optional_int if optional else _checks.check_int

    def factory(arg: str) -> Converter:
        def convert(value: Any) -> Any:
            if type(value) is int and low <= value <= high:
                return value
            return check(value, arg)

        _TYPE_CHECKS.add(convert)  # the decoder checks the range itself (_codec._kinds.Int)
        return convert

    return factory


def _finite_float(*, optional: bool) -> Callable[[str], Converter]:
    """A converter factory for a float field: a finite float passes as it is (and ``None`` when
    ``optional``); anything else goes to the check, which converts an int and refuses NaN."""
    check = _checks.check_optional_float if optional else _checks.check_float

    def factory(arg: str) -> Converter:
        def convert(value: Any) -> Any:
            if type(value) is float and value - value == 0.0:
                return value
            return check(value, arg)

        _TYPE_CHECKS.add(convert)  # the decoder refuses NaN and the infinities itself
        return convert

    return factory


def _enum(enum_cls: type[enum.Enum]) -> Callable[[str], Converter]:
    def check(value: Any, arg: str) -> Any:
        return _checks.check_enum(value, enum_cls, arg)

    return _exact((enum_cls,), check)


def _mapping(arg: str) -> Converter:
    def convert(value: Any) -> Any:
        return _checks.check_mapping(value, arg)

    _TYPE_CHECKS.add(convert)
    return convert


_FACTORIES: dict[str, Callable[[str], Converter]] = {
    "str": _exact((str,), _checks.check_str),
    "str | None": _optional((str,), _checks.check_optional_str),
    "int": _java_int(optional=False),
    "int | None": _java_int(optional=True),
    # floats are stored as float, so ints go through the check, which converts them
    "float": _finite_float(optional=False),
    "float | None": _finite_float(optional=True),
    "Mapping[str, Any]": _mapping,
    "ToolCallState": _enum(ToolCallState),
    "ToolResultState": _enum(ToolResultState),
}


def register_converter(annotation: str, exact: tuple[type, ...], check: Callable[[Any, str], Any]) -> None:
    """Teach ``checked_fields`` a type declared after this module (``Source``): ``exact`` types pass."""
    _FACTORIES[annotation] = _exact(exact, check)


def checked_fields(cls: type, fields: list[attrs.Attribute]) -> list[attrs.Attribute]:  # type: ignore[type-arg]
    checked = []
    for field in fields:
        if field.converter is None:
            factory = _FACTORIES.get(str(field.type))
            if factory is None:
                raise TypeError(f"no argument check for {cls.__name__}.{field.name}: {field.type}")
            converter = factory(f"{cls.__name__}.{field.name}")
            # attrs gives __init__ the converter's parameter type: the field's, for help() and IDEs.
            converter.__annotations__ = {"value": field.type, "return": field.type}
            field = field.evolve(converter=converter)
        checked.append(field)
    return checked


# -- building instances from values whose types are known ------------------------------------


def construction_steps(cls: type) -> list[tuple[attrs.Attribute, Callable[[object, Any], None], Converter | None]]:  # type: ignore[type-arg]
    """For each attribute of the slotted attrs class ``cls``, in order: the attribute, its slot's
    setter, and the converter that must still run on a value already of the right type (``None``
    where the converter only checks the type).

    The JSON decoder and the event assembler build instances this way: they have checked every
    type (or made every value) themselves, and a frozen class refuses ``setattr``."""
    steps = []
    for attribute in attrs.fields(cls):
        converter = attribute.converter
        if converter is not None and is_type_check(converter):
            converter = None
        steps.append((attribute, _slot_setter(cls, attribute.name), converter))
    return steps


def _slot_setter(cls: type, name: str) -> Callable[[object, Any], None]:
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name].__set__  # type: ignore[no-any-return]
    raise TypeError(f"{cls.__name__} must be a slotted attrs class (attrs.frozen) to be built from checked values")


def unchecked_init(cls: type[_T]) -> Callable[..., _T]:
    """A function taking what ``cls(...)`` takes (the same parameters and defaults, factories called
    as ``__init__`` calls them) that skips the converters which only check a type: for callers that
    made each value themselves or checked it already (the assembler's blocks, the SSE parser's
    messages, the emitters' events), where the class's own ``__init__`` would check each again.
    No ``__attrs_pre_init__`` runs: ``cls`` must be a class one may build."""
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, "UNSET": _UNSET}
    positional: list[str] = []
    keywords: list[str] = []
    body = ["o = new(cls)"]
    for attribute, setter, converter in construction_steps(cls):
        name = attribute.name
        namespace[f"set_{name}"] = setter
        default: Any = attribute.default  # attrs types a Factory as what it makes
        if default is attrs.NOTHING:
            parameter = name
        elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            if default.takes_self:
                raise TypeError(f"{cls.__name__}.{name}: a factory taking self has no unchecked form")
            namespace[f"factory_{name}"] = default.factory
            parameter = f"{name}=UNSET"
            body.append(f"if {name} is UNSET: {name} = factory_{name}()")
        else:
            namespace[f"default_{name}"] = default
            parameter = f"{name}=default_{name}"
        (keywords if attribute.kw_only else positional).append(parameter)
        value = name
        if converter is not None:
            namespace[f"convert_{name}"] = converter
            value = f"convert_{name}({name})"
        body.append(f"set_{name}(o, {value})")
    parameters = ", ".join([*positional, *(["*", *keywords] if keywords else [])])
    source = f"def init_{cls.__name__}({parameters}):\n" + "".join(f"    {line}\n" for line in [*body, "return o"])
    exec(compile(source, f"<agentscope_py unchecked init: {cls.__name__}>", "exec"), namespace)
    return namespace[f"init_{cls.__name__}"]  # type: ignore[no-any-return]


_UNSET: Any = object()  # a parameter whose default is made by a factory, not given

"""Java-style fluent builders for the value classes, one setter per field.

A builder is declared as data::

    class TextBlockBuilder(Builder[TextBlock], target=TextBlock):
        text = FieldSetter[str]()

``FieldSetter`` is a descriptor: ``builder.text("hi")`` records the value and
returns the builder, and mypy sees the setter's argument and return types.
``build()`` calls the target class, so a built object is checked exactly as a
constructed one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar, cast, overload

from typing_extensions import Self

from ._checks import NestedTooDeeply, is_iterable_of_items
from ._frozen import MAX_STORED_DEPTH
from ._shown import shown
from .errors import AgentScopeError, ArgumentTypeError

__all__ = ["Builder", "FieldSetter"]

_T = TypeVar("_T")
_V = TypeVar("_V")
_B = TypeVar("_B", bound="Builder[Any]")


class FieldSetter(Generic[_V]):
    """One builder method: sets the field of the same name and returns the builder."""

    __slots__ = ("_name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, builder: None, owner: type) -> Self: ...
    @overload
    def __get__(self, builder: _B, owner: type) -> Callable[[_V], _B]: ...
    def __get__(self, builder: _B | None, owner: type) -> Self | Callable[[_V], _B]:
        if builder is None:
            return self
        name = self._name

        def set_field(value: _V) -> _B:
            try:
                builder._values[name] = _as_it_is_now(value)
            except RecursionError:  # a dict or list that contains itself, or one nested past the stack
                raise NestedTooDeeply(
                    f"{set_field.__qualname__}() was given a value nested too deeply to store "
                    f"(deeper than {MAX_STORED_DEPTH} levels), or one that contains itself"
                ) from None
            return builder

        set_field.__name__ = name
        set_field.__qualname__ = f"{type(builder).__name__}.{name}"  # what Python's own errors name
        return set_field


def _as_it_is_now(value: Any) -> Any:
    """``value`` as given, out of the caller's reach: a builder builds again and again from it, and
    the caller may go on changing what it gave (or a generator would be used up).  An iterable of
    items (a deque of blocks) is taken as the list the constructor would read from it."""
    if is_iterable_of_items(value) and not isinstance(value, (list, tuple)):
        return list(value)
    return _copied(value)


def _copied(value: Any) -> Any:
    # Through the containers the constructor reads as JSON (a tuple is an array), so that none
    # nested in another stays shared; the built object checks and freezes the copy.
    if isinstance(value, Mapping):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copied(item) for item in value)
    return value


class Builder(Generic[_T]):
    """Collects field values and builds the target class from them; reusable."""

    __slots__ = ("_values",)
    _target: ClassVar[Callable[..., Any]]
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(
        cls,
        target: Callable[..., Any] | None = None,
        defaults: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """``target``: the class to build; ``defaults``: values for the target's required
        arguments that a builder may leave unset."""
        super().__init_subclass__(**kwargs)
        if target is not None:
            cls._target = target
        if defaults is not None:
            cls._defaults = defaults

    def __init__(self) -> None:
        self._values: dict[str, Any] = dict(self._defaults)

    def build(self) -> _T:
        """Build a new object from the values set so far (each call checks them again)."""
        try:
            return cast(_T, self._target(**self._values))
        except TypeError as error:
            missing = None if isinstance(error, AgentScopeError) else self._missing()
            if not missing:
                raise
            raise ArgumentTypeError(
                f"{getattr(self._target, '__name__', 'the object')} needs {', '.join(missing)}: "
                f"call .{missing[0]}(...) before .build()"
            ) from None

    def _missing(self) -> list[str]:
        # Looked up only when building failed: the builders cost nothing at import for it.
        parameters = inspect.signature(self._target).parameters.values()
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        required = (p.name for p in parameters if p.default is p.empty and p.kind in named)
        return [name for name in required if name not in self._values]

    def __copy__(self) -> Self:
        # A builder to go on from, as from a template: setters change the values dict in place.
        # The values themselves are never changed once stored, so the two may share them.
        twin = object.__new__(type(self))
        twin._values = dict(self._values)
        return twin

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={shown(v)}" for k, v in self._values.items())
        return f"{type(self).__name__}({fields})"

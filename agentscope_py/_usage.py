"""Token usage of a model call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ._builder import Builder, FieldSetter
from ._checks import JAVA_INT_MAX, JAVA_INT_MIN, describe, unbuilt_hint
from ._fields import checked_fields
from ._serializable import JsonSerializable
from .errors import ArgumentTypeError

__all__ = ["ChatUsage", "ChatUsageBuilder", "check_optional_usage", "usage_from_map"]


@attrs.frozen(field_transformer=checked_fields)
class ChatUsage(JsonSerializable):
    """Tokens and seconds one or more model calls used.

    ``cached_tokens`` is the part of ``input_tokens`` served from a cache.
    Usages add field by field, so per-call usages sum to a reply's usage.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    time: float = 0.0

    @property
    def total_tokens(self) -> int:
        """``input_tokens + output_tokens``."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: ChatUsage) -> ChatUsage:
        if not isinstance(other, ChatUsage):
            return NotImplemented
        return ChatUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.time + other.time,
        )

    def __radd__(self, other: int) -> ChatUsage:
        # ``sum(usages)`` starts from 0; no other number has a meaning here.  Typed ``int``, not
        # ``Literal[0]``: typeshed's ``sum`` asks for ``__radd__(int)`` to type ``sum(usages)``.
        if type(other) is int and other == 0:
            return self
        return NotImplemented

    @staticmethod
    def builder() -> ChatUsageBuilder:
        return ChatUsageBuilder()


class ChatUsageBuilder(Builder[ChatUsage], target=ChatUsage):
    input_tokens: ClassVar[FieldSetter[int]] = FieldSetter()
    output_tokens: ClassVar[FieldSetter[int]] = FieldSetter()
    cached_tokens: ClassVar[FieldSetter[int]] = FieldSetter()
    time: ClassVar[FieldSetter[float]] = FieldSetter()


def check_optional_usage(value: object, arg: str) -> ChatUsage | None:
    """``value`` if it is a ``ChatUsage`` or ``None``; else the error naming ``arg``."""
    if value is None or isinstance(value, ChatUsage):
        return value
    raise ArgumentTypeError(f"{arg} must be a ChatUsage or None, got {describe(value)}{unbuilt_hint(value)}")


def usage_from_map(value: Mapping[str, Any]) -> ChatUsage:
    """A usage recorded as a map (``metadata["_chat_usage"]``), read as Java reads one: an entry
    that is missing or not a number counts as 0, and so does one that no Java int (or double)
    holds, which Java would wrap into a meaningless count."""
    return ChatUsage(
        _token_count(value.get("inputTokens")),
        _token_count(value.get("outputTokens")),
        _token_count(value.get("cachedTokens")),
        _seconds(value.get("time")),
    )


def _token_count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    count = int(value)  # a stored float is finite: metadata holds JSON only
    return count if JAVA_INT_MIN <= count <= JAVA_INT_MAX else 0


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    try:
        return float(value)
    except OverflowError:  # an int past the largest float
        return 0.0

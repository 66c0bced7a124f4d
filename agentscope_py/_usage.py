"""Token usage of a model call."""

from __future__ import annotations

import attrs

from ._builder import Builder, FieldSetter
from ._fields import checked_fields
from ._serializable import JsonSerializable

__all__ = ["ChatUsage", "ChatUsageBuilder"]


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
        # ``sum(usages)`` starts from 0; no other number has a meaning here.
        if type(other) is int and other == 0:
            return self
        return NotImplemented

    @staticmethod
    def builder() -> ChatUsageBuilder:
        return ChatUsageBuilder()


class ChatUsageBuilder(Builder[ChatUsage], target=ChatUsage):
    input_tokens = FieldSetter[int]()
    output_tokens = FieldSetter[int]()
    cached_tokens = FieldSetter[int]()
    time = FieldSetter[float]()

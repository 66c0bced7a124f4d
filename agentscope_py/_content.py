"""Turning what callers pass as message content into a tuple of blocks."""

from __future__ import annotations

from typing import Any

from ._blocks import ContentBlock, TextBlock
from ._checks import describe, is_iterable_of_items, unordered_hint
from .errors import ArgumentTypeError

__all__ = ["normalize_content"]


def normalize_content(items: tuple[Any, ...], arg: str) -> tuple[ContentBlock, ...]:
    """Blocks as given, strings wrapped in ``TextBlock``, lists and tuples flattened one level.

    ``arg`` names the argument in errors (``"UserMessage content"``).
    """
    if len(items) == 1:  # the common cases, without building a list
        only = items[0]
        if isinstance(only, ContentBlock):
            return items
        if isinstance(only, str):
            return (TextBlock(only),)
    blocks: list[ContentBlock] = []
    for item in items:
        if isinstance(item, ContentBlock):
            blocks.append(item)
        elif isinstance(item, str):
            blocks.append(TextBlock(item))
        elif is_iterable_of_items(item):
            for inner in item:
                if isinstance(inner, ContentBlock):
                    blocks.append(inner)
                elif isinstance(inner, str):
                    blocks.append(TextBlock(inner))
                else:
                    raise _bad_item(inner, arg, len(blocks))
        else:
            raise _bad_item(item, arg, len(blocks))
    return tuple(blocks)


def _bad_item(item: object, arg: str, index: int) -> ArgumentTypeError:
    return ArgumentTypeError(
        f"{arg}[{index}] must be a str or a content block instance, got {describe(item)}{unordered_hint(item)}"
    )

"""Turning what callers pass as message content into a tuple of blocks, and checking the block
classes they ask a message for (``get_content_blocks(TextBlock)``)."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from ._blocks import ContentBlock, TextBlock
from ._checks import describe, is_iterable_of_items, unordered_hint
from ._enums import MsgRole
from .errors import ArgumentTypeError

__all__ = ["check_block_class", "normalize_content"]


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
        if only is None:  # the whole content None (Java reads a null list as empty): no item at [0] is to blame
            raise ArgumentTypeError(
                f"{arg} must be blocks or strings, or one iterable of them, got None; pass no content, or [], for none"
            )
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
    if isinstance(item, MsgRole):  # the role given positionally, beside the content
        hint = "; a role is not content: Msg takes it as role=..., and each role has its class (AssistantMessage(...))"
    else:
        hint = unordered_hint(item)
    return ArgumentTypeError(f"{arg}[{index}] must be a str or a content block instance, got {describe(item)}{hint}")


def check_block_class(cls: object, method: str) -> None:
    """Refuse ``cls`` unless it is a block class, or a union (``UserBlock``) or tuple of them:
    ``method`` (``"get_content_blocks"``) would only ever find nothing of any other class."""
    if isinstance(cls, type) and cls in _BLOCK_CLASSES:  # the common case, at the cost of a set lookup
        return
    if not _is_block_class(cls):
        got = f"the class {cls.__name__}, which is no block" if isinstance(cls, type) else describe(cls)
        raise ArgumentTypeError(f"{method} needs a block class such as TextBlock (or a tuple of them), got {got}")


def _is_block_class(cls: object) -> bool:
    if isinstance(cls, type):
        return issubclass(cls, ContentBlock)
    members = cls if isinstance(cls, tuple) else get_args(cls) if get_origin(cls) in _UNIONS else ()
    return bool(members) and all(_is_block_class(member) for member in members)


_UNIONS = (Union, types.UnionType)  # Union[A, B] and A | B


def _with_subclasses(cls: type) -> set[type]:
    found = {cls}
    subclasses: list[type] = cls.__subclasses__()
    for subclass in subclasses:
        found |= _with_subclasses(subclass)
    return found


# The package's own block classes, all defined by now: a fixed set, so that it cannot grow with
# what callers pass (a class made at run time, a new tuple each call).
_BLOCK_CLASSES = frozenset(_with_subclasses(ContentBlock))

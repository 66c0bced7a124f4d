"""Carrying a format's own fields through our model, for AgentFlow, Vercel AI and agent-swarm-kit.

Those three formats are written by other frameworks and read back by them, so
their converters promise ``to_x(from_x(payload)) == payload``.  The tool for
that is one rule, applied to every message, part and nested object alike:

* reading: build our value, render it back (:func:`diff` against the original),
  and keep what the rendering does not reproduce under ``metadata[<format>]``;
* writing: render our value and lay the kept fields over it (:func:`overlay`).

So the carried dict holds exactly the format's own fields we have no place for
(or spell differently), nothing else.  Renderers may read it to pick a spelling
(AgentFlow's ``call_id`` against ``tool_call_id``, a ``"data"`` block against a
``"document"``); a spelling is used only while it still reads back as what the
block now holds, so editing a converted message is never undone by stale fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import attrs

from .._blocks import ContentBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from .._frozen import thawed
from ._carry import ESCAPED, escaped, fingerprint, unescaped

__all__ = [
    "ABSENT",
    "APPROVALS",
    "ARGUMENTS_AS_TEXT",
    "BLOCKS",
    "BOOKKEEPING",
    "CONTENT_FORM",
    "LAYOUT",
    "PARTS",
    "PART_OF",
    "RAN_BY_PROVIDER",
    "carried",
    "carried_form",
    "carried_value",
    "carry_in_block",
    "diff",
    "overlay",
    "part_extras",
    "with_carried",
]

#: Bookkeeping entry of any carried dict: the keys we would write that the format's object did not have.
ABSENT = "absent"
#: Bookkeeping entry of a message's carried dict: ``{"<index in the format's content>": {...}}``,
#: the carried fields of parts that became blocks without metadata of their own (text, media).
PARTS = "parts"
#: Beside :data:`PARTS`: ``{"<index>": "<fingerprint>"}``, the block each was read into.
PART_OF = "part_of"
#: AgentFlow, a message's carried dict: whole blocks we have no block for, by content index; Vercel
#: AI, a result's carried dict: the output items we have no block for (``file-id`` …), by index.
BLOCKS = "blocks"
#: Vercel AI, a message's carried dict: AI SDK 6's approval parts, whole, by content index.
APPROVALS = "approvals"
#: Vercel AI, a message's carried dict: ``"string"`` or ``"list"``, when ``content`` was not written
#: in the role's usual form.
CONTENT_FORM = "content_form"
#: Vercel AI, a message's carried dict: ``"codebuff"`` for a tool message in Codebuff's shape.
LAYOUT = "layout"
#: Vercel AI, a result's carried dict: it was read from an assistant message, so the provider ran it
#: and it goes back there; never written.
RAN_BY_PROVIDER = "ran_by_provider"
#: agent-swarm-kit, a call's carried dict: its arguments came as JSON text, and are written so.
ARGUMENTS_AS_TEXT = "arguments_as_text"
#: Every bookkeeping entry's name.  A format's own field so named is carried under ``ESCAPED``
#: (at any level of a carried dict), so that the two never meet.
BOOKKEEPING = frozenset(
    {ABSENT, PARTS, PART_OF, BLOCKS, APPROVALS, CONTENT_FORM, LAYOUT, RAN_BY_PROVIDER, ARGUMENTS_AS_TEXT, ESCAPED}
)

_MISSING: Any = object()
_Block = TypeVar("_Block", bound=ContentBlock)


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0 is fine, but True must not pass for 1 (Python says it does).
    return a == b and (isinstance(a, bool) == isinstance(b, bool))


def diff(rendered: Mapping[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``original`` that ``rendered`` does not reproduce (objects compared key by key),
    and under :data:`ABSENT` the keys ``rendered`` has that ``original`` did not."""
    extras: dict[str, Any] = {}
    for key, value in original.items():
        have = rendered.get(key, _MISSING)
        if isinstance(have, Mapping) and isinstance(value, Mapping):
            nested = diff(have, value)
            if nested:
                extras[key] = nested
        elif have is _MISSING or not _same(have, value):
            extras[key] = carried_form(value)
    extras = escaped(extras, BOOKKEEPING)
    absent = [key for key in rendered if key not in original]
    if absent:
        extras[ABSENT] = absent
    return extras


def overlay(rendered: dict[str, Any], extras: Mapping[str, Any], ours: Iterable[str] = ()) -> dict[str, Any]:
    """``rendered`` with the carried ``extras`` laid over it (objects merged key by key).

    Keys in ``ours`` keep the rendered value: the renderer decided them from the block.
    Where it wrote nothing, a carried explicit ``null`` still shows; where it wrote
    ``None``, the key is still dropped when the original did not have it.
    """
    keep = frozenset(ours)
    # Bookkeeping other than ABSENT is the caller's to leave out: a part reader's hints are laid so.
    for key, value in unescaped(extras, (ABSENT, ESCAPED)).items():
        if key in keep and (key in rendered or value is not None):
            continue
        have = rendered.get(key)
        if isinstance(have, dict) and isinstance(value, Mapping):
            rendered[key] = overlay(have, value)
        else:
            rendered[key] = carried_value(value)
    absent = extras.get(ABSENT)
    for key in absent if isinstance(absent, list) else ():
        if key not in keep or rendered.get(key) is None:
            rendered.pop(key, None)
    return rendered


def carried_form(value: Any) -> Any:
    """``value`` as a carried dict holds it: in every mapping, all the way down, the fields named
    like a bookkeeping entry go under ``ESCAPED``; so any mapping carried, whole or as the part of an
    object the rendering misses, reads back the same way (:func:`carried_value`)."""
    if isinstance(value, Mapping):
        return escaped({key: carried_form(inner) for key, inner in value.items()}, BOOKKEEPING)
    return value


def carried_value(value: Any) -> Any:
    """The plain value a carried one stands for (see :func:`carried_form`): what the payload had where
    the rendering has nothing (a nested part it missed, whole)."""
    return overlay({}, value) if isinstance(value, Mapping) else thawed(value)


def carried(metadata: Mapping[str, Any] | None, fmt: str) -> Mapping[str, Any]:
    """The carried dict under ``metadata[fmt]``; anything else reads as empty."""
    own = metadata.get(fmt) if metadata else None
    return own if isinstance(own, Mapping) else {}


def with_carried(metadata: Mapping[str, Any] | None, fmt: str, extras: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` with ``extras`` stored under ``fmt`` (left out when there is nothing to carry)."""
    out = dict(metadata or {})
    if extras:
        out[fmt] = dict(extras)
    return out


def carry_in_block(block: _Block, fmt: str, extras: Mapping[str, Any]) -> _Block | None:
    """``block`` carrying ``extras`` in its own metadata; ``None`` for a block with no metadata."""
    if isinstance(block, (ThinkingBlock, ToolUseBlock, ToolResultBlock)):
        return attrs.evolve(block, metadata=with_carried(block.metadata, fmt, extras)) if extras else block
    return None


def part_extras(message_carried: Mapping[str, Any], index: int, block: ContentBlock) -> Mapping[str, Any]:
    """The carried fields of the part at ``index`` of the content being written, for ``block``:
    none when another block than the one they were read with stands there (the content was edited)."""
    parts = message_carried.get(PARTS)
    extras = parts.get(str(index)) if isinstance(parts, Mapping) else None
    if not isinstance(extras, Mapping):
        return {}
    part_of = message_carried.get(PART_OF)
    if not isinstance(part_of, Mapping) or part_of.get(str(index)) != fingerprint(block):
        return {}
    return extras

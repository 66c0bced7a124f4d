"""Carrying a format's own fields through our model, for AgentFlow, Vercel AI and agent-swarm-kit.

Those three formats are written by other frameworks and read back by them, so
their converters promise ``to_x(from_x(payload)) == payload``.  The tool for
that is one rule, applied to every message, part and nested object alike:

* reading: build our value, render it back (:func:`diff` against the original),
  and keep what the rendering does not reproduce under ``metadata[<format>]``;
* writing: render our value and lay the kept fields over it (:func:`overlay`).

So the carried dict holds exactly the format's own fields we have no place for
(or spell differently), nothing else.  A field the rendering has no place for
goes back wherever we write nothing of our own; a field the payload spelled
otherwise than we write it (``null`` where we write ``{}``, a ``data:`` URL where
we write bare base64), or left out, goes back so only while we still write what
we wrote when reading it (its digest is kept: :data:`REPLACED`, :data:`ABSENT`).
Renderers may read the carried dict to pick a spelling (AgentFlow's ``call_id``
against ``tool_call_id``, a ``"data"`` block against a ``"document"``); a
spelling is used only while it still reads back as what the block now holds.
So editing a converted message is never undone by stale fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import attrs

from .._blocks import ContentBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from .._frozen import thawed
from ._carry import ESCAPED, digest, escaped, fingerprint, unescaped

__all__ = [
    "ABSENT",
    "APPROVALS",
    "ARGUMENTS_AS_TEXT",
    "BLOCKS",
    "BOOKKEEPING",
    "CONTENT_FORM",
    "LAYOUT",
    "MEDIA_FORM",
    "PARTS",
    "PART_OF",
    "RAN_BY_PROVIDER",
    "REPLACED",
    "carried",
    "carried_form",
    "carried_value",
    "carry_in_block",
    "diff",
    "overlay",
    "part_extras",
    "with_carried",
]

#: Bookkeeping entry of any carried dict: ``{"<field>": "<digest>"}``, the fields we write that the format's
#: object did not have, each with the digest of what we wrote there when reading it.
ABSENT = "absent"
#: Bookkeeping entry of any carried dict: ``{"<field>": "<digest>"}``, the carried fields that the format's
#: object had otherwise than we write them, each with the digest of what we wrote there when reading it.
REPLACED = "replaced"
#: Bookkeeping entry of a message's carried dict: ``{"<index in the format's content>": {...}}``,
#: the carried fields of parts that became blocks without metadata of their own (text, media); in a
#: Vercel AI tool result's, the same for the items of its output, by index in the output.
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
#: A message's carried dict.  Vercel AI: ``"codebuff"`` for a tool message in Codebuff's shape;
#: AgentFlow: ``"one message"`` for a TOOL message read from one AgentFlow message holding several results;
#: agent-swarm-kit: ``{"before_result", "tool_call_id"}`` on a system message read after the results it stood
#: before (``_swarm_kit_placement``).
LAYOUT = "layout"
#: Vercel AI, a media part's or output item's carried dict: how it was spelled when not as we write it
#: for AI SDK 6: for a part's data ``"base64"`` (bare base64 of a declared type), ``"data"`` / ``"url"``
#: (AI SDK 7's tagged objects); for an output item its own form (``"image-data"``, ``"file:data"``, …).
MEDIA_FORM = "media_form"
#: Vercel AI, a result's carried dict: it was read from an assistant message, so the provider ran it
#: and it goes back there; never written.
RAN_BY_PROVIDER = "ran_by_provider"
#: agent-swarm-kit, a call's carried dict: its arguments came as JSON text, and are written so.
ARGUMENTS_AS_TEXT = "arguments_as_text"
#: Every bookkeeping entry's name.  A format's own field so named is carried under ``ESCAPED``
#: (at any level of a carried dict), so that the two never meet.
BOOKKEEPING = frozenset(
    {
        ABSENT, REPLACED, PARTS, PART_OF, BLOCKS, APPROVALS, CONTENT_FORM, LAYOUT, MEDIA_FORM, RAN_BY_PROVIDER,
        ARGUMENTS_AS_TEXT, ESCAPED,
    }
)

_MISSING: Any = object()
_Block = TypeVar("_Block", bound=ContentBlock)


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0 is fine, but True must not pass for 1 (Python says it does).
    return a == b and (isinstance(a, bool) == isinstance(b, bool))


def diff(rendered: Mapping[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``original`` that ``rendered`` does not reproduce (objects compared key by key);
    with the digest of what ``rendered`` has in their place (:data:`REPLACED`), and of the entries it
    has that ``original`` did not (:data:`ABSENT`)."""
    extras: dict[str, Any] = {}
    replaced: dict[str, str] = {}
    for key, value in original.items():
        have = rendered.get(key, _MISSING)
        if isinstance(have, Mapping) and isinstance(value, Mapping):
            nested = diff(have, value)
            if nested:
                extras[key] = nested
        elif have is _MISSING or not _same(have, value):
            extras[key] = carried_form(value)
            if have is not _MISSING:
                replaced[key] = digest(have)
    extras = escaped(extras, BOOKKEEPING)
    if replaced:
        extras[REPLACED] = replaced
    absent = {key: digest(value) for key, value in rendered.items() if key not in original}
    if absent:
        extras[ABSENT] = absent
    return extras


def overlay(rendered: dict[str, Any], extras: Mapping[str, Any], ours: Iterable[str] = ()) -> dict[str, Any]:
    """``rendered`` with the carried ``extras`` laid over it (objects merged key by key).

    A carried field goes where ``rendered`` has nothing of its own.  One that the format's object
    had otherwise than we wrote it when reading (:data:`REPLACED`), or did not have (:data:`ABSENT`),
    replaces or leaves out what ``rendered`` has only while that is still what we wrote then: what
    it stands for has not been changed since.  Keys in ``ours`` keep the rendered value.
    """
    keep = frozenset(ours)
    replaced, absent = _digests(extras, REPLACED), _digests(extras, ABSENT)
    # Bookkeeping other than these is the caller's to leave out: a part reader's hints are laid so.
    for key, value in unescaped(extras, (REPLACED, ABSENT, ESCAPED)).items():
        if key in keep:
            continue
        have = rendered.get(key, _MISSING)
        if key in replaced:
            if _unchanged(have, replaced[key]):
                rendered[key] = carried_value(value)
        elif isinstance(value, Mapping) and (have is _MISSING or isinstance(have, dict)):
            merged = overlay({} if have is _MISSING else have, value)
            # A carried object goes in whole, but not the empty rest of one whose entries all stood for ours.
            if merged or not value or have is not _MISSING:
                rendered[key] = merged
        elif have is _MISSING:
            rendered[key] = carried_value(value)
    for key, written in absent.items():
        if key not in keep and _unchanged(rendered.get(key, _MISSING), written):
            del rendered[key]
    return rendered


def _digests(extras: Mapping[str, Any], entry: str) -> Mapping[str, Any]:
    # Anything else there (metadata edited by hand) is no record of what we wrote: nothing stands for ours.
    found = extras.get(entry)
    return found if isinstance(found, Mapping) else {}


def _unchanged(have: Any, written: object) -> bool:
    """Whether ``have``, what we write now, is what we wrote when reading (``written``, its digest)."""
    return have is not _MISSING and digest(have) == written


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

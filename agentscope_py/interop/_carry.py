"""Carrying a format's own fields through our model.

A message or block keeps the fields of its format that we have no field for
under one metadata key named after the format (``metadata["openai"]``,
``metadata["anthropic"]``), verbatim, so that writing it back gives them again.
Bookkeeping entries sit beside them:

* ``"parts"``: ``{"<content index>": {...}}``, the extra fields of parts that
  became blocks without metadata of their own (a text block's ``cache_control``);
* ``"part_of"``: ``{"<content index>": "<fingerprint>"}``, the block each entry of
  ``"parts"`` was read with, so that the fields go back to that block wherever it
  stands once the content is edited (a block inserted before it, say), and never
  to another block;
* ``"content_form"``: how a ``content`` field was written when that is not the
  form we would choose (a list holding one plain text part, an explicit ``null``);
* ``"response"``: the fields of a provider's answer the message was read from
  (``_responses``), which describe the call and are never written into a turn;
* ``"escaped"``: the format's own fields named like one of these entries, which
  would otherwise be taken for it (see :func:`escaped`).
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from .._blocks import ContentBlock, DataBlock
from .._frozen import thawed
from ._turns import Turn

__all__ = [
    "ESCAPED",
    "RESPONSE_KEY",
    "Carried",
    "ContentForm",
    "MessageCarried",
    "carried_entry",
    "content_form",
    "digest",
    "escaped",
    "fingerprint",
    "is_plain_text",
    "merged",
    "nulls",
    "pick",
    "position",
    "unescaped",
    "unread",
    "write_content",
    "write_kept",
]

ContentForm = Literal["absent", "null", "string", "list"]
_FORMS = ("absent", "null", "string", "list")
RESPONSE_KEY = "response"
#: The bookkeeping entry holding the format's fields whose names other bookkeeping entries use.
ESCAPED = "escaped"
_BOOKKEEPING = frozenset({"parts", "part_of", "content_form", RESPONSE_KEY, ESCAPED})


def escaped(fields: Mapping[str, Any], bookkeeping: Collection[str]) -> dict[str, Any]:
    """``fields`` as a carried dict holds them beside its ``bookkeeping`` entries (``ESCAPED`` among
    them): a field named like an entry goes under ``ESCAPED``, so that neither is taken for the other."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key in bookkeeping:
            out.setdefault(ESCAPED, {})[key] = value
        else:
            out[key] = value
    return out


def unescaped(own: Mapping[str, Any], bookkeeping: Collection[str]) -> dict[str, Any]:
    """The format's fields in the carried dict ``own``, stored by :func:`escaped`."""
    fields = {key: value for key, value in own.items() if key not in bookkeeping}
    inner = own.get(ESCAPED)
    if isinstance(inner, Mapping):
        fields.update(inner)
    return fields


def pick(obj: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """The entries of ``obj`` under ``keys`` that are present."""
    return {key: obj[key] for key in keys if key in obj}


def unread(obj: Mapping[str, Any], read: Iterable[str]) -> dict[str, Any]:
    """The entries of ``obj`` under keys other than ``read`` (those its reader reads): the fields
    to keep verbatim, so that fields a format adds after us travel too."""
    skip = frozenset(read)
    return {key: value for key, value in obj.items() if key not in skip}


def nulls(obj: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """The fields among ``keys`` given as an explicit ``null``."""
    return {key: None for key in keys if key in obj and obj[key] is None}


def write_kept(out: dict[str, Any], fields: Mapping[str, Any], skip: Iterable[str] = ()) -> dict[str, Any]:
    """``out`` with the ``fields`` kept verbatim (but those in ``skip``), where ``out``, written from
    what the message or block holds now, has nothing of its own for them: ours win."""
    skipped = frozenset(skip)
    out.update((key, value) for key, value in fields.items() if key not in out and key not in skipped)
    return out


def merged(part: dict[str, Any], extras: Mapping[str, Any]) -> dict[str, Any]:
    """``part`` with the carried ``extras`` laid over it.  Extras may hold fields of a nested object
    (OpenAI's ``image_url.detail``): those are merged one level down."""
    for key, value in extras.items():
        if isinstance(value, Mapping) and isinstance(part.get(key), dict):
            part[key] = {**part[key], **value}
        else:
            part[key] = value
    return part


class Carried:
    """A holder's carried fields, read back from its metadata (anything malformed reads as absent).

    ``blocks``, the holder's content as it is now, places the fields of each part: on the block at
    the index it was read at if that block is still there, else on a block equal to the one it was
    read with (the content was edited: a block inserted before it, say), else nowhere.
    """

    __slots__ = ("_placed", "fields", "form")

    def __init__(self, metadata: Mapping[str, Any] | None, fmt: str, blocks: Sequence[ContentBlock] = ()) -> None:
        own = metadata.get(fmt) if metadata else None
        own = own if isinstance(own, Mapping) else {}
        parts = own.get("parts")
        part_of = own.get("part_of")
        form = own.get("content_form")
        # Thawed: they go into payloads, which are the caller's to change.
        self.fields: dict[str, Any] = {k: thawed(v) for k, v in unescaped(own, _BOOKKEEPING).items()}
        self.form: ContentForm | None = form if form in _FORMS else None
        self._placed: dict[int, Mapping[str, Any]] = (
            _placed(parts, part_of if isinstance(part_of, Mapping) else {}, blocks)
            if isinstance(parts, Mapping) and parts
            else {}
        )

    def part(self, index: int) -> dict[str, Any]:
        """The extra fields of the part written for content block ``index``."""
        extras = self._placed.get(index)
        return dict(thawed(extras)) if extras is not None else {}


class MessageCarried:
    """The carried fields of each turn's message, read once for all of its turns: a read fingerprints
    the message's whole content, and its tool results may cut it into as many turns as it has blocks.
    Turns are asked about message by message, so only the last message's are held."""

    __slots__ = ("_carried", "_fmt", "_index")

    def __init__(self, fmt: str) -> None:
        self._fmt = fmt
        self._index = -1
        self._carried = Carried(None, fmt)

    def of(self, turn: Turn) -> Carried:
        """The carried fields of ``turn``'s message; none for a run of results split out of it."""
        if not turn.own:
            return Carried(None, self._fmt)
        if turn.message_index != self._index:
            self._index = turn.message_index
            self._carried = Carried(turn.message.metadata, self._fmt, turn.message.content)
        return self._carried


def _placed(
    parts: Mapping[str, Any], part_of: Mapping[str, Any], blocks: Sequence[ContentBlock]
) -> dict[int, Mapping[str, Any]]:
    """Block index -> the extra fields of the part it was read from.

    Each part was recorded at a position with its block's fingerprint.  Taken in
    the order they were recorded, a part stays at its position while the block
    there still matches, else goes to the next matching block after the one the
    part before it took: so an edit that shifts blocks (one put in front) moves
    equal blocks' fields along in their order.  A part that finds none that way
    (the blocks were reordered) takes the first free block that matches."""
    prints = [fingerprint(block) for block in blocks]
    at: dict[str, list[int]] = {}  # fingerprint -> the indices of the blocks that have it, in order
    for block_index, block_print in enumerate(prints):
        at.setdefault(block_print, []).append(block_index)
    recorded = sorted(
        ((position(key), part_of.get(key), extras) for key, extras in parts.items() if isinstance(extras, Mapping)),
        key=lambda entry: len(blocks) if entry[0] is None else entry[0],  # sorted() is stable: ties keep their order
    )
    placed: dict[int, Mapping[str, Any]] = {}
    left: list[tuple[Any, Mapping[str, Any]]] = []
    last = -1  # the block the part before took
    for index, print_, extras in recorded:
        if index is not None and last < index < len(blocks) and prints[index] == print_:
            last = index
        else:
            candidates = at.get(print_, ()) if isinstance(print_, str) else ()
            after = bisect_right(candidates, last)
            if after == len(candidates):
                left.append((print_, extras))
                continue
            last = candidates[after]
        placed[last] = extras
    # One search through each fingerprint's blocks for all the parts left: a block it passed is taken,
    # and stays so, so that each block is looked at once however many parts compete for it.
    unsearched = {block_print: iter(indices) for block_print, indices in at.items()}
    for print_, extras in left:
        blocks_left = unsearched.get(print_, iter(())) if isinstance(print_, str) else iter(())
        free = next((i for i in blocks_left if i not in placed), None)
        if free is not None:
            placed[free] = extras
    return placed


def position(key: object) -> int | None:
    """The index a position key of a carried dict (``"3"``) names; ``None`` for a key no converter
    writes, which is ignored: ``"²"`` is a digit to ``str.isdigit`` but no number, and a key of
    thousands of digits is past what ``int()`` reads."""
    if isinstance(key, str) and 0 < len(key) <= 9 and key.isascii() and key.isdigit():
        return int(key)
    return None


def fingerprint(block: ContentBlock) -> str:
    """A short digest of what ``block`` holds (a DataBlock's id aside: readers make fresh ones)."""
    document = block.to_dict()
    if isinstance(block, DataBlock):
        del document["id"]
    return digest(document)


def digest(value: Any) -> str:
    """A short digest of a JSON value (objects compared whatever the order of their keys).

    The value is fed to the hash piece by piece rather than written as JSON text first: a string
    goes in as its bytes, so a megabytes-long ``data:`` URL costs its hashing alone (writing it as
    JSON took three times as long again)."""
    hasher = hashlib.blake2b(digest_size=8)
    _feed(hasher.update, value)
    return hasher.hexdigest()


def _feed(update: Callable[[bytes], object], value: Any) -> None:
    # Each piece says its kind and, where it varies, its length: no two values feed the same bytes.
    if type(value) is str:
        data = value.encode("utf-8", "surrogatepass")
        update(b"s%d:" % len(data))
        update(data)
    elif isinstance(value, Mapping):
        update(b"{%d:" % len(value))
        for key in sorted(value):
            _feed(update, key)
            _feed(update, value[key])
    elif isinstance(value, (list, tuple)):
        update(b"[%d:" % len(value))
        for item in value:
            _feed(update, item)
    elif isinstance(value, str):  # a str enum member, say: as the JSON it is written as
        _feed(update, str.__str__(value))
    else:  # null, a boolean, a number: as JSON writes it (1 and 1.0 and true differ)
        update(b"v%s;" % json.dumps(value).encode("ascii"))


def carried_entry(
    fields: Mapping[str, Any],
    parts: Mapping[int, Mapping[str, Any]] = {},
    form: ContentForm | None = None,
    blocks: Sequence[ContentBlock] = (),
) -> dict[str, Any]:
    """The value to store under ``metadata[<format>]``; empty when there is nothing to carry.
    ``parts`` are keyed by their index in ``blocks``, the content they were read into."""
    out = escaped(fields, _BOOKKEEPING)
    if parts:
        out["parts"] = {str(index): dict(extras) for index, extras in parts.items()}
        out["part_of"] = {str(index): fingerprint(blocks[index]) for index in parts}
    if form is not None:
        out["content_form"] = form
    return out


def is_plain_text(part: Mapping[str, Any]) -> bool:
    """Whether a part is a text part with nothing else in it (so it may be written as a string)."""
    return part.keys() == {"type", "text"} and part["type"] == "text"


def _canonical(single_plain_text: bool, empty: bool, optional: bool) -> ContentForm:
    if single_plain_text:
        return "string"
    return "absent" if empty and optional else "list"


def content_form(value: object, present: bool, blocks: int, plain: bool, optional: bool) -> ContentForm | None:
    """The form a content ``value`` was read in, when writing its ``blocks`` back would not choose it.

    ``plain``: the single block read is text with no extra fields.
    """
    actual: ContentForm = (
        "absent" if not present else "null" if value is None else "string" if isinstance(value, str) else "list"
    )
    return None if actual == _canonical(blocks == 1 and plain, blocks == 0, optional) else actual


def write_content(
    out: dict[str, Any], parts: list[dict[str, Any]], form: ContentForm | None, *, optional: bool
) -> None:
    """Set ``out["content"]`` from ``parts``: a string for one plain text part, else the list,
    unless ``form`` (still possible for these parts) says how it was given."""
    single_plain = len(parts) == 1 and is_plain_text(parts[0])
    fits = {"string": single_plain, "null": not parts and optional, "absent": not parts and optional, "list": True}
    chosen = form if form is not None and fits[form] else _canonical(single_plain, not parts, optional)
    if chosen == "string":
        out["content"] = parts[0]["text"]
    elif chosen == "null":
        out["content"] = None
    elif chosen == "list":
        out["content"] = parts

"""What the OpenAI and Anthropic converters share: carrying a format's own fields through our model.

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
import re
import urllib.parse
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from .._blocks import ContentBlock, DataBlock, ToolUseBlock
from .._frozen import EMPTY, thawed
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from .._tool_arguments import parse_tool_arguments, says_input
from ..errors import DecodeError
from ._turns import Turn

__all__ = [
    "ESCAPED",
    "MEDIA_TYPE_OF_EXTENSION",
    "RESPONSE_KEY",
    "Carried",
    "ContentForm",
    "MessageCarried",
    "arguments_object",
    "arguments_text",
    "base64_data_url",
    "carried_entry",
    "check_media_type",
    "content_form",
    "data_url",
    "digest",
    "escaped",
    "fetchable",
    "fingerprint",
    "has_scheme",
    "held_media_type",
    "inferred_media_type",
    "is_plain_text",
    "media_type_essence",
    "merged",
    "nulls",
    "parse_arguments",
    "pick",
    "position",
    "raw_arguments",
    "source_from_url",
    "unescaped",
    "unread",
    "unusable_media_type",
    "url_media_type",
    "url_or_data_url",
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


def arguments_object(raw: str) -> Mapping[str, Any] | None:
    """The JSON object in ``raw``, or ``None`` when ``raw`` is not one (or one too deep to store)."""
    value, problem = parse_tool_arguments(raw)
    return None if problem else value


def parse_arguments(raw: str) -> Mapping[str, Any]:
    """The arguments object in ``raw``, read-only; empty when it is not a JSON object (``content`` keeps ``raw``)."""
    value = arguments_object(raw)
    return EMPTY if value is None else value


def raw_arguments(block: ToolUseBlock) -> str | None:
    """A call's raw argument text, when it still says what the call's input does: as it came, unless
    the input was changed since (the text then holds another object).  With no input at all the text
    is all there is (arguments known only as raw text, as a call mid-stream has them)."""
    content = block.content
    if content is None:
        return None
    if not block.input or says_input(content, block.input):
        return content
    return None


def tool_arguments(block: ToolUseBlock) -> dict[str, Any] | None:
    """A call's arguments as an object, for the formats that hold them so: its input, or with no input
    the object its raw text holds (none for blank text), as ``raw_arguments`` has it; ``None`` when
    only raw text that holds no JSON object says them."""
    if block.input or block.content is None or not block.content.strip():
        return dict(thawed(block.input))
    value = arguments_object(block.content)
    return None if value is None else dict(thawed(value))


def arguments_text(block: ToolUseBlock) -> str:
    """The raw argument text of a call (see ``raw_arguments``), or its input written compactly."""
    raw = raw_arguments(block)
    if raw is not None:
        return raw
    return json.dumps(dict(block.input), separators=(",", ":"), ensure_ascii=False)


def base64_data_url(url: str) -> tuple[str, str] | None:
    """The media type (``""``: none given) and the data of a ``data:<type>;base64,<data>`` URL;
    ``None`` for any other URL, and for one whose type is no media type: inline data of such a type
    is refused by the writers (see :func:`unusable_media_type`), a URL is written back as it came."""
    if url.startswith("data:"):
        media_type, sep, data = url[5:].partition(";base64,")
        if sep and (not media_type or is_media_type(media_type)):
            return media_type, data
    return None


def source_from_url(url: str) -> Source:
    """A ``data:<type>;base64,<data>`` URL as a :class:`Base64Source`, any other as a :class:`URLSource`."""
    inline = base64_data_url(url)
    return URLSource(url) if inline is None else Base64Source(*inline)


# A media type as RFC 6838 spells one (type "/" subtype), with any parameters after it.
_MEDIA_TYPE = re.compile(r"[A-Za-z0-9][\w!#$&^.+-]*/[A-Za-z0-9][\w!#$&^.+-]*(?:\s*;.*)?", re.ASCII | re.DOTALL)


def is_media_type(text: str) -> bool:
    """Whether ``text`` is a media type (``image/png``, with or without parameters), whitespace
    around it aside, as :func:`media_type_essence` reads one."""
    return _MEDIA_TYPE.fullmatch(text.strip(" \t\n\r")) is not None


def check_media_type(media_type: str | None, path: str) -> None:
    """Refuse a media type read from a payload (at ``path``) that is none: the writers refuse inline
    data of such a type (:func:`unusable_media_type`), so the payload could not be written back.
    ``None`` or ``""`` is none given."""
    if media_type and not is_media_type(media_type):
        raise DecodeError(f"expected a media type such as 'image/png', got {elided(media_type)}", path)


def unusable_media_type(source: Source) -> str | None:
    """The media type of inline data that is no media type (``"iVBORw0KGgo="``: ``Base64Source``'s
    two arguments swapped), which no format can send it as; ``None`` for any other source.  An
    empty one is data read without a type, which the writers send without one."""
    if isinstance(source, Base64Source) and source.media_type and not is_media_type(source.media_type):
        return source.media_type
    return None


def held_media_type(source: Source) -> str | None:
    """The media type as the source holds it: ``""`` for inline data read without one, ``None`` for a
    URL whose type is unknown (``_frameworks.media_type_of`` says ``None`` for both)."""
    if isinstance(source, Base64Source):
        return source.media_type
    assert isinstance(source, URLSource)  # a Source is one of the two
    return source.mime_type


# The file extensions of the media an agent meets, by their media type.  A table of our own: Python's
# (mimetypes) differs between versions (.webp is new in 3.13) and reads the machine's files.
MEDIA_TYPE_OF_EXTENSION = {
    extension: media_type
    for media_type, extensions in {
        "image/png": "png", "image/jpeg": "jpg jpeg", "image/gif": "gif", "image/webp": "webp", "image/bmp": "bmp",
        "image/svg+xml": "svg", "image/tiff": "tif tiff", "image/heic": "heic",
        "audio/mpeg": "mp3", "audio/wav": "wav", "audio/ogg": "ogg oga", "audio/flac": "flac", "audio/mp4": "m4a",
        "audio/aac": "aac", "video/mp4": "mp4", "video/webm": "webm", "video/quicktime": "mov",
        "application/pdf": "pdf", "text/plain": "txt", "text/markdown": "md", "text/csv": "csv", "text/html": "html htm",
        "application/json": "json", "application/xml": "xml",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    }.items()
    for extension in extensions.split()
}


# A scheme as urllib finds one; for a URL urllib will not split, which names its scheme all the same.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*(?=:)")


def has_scheme(text: str) -> bool:
    """Whether ``text`` starts with a URL scheme and its colon (``https:``, ``data:``, ``s3:``)."""
    return _SCHEME.match(text) is not None


def _scheme_and_path(url: str) -> tuple[str, str]:
    """The scheme and path of ``url`` as urllib splits it.  A URL it refuses (a host with an unclosed
    ``[``, or one that NFKC normalization changes) keeps its scheme and is given no path: the URL is
    sent as it is, and its file extension is not read."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        scheme = _SCHEME.match(url)
        return ("" if scheme is None else scheme.group()), ""
    return parts.scheme, parts.path


def media_type_essence(media_type: str) -> str:
    """``media_type`` without its parameters (``;charset=utf-8``, ``;name=shot.png``), lower-cased:
    the type and subtype the APIs compare (media types are case-insensitive)."""
    return media_type.partition(";")[0].strip().lower()


def url_media_type(url: str) -> str | None:
    """The media type ``url`` names: a ``data:`` URL's own (``text/plain`` when it gives none, as RFC
    2397 has it), else the file extension of its path's; ``None`` when that names none we know (a
    compressed ``.tar.gz`` is not a tar)."""
    if url[:5].lower() == "data:":
        return media_type_essence(url[5:].partition(",")[0]) or "text/plain"
    name = _scheme_and_path(url)[1].rpartition("/")[2]
    return MEDIA_TYPE_OF_EXTENSION.get(name.rpartition(".")[2].lower()) if "." in name else None


def inferred_media_type(source: Source) -> str | None:
    """The media type of a source without its parameters (:func:`media_type_essence`): the one it
    declares, else for a URL the one its file extension names; ``None`` when neither tells.  Which part a writer
    makes of a source goes by it, so that ``https://e.com/a.wav`` is not sent as an image."""
    media_type = held_media_type(source)
    if media_type is None and isinstance(source, URLSource):
        media_type = url_media_type(source.url)
    return None if media_type is None else media_type_essence(media_type)


def fetchable(source: Source) -> bool:
    """Whether ``source`` can be sent where a format takes a URL: inline data, or a URL with a scheme.
    A file id read from OpenAI or AgentFlow is a URL source holding the bare id ("file-abc123"):
    no API can fetch it, so the writers of other formats refuse it instead of sending it as a URL."""
    if not isinstance(source, URLSource):
        return True
    return bool(_scheme_and_path(source.url)[0])


def url_or_data_url(source: Source) -> str:
    """A URL source's URL, or inline data as a ``data:`` URL."""
    if isinstance(source, Base64Source):
        return data_url(source)
    assert isinstance(source, URLSource)
    return source.url


def data_url(source: Base64Source) -> str:
    return f"data:{source.media_type};base64,{source.data}"

"""Anthropic's ``image`` and ``document`` blocks, and the sources they hold.

A media block's ``source`` comes in three wire forms (base64, a URL, a
document's plain text) that our two kinds of Source stand for, under limits of
the API's own (four image types; a document by URL is a PDF), and which block a
source becomes is inferred from its media type.  Writing and reading share that
inference and those limits, and a block is the same in a turn and in a tool
result, so the mapping lives here once; the rest of ``anthropic`` hands it media
blocks and keeps the fields it reports unread.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from collections.abc import Mapping
from typing import Any

from .._blocks import DataBlock, ImageBlock
from .._reader import at, opt_str, req, req_str
from .._shown import shown
from .._sources import Base64Source, Source, URLSource
from ..errors import UnsupportedContentError
from ._carry import unread, write_kept
from ._common import media_type_hint, url_hint
from ._media_types import check_media_type, fetchable, inferred_media_type, media_type_essence
from ._payloads import req_object

__all__ = ["MEDIA_READ_FIELDS", "media_hint", "media_part", "read_media"]

# The fields of each media block that read_media reads; ``_anthropic_read.READ_FIELDS`` holds these
# with the other blocks', for what reads an answer's blocks to know which fields are read.
MEDIA_READ_FIELDS: dict[str, tuple[str, ...]] = {
    "image": ("type", "source"),
    "document": ("type", "source", "title"),
}
# The four image types the API reads, by the media types that name them.
_IMAGE_TYPES = {
    "image/jpeg": "image/jpeg",
    "image/jpg": "image/jpeg",
    "image/png": "image/png",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}
# The fields of each kind of source that read_media reads.
_SOURCE_READ_FIELDS = {
    "base64": ("type", "media_type", "data"),
    "url": ("type", "url"),
    "text": ("type", "media_type", "data"),
    "file": ("type", "file_id"),
}


# -- writing --------------------------------------------------------------------


def _inferred_part_type(source: Source) -> str | None:
    # By the media type, which for a URL that declares none its file extension tells: a PDF by URL
    # is a document (the API fetches those), a WAV one nothing the API takes.
    media_type = inferred_media_type(source)
    if media_type is None or media_type.startswith("image/"):  # None: a URL of unknown type
        return "image"
    if media_type == "application/pdf" or (media_type == "text/plain" and isinstance(source, Base64Source)):
        return "document"
    return None


def media_part(source: Source, name: str | None, extras: dict[str, Any]) -> dict[str, Any] | None:
    """The ``image`` or ``document`` block for ``source``; ``None`` for media the API cannot take.
    ``extras`` may carry, under ``"source"``, the fields of the source it was read with."""
    source = _inline(source)
    part_type = extras.pop("type", None) or _inferred_part_type(source)
    if part_type not in ("image", "document"):
        return None
    carried_source = extras.pop("source", None)
    carried_source = carried_source if isinstance(carried_source, Mapping) else {}
    wire_source = _wire_source(source, part_type, carried_source.get("type") == "file")
    if wire_source is None:
        return None
    write_kept(wire_source, {key: value for key, value in carried_source.items() if key != "type"})
    out = {"type": part_type, "source": wire_source}
    if part_type == "document" and name is not None:
        out["title"] = name
    return write_kept(out, extras)


def _inline(source: Source) -> Source:
    """``source``, or the inline data its ``data:`` URL holds: the API fetches a url source, and
    cannot fetch that one, but takes the data as base64.  The URL's media type goes without its
    parameters (``;charset=utf-8``), as the API spells types; data not in base64 is percent-encoded."""
    if not isinstance(source, URLSource) or source.url[:5].lower() != "data:":
        return source
    header, comma, data = source.url[5:].partition(",")
    if not comma:
        return source  # no data: no data: URL, refused as the URL it is
    parameters = [parameter.strip() for parameter in header.split(";")]
    if parameters[-1].lower() != "base64":
        data = base64.b64encode(urllib.parse.unquote_to_bytes(data)).decode("ascii")
    return Base64Source(parameters[0] or "text/plain", data)


def _wire_source(source: Source, part_type: str, by_file_id: bool) -> dict[str, Any] | None:
    if isinstance(source, URLSource):
        if fetchable(source) and source.url[:5].lower() != "data:":  # one _inline could not read: no data
            return {"type": "url", "url": source.url}
        # A file of Anthropic's Files API, read as its id: only a source read so is one (another
        # provider's file id is no id Anthropic knows).
        return {"type": "file", "file_id": source.url} if by_file_id else None
    assert isinstance(source, Base64Source)  # a Source is one of the two
    # The API takes its media types as it spells them: lower-case, without parameters.
    media_type = media_type_essence(source.media_type)
    if part_type == "document" and media_type == "text/plain":
        # Read from a plain-text document source (the text was base64-encoded to fit Base64Source).
        try:
            text = _plain_text(source.data)
        except ValueError:
            return None  # refused, and media_hint says why
        return {"type": "text", "media_type": "text/plain", "data": text}
    if part_type == "image":
        media_type = _IMAGE_TYPES.get(media_type, "")
        if not media_type:
            return None  # the API reads JPEG, PNG, GIF and WebP images only
    return {"type": "base64", "media_type": media_type, "data": source.data}


def _plain_text(data: str) -> str:
    """The text that base64 ``data`` holds; a ValueError saying what it is instead."""
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error:
        raise ValueError("its data is not valid base64") from None
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise ValueError("its data is not UTF-8 text, which a plain-text document holds") from None


def media_hint(block: DataBlock | ImageBlock) -> str:
    """What about ``block`` made ``media_part`` refuse it, for :meth:`Conversion.refuse`, when its kind
    and media type do not say: plain text that does not decode, or a URL that is a file id or names
    another type than the API fetches."""
    source = _inline(block.source)
    if isinstance(source, Base64Source) and media_type_essence(source.media_type) == "text/plain":
        try:
            _plain_text(source.data)
        except ValueError as error:
            return f": {error}"
        return ""
    return url_hint(block) + media_type_hint(block)


# -- reading --------------------------------------------------------------------


def read_media(obj: Mapping[str, Any], path: str, block_type: str) -> tuple[DataBlock, dict[str, Any]]:
    """The block for an ``image`` or ``document`` block, and the fields to keep in its holder's ``parts``."""
    source_path = at(path, "source")
    wire = req_object(req(obj, "source", path), source_path)
    source_type = req_str(req(wire, "type", source_path), at(source_path, "type"))
    source: Source
    if source_type == "base64":
        media_type = req_str(req(wire, "media_type", source_path), at(source_path, "media_type"))
        check_media_type(media_type, at(source_path, "media_type"))
        source = Base64Source(media_type, req_str(req(wire, "data", source_path), at(source_path, "data")))
    elif source_type == "url":
        url = req_str(req(wire, "url", source_path), at(source_path, "url"))
        # A document by URL is a PDF (the only kind the API fetches), an image's type is unknown.
        source = URLSource(url, "application/pdf" if block_type == "document" else None)
    elif source_type == "text" and block_type == "document":
        text = req_str(req(wire, "data", source_path), at(source_path, "data"))
        source = Base64Source("text/plain", base64.b64encode(text.encode("utf-8", "surrogatepass")).decode())
    elif source_type == "file":  # the Files API: a file uploaded before, by its id
        source = URLSource(req_str(req(wire, "file_id", source_path), at(source_path, "file_id")))
    else:
        raise UnsupportedContentError(
            f"{at(source_path, 'type')}: a {block_type} with a {shown(source_type)} source cannot be represented; "
            "supported: base64, url, file" + (", text" if block_type == "document" else "")
        )
    extras = unread(obj, MEDIA_READ_FIELDS[block_type])
    # The source's fields we do not read travel with it, and a file source is remembered as one.
    source_extras = unread(wire, _SOURCE_READ_FIELDS[source_type])
    if source_type == "file":
        source_extras["type"] = "file"
    if source_extras:
        extras["source"] = source_extras
    name = None
    if block_type == "document":
        title = obj.get("title")
        name = opt_str(title, at(path, "title"))
        if "title" in obj and title is None:
            extras["title"] = None
    if _inferred_part_type(source) != block_type:
        extras["type"] = block_type
    return DataBlock(source, name=name), extras

"""Media parts of the Vercel AI SDK (``image`` and ``file``), and the ``ai_sdk`` version choice.

A part's data is one string in AI SDK 5 and 6: a ``data:`` URL, another URL,
or bare base64 (what ``generateText``'s response messages hold for a file the
model made).  AI SDK 7 also tags it: ``{"type": "data", "data": <base64>}`` or
``{"type": "url", "url": ...}`` (a ``URL`` object, which JSON writes as its
string); ``convertToModelMessages`` writes every attachment so.  Those are read
into a :class:`Base64Source` or :class:`URLSource`, and the part carries only
which spelling it came in (:data:`MEDIA_FORM`), not its data a second time.
AI SDK 7's provider references (``{"type": "reference", ...}`` or a bare
``{provider: id}``) and inline text (``{"type": "text", ...}``) are no block of
ours: a ``DecodeError`` names them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._blocks import AudioBlock, ContentBlock, DataBlock, ImageBlock, VideoBlock
from .._checks import describe
from .._reader import at, opt_str, req, req_str
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError
from ._carried_fields import MEDIA_FORM, overlay
from ._carry import data_url
from ._frameworks import MEDIA_BLOCKS, likely_media_type, media_type_of, source_from_string

__all__ = ["AiSdk", "check_ai_sdk", "part_kind", "read_media", "read_tagged_data", "write_media"]

#: The major version of the ``ai`` package the written messages are for: it picks the spelling of
#: media in a tool result, where no spelling is taken by all three (see ``_vercel_results``).
AiSdk = Literal[5, 6, 7]
_VERSIONS = (5, 6, 7)


def check_ai_sdk(ai_sdk: object) -> AiSdk:
    # bool is an int to Python, but True is no version.
    if type(ai_sdk) is not int:
        raise ArgumentTypeError(f"ai_sdk must be 5, 6 or 7 (the major version of the 'ai' package), got {describe(ai_sdk)}")
    if ai_sdk not in _VERSIONS:
        raise ArgumentValueError(
            f"ai_sdk must be 5, 6 or 7 (the major version of the 'ai' package), got {ai_sdk}; "
            "pass the one that will read the messages"
        )
    return ai_sdk  # type: ignore[return-value]


# == reading =========================================================================


def read_media(part: dict[str, Any], path: str, kind: str) -> tuple[ContentBlock, dict[str, Any]]:
    """The block of an ``image`` or ``file`` part (``kind``) and its hints: the part's type when the
    block's media would be written as the other, and the spelling of its data when not a string we write."""
    key = "image" if kind == "image" else "data"
    value = req(part, key, path)
    media_type = opt_str(part.get("mediaType"), at(path, "mediaType"))
    form: str | None
    if kind == "file" and isinstance(value, dict):  # AI SDK 7's tagged data
        source, form = read_tagged_data(value, at(path, key), media_type)
    else:
        text = req_str(value, at(path, key))
        source = source_from_string(text, media_type)
        # Bare base64 of a declared type is written as a data: URL; marked, it goes back bare.
        form = "base64" if isinstance(source, Base64Source) and source.media_type and source.data == text else None
    block = DataBlock(source, name=opt_str(part.get("filename"), at(path, "filename")))
    # An image part of no image type (or a file part of one) says so, or it would come back as the other.
    hints: dict[str, Any] = {} if part_kind(block) == kind else {"type": kind}
    if form is not None:
        hints[MEDIA_FORM] = form
    return block, hints


def read_tagged_data(value: dict[str, Any], path: str, media_type: str | None) -> tuple[Source, str]:
    """The source of AI SDK 7's tagged file data, and its tag (``"data"`` or ``"url"``)."""
    if "type" not in value:  # AI SDK 7's bare provider reference, {provider: id}
        raise DecodeError(
            "a provider reference ({provider: id}) names a file only its provider holds, and is not read; "
            "expected a string or {\"type\": \"data\" | \"url\", ...}",
            path,
        )
    tag = req_str(value["type"], at(path, "type"))
    if tag == "data":
        return Base64Source(media_type or "", req_str(req(value, "data", path), at(path, "data"))), tag
    if tag == "url":
        url = req_str(req(value, "url", path), at(path, "url"))
        # A data: URL holds base64, read as a string data: URL is; any other is a URL.
        return (source_from_string(url, media_type) if url.startswith("data:") else URLSource(url, media_type)), tag
    raise DecodeError(
        f"file data of type {elided(tag)} is not read (AI SDK 7's provider references and inline text are no "
        "block of ours); expected data or url",
        at(path, "type"),
    )


# == writing =========================================================================


def part_kind(block: ContentBlock) -> str:
    """``"image"`` for an image (by its declared or its likely media type), ``"file"`` for any other media."""
    if isinstance(block, ImageBlock):
        return "image"
    media_type = likely_media_type(block.source) if isinstance(block, MEDIA_BLOCKS) and block.source else None
    return "image" if (media_type or "").startswith("image/") else "file"


def _media_string(source: Source) -> str:
    if isinstance(source, URLSource):
        return source.url
    assert isinstance(source, Base64Source)
    return data_url(source) if source.media_type else source.data


def _data(source: Source, form: object, kind: str) -> str | dict[str, str]:
    """A part's data in the spelling it was read in (``form``) while the source can be so spelled."""
    if isinstance(source, Base64Source) and form == "base64":
        return source.data
    if kind == "file" and isinstance(source, Base64Source) and form == "data":
        return {"type": "data", "data": source.data}
    if kind == "file" and form == "url":
        return {"type": "url", "url": _media_string(source)}
    return _media_string(source)


def write_media(
    block: DataBlock | ImageBlock | AudioBlock | VideoBlock,
    source: Source,
    extras: Mapping[str, Any],
    *,
    file_only: bool = False,
) -> dict[str, Any] | None:
    """A media part; in an assistant message (``file_only``) a file part, as the SDK takes no image
    part there, unless the part was read as an image.  ``None`` for a file part whose media type
    cannot be told: the SDK requires one.  ``extras``: the part's carried fields."""
    read_as = extras.get("type")
    kind = read_as if read_as in ("image", "file") else "file" if file_only else part_kind(block)
    data = _data(source, extras.get(MEDIA_FORM), kind)
    part: dict[str, Any] = {"type": kind, "image" if kind == "image" else "data": data}
    media_type = media_type_of(source)
    if media_type is None and kind == "file":
        media_type = likely_media_type(source)
        if media_type is None and not extras:  # a part read without one goes back as it came
            return None
    if media_type is not None:
        part["mediaType"] = media_type
    if isinstance(block, DataBlock) and block.name is not None:
        part["filename"] = block.name
    # The spelling is ours to apply, no field of the part's.
    return overlay(part, {key: value for key, value in extras.items() if key != MEDIA_FORM})

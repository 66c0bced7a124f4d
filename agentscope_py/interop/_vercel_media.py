"""Media parts of the Vercel AI SDK (``image`` and ``file``), the spelling of media items in a tool
result, and the ``ai_sdk`` version choice.

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

An item of a tool result's output is spelled by its *form*: its ``type``, and for
AI SDK 7's ``file`` item its data's tag too (``"file:data"``, ``"file:url"``).
:func:`medium_item` spells a medium for an ``ai`` version, :func:`spelled_item`
in the form it was read in (a mark a result carries, not the data).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from .._blocks import AudioBlock, ContentBlock, DataBlock, ImageBlock, TextBlock, VideoBlock
from .._checks import describe
from .._reader import at, opt_str, req, req_dict, req_str
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import ArgumentTypeError, ArgumentValueError, DecodeError
from ._carried_fields import MEDIA_FORM, overlay
from ._frameworks import MEDIA_BLOCKS, likely_media_type, media_type_of, source_from_string
from ._media_types import (
    check_media_type,
    data_url,
    fetchable,
    held_media_type,
    media_type_essence,
    unusable_media_type,
    url_or_data_url,
)

__all__ = [
    "AiSdk",
    "check_ai_sdk",
    "item_form",
    "medium_item",
    "part_kind",
    "read_media",
    "read_tagged_data",
    "spelled_item",
    "write_media",
]

#: The major version of the ``ai`` package the written messages are for: it picks the spelling of
#: media in a tool result, where no spelling is taken by all three (see ``_vercel_results``).
AiSdk = Literal[5, 6, 7]
_VERSIONS: tuple[int, ...] = get_args(AiSdk)


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
    if kind == "file" and isinstance(value, Mapping):  # AI SDK 7's tagged data, in any mapping a program holds
        source, form = read_tagged_data(req_dict(value, at(path, key)), at(path, key), media_type)
    else:
        text = req_str(value, at(path, key))
        source = source_from_string(text, media_type)
        # Bare base64 of a declared type is written as a data: URL; marked, it goes back bare.
        form = "base64" if isinstance(source, Base64Source) and source.media_type and source.data == text else None
    if isinstance(source, Base64Source):  # the type of inline data, which the writers refuse when it is none
        check_media_type(source.media_type, at(path, "mediaType"))
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
        source = source_from_string(url, media_type) if url.startswith("data:") else URLSource(url, media_type)
        if not fetchable(source):
            # What JSON makes of a URL object has a scheme; one without would read as a file id, which
            # no writer sends (AgentFlow, whose URLs are strings, keeps such a URL and its kind instead).
            raise DecodeError(
                f"{elided(url)} has no scheme: AI SDK 7's url data is a URL object, whose JSON is an absolute "
                "URL; give one (https://…), or the file's base64 as {\"type\": \"data\", \"data\": …}",
                at(path, "url"),
            )
        return source, tag
    raise DecodeError(
        f"file data of type {elided(tag)} is not read (AI SDK 7's provider references and inline text are no "
        "block of ours); expected data or url",
        at(path, "type"),
    )


# == writing =========================================================================


def part_kind(block: ContentBlock) -> str:
    """``"image"`` for an image (by its declared or its likely media type), ``"file"`` for any other
    media and for a named image: the SDK's image part has no ``filename`` (it drops one), its file
    part has, and its providers send a file part of an image type as an image."""
    if isinstance(block, ImageBlock):
        return "image"
    if isinstance(block, DataBlock) and block.name is not None:
        return "file"
    media_type = likely_media_type(block.source) if isinstance(block, MEDIA_BLOCKS) and block.source else None
    return "image" if media_type_essence(media_type or "").startswith("image/") else "file"


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
    cannot be told: the SDK requires one, and for inline data whose media type is no media type.
    ``extras``: the part's carried fields."""
    if unusable_media_type(source) is not None:
        return None
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
    if kind == "file" and isinstance(block, DataBlock) and block.name is not None:
        part["filename"] = block.name
    # The spelling is ours to apply, no field of the part's.
    return overlay(part, {key: value for key, value in extras.items() if key != MEDIA_FORM})


# == items of a tool result's output =================================================

#: The forms of an item holding inline data as a base64 string; AI SDK 6 named the last two.
_DATA_FORMS = ("media", "image-data", "file-data")
#: The forms whose item holds a ``filename``.
_NAMED_FORMS = ("file-data", "file:data", "file:url")


def item_form(item: Mapping[str, Any]) -> str:
    """The form of an output item read (its ``type``; a ``file`` item's with its data's tag)."""
    kind = str(item["type"])
    data = item.get("data")
    return f"{kind}:{data.get('type')}" if kind == "file" and isinstance(data, Mapping) else kind


def medium_item(inner: ContentBlock, ai_sdk: AiSdk | None) -> dict[str, Any] | None:
    """The item for a medium, spelled for ``ai_sdk`` (``None``: Codebuff's list, which holds ``media``
    items only); ``None`` for one it cannot hold.  The spellings each version takes and its providers
    send on (checked against ai 5.0, 6.0 and 7.0 with their Anthropic and OpenAI providers):

    * 5: ``media`` only.  6: ``media``; ``file-data`` holds a name, but Anthropic's provider sends
      only a PDF so and drops an image: a named image goes as ``media``, its name not sent.
    * 7: its own ``file`` item with tagged data, which holds a name (an image's too); no warning.
    * 6 and 7: a URL as ``image-url`` (which holds no media type) or ``file-url``.  7 deprecates
      them for a ``file`` item whose URL is a ``URL`` object, which JSON cannot hold: its schema
      refuses the string JSON gives there, and takes these."""
    source = inner.source if isinstance(inner, MEDIA_BLOCKS) else None
    if source is None or not fetchable(source):
        return None
    media_type = likely_media_type(source)
    if media_type is None:
        return None
    is_image = media_type_essence(media_type).startswith("image/")
    name = inner.name if isinstance(inner, DataBlock) else None
    form = _our_form(source, is_image, name is not None, ai_sdk)
    if form is None:
        return None
    return _item(form, source, None if form == "image-url" else media_type, name)


def _our_form(source: Source, is_image: bool, named: bool, ai_sdk: AiSdk | None) -> str | None:
    """The form we write a medium in for ``ai_sdk`` (see :func:`medium_item`); ``None``: none holds it."""
    if isinstance(source, URLSource):
        if ai_sdk is None or ai_sdk == 5:  # neither holds a URL
            return None
        return "image-url" if is_image else "file-url"
    if ai_sdk == 7:
        return "file:data"
    return "file-data" if ai_sdk == 6 and named and not is_image else "media"


def spelled_item(inner: ContentBlock, form: object) -> dict[str, Any] | None:
    """``inner`` as an item of the ``form`` it was read in, with the media type it declares (``""``
    too: as read); ``None`` when that form cannot hold it (a mark meets another block)."""
    if isinstance(inner, TextBlock):
        if form == "text":
            return {"type": "text", "text": inner.text}
        return {"type": "json", "value": inner.text} if form == "json" else None
    source = inner.source if isinstance(inner, MEDIA_BLOCKS) else None
    if source is None or not isinstance(form, str):
        return None
    return _item(form, source, held_media_type(source), inner.name if isinstance(inner, DataBlock) else None)


def _item(form: str, source: Source, media_type: str | None, name: str | None) -> dict[str, Any] | None:
    """An item of ``form`` holding ``source``; ``None`` when the form cannot hold it."""
    item: dict[str, Any]
    if form in _DATA_FORMS:
        if not isinstance(source, Base64Source):
            return None
        item = {"type": form, "data": source.data, "mediaType": media_type or ""}
    elif form in ("image-url", "file-url"):
        if not isinstance(source, URLSource):
            return None
        item = {"type": form, "url": source.url}
        if media_type is not None:
            item["mediaType"] = media_type
    elif form == "file:data" and isinstance(source, Base64Source):
        item = {"type": "file", "data": {"type": "data", "data": source.data}, "mediaType": media_type or ""}
    elif form == "file:url":  # a data: URL too, as AI SDK 7 writes an attachment
        item = {"type": "file", "data": {"type": "url", "url": url_or_data_url(source)}, "mediaType": media_type or ""}
    else:
        return None
    if name is not None and form in _NAMED_FORMS:
        item["filename"] = name
    return item

"""OpenAI's media parts: ``image_url``, ``input_audio`` and ``file``, written from our media blocks and read back.

Each part takes its media its own way (a URL or data URL; inline WAV or MP3
named by a format; a file inline or by id), and which part a source becomes is
inferred from its media type unless the part came as another.  Writing and
reading share that inference and the audio format tables, and getting one side
wrong without the other breaks the round trip, so they live together here; the
rest of ``openai`` maps turns and tool calls and hands this module the media.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._blocks import AudioBlock, DataBlock, ImageBlock
from .._reader import at, opt_str, req, req_str
from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import DecodeError
from ._carry import merged, nulls, unread
from ._media_types import (
    MEDIA_TYPE_OF_EXTENSION,
    base64_data_url,
    data_url,
    fetchable,
    inferred_media_type,
    media_type_essence,
    source_from_url,
    unusable_media_type,
    url_or_data_url,
)
from ._payloads import req_object

__all__ = ["MEDIA_BLOCKS", "MEDIA_PARTS", "media_part", "read_media_part"]

# The blocks that become media parts; the API takes them from the user only.
MEDIA_BLOCKS = (DataBlock, ImageBlock, AudioBlock)
# The part types read into a DataBlock.
MEDIA_PARTS = ("image_url", "input_audio", "file")
# The two formats input_audio takes, by the media types that name them.
_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}
_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}


# -- writing --------------------------------------------------------------------


def media_part(block: DataBlock | ImageBlock | AudioBlock, extras: dict[str, Any]) -> dict[str, Any] | None:
    """The part for a media block of a user turn; ``None`` for media the API does not take that way."""
    if isinstance(block, DataBlock):
        return _source_part(block.source, block.name, extras)
    extras.setdefault("type", "image_url" if isinstance(block, ImageBlock) else "input_audio")
    return _source_part(block.source, None, extras)


def _inferred_part_type(source: Source) -> str:
    """The part a media source becomes unless its extras say otherwise: by media type, which for a URL
    that declares none its file extension tells (``a.wav`` is no image, and OpenAI takes audio inline
    only); an image when nothing tells."""
    media_type = inferred_media_type(source)
    if media_type is None or media_type.startswith("image/"):
        return "image_url"
    return "input_audio" if media_type.startswith("audio/") else "file"


def _source_part(source: Source, name: str | None, extras: dict[str, Any]) -> dict[str, Any] | None:
    if unusable_media_type(source) is not None:
        return None  # it would go as a data: URL of no type: see media_type_hint
    declared = extras.pop("type", None)
    part_type = declared or _inferred_part_type(source)
    if part_type == "image_url":
        if not fetchable(source):
            return None
        return merged({"type": "image_url", "image_url": {"url": url_or_data_url(source)}}, extras)
    if part_type == "input_audio":
        fmt = _AUDIO_FORMATS.get(media_type_essence(source.media_type)) if isinstance(source, Base64Source) else None
        if fmt is None or not isinstance(source, Base64Source):
            return None  # inline WAV or MP3 only
        return merged({"type": "input_audio", "input_audio": {"data": source.data, "format": fmt}}, extras)
    if part_type != "file":
        return None
    if isinstance(source, Base64Source):
        # A file_data that came without a data: prefix reads back with an empty media type.
        file = {"file_data": data_url(source) if source.media_type else source.data}
        # The API refuses inline data without a filename, whatever the SDK's types say.
        file["filename"] = _default_filename(source.media_type) if name is None else name
    elif declared == "file":
        # Only a part read as a file by id has a URL source, standing for the file id.
        file = {"file_id": url_or_data_url(source)}
        if name is not None:
            file["filename"] = name
    else:
        return None  # OpenAI takes files inline or by id, never by URL
    return merged({"type": "file", "file": file}, extras)


# The file extension of each media type the URL readers know by one: the first, where the table has
# two (jpg, not jpeg).
_EXTENSION_OF = {media_type: extension for extension, media_type in reversed(MEDIA_TYPE_OF_EXTENSION.items())}


def _default_filename(media_type: str) -> str:
    """The filename inline data without a name is sent with: ``file.pdf`` for a PDF, by its media type
    (the API tells a file's kind by its name), ``file`` for a type without a known extension.  Read
    back, it is no name: a block named so is written the same with none."""
    extension = _EXTENSION_OF.get(media_type_essence(media_type))
    return "file" if extension is None else f"file.{extension}"


# -- reading --------------------------------------------------------------------


def read_media_part(obj: Mapping[str, Any], path: str, part_type: str) -> tuple[DataBlock, dict[str, Any]]:
    """The block for a part of one of the ``MEDIA_PARTS`` types, and the part's fields to carry."""
    # The fields we have no place for, the part's own and (one level down) its object's: image_url.detail.
    extras = unread(obj, ("type", part_type))
    if part_type == "image_url":
        image_path = at(path, "image_url")
        image = req_object(req(obj, "image_url", path), image_path)
        source = source_from_url(req_str(req(image, "url", image_path), at(image_path, "url")))
        opt_str(image.get("detail"), at(image_path, "detail"))
        if kept := unread(image, ("url",)):
            extras["image_url"] = kept
        name = None
    elif part_type == "input_audio":
        audio_path = at(path, "input_audio")
        audio = req_object(req(obj, "input_audio", path), audio_path)
        data = req_str(req(audio, "data", audio_path), at(audio_path, "data"))
        fmt = req_str(req(audio, "format", audio_path), at(audio_path, "format"))
        media_type = _AUDIO_TYPES.get(fmt)
        if media_type is None:  # the API refuses it, and so would to_openai
            raise DecodeError(
                f"expected the format 'wav' or 'mp3' (all that input_audio takes), got {elided(fmt)}", at(audio_path, "format")
            )
        if kept := unread(audio, ("data", "format")):
            extras["input_audio"] = kept
        source, name = Base64Source(media_type, data), None
    else:  # "file", the last of MEDIA_PARTS
        source, name = _read_file(obj, path, extras)
    if _inferred_part_type(source) != part_type:
        extras["type"] = part_type
    return DataBlock(source, name=name), extras


def _read_file(obj: Mapping[str, Any], path: str, extras: dict[str, Any]) -> tuple[Source, str | None]:
    file_path = at(path, "file")
    file = req_object(req(obj, "file", path), file_path)
    file_data = opt_str(file.get("file_data"), at(file_path, "file_data"))
    file_id = opt_str(file.get("file_id"), at(file_path, "file_id"))
    name = opt_str(file.get("filename"), at(file_path, "filename"))
    kept = {**nulls(file, ("file_data", "file_id", "filename")), **unread(file, ("file_data", "file_id", "filename"))}
    if file_data is not None and file_id is not None:
        kept["file_id"] = file_id
    if kept:
        extras["file"] = kept
    if file_data is None:
        if file_id is None:
            raise DecodeError("a file part needs file_data or file_id", file_path)
        return URLSource(file_id), name
    inline = base64_data_url(file_data)
    # Without a media type (or a data: prefix) the whole is the data: written back as it came.
    source = Base64Source(*inline) if inline is not None and inline[0] else Base64Source("", file_data)
    # The name the writer gives inline data that has none is none.
    return source, None if name == _default_filename(source.media_type) else name

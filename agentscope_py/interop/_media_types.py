"""Media types, ``data:`` URLs and URL schemes, judged alike by every format's readers and writers."""

from __future__ import annotations

import re
import urllib.parse

from .._shown import elided
from .._sources import Base64Source, Source, URLSource
from ..errors import DecodeError

__all__ = [
    "MEDIA_TYPE_OF_EXTENSION",
    "base64_data_url",
    "check_media_type",
    "data_url",
    "fetchable",
    "has_scheme",
    "held_media_type",
    "inferred_media_type",
    "is_media_type",
    "media_type_essence",
    "source_from_url",
    "unusable_media_type",
    "url_media_type",
    "url_or_data_url",
]


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

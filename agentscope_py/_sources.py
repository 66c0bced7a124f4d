"""Where the bytes of a media block come from: a URL or inline base64."""

from __future__ import annotations

from typing import ClassVar

import attrs

from . import _checks
from ._builder import Builder, FieldSetter
from ._fields import checked_fields, register_converter
from ._serializable import JsonSerializable
from ._shown import elided
from .errors import ArgumentTypeError

__all__ = ["Base64Source", "Base64SourceBuilder", "Source", "URLSource", "URLSourceBuilder"]


@attrs.frozen
class Source(JsonSerializable):
    """Base class of the media sources; ``type`` is the wire discriminator."""

    type: ClassVar[str]

    def __init__(self) -> None:
        raise ArgumentTypeError(
            f"{type(self).__name__} is abstract; build a URLSource('https://…') or a Base64Source(media_type, data)"
        )


def _shown_url(url: str) -> str:
    # A data: URL holds the bytes themselves, as a Base64Source does; any other is shown whole, up to
    # a length no signed URL reaches (one past it is no address a person reads, and may be megabytes).
    return elided(url) if url[:5].lower() == "data:" or len(url) > 4096 else repr(url)


@attrs.frozen(field_transformer=checked_fields)
class URLSource(Source):
    """Media fetched from ``url``; ``mime_type`` is optional.  Its ``repr`` shows the start of a
    long ``data:`` URL (or of any URL past 4096 characters) and its length."""

    type: ClassVar[str] = "url"
    url: str = attrs.field(repr=_shown_url)
    mime_type: str | None = None

    @staticmethod
    def builder() -> URLSourceBuilder:
        return URLSourceBuilder()


@attrs.frozen(field_transformer=checked_fields)
class Base64Source(Source):
    """Media held inline as base64 ``data`` of type ``media_type``.  Its ``repr`` shows the start
    of long data and its length."""

    type: ClassVar[str] = "base64"
    media_type: str
    data: str = attrs.field(repr=elided)  # an image is megabytes of base64

    @staticmethod
    def builder() -> Base64SourceBuilder:
        return Base64SourceBuilder()


class URLSourceBuilder(Builder[URLSource], target=URLSource):
    url: ClassVar[FieldSetter[str]] = FieldSetter()
    mime_type: ClassVar[FieldSetter[str | None]] = FieldSetter()


class Base64SourceBuilder(Builder[Base64Source], target=Base64Source):
    media_type: ClassVar[FieldSetter[str]] = FieldSetter()
    data: ClassVar[FieldSetter[str]] = FieldSetter()


def _check_source(value: object, arg: str) -> Source:
    if isinstance(value, Source) and type(value) is not Source:
        return value
    raise ArgumentTypeError(
        f"{arg} must be a URLSource or Base64Source, got {_checks.describe(value)}{_checks.unbuilt_hint(value)}"
    )


def _check_optional_source(value: object, arg: str) -> Source | None:
    return None if value is None else _check_source(value, arg)


register_converter("Source", (URLSource, Base64Source), _check_source)
register_converter("Source | None", (type(None), URLSource, Base64Source), _check_optional_source)

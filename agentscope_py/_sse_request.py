"""What an event stream client sends: the URL as HTTP carries it, and header values it can send.

Checked where the client is made, so that a URL or header no request could carry is an
:class:`~agentscope_py.ArgumentValueError` then, not a failure at the first connection.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping

from ._checks import describe
from ._json import has_lone_surrogate
from .errors import ArgumentTypeError, ArgumentValueError

__all__ = ["check_last_event_id", "header_event_id", "parse_url", "request_headers", "sent_back_as_is"]

# Asked for on every request, unless the caller's headers name them (in any case).  Identity: a
# compressed body would parse as no event (http.client asks for it unasked; httpx asks for gzip).
_OWN_HEADERS = {"Accept": "text/event-stream", "Accept-Encoding": "identity", "Cache-Control": "no-cache"}

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110's token: what a header name may be
# Characters no request can carry (http.client refuses controls, and a lone surrogate has no UTF-8).
_UNSENDABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
# What goes into the request line as it is, besides the unreserved characters quote() always keeps:
# RFC 3986's reserved ones, whose escaping could change what the URL means, and "%", so the escapes
# already there stay.  The rest is percent-encoded as UTF-8, as in a browser: spaces, non-ASCII, and
# what no URI holds raw ({, |, " ...), which some servers answer with 400 (Tomcat, say).
_AS_IS = ":/?#[]@!$&'()*+,;=%"
# The WHATWG URL standard's forbidden domain code points that urlsplit leaves in a host.
_NOT_IN_HOST = re.compile(r"[ %<>\\^|]")
# ß, ς, ZWNJ and ZWJ: Python's IDNA 2003 codec maps them away, a browser's IDNA keeps them (faß.de
# is fass.de to one, xn--fa-hia.de to the other): the client would reach another host than a browser.
_IDNA_DEVIATIONS = re.compile("[\u00df\u03c2\u200c\u200d]")
_ZONE = re.compile(r"[A-Za-z0-9._~-]+")  # an IPv6 zone (an interface name, RFC 6874), unescaped
# RFC 9110 allows no control character in a header value but tab, nor a space or tab at either end
# (a server strips them).  http.client sends most of them anyway; h11, under the async client,
# refuses them when the request is sent: both clients hold to the RFC, so they send alike.
_HEADER_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
_HEADER_CONTROL_BYTES = re.compile(b"[\x00-\x08\x0a-\x1f\x7f]")


def parse_url(url: str) -> tuple[bool, str, int, str]:
    """Whether ``url`` is https, its host as sent (ASCII), its port and the request target
    (path and query, percent-encoded where HTTP cannot carry them as they are)."""
    unsendable = _UNSENDABLE.search(url)
    if unsendable:
        raise ArgumentValueError(
            f"url cannot contain control characters or lone surrogates, found {unsendable[0]!r} in {url!r}: "
            "remove it, or percent-encode what the server should receive (%0A for a line feed)"
        )
    try:
        parts = urllib.parse.urlsplit(url.strip(" "))  # as the WHATWG parser, which drops spaces around a URL
    except ValueError as error:  # brackets around no IPv6 address, say
        raise ArgumentValueError(f"url {url!r} cannot be parsed: {error}") from None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise ArgumentValueError(f"url must be an http:// or https:// URL with a host, got {url!r}")
    if parts.username is not None:
        # Not sent (http.client does no authentication), and every error would show them.
        raise ArgumentValueError(
            "url must not hold credentials (user:password@); pass them as a header, "
            "e.g. headers={'Authorization': 'Bearer ...'}"
        )
    try:
        port = parts.port
    except ValueError:  # out of range, or not a number
        port = 0
    if port == 0:  # None when the url gives none
        raise ArgumentValueError(f"url must have a port from 1 to 65535, got {url!r}")
    host = _ascii_host(host) if ":" not in host else _ipv6_host(host)
    target = urllib.parse.quote(parts.path or "/", safe=_AS_IS)
    if parts.query:
        target += "?" + urllib.parse.quote(parts.query, safe=_AS_IS)
    https = parts.scheme == "https"
    # Explicit: given None, http.client would read the end of an IPv6 address ("::1") as a port.
    return https, host, port or (443 if https else 80), target


def _ipv6_host(host: str) -> str:
    """An IPv6 address as the resolver takes it: a zone (``fe80::1%25eth0`` in a URL, RFC 6874) with
    its ``%`` unescaped.  urlsplit has checked the address, not the zone."""
    if "%" not in host:
        return host
    address, escape, zone = host.partition("%25")
    if not escape or not _ZONE.fullmatch(zone):
        raise ArgumentValueError(
            f"url host {host!r} has no IPv6 zone the client can send: write it as %25 and an interface name "
            "of letters, digits and ._~- ([fe80::1%25eth0])"
        )
    return f"{address}%{zone}"


def _ascii_host(host: str) -> str:
    """``host`` as DNS and the ``Host`` header take it: an internationalized name in its IDNA form."""
    if not host.isascii():
        if _IDNA_DEVIATIONS.search(host):
            raise ArgumentValueError(
                f"url host {host!r} holds ß, ς or a zero-width (non-)joiner, which Python's IDNA codec and a "
                "browser encode as different hosts; give the host in the ASCII (xn--) form you mean"
            )
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as error:
            raise ArgumentValueError(
                f"url host {host!r} is no internationalized domain name ({error}); give it in its ASCII (xn--) form"
            ) from None
    if _NOT_IN_HOST.search(host):
        raise ArgumentValueError(f"url host {host!r} cannot contain a space, nor any of %<>\\^|")
    return host


def _header_text(value: object, name: str) -> str:
    """A ``Last-Event-ID`` given in ``headers``, as the text the client sends (UTF-8) from then on: a
    str need not be Latin-1, as other header values must, any more than ``last_event_id=`` need."""
    if isinstance(value, bytes):
        try:
            value = value.decode()
        except UnicodeDecodeError:
            raise ArgumentValueError(f"{name} must be UTF-8, as the client sends the event id, got {value!r}") from None
    elif not isinstance(value, str):
        raise ArgumentTypeError(f"{name} must be a str or bytes, got {describe(value)}")
    return check_last_event_id(value, name)


def check_last_event_id(value: str, name: str) -> str:
    """``value``, an event id to resume after, when a ``Last-Event-ID`` header can carry it."""
    if _HEADER_CONTROL.search(value):
        raise ArgumentValueError(
            f"{name} cannot contain a control character other than tab (it is sent as a header), got {value!r}"
        )
    if has_lone_surrogate(value):  # an id read from JSON may hold one: it has no UTF-8
        raise ArgumentValueError(f"{name} {value!r} holds a lone surrogate, which cannot be sent as UTF-8")
    return value


def header_event_id(event_id: str) -> bytes | None:
    """The ``Last-Event-ID`` header's value for ``event_id``, or ``None`` to send none.

    An id may hold what a header cannot: a server's id with a control character is not sent
    (the server starts over, and the client skips the events it has yielded), and the spaces
    or tabs around it are left out, as a server reading the header would leave them out."""
    if _HEADER_CONTROL.search(event_id):
        return None
    # UTF-8, as browsers send it: as text, HTTP would send Latin-1, and fail on "事件-3".
    return event_id.strip(" \t").encode() or None


def sent_back_as_is(event_id: str) -> bool:
    """Whether a client resuming after ``event_id`` sends it back unchanged as ``Last-Event-ID``
    (``event_id`` holds no lone surrogate)."""
    return header_event_id(event_id) == event_id.encode()


def _header_bytes(value: object, arg: str) -> bytes:
    """A header value as sent: bytes as given, text as Latin-1 (HTTP's, and http.client's)."""
    if isinstance(value, str):
        try:
            data = value.encode("latin-1")
        except UnicodeEncodeError:
            raise ArgumentValueError(
                f"{arg} must be Latin-1 text, as HTTP sends a str; give bytes in the encoding the server reads, "
                f"such as {value!r}.encode()"
            ) from None
    elif isinstance(value, bytes):
        data = value
    else:
        raise ArgumentTypeError(f"{arg} must be a str or bytes, got {describe(value)}")
    if _HEADER_CONTROL_BYTES.search(data):
        raise ArgumentValueError(f"{arg} cannot contain a control character other than tab, got {data!r}")
    return data.strip(b" \t")  # as a server reads it


def request_headers(headers: Mapping[str, str | bytes] | None) -> tuple[dict[str, bytes], str | None]:
    """The headers to send on every request, as bytes (``str`` values as Latin-1, as HTTP sends
    text), and the ``Last-Event-ID`` among ``headers``, if any: the client sends that one itself,
    updated on every reconnection."""
    given: object = headers  # whatever the annotation says: this is the check that it holds
    if given is not None and not isinstance(given, Mapping):
        raise ArgumentTypeError(f"headers must be a mapping of names to values, got {describe(given)}")
    caller: dict[str, bytes] = {}
    last_event_id = None
    for name, value in dict(given or {}).items():
        if not isinstance(name, str):  # compared without regard to case
            raise ArgumentTypeError(f"header names must be str, got {describe(name)}")
        if not _TOKEN.fullmatch(name):
            raise ArgumentValueError(f"header name {name!r} is no HTTP token (letters, digits and !#$%&'*+-.^_`|~)")
        if name.lower() == "last-event-id":
            # A second copy, in another case, would go too, and a server reading the first would
            # replay everything: the first one given is where the stream starts.
            text = _header_text(value, f"headers[{name!r}]")
            last_event_id = text if last_event_id is None else last_event_id
        else:
            caller[name] = _header_bytes(value, f"headers[{name!r}]")
    names = {name.lower() for name in caller}
    own = {name: value.encode() for name, value in _OWN_HEADERS.items() if name.lower() not in names}
    return own | caller, last_event_id

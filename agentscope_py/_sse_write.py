"""Agent events and messages written as Server-Sent Events text: one message, a comment.

Shared by the stream encoders of ``agentscope_py.sse`` and :class:`EventLog`,
which writes the stream it keeps.
"""

from __future__ import annotations

from ._checks import check_optional_str, check_str, describe
from ._json import has_lone_surrogate
from ._shown import elided
from ._sse_parse import LINE_END
from .errors import ArgumentTypeError, ArgumentValueError
from .event import AgentEvent

__all__ = [
    "check_event",
    "check_sse_id",
    "encode_comment",
    "encode_event",
    "encode_sse",
    "encoded_event",
    "retry_field",
]


def _single_line(value: str, name: str) -> str:
    if "\n" in value or "\r" in value:
        raise ArgumentValueError(f"an SSE {name} cannot contain a line break, got {value!r}")
    return _utf8(value, name)


def _utf8(value: str, name: str) -> str:
    # A stream is UTF-8 (a JSON document read with "\ud800" holds one): the text could not be sent.
    if has_lone_surrogate(value):
        raise ArgumentValueError(
            f"an SSE {name} cannot contain a lone surrogate, which UTF-8 cannot encode, got {elided(value)}"
        )
    return value


def check_sse_id(id: str) -> str:
    """``id``, when an SSE ``id:`` field can carry it (a client would drop an id holding NUL)."""
    if "\0" in id:
        raise ArgumentValueError(f"an SSE id cannot contain NUL, got {id!r}")
    return _single_line(id, "id")


def retry_field(retry: int) -> str:
    if type(retry) is not int:
        raise ArgumentTypeError(f"retry must be an int (milliseconds), got {describe(retry)}")
    if retry < 0:
        raise ArgumentValueError(f"retry must be a non-negative int (milliseconds), got {retry!r}")
    return f"retry: {retry}"


def encode_sse(data: str, *, event: str | None = None, id: str | None = None, retry: int | None = None) -> str:
    """One SSE message: optional ``id``, ``event`` and ``retry`` (milliseconds) fields, then
    ``data`` (one ``data:`` line per line of it), then the blank line that dispatches it."""
    check_str(data, "encode_sse data")
    check_optional_str(event, "encode_sse event")
    check_optional_str(id, "encode_sse id")
    return _message(_utf8(data, "data field"), event, id, retry)


def _message(data: str, event: str | None, id: str | None, retry: int | None) -> str:
    lines = []
    if id is not None:
        lines.append(f"id: {check_sse_id(id)}")
    if event is not None:
        lines.append(f"event: {_single_line(event, 'event name')}")
    if retry is not None:
        lines.append(retry_field(retry))
    # Only CR and LF end lines in SSE: str.splitlines would also split at U+2028 and others.
    lines.extend(f"data: {line}" for line in LINE_END.split(data))
    return "\n".join(lines) + "\n\n"


def encode_event(event: AgentEvent, *, retry: int | None = None) -> str:
    """The SSE message of ``event``: ``id:`` its id, ``event:`` its type, ``data:`` its JSON."""
    check_event(event, "encode_event")
    return encoded_event(event, retry)


def encoded_event(event: AgentEvent, retry: int | None = None) -> str:
    # The JSON is one line, its lone surrogates escaped: only the id is checked.
    return _message(event.to_json(), event.type.value, event.id, retry)


def check_event(event: object, caller: str) -> None:
    if not isinstance(event, AgentEvent):
        raise ArgumentTypeError(f"{caller} takes AgentEvents, got {describe(event)}; use encode_sse for text")


def encode_comment(text: str = "") -> str:
    """A comment line, ignored by clients: a keep-alive that stops proxies closing an idle stream."""
    check_str(text, "encode_comment text")
    return f": {_single_line(text, 'comment')}\n\n" if text else ":\n\n"

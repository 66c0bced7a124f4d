"""An incremental Server-Sent Events parser, following the WHATWG "event stream" rules.

Bytes arrive in chunks that may split a line, a CRLF pair or a UTF-8 sequence
anywhere; the parser keeps exactly the unfinished tail between calls, so a
stream costs time linear in its size however it is chunked.
"""

from __future__ import annotations

import codecs
import re

from typing import Final, NoReturn, TypeAlias

import attrs

from ._checks import check_str, describe
from ._fields import unchecked_init
from ._shown import elided
from .errors import ArgumentTypeError, ArgumentValueError, DecodeError

__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "LINE_END", "MAX_RETRY", "Chunk", "SSEMessage", "SSEParser", "check_size"]

#: A piece of an event stream: text, or UTF-8 bytes in any of Python's byte containers.
Chunk: TypeAlias = str | bytes | bytearray | memoryview

DEFAULT_MAX_MESSAGE_SIZE: Final = 64 * 1024 * 1024  # characters; the JSON decoder's default limit is the same
#: The longest reconnection delay a server can ask for (one day, in milliseconds): a longer
#: ``retry:`` is read as this.  Unbounded, it could overflow the client's sleep, or int() itself.
MAX_RETRY: Final = 24 * 60 * 60 * 1000

# CRLF, a lone CR and a lone LF all end a line; no other character does (unlike str.splitlines).
LINE_END = re.compile(r"\r\n|\r|\n")


def check_size(value: object, arg: str) -> int:
    """A message size limit: an int of at least 1 (characters)."""
    # A setting of this process, not a field Java reads: no Java int bound.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{arg} must be an int (characters), got {describe(value)}")
    if value < 1:
        raise ArgumentValueError(f"{arg} must be at least 1 (characters), got {value!r}")
    return int(value)


@attrs.frozen
class SSEMessage:
    """One dispatched message: its ``event`` type (``"message"`` when the stream named none),
    its ``data`` (lines joined with ``"\\n"``), and the stream's last event id at that point."""

    event: str
    data: str = attrs.field(repr=elided)  # an event's JSON, which may hold megabytes of base64
    last_event_id: str


class SSEParser:
    """Turns an event stream, fed in chunks of any size, into :class:`SSEMessage` objects.

    ``feed`` returns the messages the chunk completed.  A message is dispatched
    only at the blank line that ends it, so a stream cut in the middle of a
    message never yields half of it.  Feed it ``bytes`` (decoded as UTF-8,
    invalid sequences replaced, as browsers do) or ``str``, in any mix: text fed
    in the middle of a character's bytes makes them an invalid sequence.

    ``last_event_id`` and ``retry`` (the reconnection delay the server asked
    for, in milliseconds, or ``None``) are what a client needs to resume.

    A message whose lines hold more than ``max_message_size`` characters
    (counted as the stream writes them, field names included, line ends not),
    or a comment line longer than that, raises :class:`DecodeError` as soon as
    it does, however the stream is chunked, so a broken or hostile stream cannot
    fill the memory; every later call raises it again.  The messages completed
    before it come out first: a ``feed`` that completed some returns them, and
    the next ``feed``, or ``close`` at the end of the stream, raises.  Comments
    are no part of a message: keep-alives between messages never add up to one.
    """

    def __init__(self, last_event_id: str = "", *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        self.last_event_id: str = check_str(last_event_id, "SSEParser last_event_id")
        self.max_message_size: int = check_size(max_message_size, "SSEParser max_message_size")
        self.retry: int | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._fed_bytes = False
        self._at_start = True  # a byte order mark is dropped only at the very start
        self._after_cr = False  # the last chunk ended in CR: a leading LF completes that CRLF
        self._partial: list[str] = []  # the unfinished line, in pieces
        self._partial_runs = 0  # pieces at the front of _partial that are joined runs, see _join_run
        self._partial_size = 0
        self._data: list[str] = []
        self._data_runs = 0
        self._size = 0  # the characters of the message's lines so far
        self._event_type = ""
        self._id_buffer = last_event_id
        self._too_large_seen: str | None = None  # what grew too large: every later call says so again

    def feed(self, chunk: Chunk) -> list[SSEMessage]:
        """Parse ``chunk`` and return the messages it completed (often none)."""
        if self._too_large_seen is not None:
            self._too_large(self._too_large_seen)
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            self._fed_bytes = True
            text = self._decoder.decode(chunk)
        elif isinstance(chunk, str):
            # Text after bytes ends the bytes held back for a character they began: an invalid
            # sequence, replaced as any other, before the text.
            text = self._decoder.decode(b"", True) + chunk if self._fed_bytes and chunk else chunk
        else:
            raise ArgumentTypeError(f"an SSE chunk is str or bytes, got {type(chunk).__name__}")
        if not text:
            return []
        if self._at_start:
            self._at_start = False
            text = text.removeprefix("\ufeff")
        if self._after_cr:
            text = text.removeprefix("\n")
        self._after_cr = text.endswith("\r")
        messages: list[SSEMessage] = []
        try:
            self._read(text, messages)
        except DecodeError:  # from _too_large
            if not messages:
                raise
            # The messages the chunk completed before the one too large come out first, as they
            # would have from smaller chunks; the error comes from the next call.
        return messages

    def close(self) -> None:
        """The stream has ended: raise the :class:`DecodeError` of a message too large, if the chunk
        that held it also completed messages (``feed`` returned those first); else nothing, as an
        unfinished message at the end is dropped."""
        if self._too_large_seen is not None:
            self._too_large(self._too_large_seen)

    def _read(self, text: str, messages: list[SSEMessage]) -> None:
        # The lines split in C (by str.split when there is no CR, the common case), then read in one
        # loop: a method call per line cost more than the reading itself.
        lines = LINE_END.split(text) if "\r" in text else text.split("\n")
        tail = lines.pop()  # after the last line end: the start of an unfinished line, or ""
        if lines and self._partial:
            self._partial.append(lines[0])
            lines[0] = "".join(self._partial)
            self._partial.clear()
            self._partial_runs = self._partial_size = 0
        limit = self.max_message_size
        size, data = self._size, self._data
        try:
            for line in lines:
                if not line:
                    size = 0
                    message = self._dispatch()
                    data = self._data
                    if message is not None:
                        messages.append(message)
                    continue
                # Every line counts as its unfinished tail did: whether a message fits cannot depend
                # on where the chunks happened to split it.
                if line[0] == ":":  # a comment, often a keep-alive: dropped, so it counts alone
                    if len(line) > limit:
                        self._too_large("comment line")
                    continue
                size += len(line)
                if size > limit:
                    self._too_large()
                field, colon, value = line.partition(":")
                if colon and value[:1] == " ":
                    value = value[1:]
                if field == "data":
                    data.append(value)
                    if len(data) - self._data_runs >= _RUN:
                        self._data_runs = _join_run(data, self._data_runs, "\n")
                elif field == "event":
                    self._event_type = value
                elif field == "id":
                    if "\0" not in value:
                        self._id_buffer = value
                elif field == "retry":
                    if value.isascii() and value.isdigit():
                        digits = value.lstrip("0")
                        too_long = len(digits) > len(str(MAX_RETRY))  # int() of a million digits is slow
                        self.retry = MAX_RETRY if too_long else min(int(digits or "0"), MAX_RETRY)
                # any other field is ignored, as the standard says
        finally:
            self._size = size
        if tail:
            partial = self._partial
            partial.append(tail)
            if len(partial) - self._partial_runs >= _RUN:
                self._partial_runs = _join_run(partial, self._partial_runs, "")
            self._partial_size += len(tail)
            # An unfinished comment counts alone, as it will once finished.
            comment = partial[0][0] == ":"
            held = self._partial_size if comment else self._partial_size + self._size
            if held > limit:
                self._too_large("comment line" if comment else "message")

    def _too_large(self, what: str = "message") -> NoReturn:
        """Refuse what grew past the limit: a ``"message"``, or a ``"comment line"``, which counts alone."""
        # A fresh error each time: one kept would hold its traceback's frames, the parser and
        # whatever the caller's frames held (a socket) until the garbage collector came by.
        self._too_large_seen = what
        raise DecodeError(
            f"an SSE {what} grew beyond {self.max_message_size} characters without ending; "
            "pass max_message_size=... to accept larger ones"
        )

    def _dispatch(self) -> SSEMessage | None:
        # The id takes effect at the blank line, even for a message without data.
        self.last_event_id = self._id_buffer
        event_type, self._event_type = self._event_type, ""
        if not self._data:
            return None
        data = "\n".join(self._data)
        self._data = []
        self._data_runs = 0
        return _new_message(event_type or "message", data, self.last_event_id)


# SSEMessage without attrs' frozen __init__, a third of a message's cost: its fields are the parser's own strings.
_new_message = unchecked_init(SSEMessage)


def _join_run(pieces: list[str], joined: int, separator: str) -> int:
    """Join the pieces after the first ``joined`` (each already a joined run) into one; returns
    the new count of joined runs.

    Every short piece is an object of its own, some fifty bytes beside its characters, so a stream
    of tiny lines or chunks would hold twenty times what ``max_message_size`` counts.  Joining each
    run of ``_RUN`` pieces as it completes (never the runs joined before) keeps the memory near the
    characters counted and the work linear.
    """
    pieces[joined:] = [separator.join(pieces[joined:])]
    return joined + 1


_RUN = 256

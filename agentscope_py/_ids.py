"""Cheap generated ids and timestamps.

``uuid.uuid4()`` and ``strftime`` cost about 2 µs each, more than building the
rest of a message.  Ids here are a per-process random prefix plus a counter, so
they are unique across processes (74 random bits) and cost a string
concatenation; timestamps reformat only when the second changes.  Ids are
identifiers, not secrets: within one process they are sequential.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable

__all__ = ["new_event_time", "new_hex_id", "new_msg_id", "new_msg_timestamp"]

# The counters start at a random point below 2**47, so they cannot reach the
# 2**48 that would overflow their 12 (or 16) hex digits within any real run.
_COUNTER_START_BITS = 47


def _random_bits(bits: int) -> int:
    return int.from_bytes(os.urandom((bits + 7) // 8), "big") >> (-bits % 8)


def _reseed() -> None:
    global _msg_prefix, _msg_counter, _hex_prefix, _hex_counter
    # "xxxxxxxx-xxxx-4xxx-yxxx-": version nibble 4 and variant bits 10, as uuid4.
    r = _random_bits(62)
    a, b, c, d = r >> 30, (r >> 14) & 0xFFFF, (r >> 2) & 0xFFF, r & 0x3
    y = 0x8000 | (d << 12) | _random_bits(12)
    _msg_prefix = f"{a:08x}-{b:04x}-4{c:03x}-{y:04x}-"
    _msg_counter = itertools.count(_random_bits(_COUNTER_START_BITS))
    _hex_prefix = f"{_random_bits(64):016x}"
    _hex_counter = itertools.count(_random_bits(_COUNTER_START_BITS))


_msg_prefix: str
_msg_counter: itertools.count[int]
_hex_prefix: str
_hex_counter: itertools.count[int]
_reseed()
if hasattr(os, "register_at_fork"):  # a forked child must not repeat its parent's ids
    os.register_at_fork(after_in_child=_reseed)


def new_msg_id() -> str:
    """A UUID4-shaped id (36 characters with dashes), as Java gives messages."""
    return f"{_msg_prefix}{next(_msg_counter):012x}"


def new_hex_id() -> str:
    """32 lowercase hex characters, as Java gives data blocks and events."""
    return f"{_hex_prefix}{next(_hex_counter):016x}"


def _clock(second_format: str, to_struct: Callable[[float], time.struct_time], suffix: str) -> Callable[[], str]:
    """A function giving now as ``<second_format>.mmm<suffix>``, formatting the second only when it
    changes, or the local zone does: ``time.tzset()`` makes ``time.tzname`` anew, so compared by
    identity it tells that the text is out of date."""
    # (whole second, the zone's names, its formatted text); replaced as one tuple so no reader sees a torn one.
    cached: tuple[int, tuple[str, str] | None, str] = (-1, None, "")

    def now_text() -> str:
        nonlocal cached
        now = time.time()
        second = int(now)
        cached_second, zone, text = cached
        if second != cached_second or zone is not time.tzname:
            text = time.strftime(second_format, to_struct(second))
            cached = (second, time.tzname, text)
        return f"{text}.{int((now - second) * 1000):03d}{suffix}"

    return now_text


#: Local wall-clock time as ``yyyy-MM-dd HH:mm:ss.SSS``, the format of ``Msg.timestamp``.
new_msg_timestamp = _clock("%Y-%m-%d %H:%M:%S", time.localtime, "")
#: UTC time in ISO-8601 with milliseconds and ``Z``, the format of ``AgentEvent.created_at``.
new_event_time = _clock("%Y-%m-%dT%H:%M:%S", time.gmtime, "Z")

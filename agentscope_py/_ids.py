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


# (whole second, its formatted text); swapped as one tuple so readers never see a torn pair.
_local_second: tuple[int, str] = (-1, "")
_utc_second: tuple[int, str] = (-1, "")


def new_msg_timestamp() -> str:
    """Local wall-clock time as ``yyyy-MM-dd HH:mm:ss.SSS``, the format of ``Msg.timestamp``."""
    global _local_second
    now = time.time()
    second = int(now)
    cached_second, text = _local_second
    if second != cached_second:
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
        _local_second = (second, text)
    return f"{text}.{int((now - second) * 1000):03d}"


def new_event_time() -> str:
    """UTC time in ISO-8601 with a ``Z`` and milliseconds, the format of ``AgentEvent.created_at``."""
    global _utc_second
    now = time.time()
    second = int(now)
    cached_second, text = _utc_second
    if second != cached_second:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _utc_second = (second, text)
    return f"{text}.{int((now - second) * 1000):03d}Z"

"""An event's instant as a message's timestamp: AgentScope Java stamps events with an ISO-8601
``Instant`` in UTC, and messages with the local wall-clock time."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

from .._ids import new_msg_timestamp

__all__ = ["local_timestamp"]

# An instant as ISO-8601 writes it: Java's Instant in UTC ("Z"), or another producer's with an offset.
# ASCII digits only: ``\d`` alone would take other scripts' digits too.
_ISO_INSTANT = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)", re.ASCII)
_EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
# (the instant to the second with its zone, the local zone's names, its local "yyyy-MM-dd HH:mm:ss"):
# replies of one second share the work.  ``time.tzset()``, which a change of the local zone at run
# time needs, makes ``time.tzname`` anew: compared by identity, it tells the work is out of date.
_last_second: tuple[str, tuple[str, str], str] = ("", ("", ""), "")


def local_timestamp(created_at: str | None) -> str:
    """An event's ISO-8601 ``created_at`` as a message timestamp (local wall-clock time,
    ``yyyy-MM-dd HH:mm:ss.SSS``); now, when ``created_at`` is missing or no ISO-8601 instant."""
    text = None if created_at is None else _local_of_instant(created_at)
    return new_msg_timestamp() if text is None else text


def _local_of_instant(created_at: str) -> str | None:
    global _last_second
    match = _ISO_INSTANT.fullmatch(created_at)
    if match is None:
        return None
    wall, fraction, zone = match.groups()
    second = wall + zone
    known, names, text = _last_second
    if second != known or names is not time.tzname:
        try:
            # fromisoformat refuses a day that does not exist (Feb 30) rather than rolling it over
            # into the next month, as calendar.timegm would.
            seconds = (datetime.fromisoformat(wall) - _EPOCH) // _SECOND
            if zone != "Z":
                offset = int(zone[1:3]) * 3600 + int(zone[-2:]) * 60
                seconds += -offset if zone[0] == "+" else offset
            # isoformat writes the year in four digits, as Java's "yyyy" does (strftime may not).
            text = datetime.fromtimestamp(seconds).isoformat(" ")
        except (ValueError, OverflowError, OSError):
            return None
        _last_second = (second, time.tzname, text)
    return f"{text}.{(fraction or '0').ljust(3, '0')[:3]}"

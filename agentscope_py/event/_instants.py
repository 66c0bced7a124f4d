"""An event's instant as a message's timestamp: AgentScope Java stamps events with an ISO-8601
``Instant`` in UTC, and messages with the local wall-clock time."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta

from .._ids import new_msg_timestamp

__all__ = ["local_timestamp"]

# An instant as ISO-8601 writes it: Java's Instant in UTC ("Z"), or another producer's with an offset;
# its hour, its minutes and seconds (none past 59), its milliseconds, its zone.  ASCII digits only:
# ``\d`` alone would take other scripts' digits too.
_ISO_INSTANT = re.compile(
    r"(\d{4}-\d\d-\d\dT\d\d):([0-5]\d:[0-5]\d)(?:\.(\d{1,3})\d{0,6})?(Z|[+-]\d\d:?\d\d)", re.ASCII
)
_EPOCH = datetime(1970, 1, 1)
_SECOND = timedelta(seconds=1)
_LAST_SECOND_OF_HOUR = timedelta(seconds=3599)
# (the instant's hour with its zone, the local zone's names, the local "yyyy-MM-dd HH:" of that hour):
# the replies of one hour share the work, which is most of a timestamp's cost.  The prefix is "" where
# the local time is not the instant's minutes and seconds as written (an offset of a half hour from
# the local zone's, or a change of the local offset within the hour); ``None``: no such hour.
# ``time.tzset()``, which a change of the local zone at run time needs, makes ``time.tzname`` anew:
# compared by identity, it tells the work is out of date.
_last_hour: tuple[str, tuple[str, str], str | None] = ("", ("", ""), None)
# In an hour converted second by second: (the instant's second with its zone, the zone's names, its
# local "yyyy-MM-dd HH:mm:ss"), which the replies of one second share.
_last_second: tuple[str, tuple[str, str], str | None] = ("", ("", ""), None)


def local_timestamp(created_at: str | None) -> str:
    """An event's ISO-8601 ``created_at`` as a message timestamp (local wall-clock time,
    ``yyyy-MM-dd HH:mm:ss.SSS``); now, when ``created_at`` is missing or no ISO-8601 instant."""
    text = None if created_at is None else _local_of_instant(created_at)
    return new_msg_timestamp() if text is None else text


def _local_of_instant(created_at: str) -> str | None:
    global _last_hour
    match = _ISO_INSTANT.fullmatch(created_at)
    if match is None:
        return None
    hour, minutes, millis, zone = match.groups()
    key = hour + zone
    known, names, prefix = _last_hour
    if key != known or names is not time.tzname:
        prefix = _local_hour(hour, zone)
        _last_hour = (key, time.tzname, prefix)
    if prefix is None:
        return None
    text = prefix + minutes if prefix else _local_second(f"{hour}:{minutes}", zone)
    return None if text is None else f"{text}.{(millis or '0').ljust(3, '0')}"


def _seconds(wall: str, zone: str) -> int:
    """The epoch seconds of the wall-clock time ``wall`` (``yyyy-MM-ddTHH:mm:ss``) in ``zone``."""
    # fromisoformat refuses a day that does not exist (Feb 30) rather than rolling it over into the
    # next month, as calendar.timegm would.
    seconds: int = (datetime.fromisoformat(wall) - _EPOCH) // _SECOND
    if zone != "Z":
        offset = int(zone[1:3]) * 3600 + int(zone[-2:]) * 60
        seconds += -offset if zone[0] == "+" else offset
    return seconds


def _local_hour(hour: str, zone: str) -> str | None:
    """The local ``yyyy-MM-dd HH:`` of the hour ``hour`` (``yyyy-MM-ddTHH``) in ``zone``, when every
    second of it is the local time of that minute and second; ``""`` when not; ``None``: no such hour."""
    try:
        start = _seconds(f"{hour}:00:00", zone)
    except ValueError:
        return None
    try:
        local = datetime.fromtimestamp(start)
        whole = local.minute == local.second == 0
        if whole and datetime.fromtimestamp(start + 3599) - local == _LAST_SECOND_OF_HOUR:
            # isoformat writes the year in four digits, as Java's "yyyy" does (strftime may not).
            return local.isoformat(" ")[:14]
    except (ValueError, OverflowError, OSError):  # the hour's end is past what datetime holds: by the second
        pass
    return ""


def _local_second(wall: str, zone: str) -> str | None:
    """The local ``yyyy-MM-dd HH:mm:ss`` of the wall-clock time ``wall`` in ``zone``."""
    global _last_second
    key = wall + zone
    known, names, text = _last_second
    if key != known or names is not time.tzname:
        try:
            text = datetime.fromtimestamp(_seconds(wall, zone)).isoformat(" ")
        except (ValueError, OverflowError, OSError):
            text = None
        _last_second = (key, time.tzname, text)
    return text

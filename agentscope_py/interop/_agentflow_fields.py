"""The message fields AgentFlow holds its own way: ``Msg.name`` inside ``metadata["agentscope"]``
(beside the mark of a message split around its tool results), and timestamps: epoch seconds on
AgentFlow's Python side, milliseconds from its TypeScript client, ISO-8601 text from older builds."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .._reader import as_plain, at
from .._shown import elided
from ..errors import DecodeError
from ._frameworks import EPOCH_SECONDS_LIMIT, millis_from_timestamp, read_epoch, timestamp_from_epoch

__all__ = ["MISSING", "OURS", "Part", "read_ours", "read_timestamp", "written_ours", "written_timestamp"]

#: The key in AgentFlow's own ``metadata`` that holds the AgentScope fields AgentFlow has no place for.
OURS = "agentscope"
#: Under :data:`OURS`: the message's name.
_NAME = "name"
#: Under :data:`OURS`: ``[number, count]``, the place of a message among those one TOOL message was
#: split into, one for each tool result (see ``agentflow.py``), numbered from 1.
_PART = "part"
#: Under :data:`OURS`: the message's own ``metadata["agentscope"]``, where the name and the part cannot
#: be merged into it.
_OWN = "metadata"
#: No entry (of ``metadata["agentscope"]``), in and out.
MISSING: Any = object()

#: The place of a message among the parts of a split one: ``(number, count)``, numbered from 1.
Part = tuple[int, int]


def read_ours(value: object) -> tuple[str | None, Any, Part | None]:
    """The name, the message's own ``metadata["agentscope"]`` (``MISSING`` for none) and the part
    in AgentFlow's ``metadata["agentscope"]``: ``{"name": ..., "part": ..., **own}``, or
    ``{"name": ..., "part": ..., "metadata": own}`` where :func:`written_ours` could not merge them.
    A name that is no string and a part that is no ``[number, count]`` are the message's own keys."""
    if not isinstance(value, Mapping):
        return None, value, None
    name = value.get(_NAME)
    name = name if isinstance(name, str) else None
    part = _read_part(value.get(_PART))
    ours = {key for key, found in ((_NAME, name), (_PART, part)) if found is not None}
    if _OWN in value and set(value) - ours == {_OWN}:
        return name, value[_OWN], part
    if not ours:
        return None, value, None
    rest = {k: v for k, v in value.items() if k not in ours}
    return name, rest or MISSING, part


def _read_part(value: object) -> Part | None:
    # A tuple too: a payload built in Python (it is written back as a list, which must read the same).
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(type(n) is int for n in value):
        return None
    number, count = value
    return (number, count) if 1 <= number <= count and count >= 2 else None


def read_timestamp(raw: Mapping[str, Any], path: str) -> str | None:
    value = as_plain(raw.get("timestamp"))
    if type(value) is str:  # older AgentFlow builds held a datetime, dumped as ISO-8601 text
        return _timestamp_from_iso(value, at(path, "timestamp"))
    return read_epoch(raw, "timestamp", path, "ms or s")


def _timestamp_from_iso(text: str, path: str) -> str:
    """An ISO-8601 date-time as AgentScope writes timestamps: local time, to the millisecond."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise DecodeError("expected an epoch number, an ISO-8601 date-time or null", path) from None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone()
        except (OverflowError, OSError, ValueError):
            raise DecodeError(f"timestamp {elided(text)} is out of the range of dates", path) from None
    # The year by hand: strftime does not pad years below 1000 on every platform.
    return f"{moment.year:04d}-{moment:%m-%d %H:%M:%S}.{moment.microsecond // 1000:03d}"


def written_ours(name: str | None, own: Any, part: Part | None = None) -> Any:
    """AgentFlow's ``metadata["agentscope"]`` for the name, the message's own ``metadata["agentscope"]``
    (``MISSING`` stands for no entry, in and out) and the part: what :func:`read_ours` reads back as them."""
    ours: dict[str, Any] = {}
    if name is not None:
        ours[_NAME] = name
    if part is not None:
        ours[_PART] = list(part)
    if own is MISSING:
        return ours or MISSING
    if not ours:
        merged = own
    elif isinstance(own, Mapping):
        merged = {**own, **ours}
    else:
        merged = MISSING
    # Ours merged into the message's own entry where that reads back as they are; else side by side (own
    # entries that are no mapping, are empty, or have a "name", "part" or "metadata" of their own).
    if merged is not MISSING and read_ours(merged) == (name, own, part):
        return merged
    return {**ours, _OWN: own}


def written_timestamp(timestamp: str | None, carried_value: object, message_index: int) -> object:
    """The epoch seconds of ``timestamp`` (a float, to the millisecond), as AgentFlow's Python ``Message``
    holds it; the carried value (milliseconds from the TypeScript client, ISO-8601 text from older
    builds) while it still reads as ``timestamp``."""
    if timestamp is None:
        return None
    try:
        if isinstance(carried_value, str):
            if _timestamp_from_iso(carried_value, "") == timestamp:
                return carried_value
        elif isinstance(carried_value, (int, float)) and not isinstance(carried_value, bool):
            if timestamp_from_epoch(carried_value, "", "ms or s") == timestamp:
                return carried_value
    except DecodeError:
        pass
    millis = millis_from_timestamp(timestamp, message_index)
    # Seconds, as AgentFlow's Python side writes; past the limit, milliseconds, or they would read as those.
    return millis / 1000 if abs(millis) < EPOCH_SECONDS_LIMIT * 1000 else millis

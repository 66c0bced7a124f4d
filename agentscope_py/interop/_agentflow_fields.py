"""The message fields AgentFlow holds its own way: ``Msg.name`` inside ``metadata["agentscope"]``,
and timestamps, which older AgentFlow builds dumped as ISO-8601 text."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .._reader import as_plain, at
from .._shown import elided
from ..errors import DecodeError
from ._frameworks import read_epoch, written_epoch

__all__ = ["MISSING", "OURS", "read_ours", "read_timestamp", "written_ours", "written_timestamp"]

#: The key in AgentFlow's own ``metadata`` that holds the AgentScope fields AgentFlow has no place for.
OURS = "agentscope"
#: Under :data:`OURS`: the message's own ``metadata["agentscope"]``, where the name cannot be merged into it.
_OWN = "metadata"
#: No entry (of ``metadata["agentscope"]``), in and out.
MISSING: Any = object()


def read_ours(value: object) -> tuple[str | None, Any]:
    """The name and the message's own ``metadata["agentscope"]`` (``MISSING`` for none) in AgentFlow's
    ``metadata["agentscope"]``: ``{"name": ..., **own}``, or ``{"name": ..., "metadata": own}`` where
    :func:`written_ours` could not merge them; without a string name, all of it is the message's own."""
    if not isinstance(value, Mapping):
        return None, value
    name = value.get("name")
    name = name if isinstance(name, str) else None
    if _OWN in value and set(value) <= {"name", _OWN} and (name is not None or "name" not in value):
        return name, value[_OWN]
    if name is None:
        return None, value
    rest = {k: v for k, v in value.items() if k != "name"}
    return name, rest or MISSING


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


def written_ours(name: str | None, own: Any) -> Any:
    """AgentFlow's ``metadata["agentscope"]`` for the name and the message's own ``metadata["agentscope"]``
    (``MISSING`` stands for no entry, in and out): what :func:`read_ours` reads back as the two."""
    if own is MISSING:
        return MISSING if name is None else {"name": name}
    if name is None:
        merged = own
    elif isinstance(own, Mapping):
        merged = {**own, "name": name}
    else:
        merged = MISSING
    # The name merged into the message's own entry where that reads back as the two; else the two side
    # by side (own entries that are no mapping, are empty, or have a "name" or "metadata" of their own).
    if merged is not MISSING and read_ours(merged) == (name, own):
        return merged
    return {_OWN: own} if name is None else {"name": name, _OWN: own}


def written_timestamp(timestamp: str | None, carried_value: object, message_index: int) -> object:
    # An ISO-8601 timestamp read from an older AgentFlow goes back as its text while it reads the same.
    if isinstance(carried_value, str) and timestamp is not None:
        try:
            if _timestamp_from_iso(carried_value, "") == timestamp:
                return carried_value
        except DecodeError:
            pass
    return written_epoch(timestamp, carried_value, message_index, "ms or s")

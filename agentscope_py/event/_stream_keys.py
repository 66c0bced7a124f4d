"""The conventions by which a stream carries what AgentScope's events have no field for.

``events_from_message`` writes these and ``MessageAssembler`` reads them, so a
message survives the trip through events exactly (docs/events.md has the
table).  Java ignores them: it reads event metadata as an opaque map and skips
custom events whose name it does not know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from .._enums import GenerateReason, ToolResultState
from .._frozen import EMPTY
from .._messages import Msg
from .._shown import shown

__all__ = [
    "BLOCK_KEY",
    "CONTENT_BLOCK_EVENT",
    "DEFAULT_MEDIA_TYPE",
    "MEDIA_TYPE_KEY",
    "MESSAGE_KEY",
    "REQUEST_KEYS",
    "message_info",
    "result_end_metadata",
    "result_marker",
]

#: Java's own: the reason a request to the client states (``RequireUserConfirmEvent``,
#: ``RequireExternalExecutionEvent``) -> the message metadata key under which Java's agent records the
#: request's reply id, for the resume that answers it.
REQUEST_KEYS: Mapping[GenerateReason | None, str] = MappingProxyType({
    GenerateReason.PERMISSION_ASKING: Msg.METADATA_CONFIRM_REQUEST_REPLY_ID,
    GenerateReason.TOOL_SUSPENDED: Msg.METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID,
})

#: ``AgentStartEvent.metadata[MESSAGE_KEY]``: the message's ``timestamp`` and ``metadata``, and its
#: ``id`` when that is not the reply id (a message without an id still needs a unique reply id).
#: ``AgentEndEvent`` may carry it too, for what was known only at the end; its entries win.
MESSAGE_KEY = "agentscope_message"

#: ``metadata[BLOCK_KEY]`` of a block's start or end event: the block fields its deltas cannot
#: express, in their JSON form (a thinking block's ``metadata``; a data block's ``media_type`` and
#: ``name``; a tool call's ``state``, ``metadata``, and ``input``/``content`` when they are not
#: the streamed arguments; a tool result's ``state`` when its end event states another, as Java's
#: agent would).  Entries on the end event override those on the start event.
BLOCK_KEY = "agentscope_block"

_RESULT_STATES = {state.value: state for state in ToolResultState}


def result_marker(entry: object) -> tuple[ToolResultState, Mapping[str, Any]] | None:
    """What ``metadata[BLOCK_KEY]`` of a tool result's end event says for this package: the state
    the result holds (its end event states another, as Java's agent would) and the entries of the
    result's own metadata sent inside it (its own ``BLOCK_KEY`` entry, were it one of these
    shapes).  ``None`` when ``entry`` is no marker: it is the result's own metadata, as Java's."""
    if not isinstance(entry, Mapping) or not 1 <= len(entry) <= 2:
        return None
    state = entry.get("state")
    held = _RESULT_STATES.get(state) if isinstance(state, str) else None
    if held is None:
        return None
    if len(entry) == 1:
        return held, EMPTY
    own = entry.get("metadata")
    return (held, own) if isinstance(own, Mapping) else None


def result_end_metadata(held: ToolResultState, metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    """``metadata`` of a result holding ``held``, as its end event carries it: a ``BLOCK_KEY`` entry
    of its own that would read as a marker goes inside one, so that it reads back as it was."""
    own = metadata.get(BLOCK_KEY)
    if result_marker(own) is None:
        return metadata
    return {**metadata, BLOCK_KEY: {"state": held.value, "metadata": {BLOCK_KEY: own}}}


#: The name of the ``CustomEvent`` that carries a whole block no event streams (an image, audio or
#: video block, a data block with a URL): ``value = {"replyId": ..., "block": <the block's JSON>}``.
CONTENT_BLOCK_EVENT = "agentscope_content_block"

#: The key AgentScope's documentation gives a data block's media type under, on its start event.
MEDIA_TYPE_KEY = "mediaType"

#: The media type of a streamed data block whose events do not name one.
DEFAULT_MEDIA_TYPE = "application/octet-stream"


_MESSAGE_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str, type(None)), "a string or null"),
    "timestamp": ((str, type(None)), "a string or null"),
    "metadata": ((Mapping,), "a mapping"),
}

_NO_INFO: tuple[Mapping[str, Any], Sequence[str]] = (MappingProxyType({}), ())  # shared: read-only


def message_info(metadata: Mapping[str, Any] | None) -> tuple[Mapping[str, Any], Sequence[str]]:
    """The message fields an ``AgentStartEvent`` carries in ``metadata[MESSAGE_KEY]`` (the valid
    ones), and what is wrong with the others."""
    info = None if metadata is None else metadata.get(MESSAGE_KEY)
    if info is None:
        return _NO_INFO
    if not isinstance(info, Mapping):
        info = {"": info}  # reported below as an unknown shape
    problems = [f"metadata[{MESSAGE_KEY!r}] has unknown key {shown(key)}" for key in info if key not in _MESSAGE_FIELDS]
    valid = {}
    for key, (types, what) in _MESSAGE_FIELDS.items():
        if key not in info:
            continue
        if isinstance(info[key], types):
            valid[key] = info[key]
        else:
            problems.append(f"metadata[{MESSAGE_KEY!r}][{shown(key)}] must be {what}, got {type(info[key]).__name__}")
    return valid, problems

"""``events_from_message``: the events that stream a finished assistant message."""

from __future__ import annotations

from typing import Any

from .._checks import check_bool, check_optional_str, describe
from .._enums import MsgRole, ToolCallState
from .._ids import new_hex_id
from .._messages import Msg
from ..errors import ArgumentTypeError, ArgumentValueError
from ._answers import answers
from ._base import AgentEvent
from ._emitter import MODEL_CALL, Emitter

__all__ = ["DEFAULT_CHUNK_SIZE", "events_from_message"]

#: Characters (code points) per delta when the caller does not say.
DEFAULT_CHUNK_SIZE = 32


def events_from_message(
    msg: Msg[Any], *, chunk_size: int = DEFAULT_CHUNK_SIZE, source: str | None = None, with_result: bool = False
) -> list[AgentEvent]:
    """The events that stream ``msg``, an assistant message, as an AgentScope server sends them.

    Text, thinking, base64 data and tool-call arguments arrive in deltas of
    ``chunk_size`` characters (code points: a character is never split).
    ``source`` tags every event, as a sub-agent's events are tagged.
    ``with_result=True`` adds the ``AgentResultEvent`` Java ends a reply with, the
    whole message in one event, before the end: for Java's clients, which read the
    reply there.  An assembler does not need it.
    ``assemble(events_from_message(msg))`` gives back ``[msg]``, equal in every field.
    """
    if not isinstance(msg, Msg):
        raise ArgumentTypeError(f"events_from_message needs an assistant message, got {describe(msg)}")
    if msg.role is not MsgRole.ASSISTANT:
        raise ArgumentValueError(
            f"events_from_message streams assistant replies; got a {getattr(msg.role, 'value', 'role-less')} message "
            "(only an agent's reply is sent as events)"
        )
    if type(chunk_size) is not int:
        raise ArgumentTypeError(f"chunk_size must be an int (characters per delta), got {describe(chunk_size)}")
    if chunk_size < 1:
        raise ArgumentValueError(f"chunk_size must be a positive int (characters per delta), got {chunk_size!r}")
    source = check_optional_str(source, "source")
    check_bool(with_result, "with_result")
    emitter = Emitter(chunk_size, source)
    info: dict[str, Any] = {"timestamp": msg.timestamp}
    if msg.metadata:
        info["metadata"] = msg.metadata
    reply_id = msg.id
    if reply_id is None:  # a reply needs an id of its own to be told apart from others
        reply_id, info["id"] = new_hex_id(), None
    emitter.start(reply_id, msg.name, info)
    emitter.usage = msg.usage
    emitter.segment(MODEL_CALL, None)  # the usage travels on the first model call, even an empty one
    for block in msg.content:
        emitter.block(block)
    emitter.end_segment()
    pairs = answers(msg.content)
    asking = [call for call, _ in pairs if call.state is ToolCallState.ASKING]
    emitter.generate_reason(msg.get_generate_reason(), pairs, asking, msg.metadata)
    emitter.end(reply_id, msg if with_result else None)
    return emitter.events

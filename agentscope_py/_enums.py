"""The message-level enums, spelled as in AgentScope Java."""

from __future__ import annotations

import enum
from typing import Any, Final, TypeVar

from .errors import ArgumentValueError

__all__ = ["GENERATE_REASON_KEY", "GenerateReason", "MsgRole", "SpelledEnum", "ToolCallState", "ToolResultState"]


_E = TypeVar("_E", bound=enum.Enum)


class SpelledEnum(enum.Enum):
    """An enum that, looked up by a value it does not have, says which one was meant.

    ``MsgRole("user")`` raises :class:`~agentscope_py.ArgumentValueError` (a
    ``ValueError``, as for any enum) naming ``MsgRole.USER``: values are
    case-sensitive, as on the wire, and the natural mistake is the case.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        raise ArgumentValueError(unknown_value(cls, value))


def unknown_value(cls: type[enum.Enum], value: object) -> str:
    member = member_by_folding(cls, value)
    if member is not None:
        # A look-alike letter (the Kelvin sign folds to "k") is no matter of case.
        why = "values are case-sensitive" if str(value).isascii() else "it holds a letter that is not ASCII"
        return f"{value!r} is not a value of {cls.__name__}; {why}: use {cls.__name__}.{member.name} (value {member.value!r})"
    values = ", ".join(repr(member.value) for member in cls)
    return f"{value!r} is not a value of {cls.__name__}; the values are {values}"


def member_by_folding(cls: type[_E], value: object) -> _E | None:
    """The member whose name or value is ``value`` but for case: the one a misspelling meant."""
    if not isinstance(value, str):
        return None
    folded = value.casefold()
    return next((m for m in cls if folded in (m.name.casefold(), str(m.value).casefold())), None)


class MsgRole(SpelledEnum):
    """Who speaks a message.  The value is the name, as Java writes it."""

    USER = "USER"
    ASSISTANT = "ASSISTANT"
    SYSTEM = "SYSTEM"
    TOOL = "TOOL"


class GenerateReason(SpelledEnum):
    """Why an assistant message ended (stored in the message metadata)."""

    MODEL_STOP = "MODEL_STOP"
    TOOL_CALLS = "TOOL_CALLS"
    STRUCTURED_OUTPUT = "STRUCTURED_OUTPUT"
    TOOL_SUSPENDED = "TOOL_SUSPENDED"
    REASONING_STOP_REQUESTED = "REASONING_STOP_REQUESTED"
    ACTING_STOP_REQUESTED = "ACTING_STOP_REQUESTED"
    PERMISSION_ASKING = "PERMISSION_ASKING"
    MIDDLEWARE_STOP_REQUESTED = "MIDDLEWARE_STOP_REQUESTED"
    ALL_TOOLS_DENIED = "ALL_TOOLS_DENIED"
    INTERRUPTED = "INTERRUPTED"
    MAX_ITERATIONS = "MAX_ITERATIONS"


#: The metadata key a message records its ``GenerateReason`` under (its name): ``Msg.METADATA_GENERATE_REASON``.
GENERATE_REASON_KEY: Final = "agentscope_generate_reason"


class ToolCallState(SpelledEnum):
    """Where a tool call stands.  Values are lower case, as on the wire."""

    PENDING = "pending"
    ASKING = "asking"
    ALLOWED = "allowed"
    SUBMITTED = "submitted"
    FINISHED = "finished"


class ToolResultState(SpelledEnum):
    """How a tool run ended.  Values are lower case, as on the wire."""

    SUCCESS = "success"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    DENIED = "denied"
    RUNNING = "running"

"""``AgentEventType``: the discriminator of every streaming event."""

from __future__ import annotations

from typing import Any

from .._checks import describe
from .._enums import SpelledEnum
from ..errors import ArgumentValueError

__all__ = ["AgentEventType"]


class AgentEventType(SpelledEnum):
    """The 31 event types, in AgentScope Java's order.  The value is the name, as on the wire."""

    AGENT_START = "AGENT_START"
    AGENT_END = "AGENT_END"
    AGENT_RESULT = "AGENT_RESULT"
    MODEL_CALL_START = "MODEL_CALL_START"
    MODEL_CALL_END = "MODEL_CALL_END"
    TEXT_BLOCK_START = "TEXT_BLOCK_START"
    TEXT_BLOCK_DELTA = "TEXT_BLOCK_DELTA"
    TEXT_BLOCK_END = "TEXT_BLOCK_END"
    THINKING_BLOCK_START = "THINKING_BLOCK_START"
    THINKING_BLOCK_DELTA = "THINKING_BLOCK_DELTA"
    THINKING_BLOCK_END = "THINKING_BLOCK_END"
    DATA_BLOCK_START = "DATA_BLOCK_START"
    DATA_BLOCK_DELTA = "DATA_BLOCK_DELTA"
    DATA_BLOCK_END = "DATA_BLOCK_END"
    TOOL_CALL_START = "TOOL_CALL_START"
    TOOL_CALL_DELTA = "TOOL_CALL_DELTA"
    TOOL_CALL_END = "TOOL_CALL_END"
    TOOL_RESULT_START = "TOOL_RESULT_START"
    TOOL_RESULT_TEXT_DELTA = "TOOL_RESULT_TEXT_DELTA"
    TOOL_RESULT_DATA_DELTA = "TOOL_RESULT_DATA_DELTA"
    TOOL_RESULT_END = "TOOL_RESULT_END"
    EXCEED_MAX_ITERS = "EXCEED_MAX_ITERS"
    REQUIRE_USER_CONFIRM = "REQUIRE_USER_CONFIRM"
    REQUIRE_EXTERNAL_EXECUTION = "REQUIRE_EXTERNAL_EXECUTION"
    USER_CONFIRM_RESULT = "USER_CONFIRM_RESULT"
    EXTERNAL_EXECUTION_RESULT = "EXTERNAL_EXECUTION_RESULT"
    REQUEST_STOP = "REQUEST_STOP"
    SUBAGENT_EXPOSED = "SUBAGENT_EXPOSED"
    HINT_BLOCK = "HINT_BLOCK"
    ALL_TOOLS_DENIED = "ALL_TOOLS_DENIED"
    CUSTOM = "CUSTOM"

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if isinstance(value, str) and value in LEGACY_ALIASES:  # only from_value takes them, as in Java
            raise ArgumentValueError(
                f"{value!r} is a legacy name of {LEGACY_ALIASES[value].name}: use AgentEventType.from_value({value!r})"
            )
        return super()._missing_(value)

    @classmethod
    def from_value(cls, value: str | AgentEventType) -> AgentEventType:
        """The member named ``value``, also accepting the names older producers wrote.

        ``from_value("RUN_STARTED") is AgentEventType.AGENT_START``; a member is returned as it
        is.  Matching is case-sensitive, as in Java; anything else raises
        :class:`ArgumentValueError` (a ``ValueError``).
        """
        if isinstance(value, AgentEventType):
            return value
        member = _BY_VALUE.get(value) if type(value) is str else None  # tolerate non-str input from untyped callers
        if member is None:
            raise ArgumentValueError(
                f"unknown AgentEventType value {describe(value)}; expected one of the 31 "
                "upper-case names such as 'TEXT_BLOCK_DELTA' (or a legacy alias such as 'RUN_STARTED')"
            )
        return member


# Names AgentScope used before 2.0; Java's fromValue still accepts them on input.
LEGACY_ALIASES: dict[str, AgentEventType] = {
    "RUN_STARTED": AgentEventType.AGENT_START,
    "REPLY_START": AgentEventType.AGENT_START,
    "RUN_FINISHED": AgentEventType.AGENT_END,
    "REPLY_END": AgentEventType.AGENT_END,
    "MODEL_CALL_STARTED": AgentEventType.MODEL_CALL_START,
    "MODEL_CALL_ENDED": AgentEventType.MODEL_CALL_END,
    "BINARY_BLOCK_START": AgentEventType.DATA_BLOCK_START,
    "BINARY_BLOCK_DELTA": AgentEventType.DATA_BLOCK_DELTA,
    "BINARY_BLOCK_END": AgentEventType.DATA_BLOCK_END,
    "TOOL_RESULT_BINARY_DELTA": AgentEventType.TOOL_RESULT_DATA_DELTA,
    "THREAD_EXPOSED": AgentEventType.SUBAGENT_EXPOSED,
}

_BY_VALUE: dict[str, AgentEventType] = {
    **{member.value: member for member in AgentEventType},
    **LEGACY_ALIASES,
}

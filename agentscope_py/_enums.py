"""The message-level enums, spelled as in AgentScope Java."""

from __future__ import annotations

import enum

__all__ = ["GenerateReason", "MsgRole", "ToolCallState", "ToolResultState"]


class MsgRole(enum.Enum):
    """Who speaks a message.  The value is the name, as Java writes it."""

    USER = "USER"
    ASSISTANT = "ASSISTANT"
    SYSTEM = "SYSTEM"
    TOOL = "TOOL"


class GenerateReason(enum.Enum):
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


class ToolCallState(enum.Enum):
    """Where a tool call stands.  Values are lower case, as on the wire."""

    PENDING = "pending"
    ASKING = "asking"
    ALLOWED = "allowed"
    SUBMITTED = "submitted"
    FINISHED = "finished"


class ToolResultState(enum.Enum):
    """How a tool run ended.  Values are lower case, as on the wire."""

    SUCCESS = "success"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    DENIED = "denied"
    RUNNING = "running"

"""Converters between agentscope_py messages and the message formats agents meet.

One module per format, each with ``to_<format>(messages, *, on_unsupported="raise")``
and ``from_<format>(payload)``; ``validate_conversation`` and ``repair_conversation``
check and fix a whole conversation before it goes to a provider API.
"""

from ._common import ConversionNote, Converted, ConvertedDict, OnUnsupported
from ._conversation import (
    ConversationProblem,
    ProblemKind,
    RepairAction,
    RepairChange,
    RepairedConversation,
    repair_conversation,
    validate_conversation,
)
from .anthropic import from_anthropic, to_anthropic
from .openai import from_openai, to_openai

__all__ = [
    "ConversationProblem",
    "ConversionNote",
    "Converted",
    "ConvertedDict",
    "OnUnsupported",
    "ProblemKind",
    "RepairAction",
    "RepairChange",
    "RepairedConversation",
    "from_anthropic",
    "from_openai",
    "repair_conversation",
    "to_anthropic",
    "to_openai",
    "validate_conversation",
]

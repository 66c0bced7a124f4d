"""Converters between agentscope_py messages and the message formats agents meet.

One module per format, each with ``to_<format>(messages, *, on_unsupported="raise")``
and ``from_<format>(payload)``; ``from_openai_response`` and ``from_anthropic_response`` read a provider's answer
into one assistant message (``stop_reason`` of it says why the provider ended it), and ``OpenAIStreamRelay``
and ``AnthropicStreamRelay`` pass a streamed answer on as AgentScope events while it arrives; ``validate_conversation``
and ``repair_conversation`` check and fix a whole conversation before it goes to a provider API.
The two errors the converters raise, ``UnsupportedContentError`` and ``ConversationError``, are
importable from here too (they are ``agentscope_py``'s).
"""

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import ConversationError, UnsupportedContentError
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
from ._responses import from_anthropic_response, from_openai_response, stop_reason
from .agentflow import from_agentflow, to_agentflow
from .anthropic import from_anthropic, to_anthropic
from .openai import from_openai, to_openai
from .swarm_kit import from_swarm_kit, to_swarm_kit
from .vercel_ai import from_vercel_ai, to_vercel_ai

__all__ = [
    "AnthropicStreamRelay",
    "ConversationError",
    "ConversationProblem",
    "ConversionNote",
    "Converted",
    "ConvertedDict",
    "OnUnsupported",
    "OpenAIStreamRelay",
    "ProblemKind",
    "RepairAction",
    "RepairChange",
    "RepairedConversation",
    "UnsupportedContentError",
    "from_agentflow",
    "from_anthropic",
    "from_anthropic_response",
    "from_openai",
    "from_openai_response",
    "from_swarm_kit",
    "from_vercel_ai",
    "repair_conversation",
    "stop_reason",
    "to_agentflow",
    "to_anthropic",
    "to_openai",
    "to_swarm_kit",
    "to_vercel_ai",
    "validate_conversation",
]

if TYPE_CHECKING:
    from ._anthropic_stream import AnthropicStreamRelay
    from ._openai_stream import OpenAIStreamRelay

# The stream relays drive a ReplyEmitter: they need the event classes, which cost as much to import
# as the converters, so they load on first use.
_RELAYS = {"AnthropicStreamRelay": "._anthropic_stream", "OpenAIStreamRelay": "._openai_stream"}

if not TYPE_CHECKING:  # type checkers see the names in the block above

    def __getattr__(name: str) -> Any:
        module = _RELAYS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})

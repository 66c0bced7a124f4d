"""What the stream relays share: the whole answer, read once it is over."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .._enums import GenerateReason
from .._role_messages import AssistantMessage
from .._usage import ChatUsage
from ..errors import StreamError

__all__ = ["AnswerRelay"]


class AnswerRelay:
    """The base of ``OpenAIStreamRelay`` and ``AnthropicStreamRelay``: once ``end()`` has read the
    whole answer (with ``from_openai_response`` or ``from_anthropic_response``) into ``_read``, what
    finishes the reply comes from there."""

    __slots__ = ("_read",)
    _piece: ClassVar[str]  # what the stream is made of: "chunk", "event"

    def __init__(self) -> None:
        self._read: AssistantMessage | None = None

    @property
    def usage(self) -> ChatUsage | None:
        """The answer's usage, as the provider's reader reads it (sent with the model call's end)."""
        return self._whole().usage

    @property
    def generate_reason(self) -> GenerateReason:
        """``TOOL_CALLS`` for an answer that stopped to call tools, else ``MODEL_STOP``."""
        return self._whole().get_generate_reason()

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The message metadata the provider's reader reads from the answer (its fields under
        ``[<format>]["response"]``, so that :func:`~agentscope_py.interop.stop_reason` tells a
        truncated answer), without the generate reason:
        ``reply.finish(relay.generate_reason, metadata=relay.metadata)``."""
        metadata = self._whole().metadata
        return {key: value for key, value in metadata.items() if key != AssistantMessage.METADATA_GENERATE_REASON}

    @property
    def answer(self) -> AssistantMessage:
        """The whole answer as a message of its own, as the provider's reader reads it: for a
        history that keeps each answer of a reply apart, with its own fields (see openai.md)."""
        return self._whole()

    def _whole(self) -> AssistantMessage:
        if self._read is None:
            raise StreamError(f"the answer is not over: call end() once its last {self._piece} has been fed")
        return self._read

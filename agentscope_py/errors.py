"""The exceptions agentscope_py raises.

Every exception derives from :class:`AgentScopeError`, so one ``except`` clause
catches everything the library raises on purpose.  Each one where a built-in
fits also derives from it (``TypeError`` for a wrong type, ``ValueError`` for a
bad value, ``LookupError`` for a missing entry, ``ConnectionError`` for a stream
that cannot be read), so code written against the built-ins keeps working.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs.exceptions import FrozenInstanceError

from ._problems import ConversationProblem

__all__ = [
    "AgentScopeError",
    "ArgumentTypeError",
    "ArgumentValueError",
    "ConversationError",
    "DecodeError",
    "FrozenFieldError",
    "MissingStructuredDataError",
    "ReadOnlyError",
    "RoleContentError",
    "StreamConnectionError",
    "StreamError",
    "UnsupportedContentError",
]


class AgentScopeError(Exception):
    """Base class of every error raised by agentscope_py."""


class ArgumentTypeError(AgentScopeError, TypeError):
    """An argument has the wrong type; the message names the argument and what it expects."""


class ArgumentValueError(AgentScopeError, ValueError):
    """An argument has the right type but a value that cannot be used."""


class ReadOnlyError(AgentScopeError, TypeError):
    """A mapping or list held by a message, block or event was asked to change.

    It is a ``TypeError``, as Python's own read-only mappings raise.  Build a new
    object with the changed value instead (``msg.with_metadata({...})``).
    """


class FrozenFieldError(AgentScopeError, FrozenInstanceError):
    """A field of a message, block or event was assigned to or deleted.

    It is attrs' ``FrozenInstanceError`` (an ``AttributeError``), as any frozen
    attrs class raises.  Make a changed copy instead (``copy.replace(msg, name=...)``,
    ``attrs.evolve(block, ...)``).
    """

    def __init__(self, message: str) -> None:
        # attrs' error takes no message: it always says "can't set attribute".
        AttributeError.__init__(self, message)
        self.msg = message


class RoleContentError(AgentScopeError, ValueError):
    """A message holds a content block its role does not allow.

    The message names the role, the block class and its index, e.g.
    ``SYSTEM message may only contain text blocks, got ToolUseBlock at content[1]``.
    ``path`` locates that block, as :class:`DecodeError`'s does a value: ``content[1]``,
    and in a decoded document from its root (``result.content[1]``, ``[2].content[1]``).
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)


class ConversationError(AgentScopeError, ValueError):
    """A conversation breaks a rule the target API enforces (a tool call with no result, say).

    ``problems`` lists them (:class:`~agentscope_py.interop.ConversationProblem` records);
    :func:`~agentscope_py.interop.repair_conversation` fixes what can be fixed.
    """

    def __init__(self, message: str, problems: Iterable[ConversationProblem] = ()) -> None:
        self.problems: tuple[ConversationProblem, ...] = tuple(problems)
        super().__init__(message)


class DecodeError(AgentScopeError, ValueError):
    """A document could not be decoded.

    ``path`` locates the offending value (``content[2].source.media_type``); it is
    empty when the document as a whole is unusable (malformed JSON, say).
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        self.reason = message
        super().__init__(f"{path}: {message}" if path else message)


class MissingStructuredDataError(AgentScopeError, LookupError):
    """``get_structured_data()`` was called on a message that carries none."""


class StreamError(AgentScopeError):
    """Events out of order: a strict :class:`~agentscope_py.event.MessageAssembler` met one it cannot
    place, or a :class:`~agentscope_py.event.ReplyEmitter` or stream relay was used after it ended
    (or read before)."""


class StreamConnectionError(AgentScopeError, ConnectionError):
    """An event stream could not be read to its end: the server kept dropping the connection, or
    answered with something that is not an event stream.

    ``status`` is the HTTP status of that answer (``404``, or a ``200`` whose body is no event
    stream), which is not retried; ``None`` when the client gave up reconnecting.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class UnsupportedContentError(AgentScopeError, ValueError):
    """A converter's target format cannot hold a block; pass ``on_unsupported`` to choose otherwise."""

"""The four messages whose class fixes their role: ``UserMessage``, ``AssistantMessage``,
``SystemMessage`` and ``ToolResultMessage``.

Each is a ``Msg`` of the blocks its role allows (``_roles``), so mypy sees the
role rule where a message is written; ``Msg`` checks it again at run time.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from typing_extensions import Never, Self

from ._blocks import ContentBlock, TextBlock, ToolResultBlock
from ._checks import check_str
from ._enums import GenerateReason, MsgRole
from ._messages import Msg, _B
from ._msg_builders import RoleMessageBuilder, ToolResultMessageBuilder
from ._roles import SystemBlock, UserBlock
from ._usage import ChatUsage

__all__ = ["PINNED", "AssistantMessage", "SystemMessage", "ToolResultMessage", "UserMessage"]


class _RolePinnedMsg(Msg[_B]):
    """A message whose role is fixed by its class."""

    __slots__ = ()
    _ROLE: ClassVar[MsgRole]
    if TYPE_CHECKING:

        @property
        def role(self) -> MsgRole:  # never None: the class fixes it (and read-only, as every field)
            ...

        # Msg's, with no role to give: mypy refuses copy.replace(user_message, role=...), which
        # raises at run time.
        def __replace__(  # type: ignore[override]
            self,
            *,
            id: str | None = ...,
            name: str | None = ...,
            role: Never = ...,
            content: Iterable[str | _B] = ...,
            metadata: Mapping[str, Any] | None = ...,
            timestamp: str | None = ...,
            usage: ChatUsage | None = ...,
        ) -> Self: ...

    def __init__(
        self,
        *content: str | _B | Iterable[str | _B],
        name: str | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: str | None = None,
        usage: ChatUsage | None = None,
        generate_reason: GenerateReason | None = None,
    ) -> None:
        self._init(content, self._ROLE, name, id, metadata, timestamp, usage, generate_reason)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Python names the function in its argument errors: each class gets this __init__ under its
        # own name, so UserMessage("hi", role=...) is refused as UserMessage.__init__(), not as a
        # private base class nobody wrote.  A subclass with a constructor of its own keeps it.
        shared = _RolePinnedMsg.__init__
        if cls.__init__.__code__ is not shared.__code__:
            return
        own = types.FunctionType(shared.__code__, shared.__globals__, "__init__", shared.__defaults__, shared.__closure__)
        own.__kwdefaults__ = shared.__kwdefaults__
        own.__annotations__ = shared.__annotations__
        own.__doc__ = shared.__doc__
        own.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = own  # type: ignore[method-assign]

    @classmethod
    def builder(cls) -> RoleMessageBuilder[Self, _B]:  # type: ignore[override]  # a pinned builder has no role()
        """A builder of this class; it has no ``role(...)``."""
        return RoleMessageBuilder(cls, cls._ROLE)


class UserMessage(_RolePinnedMsg[UserBlock]):
    """What a user says: text and media (``UserBlock``)."""

    __slots__ = ()
    _ROLE = MsgRole.USER


class AssistantMessage(_RolePinnedMsg[ContentBlock]):
    """What the agent says: any block."""

    __slots__ = ()
    _ROLE = MsgRole.ASSISTANT


class SystemMessage(_RolePinnedMsg[SystemBlock]):
    """Instructions to the model: text only."""

    __slots__ = ()
    _ROLE = MsgRole.SYSTEM


class ToolResultMessage(_RolePinnedMsg[ContentBlock]):
    """Tool results; any block is allowed, as in Java."""

    __slots__ = ()
    _ROLE = MsgRole.TOOL

    @classmethod
    def of(cls, tool_call_id: str | None, tool_name: str | None, result_text: str) -> ToolResultMessage:
        """A TOOL message holding one ``ToolResultBlock(tool_call_id, tool_name, [TextBlock(result_text)])``."""
        return cls(ToolResultBlock(tool_call_id, tool_name, TextBlock(check_str(result_text, "result_text"))))

    @classmethod
    def builder(cls) -> ToolResultMessageBuilder:  # type: ignore[override]
        """A builder with ``result(...)`` (appends) and ``results(...)`` (replaces)."""
        return ToolResultMessageBuilder(cls)


PINNED: dict[MsgRole, type[_RolePinnedMsg[Any]]] = {
    cls._ROLE: cls for cls in (UserMessage, AssistantMessage, SystemMessage, ToolResultMessage)
}

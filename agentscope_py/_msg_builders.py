"""Java-style fluent builders of messages.

``MessageBuilder`` holds what every message builder does; ``MsgBuilder`` (plain
``Msg``) adds ``role(...)``; ``RoleMessageBuilder`` builds one role-pinned class
and has no usable ``role(...)``: mypy rejects the call, and at run time it takes
only the class's own role.
Each ``build()`` generates a fresh id and timestamp unless they were set, and
checks everything again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, overload

from typing_extensions import Never, Self, TypeVar

from ._blocks import ContentBlock, TextBlock, ToolResultBlock
from ._checks import Sentinel, check_enum, check_mapping, check_optional_str, check_str, describe, unbuilt_hint, unordered_hint
from ._content import normalize_content
from ._enums import GENERATE_REASON_KEY, GenerateReason, MsgRole
from ._frozen import EMPTY
from ._ids import new_msg_id, new_msg_timestamp
from ._shown import shown
from ._usage import ChatUsage, check_optional_usage
from .errors import ArgumentTypeError

if TYPE_CHECKING:
    from ._messages import Msg
    from ._role_messages import ToolResultMessage

__all__ = ["MessageBuilder", "MsgBuilder", "RoleMessageBuilder", "ToolResultMessageBuilder"]

_M = TypeVar("_M", bound="Msg[Any]", covariant=True)  # built, never taken: a builder of a subclass is one of Msg
_B = TypeVar("_B", bound=ContentBlock)


_GENERATED: Any = Sentinel("<generated>")


class MessageBuilder(Generic[_M, _B]):
    """The setters every message builder has; each returns the builder."""

    __slots__ = (
        "_msg_cls", "_role", "_id", "_name", "_content", "_metadata", "_timestamp", "_usage",
        "_generate_reason",
    )

    def __init__(self, msg_cls: type[_M], role: MsgRole | None) -> None:
        self._msg_cls = msg_cls
        self._role = role
        self._id: str | None = _GENERATED
        self._name: str | None = None
        self._content: list[ContentBlock] = []  # a list: result(...) appends, once per call
        self._metadata: Mapping[str, Any] = EMPTY
        self._timestamp: str | None = _GENERATED
        self._usage: ChatUsage | None = None
        self._generate_reason: GenerateReason | None = None

    # The setters check what they are given, as build() would again: the error then points at the
    # line that gave it.

    def id(self, id: str | None) -> Self:
        """Set the id (``None`` is kept as no id; leave it unset to have one generated)."""
        self._id = check_optional_str(id, f"{self._msg_cls.__name__}.id")
        return self

    def name(self, name: str | None) -> Self:
        self._name = check_optional_str(name, f"{self._msg_cls.__name__}.name")
        return self

    def content(self, *blocks: str | _B | Iterable[str | _B]) -> Self:
        """Replace the content with ``blocks`` (given one by one or as one iterable); strings become
        text blocks, as in the constructor."""
        self._content = list(normalize_content(blocks, f"{self._msg_cls.__name__} content"))
        return self

    def text_content(self, text: str) -> Self:
        """Replace the content with one ``TextBlock(text)``."""
        self._content = [TextBlock(check_str(text, f"{self._msg_cls.__name__} text_content"))]
        return self

    def metadata(self, metadata: Mapping[str, Any] | None) -> Self:
        """Replace the metadata (a generate reason set on this builder is kept)."""
        # Checked and stored as the message stores it: a read-only deep copy, out of reach of the
        # caller, who may go on changing what it gave before this builder builds.
        self._metadata = check_mapping(metadata, f"{self._msg_cls.__name__}.metadata", drop_none=True)
        return self

    def timestamp(self, timestamp: str | None) -> Self:
        """Set the timestamp (``None``: now, as in Java)."""
        owner = self._msg_cls.__name__
        self._timestamp = _GENERATED if timestamp is None else check_str(timestamp, f"{owner}.timestamp")
        return self

    def usage(self, usage: ChatUsage | None) -> Self:
        self._usage = check_optional_usage(usage, f"{self._msg_cls.__name__}.usage")
        return self

    def generate_reason(self, reason: GenerateReason | None) -> Self:
        """Record why the message ended (in metadata, merged at ``build()``; the caller's mapping is never touched)."""
        self._generate_reason = (
            None if reason is None else check_enum(reason, GenerateReason, "generate_reason")
        )
        return self

    def build(self) -> _M:
        """A new message from what was set; raises as the constructor would."""
        metadata = self._metadata
        if self._generate_reason is not None:
            metadata = {**metadata, GENERATE_REASON_KEY: self._generate_reason.name}
        return self._msg_cls._from_fields(
            new_msg_id() if self._id is _GENERATED else self._id,
            self._name,
            self._role,
            self._content,
            metadata,
            new_msg_timestamp() if self._timestamp is _GENERATED else self._timestamp,
            self._usage,
        )

    def __copy__(self) -> Self:
        # A builder to go on from, as from a template: the content list is the one thing a setter
        # changes in place (``result(...)`` appends), so the copy gets its own.
        twin = object.__new__(type(self))
        for name in MessageBuilder.__slots__:
            setattr(twin, name, getattr(self, name))
        twin._content = list(self._content)
        return twin

    def __repr__(self) -> str:
        role = "None" if self._role is None else self._role.name
        reason = "None" if self._generate_reason is None else self._generate_reason.name
        return (
            f"{type(self).__name__}(msg_cls={self._msg_cls.__name__}, id={shown(self._id)}, name={shown(self._name)}, "
            f"role={role}, content={shown(tuple(self._content))}, metadata={shown(self._metadata)}, "
            f"timestamp={shown(self._timestamp)}, usage={self._usage!r}, generate_reason={reason})"
        )


class MsgBuilder(MessageBuilder["Msg", ContentBlock]):
    """Builds a plain ``Msg``; the role defaults to USER."""

    __slots__ = ()

    def __init__(self) -> None:
        from ._messages import Msg

        super().__init__(Msg, MsgRole.USER)

    def role(self, role: MsgRole | None) -> Self:
        self._role = None if role is None else check_enum(role, MsgRole, "role")
        return self


class RoleMessageBuilder(MessageBuilder[_M, _B]):
    """Builds one role-pinned class; its role cannot change."""

    __slots__ = ()

    def role(self, role: Never) -> Self:
        """Not for typed code (mypy rejects the call): the class fixes the role; ``Msg.builder()`` sets one.

        Code written for any message class (``cls.builder().role(role)`` with ``cls: type[Msg]``) reaches
        it all the same: the class's own role is accepted, so that such code works with this class too."""
        given: object = role
        if given is self._role or (given is not None and check_enum(given, MsgRole, "role") is self._role):
            return self
        name = self._msg_cls.__name__
        raise ArgumentTypeError(
            f"{name} role is fixed to {self._role.value if self._role else None}, got {describe(given)}; "
            "use Msg.builder() to set a role"
        )


class ToolResultMessageBuilder(RoleMessageBuilder["ToolResultMessage", ContentBlock]):
    """Builds a ``ToolResultMessage``; ``result(...)`` appends, ``results(...)`` replaces."""

    __slots__ = ()

    def __init__(self, msg_cls: type[ToolResultMessage] | None = None) -> None:
        """``msg_cls``: the class to build, a subclass of ``ToolResultMessage`` (itself by default)."""
        from ._role_messages import ToolResultMessage

        super().__init__(ToolResultMessage if msg_cls is None else msg_cls, MsgRole.TOOL)

    @overload
    def result(self, block: ToolResultBlock, /) -> Self: ...
    @overload
    def result(self, tool_call_id: str | None, tool_name: str | None, result_text: str, /) -> Self: ...
    def result(self, *args: Any) -> Self:
        """Append a result: a ``ToolResultBlock``, or ``(tool_call_id, tool_name, result_text)``."""
        if len(args) == 1 and isinstance(args[0], ToolResultBlock):
            block = args[0]
        elif len(args) == 3:
            block = ToolResultBlock(args[0], args[1], TextBlock(check_str(args[2], "result_text")))
        else:
            raise ArgumentTypeError(
                "result() takes a ToolResultBlock or (tool_call_id, tool_name, result_text), "
                f"got {', '.join(describe(a) for a in args) or 'nothing'}{''.join(map(unbuilt_hint, args[:1]))}"
            )
        self._content.append(block)
        return self

    def results(self, *blocks: ToolResultBlock | Iterable[ToolResultBlock]) -> Self:
        """Replace the results with ``blocks``."""
        given: list[object] = []  # one by one or as an iterable, as content(...) takes them
        items: tuple[object, ...] = blocks  # checked as given: a str is no result either
        for item in items:
            if isinstance(item, (set, frozenset, Mapping)):  # no order, or keys for results: say so
                raise ArgumentTypeError(f"results() takes ToolResultBlocks, got {describe(item)}{unordered_hint(item, blocks=False)}")
            given.extend(item) if isinstance(item, Iterable) and not isinstance(item, str) else given.append(item)
        results: list[ContentBlock] = []
        for index, block in enumerate(given):
            if not isinstance(block, ToolResultBlock):
                raise ArgumentTypeError(
                    f"results() takes ToolResultBlocks, got {describe(block)} at [{index}]"
                    + (unbuilt_hint(block) or "; content(...) takes any block")
                )
            results.append(block)
        self._content = results
        return self

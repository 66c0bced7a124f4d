"""``Msg``: one turn of a conversation, generic in the blocks it may hold.

Its role-pinned subclasses are in ``_role_messages``: ``SystemMessage`` is a
``Msg[TextBlock]``, so mypy rejects a tool call in a system message where it is
written, and the same rule (``_roles.ALLOWED_BLOCKS``) is checked again at run
time on every path that creates a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, Literal, overload

import attrs
from typing_extensions import Self, TypeVar, Unpack

from ._blocks import ContentBlock, TextBlock
from ._checks import (
    Sentinel,
    check_enum,
    check_mapping,
    check_optional_str,
    describe,
)
from ._content import check_block_class, normalize_content
from ._enums import GENERATE_REASON_KEY, GenerateReason, MsgRole
from ._frozen import EMPTY, thawed
from ._ids import new_msg_id, new_msg_timestamp
from ._msg_builders import MessageBuilder, MsgBuilder, RoleMessageBuilder, ToolResultMessageBuilder
from ._serializable import JsonSerializable
from ._roles import RESTRICTED_ROLES, SystemBlock, UserBlock, check_role_content
from ._usage import ChatUsage, check_optional_usage, usage_from_map
from .errors import ArgumentTypeError, MissingStructuredDataError, RoleContentError

if TYPE_CHECKING:
    from ._role_messages import AssistantMessage, SystemMessage, UserMessage

__all__ = ["MessageMetadataKeys", "Msg"]

_KEEP: Any = Sentinel("<unchanged>")  # a field ``__replace__`` is not asked to change

# Covariant so that a SystemMessage is usable wherever a Msg is expected.
_B = TypeVar("_B", bound=ContentBlock, default=ContentBlock, covariant=True)
_T = TypeVar("_T", bound=ContentBlock)
_U = TypeVar("_U", bound=ContentBlock)
_V = TypeVar("_V", bound=ContentBlock)
# What the block-reading methods take, as isinstance does: a block class or a tuple of them.
_BlockClasses = type[ContentBlock] | tuple[type[ContentBlock], ...]
# Four classes or more: typed as ContentBlock, spelled out so that mypy (which would infer the classes'
# join) and pyright (their union) agree.
_FourOrMoreBlockClasses = tuple[
    type[ContentBlock], type[ContentBlock], type[ContentBlock], type[ContentBlock], Unpack[tuple[type[ContentBlock], ...]]
]


class MessageMetadataKeys:
    """Metadata keys with a meaning to AgentScope, as in Java's ``MessageMetadataKeys``."""

    BYPASS_MULTIAGENT_HISTORY_MERGE: Final = "_bypass_multiagent_history_merge"
    STRUCTURED_OUTPUT_REMINDER: Final = "_structured_output_reminder"
    STRUCTURED_OUTPUT_REMINDER_TYPE: Final = "_structured_output_reminder_type"
    CHAT_USAGE: Final = "_chat_usage"
    STRUCTURED_OUTPUT: Final = "_structured_output"
    CACHE_CONTROL: Final = "_cache_control"


# No ``__match_args__``: the constructor's positional arguments are the content, so a positional
# pattern (``case UserMessage(x)``) would bind something else (the id); patterns name fields.
@attrs.frozen(init=False, eq=False, match_args=False)
class Msg(JsonSerializable, Generic[_B]):
    """One turn of a conversation: who said it (``role``, ``name``) and what (``content``).

    Build one with a role-pinned subclass (``UserMessage("hi")``) or a builder
    (``AssistantMessage.builder()…build()``).  Plain ``Msg`` is for code that does
    not know the role in advance; its role is checked at run time only.  A plain
    ``Msg`` equals the role class's message with the same fields: the class is a
    static view of the role, not part of the value (JSON gives back the role's class).
    """

    METADATA_GENERATE_REASON: ClassVar[str] = GENERATE_REASON_KEY
    METADATA_CONFIRM_RESULTS: ClassVar[str] = "agentscope_confirm_results"
    METADATA_CONFIRM_REQUEST_REPLY_ID: ClassVar[str] = "agentscope_confirm_request_reply_id"
    METADATA_EXTERNAL_EXECUTION_REQUEST_REPLY_ID: ClassVar[str] = (
        "agentscope_external_execution_request_reply_id"
    )
    METADATA_SYNTHETIC: ClassVar[str] = "agentscope_synthetic"
    METADATA_REMINDER_KIND: ClassVar[str] = "agentscope_reminder_kind"
    _ROLE: ClassVar[MsgRole | None] = None  # the role a subclass pins; None: any

    id: str | None
    name: str | None
    role: MsgRole | None
    content: tuple[_B, ...]
    metadata: Mapping[str, Any]
    timestamp: str | None
    usage: ChatUsage | None

    def __init__(
        # A plain Msg's role is known at run time only: it is a Msg of any block, whatever it is
        # made with (else Msg(TextBlock(...)) would refuse a tool call given to with_content later).
        self: Msg[ContentBlock],
        *content: str | ContentBlock | Iterable[str | ContentBlock],
        role: MsgRole | None = MsgRole.USER,
        name: str | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: str | None = None,
        usage: ChatUsage | None = None,
        generate_reason: GenerateReason | None = None,
    ) -> None:
        self._init(
            content, role, name, id, metadata, timestamp, usage, generate_reason
        )

    def __eq__(self, other: object) -> bool:
        # Across classes only within the family whose fields are Msg's: a subclass adding fields
        # compares as attrs has it compare, with its own class only.
        if type(other) is not type(self) and (
            not isinstance(other, Msg) or other.__attrs_attrs__ is not self.__attrs_attrs__
        ):
            return NotImplemented
        return (
            self.id == other.id
            and self.role is other.role
            and self.content == other.content
            and self.name == other.name
            and self.metadata == other.metadata
            and self.timestamp == other.timestamp
            and self.usage == other.usage
        )

    def __hash__(self) -> int:
        return hash((self.id, self.name, self.role, self.content, self.metadata, self.timestamp, self.usage))

    def _init(
        self,
        content: tuple[Any, ...],
        role: MsgRole | None,
        name: str | None,
        id: str | None,
        metadata: Mapping[str, Any] | None,
        timestamp: str | None,
        usage: ChatUsage | None,
        generate_reason: GenerateReason | None,
    ) -> None:
        # The convenience constructors: content items may be strings, ids are generated.
        owner = type(self).__name__
        if generate_reason is not None:
            metadata = _with_reason(metadata, generate_reason, owner)
        self._set_fields(
            new_msg_id() if id is None else id,
            name,
            role,
            normalize_content(content, f"{owner} content"),
            metadata,
            new_msg_timestamp() if timestamp is None else timestamp,
            usage,
        )

    def _set_fields(
        self,
        id: str | None,
        name: str | None,
        role: MsgRole | None,
        content: tuple[ContentBlock, ...],
        metadata: Mapping[str, Any] | None,
        timestamp: str | None,
        usage: ChatUsage | None,
    ) -> None:
        # Every way of making a message ends here, so the checks cannot be bypassed.
        # Exact-type tests first: this is the hot path; the full checks word the errors.
        cls = type(self)
        if type(role) is not MsgRole and role is not None:
            role = check_enum(role, MsgRole, f"{cls.__name__}.role")
        pinned = cls._ROLE
        if pinned is not None and role is not pinned:
            # A TypeError, as from the builder's role(): to mypy the class's role field admits no other.
            raise ArgumentTypeError(
                f"{cls.__name__} role is fixed to {pinned.value}, got {describe(role)}; "
                "use Msg.builder_for_role(role) to build a message of another role"
            )
        if role in RESTRICTED_ROLES:
            check_role_content(role, content)
        if type(id) is not str and id is not None:
            id = check_optional_str(id, f"{cls.__name__}.id")
        if type(name) is not str and name is not None:
            name = check_optional_str(name, f"{cls.__name__}.name")
        if type(timestamp) is not str and timestamp is not None:
            timestamp = check_optional_str(timestamp, f"{cls.__name__}.timestamp")
        if usage is not None and type(usage) is not ChatUsage:  # the exact type first: the hot path
            check_optional_usage(usage, f"{cls.__name__}.usage")
        _set_id(self, id)
        _set_name(self, name)
        _set_role(self, role)
        _set_content(self, content)
        if metadata is None or metadata is EMPTY:  # the common case, without building the argument name
            metadata = EMPTY
        else:
            metadata = check_mapping(metadata, f"{cls.__name__}.metadata", drop_none=True)
        _set_metadata(self, metadata)
        _set_timestamp(self, timestamp)
        _set_usage(self, usage)

    @classmethod
    def _from_fields(
        cls,
        id: str | None,
        name: str | None,
        role: MsgRole | None,
        content: Iterable[ContentBlock],
        metadata: Mapping[str, Any] | None,
        timestamp: str | None,
        usage: ChatUsage | None,
    ) -> Self:
        """A message from exactly these field values (nothing generated): builders, copies, decoding."""
        content = tuple(content)
        for index, block in enumerate(content):
            if not isinstance(block, ContentBlock):
                raise ArgumentTypeError(
                    f"{cls.__name__} content[{index}] must be a content block instance, got {describe(block)}"
                )
        self = object.__new__(cls)
        self._set_fields(id, name, role, content, metadata, timestamp, usage)
        return self

    @classmethod
    def _from_decoded(
        cls,
        id: str | None,
        name: str | None,
        role: MsgRole | None,
        content: list[ContentBlock],
        metadata: Mapping[str, Any] | None,
        timestamp: str | None,
        usage: ChatUsage | None,
    ) -> Self:
        """``_from_fields`` for the JSON decoder and the event assembler, whose content is a list of
        the blocks they have made: they need no instance check, which costs more than the rest of
        the message's checks."""
        self = object.__new__(cls)
        try:
            self._set_fields(id, name, role, tuple(content), metadata, timestamp, usage)
        except RoleContentError:
            # The decoder's content, when it left null entries out, says where each block stood:
            # the error names the block as the document places it.
            indices = getattr(content, "indices", None)
            if indices is not None:
                check_role_content(role, content, indices)
            raise
        return self

    # -- builders ---------------------------------------------------------------

    @staticmethod
    def builder() -> MsgBuilder:
        """A builder of plain ``Msg`` (role USER unless ``.role(...)`` says otherwise)."""
        return MsgBuilder()

    @overload
    @staticmethod
    def builder_for_role(role: Literal[MsgRole.USER]) -> RoleMessageBuilder[UserMessage, UserBlock]: ...
    @overload
    @staticmethod
    def builder_for_role(role: Literal[MsgRole.SYSTEM]) -> RoleMessageBuilder[SystemMessage, SystemBlock]: ...
    @overload
    @staticmethod
    def builder_for_role(role: Literal[MsgRole.ASSISTANT]) -> RoleMessageBuilder[AssistantMessage, ContentBlock]: ...
    @overload
    @staticmethod
    def builder_for_role(role: Literal[MsgRole.TOOL]) -> ToolResultMessageBuilder: ...
    @overload
    @staticmethod
    def builder_for_role(role: None) -> MsgBuilder: ...
    @overload
    @staticmethod
    def builder_for_role(role: MsgRole | None) -> MessageBuilder[Msg, ContentBlock]: ...
    @staticmethod
    def builder_for_role(role: MsgRole | None) -> MessageBuilder[Any, Any]:
        """The builder of ``role``'s subclass (``MsgRole.USER`` gives ``UserMessage.builder()``)."""
        if role is None:
            return Msg.builder()
        from ._role_messages import PINNED  # which imports this module

        return PINNED[check_enum(role, MsgRole, "role")].builder()

    # -- reading ----------------------------------------------------------------

    def get_text_content(self) -> str:
        """Every ``TextBlock.text`` joined by ``"\\n"`` (empty texts count); ``""`` when none."""
        return "\n".join([block.text for block in self.content if isinstance(block, TextBlock)])

    # Tuples of two and three classes are typed as the union of their members; a longer one as
    # ContentBlock; a tuple of unknown length, of classes of one type, as that type.
    @overload
    def get_content_blocks(self, cls: type[_T]) -> list[_T]: ...
    @overload
    def get_content_blocks(self, cls: tuple[type[_T], type[_U]]) -> list[_T | _U]: ...
    @overload
    def get_content_blocks(self, cls: tuple[type[_T], type[_U], type[_V]]) -> list[_T | _U | _V]: ...
    @overload
    def get_content_blocks(self, cls: _FourOrMoreBlockClasses) -> list[ContentBlock]: ...
    @overload
    def get_content_blocks(self, cls: tuple[type[_T], ...]) -> list[_T]: ...
    def get_content_blocks(self, cls: _BlockClasses) -> list[Any]:
        """The blocks that are instances of ``cls`` (a block class, or a tuple of them, as for
        ``isinstance``), in order."""
        check_block_class(cls, "get_content_blocks")
        return [block for block in self.content if isinstance(block, cls)]

    @overload
    def get_first_content_block(self, cls: None = None) -> _B | None: ...
    @overload
    def get_first_content_block(self, cls: type[_T]) -> _T | None: ...
    @overload
    def get_first_content_block(self, cls: tuple[type[_T], type[_U]]) -> _T | _U | None: ...
    @overload
    def get_first_content_block(self, cls: tuple[type[_T], type[_U], type[_V]]) -> _T | _U | _V | None: ...
    @overload
    def get_first_content_block(self, cls: _FourOrMoreBlockClasses) -> ContentBlock | None: ...
    @overload
    def get_first_content_block(self, cls: tuple[type[_T], ...]) -> _T | None: ...
    def get_first_content_block(self, cls: _BlockClasses | None = None) -> ContentBlock | None:
        """The first block (of ``cls``, a block class or a tuple of them), or ``None``."""
        if cls is not None:
            check_block_class(cls, "get_first_content_block")
        for block in self.content:
            if cls is None or isinstance(block, cls):
                return block
        return None

    def has_content_blocks(self, cls: _BlockClasses) -> bool:
        """Whether any block is an instance of ``cls`` (a block class, or a tuple of them)."""
        check_block_class(cls, "has_content_blocks")
        return any(isinstance(block, cls) for block in self.content)

    def get_generate_reason(self) -> GenerateReason:
        """Why the message ended; ``MODEL_STOP`` when the metadata does not say (or says nonsense)."""
        value = self.metadata.get(self.METADATA_GENERATE_REASON)
        if isinstance(value, GenerateReason):
            return value
        if isinstance(value, str):
            return GenerateReason.__members__.get(value, GenerateReason.MODEL_STOP)
        return GenerateReason.MODEL_STOP

    def get_chat_usage(self) -> ChatUsage | None:
        """``usage``, else the usage recorded under ``metadata["_chat_usage"]``, else ``None``."""
        if self.usage is not None:
            return self.usage
        value = self.metadata.get(MessageMetadataKeys.CHAT_USAGE)
        if isinstance(value, ChatUsage):
            return value
        if isinstance(value, Mapping):
            return usage_from_map(value)
        return None

    def has_structured_data(self) -> bool:
        """Whether ``metadata["_structured_output"]`` exists."""
        return MessageMetadataKeys.STRUCTURED_OUTPUT in self.metadata

    def get_structured_data(self) -> Any:
        """A deep copy of ``metadata["_structured_output"]``, in plain ``dict`` and ``list``: yours to change."""
        try:
            value = self.metadata[MessageMetadataKeys.STRUCTURED_OUTPUT]
        except KeyError:
            raise MissingStructuredDataError(
                "this message has no structured output (metadata key '_structured_output'); "
                "check has_structured_data() first"
            ) from None
        return thawed(value)

    # -- copies -----------------------------------------------------------------

    def __replace__(
        self,
        *,
        id: str | None = _KEEP,
        name: str | None = _KEEP,
        role: MsgRole | None = _KEEP,
        content: Iterable[str | _B] = _KEEP,
        metadata: Mapping[str, Any] | None = _KEEP,
        timestamp: str | None = _KEEP,
        usage: ChatUsage | None = _KEEP,
    ) -> Self:
        """``copy.replace(msg, name="bob")`` (Python 3.13+): a copy, of the same class, with those fields
        changed and every rule checked again; ``content`` is given as to ``with_content``.  Typed, so
        that mypy checks the changes as it checks a constructor's arguments."""
        blocks: Iterable[ContentBlock] = self.content
        if content is not _KEEP:
            # Wrapped, not tuple()d: a lone block or string is one item, an iterable is flattened.
            blocks = normalize_content((content,), f"{type(self).__name__} content")
        return type(self)._from_fields(
            self.id if id is _KEEP else id,
            self.name if name is _KEEP else name,
            self.role if role is _KEEP else role,
            blocks,
            self.metadata if metadata is _KEEP else metadata,
            self.timestamp if timestamp is _KEEP else timestamp,
            self.usage if usage is _KEEP else usage,
        )

    def with_generate_reason(self, reason: GenerateReason) -> Self:
        """A copy, of the same class, that records ``reason``."""
        return self.__replace__(metadata=_with_reason(self.metadata, reason, type(self).__name__))

    def with_content(self, content: Iterable[str | _B]) -> Self:
        """A copy, of the same class, holding ``content`` (checked against the role again); strings
        become text blocks, as in the constructor."""
        return self.__replace__(content=content)

    def with_metadata(self, metadata: Mapping[str, Any] | None) -> Self:
        """A copy, of the same class, with ``metadata`` replacing the old (``None`` empties it).

        The generate reason is metadata too (``METADATA_GENERATE_REASON``), so it goes with the rest,
        as in Java: ``with_metadata({**msg.metadata, ...})`` keeps it."""
        return type(self)._from_fields(
            self.id, self.name, self.role, self.content, metadata, self.timestamp, self.usage
        )


# The slots' own setters: frozen attrs classes refuse ``setattr``, and these are
# also faster than ``object.__setattr__`` on the hot path.
_set_id = Msg.__dict__["id"].__set__
_set_name = Msg.__dict__["name"].__set__
_set_role = Msg.__dict__["role"].__set__
_set_content = Msg.__dict__["content"].__set__
_set_metadata = Msg.__dict__["metadata"].__set__
_set_timestamp = Msg.__dict__["timestamp"].__set__
_set_usage = Msg.__dict__["usage"].__set__


def _with_reason(
    metadata: Mapping[str, Any] | None, reason: GenerateReason, owner: str
) -> dict[str, Any]:
    reason = check_enum(reason, GenerateReason, f"{owner} generate_reason")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ArgumentTypeError(f"{owner}.metadata must be a mapping with str keys, got {describe(metadata)}")
    return {**(metadata or {}), Msg.METADATA_GENERATE_REASON: reason.name}

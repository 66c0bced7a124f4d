"""Which blocks each role may hold: the one table every check is derived from.

The type aliases are the table.  The runtime check (:func:`check_role_content`),
the error wording, the messages' static types and the docs all read them, so
a rule changes in exactly one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Union, get_args

from typing_extensions import TypeAlias

from ._blocks import AudioBlock, ContentBlock, DataBlock, ImageBlock, TextBlock, VideoBlock
from ._enums import MsgRole
from .errors import RoleContentError

__all__ = [
    "ALLOWED_BLOCKS",
    "RESTRICTED_ROLES",
    "AssistantBlock",
    "SystemBlock",
    "ToolBlock",
    "UserBlock",
    "check_role_content",
]

#: What a USER message may hold: text and media.
UserBlock: TypeAlias = Union[TextBlock, DataBlock, ImageBlock, AudioBlock, VideoBlock]
#: What a SYSTEM message may hold: text only.
SystemBlock: TypeAlias = TextBlock
#: What an ASSISTANT message may hold: anything.
AssistantBlock: TypeAlias = ContentBlock
#: What a TOOL message may hold: anything (kept unrestricted for compatibility with Java).
ToolBlock: TypeAlias = ContentBlock


def _members(alias: object) -> tuple[type[ContentBlock], ...]:
    return get_args(alias) or (alias,)


#: Role → the block classes it allows.  ``ContentBlock`` means every block.  Read-only: the rules
#: are the type aliases above, and a change here would reach neither mypy nor the checks.
ALLOWED_BLOCKS: Mapping[MsgRole, tuple[type[ContentBlock], ...]] = MappingProxyType(
    {
        MsgRole.USER: _members(UserBlock),
        MsgRole.SYSTEM: _members(SystemBlock),
        MsgRole.ASSISTANT: _members(AssistantBlock),
        MsgRole.TOOL: _members(ToolBlock),
    }
)

# Roles that restrict anything, with the wording Java uses: "text/data/image/audio/video".
# A tuple searched by identity, not a dict: hashing an enum member runs Python code,
# and this check runs for every message built.
_RESTRICTED: tuple[tuple[MsgRole, tuple[type[ContentBlock], ...], str], ...] = tuple(
    (role, allowed, "/".join(cls.type for cls in allowed))
    for role, allowed in ALLOWED_BLOCKS.items()
    if ContentBlock not in allowed
)


#: The roles that do not allow every block (compared by identity: ``role in RESTRICTED_ROLES``).
RESTRICTED_ROLES: tuple[MsgRole, ...] = tuple(role for role, _, _ in _RESTRICTED)


def check_role_content(
    role: MsgRole | None, content: Iterable[ContentBlock], indices: Sequence[int] | None = None
) -> None:
    """Raise :class:`RoleContentError` for the first block ``role`` may not hold; ``indices``: where
    each block stood in a document, when not at its own index (null entries left out)."""
    for restricted, allowed, wording in _RESTRICTED:
        if role is restricted:
            for index, block in enumerate(content):
                if not isinstance(block, allowed):
                    path = f"content[{index if indices is None else indices[index]}]"
                    raise RoleContentError(
                        f"{role.value} message may only contain {wording} blocks, got {type(block).__name__} at {path}",
                        path,
                    )
            return
